"""Every setting is documented: the README names each one's environment variable."""

import re
from pathlib import Path

import pytest

from app.config import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def env_name(field: str) -> str:
    """The environment variable pydantic-settings reads for field."""
    info = Settings.model_fields[field]
    alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
    prefix = Settings.model_config.get("env_prefix") or ""
    return (alias or prefix + field).upper()


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_setting_is_in_the_readme(field: str) -> None:
    assert README.is_file(), "README.md is missing"
    name = env_name(field)
    text = README.read_text(encoding="utf-8")
    assert re.search(rf"(?<![A-Z0-9_]){re.escape(name)}(?![A-Z0-9_])", text), (
        f"README.md does not mention {name} (Settings.{field})"
    )
