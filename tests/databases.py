"""A pytest plugin: every test that touches the database runs on SQLite and on PostgreSQL,
each time on a fresh, empty database of its own.

Ask for `database_url` for an empty database (the migration tests do), or for
`migrated_database_url` for one at the newest schema with no rows (the `settings`, `app` and
`client` fixtures do: their app starts without migrating); a test that only makes sense on
PostgreSQL is marked `postgresql` and asks for `postgres_server`. The PostgreSQL runs use the
server in TEST_POSTGRES_URL (scripts/with-postgres.sh starts one, as `make test` and
`.ci/run` do): a database for the session, a schema of its own per test. Without
that server they are skipped with a notice, except when CI is set (to anything but 0 or
false): then they fail.
"""

import contextlib
import os
import secrets
import shutil

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlalchemy.pool import NullPool

from app.migrate import alembic_config, upgrade_to_head

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "")
ENGINES = ["sqlite", "postgresql"]


def pytest_configure(config):
    config.addinivalue_line("markers", "postgresql: needs the PostgreSQL test server")
    config.addinivalue_line(
        "markers", "both_databases: a browser test that runs on PostgreSQL as well as SQLite"
    )
    config.addinivalue_line(
        "markers",
        "one_database: tests of what the web layer draws (pages, escaping, headers), the same "
        "whichever database holds the game: they run on SQLite only",
    )


def pytest_generate_tests(metafunc):
    """Every test asking for a database runs on both engines, unless it names its own.
    Browser tests drive the same routes the API tests check on both, so they run on SQLite
    only (keeping CI short), except those marked both_databases (live updates, whose
    PostgreSQL path goes through the relay); so do tests marked one_database (how pages are
    drawn: what they draw comes from the service, tested on both)."""
    if "database_engine" not in metafunc.fixturenames:
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if "database_engine" in (names.split(",") if isinstance(names, str) else names):
            return
    engines = ENGINES
    definition = metafunc.definition
    if definition.get_closest_marker("browser") and not definition.get_closest_marker(
        "both_databases"
    ):
        engines = ["sqlite"]
    if definition.get_closest_marker("one_database"):
        engines = ["sqlite"]
    metafunc.parametrize("database_engine", engines, indirect=True)


def runs_on_postgres(item):
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("database_engine") == "postgresql":
        return True
    return item.get_closest_marker("postgresql") is not None


