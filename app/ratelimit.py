"""How many games and tables one client address may create: CREATE_RATE_LIMIT, counted in the
database (the create_count table), so every worker, every host and the next start share one
count per address.

Each window of the rule ("20/minute;200/day": a minute and a day) is a fixed window, as in
the `limits` library's fixed-window strategy: it opens with the address's first creation
after the last window closed and lasts its length, and at most the rule's number of creations
are let through while it is open. One row per address and window holds how many it started
and when the window closes.

Counting one creation is one statement in one short transaction: an INSERT ... ON CONFLICT DO
UPDATE that adds one to every window of the address (or opens a new one) and returns the
counts. If every count is within the rule, the transaction commits; if any window was
already full, it is rolled back, so a refused creation counts nowhere, and Retry-After is
when the last full window closes. The rows written lock the address's windows until the
transaction ends (SQLite: BEGIN IMMEDIATE holds the database; PostgreSQL: row locks), so two
workers creating at once are counted one after the other and never let more through.
(Unlike a moving window, fixed windows let a burst at the end of one window and the start of
the next through: at most twice the number within a short time, never more.)

Windows that closed are deleted now and then (every PRUNE_EVERY seconds in each process), in
the transaction of the creation counted next: one more statement, a DELETE by an index."""

import math
import re
import time
from collections.abc import Callable

from sqlalchemy import Connection, Engine, delete, select, text, tuple_
from sqlmodel import Session, SQLModel
from starlette.requests import Request

from .db import WRITE_OPTIONS
from .i18n import fill, ngettext
from .i18n import gettext as _
from .models import CreateCount

# The rule's syntax is the `limits` library's (slowapi's, Flask-Limiter's): "20/minute",
# "10 per 5 minutes", several joined by ; , or |. Its month is 30 days, its year 12 months.
WINDOW_SECONDS = {
    "second": 1,
    "minute": 60,
    "hour": 3600,
    "day": 86400,
    "month": 30 * 86400,
    "year": 12 * 30 * 86400,
}
ONE_WINDOW = r"\s*([0-9]+)\s*(?:/|\s*per\s*)\s*([0-9]+)?\s*([a-z]+)\s*"
RULE = re.compile(rf"{ONE_WINDOW}(?:[,;|]{ONE_WINDOW})*", re.IGNORECASE)
ADDRESS_CHARS = 64  # the column's width; an IPv6 address takes at most 45
PRUNE_EVERY = 600.0  # seconds between two deletions of closed windows, in each process


class RateLimited(Exception):
    """Too many creations from one address; retry_after is in whole seconds."""

    def __init__(self, retry_after: int, what: str = "games") -> None:
        self.retry_after = retry_after
        if what == "tables":
            message = _(
                "Too many new tables from this address for now. Try again in %(wait)s; "
                "tables already started keep working."
            )
        else:
            message = _(
                "Too many new games from this address for now. Try again in %(wait)s; "
                "games already started keep working."
            )
        super().__init__(fill(message, wait=_spoken(retry_after)))


def parse_rule(rule: str) -> dict[int, int]:
    """The windows of a CREATE_RATE_LIMIT rule: {length in seconds: most creations in it}
    ({} for "off" or nothing). Two windows of one length keep the smaller number. ValueError
    for a rule that does not parse."""
    if rule.strip().lower() in ("", "off"):
        return {}
    if not RULE.fullmatch(rule):
        raise ValueError(f"couldn't parse rate limit string '{rule}'")
    windows: dict[int, int] = {}
    for part in re.split(r"[,;|]", rule):
        match = re.fullmatch(ONE_WINDOW, part, re.IGNORECASE)
        assert match is not None  # the whole rule matched, window by window
        amount, multiples, unit = int(match[1]), int(match[2] or 0) or 1, match[3].lower()
        seconds = WINDOW_SECONDS.get(unit) or WINDOW_SECONDS.get(unit.removesuffix("s"))
        if seconds is None:
            raise ValueError(f"no granularity matched for {match[3]}")
        length = seconds * multiples
        windows[length] = min(amount, windows.get(length, amount))
    return windows


