"""The storage layer: engines for SQLite and PostgreSQL, write transactions and row locks,
sessions. Everything that differs between the two databases lives here."""

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from sqlalchemy import Engine, event, insert, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.sql import Select
from sqlmodel import Session, create_engine

WRITE_OPTIONS = {"sqlite_begin": "IMMEDIATE"}
# Any fixed number: every process that migrates takes this advisory lock first.
MIGRATION_LOCK_KEY = 0x43524F574E

Selected = TypeVar("Selected", bound=Select[Any])


class MissingDriver(RuntimeError):
    """DATABASE_URL names a database whose driver is not installed. The message is one line,
    saying what to install."""


def check_driver(database_url: str) -> None:
    """MissingDriver unless the driver DATABASE_URL needs can be imported. PostgreSQL's
    (psycopg) comes with the postgres extra: `pip install .` alone installs none."""
    url = make_url(database_url)
    try:
        url.get_dialect().import_dbapi()
    except ImportError as error:
        missing = error.name or url.get_driver_name()
        if url.get_backend_name() != "postgresql":
            install = f"pip install {missing}"
        elif url.get_driver_name() == "psycopg":
            install = "pip install '.[postgres]' (the Docker image has it)"
        else:
            install = (
                "pip install '.[postgres]' and write the URL as postgresql+psycopg://, "
                f"the driver Crownkeeper is tested with (not {url.get_driver_name()})"
            )
        raise MissingDriver(
            f"DATABASE_URL names a {url.get_backend_name()} database, but its driver "
            f"({missing}) is not installed. Install it: {install}."
        ) from None


def make_engine(database_url: str, *, busy_timeout_ms: int = 5000) -> Engine:
    """An engine for database_url, with SQLite set up for a busy table of phones."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        check_driver(database_url)
        # Connections dropped by a database restart are noticed before a request uses them.
        return create_engine(database_url, pool_pre_ping=True)
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(database_url, connect_args={"check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let the "begin" listener below issue BEGIN itself, so writes can be IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    # This process's writers queue here, each woken the moment the one before commits,
    # rather than in SQLite's busy handler, which sleeps and polls (up to 100 ms a turn):
    # under a crowd of saves that polling, not the saves, made the slowest wait a second.
    writers = threading.Lock()
    busy_seconds = busy_timeout_ms / 1000

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # A deferred BEGIN that reads then writes fails with "database is locked" under load;
        # write transactions take the write lock up front instead.
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode == "IMMEDIATE":
            if not writers.acquire(timeout=busy_seconds):
                raise OperationalError(
                    "BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked")
                )
            connection.info["writing"] = True
        try:
            connection.exec_driver_sql(f"BEGIN {mode}")
        except Exception:
            _done_writing(connection)
            raise

    def _done_writing(connection: Connection) -> None:
        # An invalidated connection has no info to read: the pool's "invalidate" event below
        # already let go of its lock.
        if not connection.invalidated and connection.info.pop("writing", False):
            writers.release()

    def _given_back(_dbapi_connection: Any, record: Any, *_: Any) -> None:
        # A connection that goes back to the pool (or is thrown away) mid-write writes no more.
        if record is not None and record.info.pop("writing", False):
            writers.release()

    event.listen(engine, "commit", _done_writing)
    event.listen(engine, "rollback", _done_writing)
    event.listen(engine.pool, "checkin", _given_back)
    event.listen(engine.pool, "invalidate", _given_back)
    return engine


def is_busy(error: Exception) -> bool:
    """True for SQLite's "database is locked" (or busy) after the busy timeout ran out."""
    text = str(getattr(error, "orig", error)).lower()
    return "database is locked" in text or "database is busy" in text


# PostgreSQL's codes for a transaction that lost a race and would pass if run again: a
# deadlock, a serialization failure, and a unique or foreign-key violation met because
# another transaction committed first (the next try reads what it wrote).
RETRYABLE_STATES = frozenset({"40P01", "40001", "23505", "23503"})


