"""Access logs without secrets: game codes in paths are what let a person keep score."""

import logging
import re
import threading
import time

_CODE_IN_PATH = re.compile(r"(/g/|/t/|/api/games/|/api/tables/)[^/?#\s\"]+")


def redact(path: str) -> str:
    """path with every game or table code replaced by a mark."""
    return _CODE_IN_PATH.sub(r"\1[code]", path)


class RedactGameCodes(logging.Filter):
    """Hide game codes in uvicorn's access log lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


class OncePerInterval(logging.Filter):
    """Let each kind of message through once per interval: under attack or out of open
    files, the same warning (and traceback) every few milliseconds would fill the disk."""

    def __init__(self, interval: float = 60.0) -> None:
        super().__init__()
        self.interval = interval
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        key = f"{record.name}:{record.msg}"
        now = time.monotonic()
        with self._lock:
            if now - self._last.get(key, -self.interval) < self.interval:
                self._held[key] = self._held.get(key, 0) + 1
                return False
            self._last[key] = now
            held = self._held.pop(key, 0)
        if held:
            record.msg = f"{record.msg} (and {held} more like it, not logged)"
        return True


# Loggers whose messages can repeat with every refused or failed connection.
FLOOD_PRONE = ("uvicorn.error", "asyncio")


def install() -> None:
    """Put the filters on uvicorn's loggers (once)."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactGameCodes) for f in access.filters):
        access.addFilter(RedactGameCodes())
    for name in FLOOD_PRONE:
        logger = logging.getLogger(name)
        if not any(isinstance(f, OncePerInterval) for f in logger.filters):
            logger.addFilter(OncePerInterval())
