"""Installs as a package: every package under app/, and templates, static files and migrations
as package data."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setuptools_config() -> dict:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return pyproject["tool"]["setuptools"]


def test_every_package_under_app_is_in_the_package():
    config = setuptools_config()
    listed = set(config["packages"])
    holding_python = {
        ".".join(folder.relative_to(ROOT).parts)
        for folder in [ROOT / "app", *(ROOT / "app").rglob("*")]
        if folder.is_dir() and any(folder.glob("*.py"))
    }
    assert holding_python <= listed, f"add to pyproject's packages: {holding_python - listed}"
    for package, folder in config["package-dir"].items():
        assert package in listed and (ROOT / folder).is_dir()
    assert set(config["package-dir"]) == {"app.templates", "app.static", "app.migrations"}
