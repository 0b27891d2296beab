"""Every setting is documented: the README's settings table has a row for each one's
environment variable."""

import re
from pathlib import Path

import pytest

from app.config import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def env_name(field: str) -> str:
    """The environment variable pydantic-settings reads for field."""
    info = Settings.model_fields[field]
    alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
    prefix = Settings.model_config.get("env_prefix") or ""
    return (alias or prefix + field).upper()


def settings_table_rows() -> set[str]:
    """The variables the README's settings table has a row for: lines `| `NAME` | ...`."""
    text = README.read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", text, re.MULTILINE))


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_setting_has_a_row_in_the_readmes_settings_table(field: str) -> None:
    assert README.is_file(), "README.md is missing"
    name = env_name(field)
    assert name in settings_table_rows(), (
        f"README.md's settings table has no row for {name} (Settings.{field})"
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