def pytest_collection_modifyitems(config, items):
    wanting = [item for item in items if runs_on_postgres(item)]
    if POSTGRES_URL or not wanting:
        return
    from tests.conftest import running_in_ci  # loaded by now: conftest loads this plugin

    if running_in_ci():
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
    """The test server: databases and schemas made for tests, and dropped afterwards."""

    def __init__(self, url):
        self.url = make_url(url)
        self.admin = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)

    def create_database(self):
        """A new, empty database: (name, URL)."""
        name = f"crownkeeper_test_{secrets.token_hex(6)}"
        self._run(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return name, self.url.set(database=name).render_as_string(hide_password=False)

    def drop_database(self, name):
        self._run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _run(self, statement, engine=None):
        with (engine or self.admin).connect() as connection:
            connection.execute(text(statement))


class SessionDatabase:
    """One database for the session; each test gets an empty schema of its own in it, which
    its connections see as their whole world (search_path). A schema costs a millisecond
    where a database costs a few hundred."""

    def __init__(self, server):
        self.server = server
        self.name, url = server.create_database()
        self.url = make_url(url)
        # One connection kept open for the session: each test hands its schema back on it.
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT", pool_size=1)
        self.spare = []  # migrated, emptied schemas ready for the next test
        self.tables = None  # the tables a migrated schema holds
        self.emptying_order = []  # its tables but alembic_version, referring ones first
        self.head = sorted(ScriptDirectory.from_config(alembic_config()).get_heads())

    def create_schema(self):
        schema = f"test_{secrets.token_hex(6)}"
        self.server._run(f'CREATE SCHEMA "{schema}"', self.admin)
        return schema, self._url(schema)

    def drop_schema(self, schema):
        with self.admin.connect() as connection:
            # A connection a test left open must not hang the run: the database goes at the end.
            connection.execute(text("SET lock_timeout = '5s'"))
            with contextlib.suppress(OperationalError):
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))

    def migrated_schema(self):
        """A schema at the newest revision with every table empty: (name, URL). Migrating
        costs a third of a second on PostgreSQL, so schemas a test is done with are emptied
        and handed out again (give_back)."""
        if self.spare:
            schema = self.spare.pop()
            return schema, self._url(schema)
        schema, url = self.create_schema()
        engine = create_engine(url, poolclass=NullPool)
        try:
            upgrade_to_head(engine)
            if self.tables is None:
                self.tables = sorted(inspect(engine).get_table_names())
                found = MetaData()
                found.reflect(engine)
                # Rows that point at others go first.
                self.emptying_order = [
                    table.name
                    for table in reversed(found.sorted_tables)
                    if table.name != "alembic_version"
                ]
        finally:
            engine.dispose()
        return schema, url

    def give_back(self, schema):
        """Empty the schema's tables for the next test; a schema the test changed (or left
        locked) is dropped instead."""
        try:
            with self.admin.connect() as connection:
                connection.execute(text("SET lock_timeout = '2s'"))
                found = connection.execute(
                    text("SELECT tablename FROM pg_tables WHERE schemaname = :schema"),
                    {"schema": schema},
                ).scalars()
                head = connection.execute(
                    text(f'SELECT version_num FROM "{schema}".alembic_version')
                ).scalars()
                if sorted(found) != self.tables or sorted(head) != self.head:
                    raise LookupError("the schema changed")
                # A test leaves a few rows: DELETE is far quicker than TRUNCATE for them. One
                # round trip, run as one transaction.
                connection.exec_driver_sql(
                    "; ".join(f'DELETE FROM "{schema}"."{table}"' for table in self.emptying_order)
                )
        except (LookupError, OperationalError, ProgrammingError):
            self.drop_schema(schema)
            return
        self.spare.append(schema)

    def _url(self, schema):
        url = self.url.update_query_dict({"options": f"-csearch_path={schema}"})
        return url.render_as_string(hide_password=False)

    def drop(self):
        self.admin.dispose()
        self.server.drop_database(self.name)


@pytest.fixture(scope="session")
def postgres_server():
    if not POSTGRES_URL:
        pytest.skip("TEST_POSTGRES_URL not set")
    server = PostgresServer(POSTGRES_URL)
    yield server
    server.admin.dispose()


@pytest.fixture(scope="session")
def postgres_test_database(postgres_server):
    database = SessionDatabase(postgres_server)
    yield database
    database.drop()


@pytest.fixture
def database_engine(request):
    """The database the test runs on, "sqlite" or "postgresql": every test asking for a
    database is parametrized with both (pytest_generate_tests)."""
    return request.param


@pytest.fixture
def database_url(request, database_engine, tmp_path):
    """A URL to a fresh, empty database: a SQLite file, or a new PostgreSQL schema."""
    if database_engine == "sqlite":
        yield f"sqlite:///{tmp_path}/crownkeeper.db"
        return
    database = request.getfixturevalue("postgres_test_database")
    schema, url = database.create_schema()
    yield url
    database.drop_schema(schema)


@pytest.fixture(scope="session")
def migrated_sqlite_file(tmp_path_factory):
    """A SQLite database at the newest revision, made once per test process."""
    path = tmp_path_factory.mktemp("migrated") / "crownkeeper.db"
    engine = create_engine(f"sqlite:///{path}", poolclass=NullPool)
    try:
        upgrade_to_head(engine)
    finally:
        engine.dispose()
    return path


@pytest.fixture
def migrated_database_url(request, database_engine, tmp_path):
    """Like database_url, but already at the newest schema, as an app leaves a new database
    on its first start (the migrations themselves are tested on database_url): a test's app
    then starts without migrating. On SQLite it is the same file as database_url's."""
    if database_engine == "sqlite":
        path = tmp_path / "crownkeeper.db"
        shutil.copyfile(request.getfixturevalue("migrated_sqlite_file"), path)
        yield f"sqlite:///{path}"
        return
    database = request.getfixturevalue("postgres_test_database")
    schema, url = database.migrated_schema()
    yield url
    database.give_back(schema)


def wired_session(engine, *, publish=None):
    """A session on engine whose changes the tables follow, as the app's sessions do (and,
    given publish, the live pages): for tests that call the services without an app."""
    from app.games import sessions
    from app.main import game_events

    return sessions(engine, game_events(publish=publish))()
