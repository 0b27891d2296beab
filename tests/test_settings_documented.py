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


def test_tests_never_read_the_developers_env_file_or_environment(tmp_path, monkeypatch):
    from tests.conftest import test_settings

    (tmp_path / ".env").write_text("DATABASE_URL=sqlite:///from-dotenv.db\nROOT_PATH=/dotenv\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PORT", "1234")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    assert Settings().root_path == "/dotenv"  # the app itself does read them
    chosen = test_settings("sqlite:///chosen.db")
    assert chosen.database_url == "sqlite:///chosen.db"
    assert (chosen.root_path, chosen.port, chosen.forwarded_allow_ips) == ("", 0, "127.0.0.1")
