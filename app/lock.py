"""One owner of the database: a lock file beside it, held (flock) for the life of the server.

The kernel lets go of the lock when the process ends, however it ends (kill -9 included), so
a stale lock file never blocks a restart; what is written in it only names the holder.
"""

import fcntl
import json
import os
import socket
from pathlib import Path
from typing import IO


class DatabaseInUse(RuntimeError):
    """Another process holds the database's lock."""


def lock_path(database: Path) -> Path:
    return database.with_name(database.name + ".lock")


def acquire(database: Path, **about: object) -> IO[str]:
    """Take the database's lock (keep the returned file open for as long as it is needed),
    writing who holds it; DatabaseInUse, naming the holder, when another process has it."""
    path = lock_path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held open on purpose
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = _describe(handle.read())
        handle.close()
        raise DatabaseInUse(
            f"Another Crownkeeper ({holder}) is already using the database {database}. "
            "Only one server may use a database at a time: stop that one first, or give this "
            "one its own DATABASE_URL."
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), **about}))
    handle.flush()
    return handle


def holder(database: Path) -> str | None:
    """Who holds the database's lock now, or None when nobody does."""
    try:
        release(acquire(database))
    except DatabaseInUse as error:
        return str(error)
    return None


def release(handle: IO[str]) -> None:
    """Give the lock up (ending the process does it too)."""
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    handle.close()


def _describe(text: str) -> str:
    try:
        about = json.loads(text)
    except ValueError:
        return "another process"
    parts = [f"process {about.get('pid', '?')} on {about.get('host', '?')}"]
    if about.get("port"):
        parts.append(f"serving on {about.get('listen', '')}:{about['port']}".replace(" :", " "))
    return ", ".join(parts)