def is_retryable(error: Exception) -> bool:
    """True when error is PostgreSQL's answer to a transaction that lost a race with
    another: trying the whole request again decides it. Never on SQLite, whose writers
    take turns (BEGIN IMMEDIATE), so its errors come back the same on a second try."""
    if not isinstance(error, DBAPIError):
        return False
    return getattr(error.orig, "sqlstate", None) in RETRYABLE_STATES


def sqlite_path(database_url: str) -> Path | None:
    """The database file behind a SQLite URL; None for another database or :memory:."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return Path(url.database)


def begin_write(session: Session) -> None:
    """Start a write transaction (BEGIN IMMEDIATE on SQLite), ending any read under way."""
    if session.in_transaction():
        session.rollback()
    session.connection(execution_options=WRITE_OPTIONS)


def locked(statement: Selected, *, of: Any = None) -> Selected:
    """statement, locking the rows it reads until the write transaction ends.

    On PostgreSQL that is SELECT ... FOR NO KEY UPDATE: a second process saving the same game
    waits here, then reads the version the first one wrote. NO KEY: the lock keeps out other
    writers of the row, not the key-share lock another transaction's foreign-key check takes
    on it (as FOR UPDATE would): a finish that holds its game and adds a person's first sums
    (their table_id) would wait for a join holding that table while it waits for the game,
    a deadlock. SQLite has no row locks and needs none: BEGIN IMMEDIATE (begin_write) already
    holds the whole database for one writer. `of` names the table whose rows are locked when
    the statement outer-joins others.
    """
    return statement.with_for_update(of=of, key_share=True).execution_options(
        populate_existing=True
    )


@contextmanager
def migrating(connection: Connection) -> Iterator[None]:
    """One transaction to change the schema in, set up for the database at hand."""
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # Batch migrations rebuild tables; SQLite would treat dropping the old copy of a
        # parent table as deleting its rows. Keys are checked once the migration is done.
        connection.connection.driver_connection.execute("PRAGMA foreign_keys=OFF")
    try:
        with connection.begin():
            if not sqlite:
                # Several workers start at once: one migrates, the others wait, then find
                # nothing left to do.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
            yield
            if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                raise RuntimeError("The migration left rows pointing at missing rows.")
    finally:
        if sqlite:
            connection.connection.driver_connection.execute("PRAGMA foreign_keys=ON")


def get_session(request: Request) -> Iterator[Session]:
    """A session for one request, from the app's sessions (its engine, and who hears of the
    changes made in it), noted in the request, so a try that lost a race can let go of it
    (end_sessions)."""
    with request.app.state.sessions() as session:
        request.scope.setdefault(SESSIONS_KEY, []).append(session)
        yield session


SESSIONS_KEY = "crownkeeper.sessions"


def end_sessions(request: Request) -> None:
    """Roll back and close the sessions the request opened so far: a transaction that
    failed keeps its row locks on PostgreSQL until it is rolled back."""
    for session in request.scope.pop(SESSIONS_KEY, []):
        session.close()


SessionDep = Annotated[Session, Depends(get_session)]


def is_readable(engine: Engine) -> bool:
    """True when the database answers a read at once: no wait for a writer (SQLite reads
    beside a write in WAL mode; the health engine is made with no busy timeout) and none for
    a connection requests hold (the health engine has its own)."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT count(*) FROM alembic_version")).one()
    except OperationalError:
        return False
    return True


def insert_plain_rows(session: Session, table: Any, rows: list[dict[str, Any]]) -> None:
    """INSERT many rows of plain values (numbers, text, booleans) with one executemany of
    the driver's own, inside the session's transaction: for the bulk of an import, where
    SQLAlchemy's work on each row's parameters costs more than the database's."""
    if not rows:
        return
    columns = list(rows[0])
    connection = session.connection()
    compiled = insert(table).compile(dialect=connection.dialect, column_keys=columns)
    order = compiled.positiontup
    values = [tuple(row[name] for name in order) for row in rows] if order else rows
    cursor = connection.connection.cursor()
    try:
        cursor.executemany(str(compiled), values)
    finally:
        cursor.close()