class CreateLimiter:
    """The per-address limits on creating games and tables (one count for both), counted in
    the database of the request's app (request.app.state.engine)."""

    def __init__(self, rule: str, clock: Callable[[], float] = time.time) -> None:
        self.windows = dict(sorted(parse_rule(rule).items()))
        """{window length in seconds: most creations in it}, shortest first."""
        self.clock = clock
        self.next_prune = 0.0
        # The windows are always written in the same order (shortest first), so two
        # transactions counting one address lock its rows in the same order: no deadlock.
        values = ", ".join(
            f"(:address, {seconds}, 1, :resets_{index})"
            for index, seconds in enumerate(self.windows)
        )
        self.count_statement = text(
            "INSERT INTO create_count (address, window_seconds, created, resets_at) "
            f"VALUES {values} "
            "ON CONFLICT (address, window_seconds) DO UPDATE SET "
            "created = CASE WHEN create_count.resets_at <= :now THEN 1 "
            "ELSE create_count.created + 1 END, "
            "resets_at = CASE WHEN create_count.resets_at <= :now THEN excluded.resets_at "
            "ELSE create_count.resets_at END "
            "RETURNING window_seconds, created, resets_at"
        )

    def check(self, request: Request, what: str = "games", session: Session | None = None) -> None:
        """Count one creation (of games or tables: what, for the message) for the request's
        client, or RateLimited (and nothing counted) when it is over.

        Counted on a connection of its own, committed at once; but called inside a write
        transaction (begin_write: such as a game opened for its rematch), pass its session:
        on SQLite a connection of its own would wait for the write lock the request itself
        holds. The count is then made in that transaction, under a savepoint, and kept only
        if the transaction commits. (A session not writing is counted beside, as without.)"""
        if not self.windows:
            return
        # The client address is the forwarded one when a trusted proxy sent the request
        # (ProxyHeadersMiddleware rewrote it); otherwise the connection's own.
        address = request.client.host if request.client else "unknown"
        if session is not None and _writing(session):
            with session.begin_nested():
                self._count_on(session.connection(), address, what)
        else:
            self.count(request.app.state.engine, address, what)

    def count(self, engine: Engine, address: str, what: str = "games") -> None:
        """Count one creation from address in engine's database, in a transaction of its
        own, or RateLimited (and nothing counted) when one of its windows is full."""
        if not self.windows:
            return
        with engine.connect() as connection:
            connection.execution_options(**WRITE_OPTIONS)
            try:
                self._count_on(connection, address, what)
            except RateLimited:
                connection.rollback()
                raise
            connection.commit()

    def _count_on(self, connection: Connection, address: str, what: str) -> None:
        """Add one to each window of address in connection's transaction (one statement),
        or RateLimited when a window was full: then the transaction must not commit."""
        now = self.clock()
        values: dict[str, object] = {"address": address[:ADDRESS_CHARS], "now": now}
        for index, seconds in enumerate(self.windows):
            values[f"resets_{index}"] = now + seconds
        counted = connection.execute(self.count_statement, values).all()
        full = [
            resets_at for seconds, created, resets_at in counted if created > self.windows[seconds]
        ]
        if full:
            # Honest: once the last full window closes, the next creation goes through.
            raise RateLimited(max(1, math.ceil(max(full) - now)), what)
        if now >= self.next_prune:
            self.next_prune = now + PRUNE_EVERY
            _prune(connection, now)


def _writing(session: Session) -> bool:
    """True when session is in a write transaction started by begin_write."""
    if not session.in_transaction():
        return False
    options = session.connection().get_execution_options()
    return options.get("sqlite_begin") == WRITE_OPTIONS["sqlite_begin"]


def _prune(connection: Connection, now: float) -> None:
    """Delete the windows that closed. On PostgreSQL, rows another transaction is counting
    just now are skipped rather than waited for (it may be reopening one)."""
    table = SQLModel.metadata.tables[CreateCount.__tablename__]
    closed = (
        select(table.c.address, table.c.window_seconds)
        .where(table.c.resets_at <= now)
        .with_for_update(skip_locked=True)
    )
    key = tuple_(table.c.address, table.c.window_seconds)
    connection.execute(delete(table).where(key.in_(closed)))


def _spoken(seconds: int) -> str:
    if seconds < 90:
        return ngettext("%(num)s second", "%(num)s seconds", seconds) % {"num": seconds}
    if seconds < 90 * 60:
        minutes = round(seconds / 60)
        return ngettext("%(num)s minute", "%(num)s minutes", minutes) % {"num": minutes}
    hours = round(seconds / 3600)
    return ngettext("%(num)s hour", "%(num)s hours", hours) % {"num": hours}
