"""One owner of the database: a lock file beside it, held (flock) for the life of the server,
and the database file itself held the same way, so a second path to the same file (a hard
link, a bind mount of the file alone) finds it taken too. A server makes the database file
when it is not there yet, right after taking the lock file and before anything else, so the
file is held from its first moment. SQLite's own locks on the file are POSIX record locks,
which flock never touches.

The kernel lets go of the lock when the process ends, however it ends (kill -9 included), so
a stale lock file never blocks a restart; what is written in it only names the holder.

A server takes it in the app's lifespan (`hold`), however the app was started; the apps of
one process share one hold (`python -m app` takes it before uvicorn starts, then its app
takes it again). `restore` takes it for itself (`acquire`), so it waits for no server.
"""

import fcntl
import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import IO, Any

# How long to wait for a holder that has just taken the lock to write who it is.
HOLDER_WRITE_WAIT = 1.0


class DatabaseInUse(RuntimeError):
    """Another process holds the database's lock; `holder` is what it wrote about itself."""

    def __init__(self, message: str, holder: dict[str, Any]) -> None:
        super().__init__(message)
        self.holder = holder


def lock_path(database: Path) -> Path:
    return database.with_name(database.name + ".lock")


class Held:
    """The open lock file (which says who holds it) and, once it exists, the database file,
    both locked: keep it until the lock is given up."""

    def __init__(self, lock_file: IO[str], database_file: IO[bytes] | None) -> None:
        self.lock_file = lock_file
        self.database_file = database_file

    def close(self) -> None:
        for handle in (self.database_file, self.lock_file):
            if handle is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
                handle.close()


def acquire(database: Path, *, create: bool = False, **about: object) -> Held:
    """Take the database's lock (keep what is returned for as long as it is needed), writing
    who holds it; DatabaseInUse, naming the holder, when another process has it. With
    create, an empty database file is made when there is none, and held too."""
    handle = _lock_file(database)
    try:
        database_file = _lock_database_file(database, create=create)
    except DatabaseInUse:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()
        raise
    handle.seek(0)
    handle.truncate()
    handle.write(
        json.dumps({"pid": os.getpid(), "host": socket.gethostname(), **about}, default=str)
    )
    handle.flush()
    return Held(handle, database_file)


def _lock_database_file(database: Path, *, create: bool) -> IO[bytes] | None:
    """The database file itself, locked; None while it does not exist yet (then only the
    lock file beside it guards it, and no other path can lead to it)."""
    try:
        # An empty file is a new database to SQLite; 0o644 is the mode SQLite gives its own.
        descriptor = os.open(database, os.O_RDONLY | (os.O_CREAT if create else 0), 0o644)
    except FileNotFoundError:
        return None
    handle = os.fdopen(descriptor, "rb")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder_by_file(handle)
        handle.close()
        raise DatabaseInUse(
            f"Another Crownkeeper ({describe(holder)}) is already using the database "
            f"{database}, reached by another path (a hard link or a mount of the same file). "
            "Only one server may use a database at a time: stop that one first, or give this "
            "one its own DATABASE_URL.",
            holder,
        ) from None
    return handle


def _holder_by_file(handle: IO[bytes]) -> dict[str, Any]:
    """Who holds the database file through another path, as far as this host shows it: the
    process /proc/locks names, and what it wrote in the lock file beside its own path to the
    file (found among its open files). {} where the system does not say."""
    status = os.fstat(handle.fileno())
    inode = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}:{status.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii") as locks:
            rows = [line.split() for line in locks]
    except OSError:
        return {}
    # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF"; a waiter's line has "->" second.
    pids = [int(row[4]) for row in rows if row[1:2] == ["FLOCK"] and row[5:6] == [inode]]
    for pid in (pid for pid in pids if pid > 0):
        for path in _open_paths(pid, leaving_out=handle.fileno()):
            try:
                if not os.path.samestat(os.stat(path), status):
                    continue
                with open(lock_path(path), encoding="utf-8") as lock_file:
                    about = _read_holder(lock_file)
            except OSError:
                continue
            if about:
                return about
        return {"pid": pid, "host": socket.gethostname()}
    return {}


def _open_paths(pid: int, *, leaving_out: int) -> list[Path]:
    """The paths of the files process pid has open (this process's own `leaving_out` left
    out); none where the system does not show them."""
    folder = Path(f"/proc/{pid}/fd")
    try:
        descriptors = sorted(folder.iterdir())
    except OSError:
        return []
    paths = []
    for descriptor in descriptors:
        if pid == os.getpid() and descriptor.name == str(leaving_out):
            continue
        try:
            paths.append(Path(os.readlink(descriptor)))
        except OSError:
            continue
    return paths


def _lock_file(database: Path) -> IO[str]:
    path = lock_path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held open on purpose
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _read_holder(handle)
        handle.close()
        raise DatabaseInUse(
            f"Another Crownkeeper ({describe(holder)}) is already using the database "
            f"{database}. Only one server may use a database at a time: stop that one first, "
            "or give this one its own DATABASE_URL.",
            holder,
        ) from None
    return handle


def holder(database: Path) -> str | None:
    """Who holds the database's lock now, or None when nobody does."""
    try:
        release(acquire(database))
    except DatabaseInUse as error:
        return str(error)
    return None


def release(held: Held) -> None:
    """Give the lock up (ending the process does it too)."""
    held.close()


# The locks this process holds for serving: database -> (open lock file, apps holding it).
_held: dict[Path, tuple[Held, int]] = {}
_held_guard = threading.Lock()


def hold(database: Path, **about: object) -> Path:
    """Hold the database's lock for a server in this process, until `let_go`, making the
    database file (held at once) when there is none. A process holds it once, however many
    of its apps serve the database; DatabaseInUse when another process has it. Returns the
    key to give back to `let_go`."""
    key = database.resolve()
    with _held_guard:
        handle, count = _held.get(key) or (acquire(key, create=True, **about), 0)
        _held[key] = (handle, count + 1)
    return key


def let_go(key: Path) -> None:
    """The end of one `hold`: the lock itself goes once every app of the process let go."""
    with _held_guard:
        handle, count = _held.pop(key)
        if count > 1:
            _held[key] = (handle, count - 1)
        else:
            release(handle)


def _read_holder(handle: IO[str]) -> dict[str, Any]:
    """What the holder wrote, waiting a moment for a holder that has only just taken it (the
    file is empty, or still names an earlier holder that has ended)."""
    deadline = time.monotonic() + HOLDER_WRITE_WAIT
    while True:
        handle.seek(0)
        try:
            about = json.loads(handle.read())
        except ValueError:
            about = None
        if isinstance(about, dict) and _may_be_running(about):
            return about
        if time.monotonic() > deadline:
            return about if isinstance(about, dict) else {}
        time.sleep(0.02)


def _may_be_running(about: dict[str, Any]) -> bool:
    """False only for a process of this host that is known to have ended."""
    if about.get("host") != socket.gethostname() or not isinstance(about.get("pid"), int):
        return True
    try:
        os.kill(about["pid"], 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def describe(about: dict[str, Any]) -> str:
    """The holder in words: its process and host, and where it serves or how it started."""
    if not about:
        return "another process"
    parts = [f"process {about.get('pid', '?')} on {about.get('host', '?')}"]
    if about.get("server"):
        parts.append(f"a worker of process {about['server']}")
    if about.get("port"):
        parts.append(f"serving on {about.get('listen', '')}:{about['port']}".replace(" :", " "))
    elif about.get("command"):
        parts.append(f"started as `{about['command']}`")
    return ", ".join(parts)
