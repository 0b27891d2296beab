"""Every test gets its own database (SQLite and PostgreSQL: tests/databases.py) and its own
app, with settings that come from the test alone: never from the developer's .env or
environment."""

import os

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app

pytest_plugins = ["tests.databases", "tests.browsers"]

# The one definition of where Chromium is: the Makefile exports the same variable.
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"


def running_in_ci() -> bool:
    """CI is set to something that means yes (CI=false and CI=0 mean a developer's machine)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off")


def test_settings(database_url: str, **chosen) -> Settings:
    """Settings with every field given here: no .env file, no environment variable counts."""
    values = {
        "database_url": database_url,
        "host": "127.0.0.1",
        "port": 0,
        "root_path": "",
        "forwarded_allow_ips": "127.0.0.1",
        "max_body_bytes": 64 * 1024,
        "import_max_bytes": 8 * 1024 * 1024,
        "import_max_games": 2000,
        "table_max_people": 500,
        "create_rate_limit": "20/minute;200/day",
        "streams_per_game": 100,
        "streams_total": 2000,
        "busy_timeout_ms": 5000,
        "limit_concurrency": None,
        "timeout_keep_alive": 5,
        "backup_dir": "",
        "backup_keep": 14,
        "workers": 1,
        "public_url": "",
        **chosen,
    }
    assert set(values) == set(Settings.model_fields), "a new setting needs a value for tests"
    return Settings(_env_file=None, **values)


test_settings.__test__ = False  # a helper, not a test


def pytest_collection_modifyitems(config, items):
    """Browser tests (marked `browser`) need Chromium: skipped with a notice on a developer's
    machine without it, a failed run in CI."""
    browser_items = [item for item in items if item.get_closest_marker("browser")]
    if not browser_items or os.access(CHROMIUM, os.X_OK):
        return
    if running_in_ci():
        raise pytest.UsageError(f"CI is set but Chromium is missing at {CHROMIUM}: install it.")
    reason = f"Chromium not found at {CHROMIUM}: browser tests skipped (apt-get install chromium)"
    print(f"\nNOTICE: {reason}")
    for item in browser_items:
        item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def settings(migrated_database_url):
    return test_settings(migrated_database_url)


@pytest.fixture
def app(settings):
    return create_app(settings)


@pytest.fixture
def client(app):
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def new_game(client):
    """Create a game over the API and return its state."""

    def create(players=("Ann", "Ben", "Cy"), **extra):
        response = client.post("/api/games", json={"players": list(players), **extra})
        assert response.status_code == 201, response.text
        return response.json()

    return create


def went_out_first(seat_count, *, out=0, points=None):
    """Round results where `out` went out and everyone else scored `points` (typed)."""
    return [
        {"went_out": True} if seat == out else {"points": (points or [20] * seat_count)[seat]}
        for seat in range(seat_count)
    ]


def round_form(seat_count, **fields):
    """The round-entry form as a page posts it: every seat empty unless fields say otherwise."""
    data = {"from": "game", "version": ""}
    for seat in range(seat_count):
        data[f"cards_{seat}"] = ""
        data[f"points_{seat}"] = ""
    data.update(fields)
    return data
