"""Backups that restore: consistent copies taken while the server runs, daily ones kept in
BACKUP_DIR, and a restore that checks the copy before it replaces anything.

Copying crownkeeper.db with `cp` while the server runs is not a backup: SQLite keeps the
latest saves in crownkeeper.db-wal until it folds them in, so the copied file can miss
confirmed rounds or be caught half-written. SQLite's online backup reads one consistent
snapshot, WAL included, while saves go on.
"""

import asyncio
import logging
import re
import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlmodel import SQLModel

from . import models  # noqa: F401 - the tables, for the column check
from .db import sqlite_path
from .migrate import alembic_config

log = logging.getLogger("crownkeeper.backup")
DAILY_NAME = re.compile(r"crownkeeper-(\d{4}-\d{2}-\d{2})\.db")
SQLITE_HEADER = b"SQLite format 3\x00"
# Tables every Crownkeeper database has had since its first revision.
CORE_TABLES = frozenset({"game", "seat", "game_round", "seat_score"})


class NotCrownkeeper(RuntimeError):
    """A file that is not a Crownkeeper database, or one whose tables do not match its
    version stamp. The message is one paragraph, for the person starting the server."""


def write_backup(database: Path, destination: Path) -> Path:
    """A consistent copy of database at destination (a file, or a folder to put it in)."""
    if destination.is_dir():
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H%M%S")
        destination = destination / f"crownkeeper-{stamp}.db"
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    partial.unlink(missing_ok=True)
    # Read-only source: a backup never changes the live database.
    source = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
    with closing(source), closing(sqlite3.connect(partial)) as target:
        source.backup(target)  # one step: one snapshot, even while saves go on
    partial.replace(destination)
    return destination


def check_copy(path: Path) -> None:
    """NotCrownkeeper unless path is a sound Crownkeeper database (integrity_check passes)."""
    check_database(path)
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
        result = connection.execute("PRAGMA integrity_check").fetchall()
    if result != [("ok",)]:
        raise NotCrownkeeper(
            f"{path} is damaged (SQLite's integrity check found problems), so it was not used."
        )


def check_database(path: Path) -> None:
    """NotCrownkeeper when path exists but is not a Crownkeeper database whose version stamp
    matches its tables. A missing or empty file is fine: it becomes a new database."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb") as file:
        if file.read(16) != SQLITE_HEADER:
            raise NotCrownkeeper(
                f"{path} is not a database file, so Crownkeeper left it alone. Point "
                "DATABASE_URL at your Crownkeeper database, or at a new file to start afresh."
            )
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            tables = {
                name
                for (name,) in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
                )
            }
            columns = {
                table: {row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')}
                for table in tables
            }
            stamps = (
                [rev for (rev,) in connection.execute("SELECT version_num FROM alembic_version")]
                if "alembic_version" in tables
                else []
            )
    except sqlite3.DatabaseError as error:
        raise NotCrownkeeper(
            f"{path} could not be read as a database ({error}), so Crownkeeper left it alone. "
            "Restore a backup (python -m app restore PATH) or point DATABASE_URL elsewhere."
        ) from error
    tables.discard("sqlite_sequence")
    if not tables:
        return
    if not stamps and not tables & CORE_TABLES:
        raise NotCrownkeeper(
            f"{path} is a database of some other program (it has tables "
            f"{', '.join(sorted(tables)[:5])}), so Crownkeeper left it alone. Point "
            "DATABASE_URL at your Crownkeeper database, or at a new file to start afresh."
        )
    scripts = ScriptDirectory.from_config(alembic_config())
    known = {script.revision for script in scripts.walk_revisions()}
    missing = sorted(CORE_TABLES - tables)
    if not missing and set(stamps) == set(scripts.get_heads()):
        # Stamped as up to date: every column the code uses must be there.
        missing = [
            f"{table.name}.{column.name}"
            for table in SQLModel.metadata.sorted_tables
            for column in table.columns
            if column.name not in columns.get(table.name, set())
        ]
    if not stamps or (missing and set(stamps) <= known):
        raise NotCrownkeeper(
            f"{path} has Crownkeeper's tables but its version stamp "
            f"({', '.join(stamps) or 'none'}) does not match them "
            f"({'missing ' + ', '.join(missing) if missing else 'no stamp'}), so it "
            "was not changed. Restore a backup (python -m app restore PATH)."
        )


def restore(backup: Path, database: Path) -> Path | None:
    """Put backup in place of database (call with the database's lock held). Returns where
    the replaced file was kept, if there was one."""
    check_copy(backup)
    kept = None
    if database.exists():
        # Fold any WAL left by a stopped server into the file before it is set aside, so the
        # kept copy is whole and no stale WAL is read with the restored database.
        with closing(sqlite3.connect(database)) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H%M%S")
        kept = database.with_name(f"{database.name}.replaced-{stamp}")
        database.replace(kept)
    for leftover in ("-wal", "-shm"):
        database.with_name(database.name + leftover).unlink(missing_ok=True)
    incoming = database.with_name(database.name + ".restoring")
    shutil.copyfile(backup, incoming)
    incoming.replace(database)
    return kept


def daily_backup(database: Path, folder: Path, *, keep: int, today: str | None = None) -> None:
    """Write today's backup into folder unless it is there, then keep the newest `keep`."""
    today = today or datetime.now(UTC).strftime("%Y-%m-%d")
    target = folder / f"crownkeeper-{today}.db"
    if not target.exists():
        write_backup(database, target)
        log.info("Daily backup written to %s", target)
    daily = sorted(p for p in folder.iterdir() if DAILY_NAME.fullmatch(p.name))
    for old in daily[: max(len(daily) - keep, 0)]:
        old.unlink()


async def daily_backups(engine: Engine, folder: str, *, keep: int) -> None:
    """While the server runs: one backup a day in folder, the last `keep` of them kept."""
    database = sqlite_path(str(engine.url))
    if database is None:
        return
    while True:
        try:
            await asyncio.to_thread(daily_backup, database, Path(folder), keep=keep)
        except (OSError, sqlite3.Error):
            log.exception("The daily backup into %s failed; trying again in an hour", folder)
        await asyncio.sleep(3600)
