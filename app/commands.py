"""`crownkeeper backup [PATH]` and `crownkeeper restore PATH` (or `python -m app ...`)."""

import sys
from pathlib import Path

from . import lock
from .backup import NotCrownkeeper, restore, write_backup
from .config import Settings
from .db import sqlite_path
from .serve import CANNOT_START

USAGE = """usage: crownkeeper [serve]            serve Crownkeeper
       crownkeeper backup [PATH]      write a consistent copy of the database (server may run)
       crownkeeper restore PATH       replace the database with a checked copy (server stopped)
(`python -m app` takes the same commands.)"""


def run_command(arguments: list[str], settings: Settings) -> int:
    """Run one command; the process's exit code."""
    command, rest = arguments[0], arguments[1:]
    database = sqlite_path(settings.database_url)
    if command in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if not (command == "backup" and len(rest) <= 1 or command == "restore" and len(rest) == 1):
        print(USAGE, file=sys.stderr)
        return 2
    if database is None:
        print(
            "These backups are for SQLite databases; DATABASE_URL names another. On "
            "PostgreSQL use its own tools (pg_dump and pg_restore).",
            file=sys.stderr,
        )
        return 2
    if command == "backup":
        return _backup(database, rest[0] if rest else None, settings)
    return _restore(database, Path(rest[0]))


def _backup(database: Path, path: str | None, settings: Settings) -> int:
    if not database.exists():
        print(f"There is no database at {database} yet: nothing to back up.", file=sys.stderr)
        return 1
    folder = Path(settings.backup_dir) if settings.backup_dir else database.parent / "backups"
    if path is None or path.endswith("/"):
        folder = Path(path) if path else folder
        folder.mkdir(parents=True, exist_ok=True)
    written = write_backup(database, Path(path) if path else folder)
    print(f"Backup written to {written.resolve()}")
    return 0


def _restore(database: Path, backup: Path) -> int:
    if not backup.is_file():
        print(f"There is no file at {backup}.", file=sys.stderr)
        return 1
    try:
        held = lock.acquire(database.resolve(), restoring=str(backup))
    except lock.DatabaseInUse as error:
        print(f"Not restored: {error}", file=sys.stderr)
        return CANNOT_START
    try:
        kept = restore(backup, database)
    except NotCrownkeeper as error:
        print(f"Not restored: {error}", file=sys.stderr)
        return CANNOT_START
    finally:
        lock.release(held)
    print(f"Restored {database.resolve()} from {backup.resolve()}.")
    if kept is not None:
        print(f"The database it replaced is kept as {kept.resolve()}.")
    return 0
