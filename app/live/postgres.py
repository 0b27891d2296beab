"""Live updates across processes and hosts: PostgreSQL LISTEN/NOTIFY on one channel.

A save hands its state to this process's pages at once and sends every process a notice
(notice.py) after the save's commit, on a connection of its own in autocommit: the game's
topic (its watch code), the new version and, when it fits, the new state, never a code that
can edit. Each process listens on one connection of its own; for a notice about a game some
of its pages follow, it hands the state carried to its in-process broker, which fans it out
to those pages; a notice without the state (too big, or a game this process has not read)
costs one read, however many pages follow. A notice sent while the listening connection is
down is lost, so after every (re)connection the relay sends its pages the current state of
their games.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import psycopg
from sqlalchemy import Engine

from .notice import LIMIT_BYTES, Notice, decode, encode

if TYPE_CHECKING:
    from ..games.state import GameState
    from .memory import Broker

CHANNEL = "crownkeeper_live"
RETRY_DELAY_S = 1.0
RETRY_DELAY_MAX_S = 10.0

log = logging.getLogger(__name__)


class PostgresRelay:
    """Carries notices of saves between processes, and relays them to this one's pages."""

    def __init__(
        self,
        engine: Engine,
        broker: Broker,
        *,
        load_state: Callable[[str], GameState],
        retry_delay: float = RETRY_DELAY_S,
        limit: int = LIMIT_BYTES,
    ) -> None:
        self.engine = engine
        self.broker = broker
        self.load_state = load_state
        self.retry_delay = retry_delay
        self.limit = limit
        """The most bytes a notice may hold (a state that does not fit is read instead)."""
        self.connections = 0
        """How many times the listener has (re)connected."""
        self.listening = asyncio.Event()
        self.loads = 0
        """How many states the relay has loaded: one per change, however many pages follow."""
        self.carried = 0
        """How many states came with their notice, shown without a read."""
        self._shown: dict[str, int] = {}
        self._wanted: dict[str, int] = {}
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._sender = Sender(self._conninfo)
        # A relay dropped without stop() (one that only sends) closes its connection too.
        weakref.finalize(self, self._sender.close)

    # --- sending ------------------------------------------------------------------------

    def publish(self, topic: str, state: GameState) -> None:
        """Hand state to this process's pages now, then tell every process (this one skips
        its own notice: it has shown that version already)."""
        # Shown here, pages or not: the notice coming back is skipped (and the entry dropped
        # then, when nobody here follows the game).
        self._shown[topic] = max(state.version, self._shown.get(topic, 0))
        if self.broker.count(topic):
            self.broker.publish(topic, state)
        notice = encode(state, limit=self.limit)
        try:
            self._sender.notify(notice)
        except psycopg.Error:
            # The round is saved; other processes' pages get it when their listeners catch
            # up after reconnecting, or with the next save. Not a reason to fail the request.
            log.warning("Live updates: could not tell the other processes about a save")

    # --- listening ----------------------------------------------------------------------

    async def start(self) -> None:
        """Listen in the background, from the running event loop."""
        self._listener = asyncio.create_task(self._listen_forever())

    async def stop(self) -> None:
        """Stop listening and loading."""
        tasks = [task for task in [self._listener, *self._loading.values()] if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._sender.close()

    async def _listen_forever(self) -> None:
        delay = self.retry_delay
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._conninfo(), autocommit=True, **KEEPALIVES
                ) as connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    self.connections += 1
                    self.listening.set()
                    delay = self.retry_delay
                    self._catch_up()
                    async for notice in connection.notifies():
                        self._on_notice(notice.payload)
            except psycopg.Error as error:
                self.listening.clear()
                log.warning(
                    "Live updates: lost the database connection (%s); retrying in %.1f s",
                    type(error).__name__,
                    delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_DELAY_MAX_S)

    def _conninfo(self) -> str:
        url = self.engine.url.set(drivername="postgresql")
        return url.render_as_string(hide_password=False)

    def _catch_up(self) -> None:
        """Send every game this process's pages follow as it is now: notices sent while the
        listener was away are lost, and a page must not wait for the next save."""
        self.broker.forget()  # saves made meanwhile may have changed any game kept
        for topic in [topic for topic in self._shown if not self.broker.count(topic)]:
            del self._shown[topic]  # its notice may never come back
        for topic in self.broker.topics():
            self._want(topic, version=None)

    def _on_notice(self, payload: str) -> None:
        try:
            notice = decode(payload)
        except ValueError:
            log.warning("Live updates: ignored a notice that is not ours")
            return
        topic, version = notice.topic, notice.version
        newer = version > self._shown.get(topic, 0)
        if not self.broker.count(topic):
            if newer:  # what this process kept of the game is out of date
                self.broker.forget(topic)
            self._shown.pop(topic, None)  # nobody here follows that game
            return
        if not newer:
            return
        state = self._carried(notice)
        if state is None:
            self.broker.forget(topic)
            self._want(topic, version=version)
            return
        self.carried += 1
        self._shown[topic] = version
        self.broker.remember(state)
        self.broker.publish(topic, state)

    def _carried(self, notice: Notice) -> GameState | None:
        """The state the notice carried, when it did and this process knows the game's
        scorekeeper code (checked against the notice's hash of it)."""
        code = self.broker.keeper_code(notice.topic)
        if code is None:
            return None
        try:
            return notice.state_with(code)
        except (ValueError, KeyError, TypeError):
            log.warning("Live updates: a notice's state could not be read; reading the game")
            return None

    def _want(self, topic: str, *, version: int | None) -> None:
        """Load topic's state (once, however many notices arrive while loading) and relay it;
        version None asks for the current state even when it was shown already."""
        if version is None:
            self._shown.pop(topic, None)
            version = 1
        self._wanted[topic] = max(version, self._wanted.get(topic, 0))
        if topic not in self._loading:  # else the running load goes round again for it
            self._loading[topic] = asyncio.create_task(self._relay(topic))

    async def _relay(self, topic: str) -> None:
        try:
            while self._wanted.get(topic, 0) > self._shown.get(topic, 0):
                wanted = self._wanted[topic]
                try:
                    state = await asyncio.to_thread(self.load_state, topic)
                except Exception:
                    log.exception("Live updates: could not load a game to relay")
                    break
                self.loads += 1
                self._shown[topic] = max(state.version, self._shown.get(topic, 0))
                self.broker.remember(state)
                self.broker.publish(topic, state)
                if state.version < wanted:
                    break  # not visible here yet; the next notice tries again
        finally:
            # No await between the last check and here: a notice cannot slip in between.
            self._wanted.pop(topic, None)
            self._loading.pop(topic, None)


class Sender:
    """A connection of the relay's own for NOTIFY, in autocommit: one statement a save (no
    pool checkout and its ping, no transaction: the save has committed already), connected
    on first use and again once when it broke. Shared by the threads that save."""

    def __init__(self, conninfo: Callable[[], str]) -> None:
        self._conninfo = conninfo
        self._connection: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def notify(self, notice: str) -> None:
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._connection is None or self._connection.closed:
                        self._connection = psycopg.connect(
                            self._conninfo(), autocommit=True, connect_timeout=5, **KEEPALIVES
                        )
                    self._connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notice))
                    return
                except psycopg.Error:
                    self._drop()
                    if attempt == 2:
                        raise

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


# A listener on a host that vanished (no reset ever comes) is noticed within about a minute.
KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}
