"""Starting the server safely: one owner of the database, a database that is Crownkeeper's,
and enough open files for the connections, with a margin kept for the database and logs."""

import resource
import sys
from pathlib import Path
from typing import IO

from sqlalchemy.exc import DatabaseError, OperationalError

from . import lock
from .backup import NotCrownkeeper, check_database
from .config import Settings
from .db import make_engine, sqlite_path
from .migrate import DatabaseTooNew, upgrade_to_head

# Exit code for "this database cannot be served" (uvicorn uses 3 for a failed start too).
CANNOT_START = 3
# Open files kept for the database, its WAL, logs and backups beyond the connections.
FILES_KEPT_BACK = 64


def refuse(message: str) -> None:
    """Print message as one paragraph and stop with CANNOT_START, no traceback."""
    print(f"Crownkeeper cannot start: {message}", file=sys.stderr)
    raise SystemExit(CANNOT_START)


def take_database(settings: Settings) -> IO[str] | None:
    """Hold the database's lock for the life of this process (before anything touches the
    database), check the file is Crownkeeper's, and bring it up to date. Exits with
    CANNOT_START and a message otherwise."""
    database = sqlite_path(settings.database_url)
    if database is None:
        return None
    try:
        held = lock.acquire(database.resolve(), listen=settings.host, port=settings.port)
    except lock.DatabaseInUse as error:
        refuse(str(error))
    try:
        check_database(database)
        engine = make_engine(settings.database_url, busy_timeout_ms=settings.busy_timeout_ms)
        try:
            upgrade_to_head(engine)
        finally:
            engine.dispose()
    except (NotCrownkeeper, DatabaseTooNew) as error:
        refuse(str(error))
    except (DatabaseError, OperationalError) as error:
        refuse(
            f"the database {database} could not be brought up to date ({error.orig}). "
            "Restore a backup (python -m app restore PATH) or point DATABASE_URL elsewhere."
        )
    return held


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


def database_file(settings: Settings) -> Path | None:
    return sqlite_path(settings.database_url)
