"""Access logs without secrets: game codes in paths are what let a person keep score."""

import logging
import re

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


def install() -> None:
    """Put the filter on uvicorn's access logger (once)."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactGameCodes) for f in access.filters):
        access.addFilter(RedactGameCodes())
