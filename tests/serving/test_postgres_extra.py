"""PostgreSQL as an extra: `pip install .` brings no PostgreSQL driver, `pip install
'.[postgres]'` does (so do `make test`, and `make run` when DATABASE_URL names PostgreSQL),
and a PostgreSQL DATABASE_URL without the driver stops at start saying what to install.
The image installs the extra: tests/serving/test_container.py installs it as the Dockerfile does."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app.db import MissingDriver, check_driver

ROOT = Path(__file__).resolve().parents[2]
# A PostgreSQL server nobody listens on: the start must stop before reaching for it.
NOWHERE = "postgresql://crownkeeper@127.0.0.1:9/crownkeeper"


def names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9._-]+", r)[0].lower() for r in requirements}  # type: ignore[index]


def test_the_postgresql_driver_is_the_postgres_extra_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not {name for name in names(project["dependencies"]) if "psycopg" in name}
    assert names(project["optional-dependencies"]["postgres"]) == {"psycopg"}
    assert any("[binary]" in r for r in project["optional-dependencies"]["postgres"])


def make_dry_run(target: str, **env: str) -> str:
    """What `make target` would run (every step, as if nothing were installed yet)."""
    environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | env
    done = subprocess.run(
        ["make", "-n", "-B", target],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def installs(dry_run: str) -> list[str]:
    return [line for line in dry_run.splitlines() if " install " in line and " -e " in line]


def test_make_test_installs_the_driver_and_make_run_only_for_postgresql():
    assert all("postgres" in line for line in installs(make_dry_run("pytest")))
    on_sqlite = installs(make_dry_run("run", DATABASE_URL="sqlite:///./data/crownkeeper.db"))
    assert on_sqlite and not any("postgres" in line for line in on_sqlite)
    on_postgres = installs(make_dry_run("run", DATABASE_URL=NOWHERE))
    assert on_postgres and all("'.[postgres]'" in line for line in on_postgres)


def without_psycopg(module: str, *arguments: str) -> list[str]:
    """`python -m module arguments`, in a Python where psycopg cannot be imported."""
    script = (
        "import runpy, sys\n"
        "sys.modules['psycopg'] = None  # as if it were not installed\n"
        f"sys.argv[1:] = {list(arguments)!r}\n"
        f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
    )
    return [sys.executable, "-c", script]


@pytest.mark.parametrize(
    "command",
    [
        without_psycopg("app"),
        without_psycopg("uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", "0"),
    ],
    ids=["python -m app", "uvicorn app.main:app"],
)
def test_a_postgresql_url_without_its_driver_stops_at_start_in_one_line(command):
    environment = {**os.environ, "DATABASE_URL": NOWHERE, "HOST": "127.0.0.1", "PORT": "0"}
    done = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0
    assert len(output.splitlines()) == 1, output
    assert output.startswith("Crownkeeper cannot start: DATABASE_URL names a postgresql")
    assert "psycopg" in output and "pip install '.[postgres]'" in output


def test_the_driver_check_names_what_to_install(monkeypatch):
    check_driver("sqlite:///./data/crownkeeper.db")
    check_driver("postgresql+psycopg://user@host/database")  # installed for the tests
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(MissingDriver, match=r"pip install '\.\[postgres\]'"):
        check_driver("postgresql://user@host/database")
    monkeypatch.setitem(sys.modules, "psycopg2", None)
    with pytest.raises(MissingDriver, match=r"postgresql\+psycopg://"):
        check_driver("postgresql+psycopg2://user@host/database")
