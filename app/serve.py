"""Starting the server safely: one owner of the database, one process on SQLite, a database
that is Crownkeeper's and up to date, and enough open files for the connections, with a
margin kept for the database and logs.

The database's safeguards run in the app's lifespan (`open_database`), so every way to start
the app takes them: `python -m app`, `uvicorn app.main:app`, `uvicorn --factory
app.main:create_app`, `fastapi run app/main.py`, gunicorn with uvicorn workers. A refused
start is said in one line (`StartRefusals`), and the server exits with CANNOT_START.
"""

import multiprocessing
import os
import re
import resource
import socket
import sys
from pathlib import Path
from typing import NoReturn

from sqlalchemy import Engine
from sqlalchemy.exc import DatabaseError, OperationalError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import lock
from .backup import NotCrownkeeper, check_database
from .config import Settings
from .db import make_engine, sqlite_path
from .migrate import DatabaseTooNew, upgrade_to_head

# Exit code for "this database cannot be served" (uvicorn uses 3 for a failed start too).
CANNOT_START = 3
# Open files kept for the database, its WAL, logs and backups beyond the connections.
FILES_KEPT_BACK = 64
# Longest start command written into the lock file.
COMMAND_SHOWN = 200


class OneProcessOnly(lock.DatabaseInUse):
    """A second worker process of the same server reached for the SQLite database."""


class NotUpToDate(RuntimeError):
    """The SQLite database could not be checked or brought up to date."""


# The refusals a start may meet: each one's message is one paragraph for the operator.
REFUSALS = (lock.DatabaseInUse, NotCrownkeeper, DatabaseTooNew, NotUpToDate)


def refuse(message: str) -> NoReturn:
    """Print message as one paragraph and stop with CANNOT_START, no traceback."""
    print(f"Crownkeeper cannot start: {message}", file=sys.stderr)
    raise SystemExit(CANNOT_START)


def open_database(settings: Settings, engine: Engine, **about: object) -> Path | None:
    """At the start of a server: hold the SQLite database's lock for as long as it runs
    (before anything touches the database), check the file is Crownkeeper's, and bring the
    database up to date (on PostgreSQL too: workers starting together take turns).

    Returns the lock to give back to `close_database`. Raises one of REFUSALS otherwise: the
    lock held by another server, or by another worker of this one (OneProcessOnly)."""
    database = sqlite_path(settings.database_url)
    if database is None:
        upgrade_to_head(engine)
        return None
    held = _hold(database, **about)
    try:
        check_database(database)
        upgrade_to_head(engine)
    except (DatabaseError, OperationalError) as error:
        close_database(held)
        raise NotUpToDate(
            f"the database {database} could not be brought up to date ({error.orig}). "
            "Restore a backup (python -m app restore PATH) or point DATABASE_URL elsewhere."
        ) from error
    except BaseException:
        close_database(held)
        raise
    return held


def close_database(held: Path | None) -> None:
    """The end of the server that `open_database` started: the lock goes with it."""
    if held is not None:
        lock.let_go(held)


def take_database(settings: Settings) -> Path | None:
    """For `python -m app`, before uvicorn starts: the same safeguards as the lifespan's,
    refused in one line with CANNOT_START. The lock lasts as long as this process (the app
    uvicorn then starts in it holds it again)."""
    if sqlite_path(settings.database_url) is None:
        return None  # PostgreSQL: each worker's lifespan migrates, one at a time
    engine = make_engine(settings.database_url, busy_timeout_ms=settings.busy_timeout_ms)
    try:
        return open_database(settings, engine, listen=settings.host, port=settings.port)
    except REFUSALS as error:
        refuse(str(error))
    finally:
        engine.dispose()


def _hold(database: Path, **about: object) -> Path:
    server = _server_process()
    try:
        return lock.hold(database, server=server, command=_command(), **about)
    except lock.DatabaseInUse as error:
        holder = error.holder
        sibling = (
            server is not None
            and holder.get("server") == server
            and holder.get("host") == socket.gethostname()
        )
        if not sibling:
            raise
        raise OneProcessOnly(
            "SQLite serves one process, and this server started more than one: its worker "
            f"process {holder.get('pid', '?')} already has the database {database}. Start "
            "one worker process (WORKERS=1 with python -m app; no --workers above 1, and no "
            "WEB_CONCURRENCY, with uvicorn, gunicorn or fastapi run), or move to PostgreSQL "
            "for several: DATABASE_URL=postgresql+psycopg://user:password@host/database "
            '(README: "One process, or many").',
            holder,
        ) from None


def _server_process() -> int | None:
    """The process that started this one as one of a server's workers (uvicorn --workers
    or --reload, gunicorn), or None when this process is the server itself."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        return parent.pid
    if "gunicorn.arbiter" in sys.modules:
        return os.getppid()
    return None


def _command() -> str:
    """How this process was started, for the lock file (passwords left out)."""
    if not sys.argv or not sys.argv[0]:
        return ""
    first = Path(sys.argv[0])
    words = [f"python -m {first.parent.name}" if first.name == "__main__.py" else first.name]
    hide = False
    for word in sys.argv[1:]:
        if hide:
            word, hide = "...", False
        elif re.search(r"pass|secret|token", word, re.IGNORECASE):
            if "=" in word:
                word = word.split("=", 1)[0] + "=..."
            else:
                hide = word.startswith("-")
        words.append(word)
    command = " ".join(words)
    return command if len(command) <= COMMAND_SHOWN else command[: COMMAND_SHOWN - 3] + "..."


def refusal(error: BaseException) -> str | None:
    """The one-line message for a refused start, or None for an error that is no refusal."""
    if isinstance(error, REFUSALS):
        return f"Crownkeeper cannot start: {error}"
    return None


class StartRefusals:
    """The server says a refused start in one line, not a traceback: the lifespan's failure
    message (which uvicorn logs as an error) is the refusal's own, and the server exits with
    CANNOT_START (uvicorn's code for a failed start). Other errors keep their traceback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        failed: list[Message] = []

        async def send_failure_later(message: Message) -> None:
            if message["type"] == "lifespan.startup.failed":
                failed.append(message)  # said below, once the error is known
                return
            await send(message)

        try:
            await self.app(scope, receive, send_failure_later)
        except BaseException as error:
            if failed:
                said = refusal(error)
                await send({**failed[0], "message": said} if said else failed[0])
            raise
        for message in failed:  # a failure without an error: passed on as it was
            await send(message)


def raise_open_file_limit() -> int:
    """Raise this process's soft open-file limit to the hard one; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


def concurrency_limit(settings: Settings, open_files: int) -> int:
    """Connections served at once: LIMIT_CONCURRENCY, or just below the open-file limit, so
    the server answers 503 to the next one rather than failing to accept it."""
    derived = max(open_files - FILES_KEPT_BACK, 16)
    return min(settings.limit_concurrency or derived, derived)
