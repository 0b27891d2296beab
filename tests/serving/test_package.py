"""Installs as a package: the wheel, installed into a fresh virtualenv, serves from any folder
with its own templates, static files and migrations; `crownkeeper serve`, `backup` and
`restore` beside `python -m app`."""

import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from app.web import installable
from tests.installed import (
    ROOT,
    clean_environment,
    fetch,
    free_port,
    new_virtualenv,
    pip_install,
    run,
    serving,
)

# What building the wheel reads: everything else in the repository stays out of it.
BUILD_SOURCES = ("pyproject.toml", "README.md", "LICENSE")
BUILD_FOLDERS = ("backend", "app", "templates", "static", "migrations")


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


def build_wheel(tmp_path: Path) -> Path:
    """The wheel, built from a copy of what it is built from (no build/ left in the repo)."""
    source = tmp_path / "source"
    source.mkdir()
    for name in BUILD_SOURCES:
        shutil.copy2(ROOT / name, source / name)
    for name in BUILD_FOLDERS:
        # Not the compressed copies: the build writes them.
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.br", "*.gz")
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    wheels = tmp_path / "wheels"
    command = ["pip", "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source)]
    run([sys.executable, "-m", *command], tmp_path, 300, clean_environment())
    (wheel,) = wheels.glob("crownkeeper-*.whl")
    return wheel


def worker_config(base: str) -> dict:
    status, _, body = fetch(f"{base}/sw.js")
    assert status == 200
    config: dict = json.loads(body.split("var CONFIG = ", 1)[1].split(";\n", 1)[0])
    return config


@pytest.mark.slow
@pytest.mark.timeout(600)  # a fresh virtualenv and pip install: a minute on a busy machine
def test_the_wheel_in_a_fresh_virtualenv_serves_from_any_folder(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    env = clean_environment()
    python = new_virtualenv(tmp_path / "venv", env)
    constraints = ["-c", str(ROOT / "constraints.txt")]
    pip_install(python, ["install", *constraints, str(wheel)], tmp_path, env)

    elsewhere = tmp_path / "elsewhere"  # no source tree here, nor above
    elsewhere.mkdir()
    data = tmp_path / "data"
    env.update(
        PATH=f"{python.parent}:{env.get('PATH', '')}",
        HOST="127.0.0.1",
        PORT=str(free_port()),
        DATABASE_URL=f"sqlite:///{data / 'crownkeeper.db'}",
    )
    where = run(
        [str(python), "-c", "import app.config as c; print(c.__file__, c.TEMPLATES_DIR)"],
        elsewhere,
        60,
        env,
    )
    site_packages = str(python.parent.parent / "lib")
    assert all(path.startswith(site_packages) for path in where.split()), where

    crownkeeper = str(python.parent / "crownkeeper")
    assert "crownkeeper backup" in run([crownkeeper, "--help"], elsewhere, 60, env)
    with serving([crownkeeper, "serve"], elsewhere, env, tmp_path / "serve.log") as base:
        status, content_type, page = fetch(f"{base}/")
        assert status == 200 and content_type.startswith("text/html")
        assets = re.findall(r'(?:href|src)="([^"]*/static/[^"]+)"', page)
        assert assets, "the home page links no /static/ files"
        assert all(fetch(base + asset)[0] == 200 for asset in assets)
        # The service worker's cache name: the same build, installed or from the source tree.
        config = worker_config(base)
        assert config["version"] == installable.build_version()
        # (and the later scripts' words, in the worker's language: English here)
        assert config["static"] == [*installable.static_files(), "words-en.js"]
        status, _, body = fetch(f"{base}/api/games", {"players": ["Ann", "Bob"]})
        assert status == 201, body  # the migrations made the tables

        said = run([crownkeeper, "backup"], elsewhere, 60, env)
        backup = Path(said.split("Backup written to ", 1)[1].strip())
        assert backup.is_file() and backup.parent == data / "backups"

    said = run([crownkeeper, "restore", str(backup)], elsewhere, 60, env)
    assert said.startswith(f"Restored {data / 'crownkeeper.db'}")

    with serving([str(python), "-m", "app"], elsewhere, env, tmp_path / "module.log") as base:
        assert fetch(f"{base}/")[0] == 200
        assert worker_config(base)["version"] == installable.build_version()
    assert not list(elsewhere.iterdir()), "nothing is written into the folder it runs from"
