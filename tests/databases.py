"""A pytest plugin: every test that touches the database runs on SQLite and on PostgreSQL,
each time on a fresh, empty database of its own.

Ask for `database_url` (the `settings`, `app` and `client` fixtures do); a test that only
makes sense on PostgreSQL is marked `postgresql` and asks for `postgres_server`. The PostgreSQL
runs use the server in TEST_POSTGRES_URL (scripts/with-postgres.sh starts one, as
`make test` and `.ci/run` do) and create a database per test, dropped afterwards. Without
that server they are skipped with a notice, except when CI is set: then they fail.
"""

import os
import secrets

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "")
ENGINES = ["sqlite", "postgresql"]


def pytest_configure(config):
    config.addinivalue_line("markers", "postgresql: needs the PostgreSQL test server")


def runs_on_postgres(item):
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("database_url") == "postgresql":
        return True
    return item.get_closest_marker("postgresql") is not None


def pytest_collection_modifyitems(config, items):
    wanting = [item for item in items if runs_on_postgres(item)]
    if POSTGRES_URL or not wanting:
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(
            "CI is set but TEST_POSTGRES_URL is not: run the tests through "
            "scripts/with-postgres.sh (as make test does), or point it at a server."
        )
    reason = (
        "TEST_POSTGRES_URL not set: PostgreSQL runs skipped "
        "(make test starts a server when PostgreSQL is installed)"
    )
    print(f"\nNOTICE: {reason}")
    for item in wanting:
        item.add_marker(pytest.mark.skip(reason=reason))


class PostgresServer:
    """The test server: hands out a new database per test and drops it afterwards."""

    def __init__(self, url):
        self.url = make_url(url)
        self.admin = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)

    def create_database(self):
        name = f"crownkeeper_test_{secrets.token_hex(6)}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE template0'))
        return name, self.url.set(database=name).render_as_string(hide_password=False)

    def drop_database(self, name):
        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def postgres_server():
    if not POSTGRES_URL:
        pytest.skip("TEST_POSTGRES_URL not set")
    server = PostgresServer(POSTGRES_URL)
    yield server
    server.admin.dispose()


@pytest.fixture(params=ENGINES)
def database_url(request, tmp_path):
    """A URL to a fresh, empty database: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/crownkeeper.db"
        return
    server = request.getfixturevalue("postgres_server")
    name, url = server.create_database()
    yield url
    server.drop_database(name)
