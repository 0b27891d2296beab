"""Live updates: every open page of a game hears about a change within moments.

The app holds one LiveUpdates (app.state.live): `subscribe(topic)` when a page opens its
stream, `publish(topic, state)` after a save; a game's topic is its watch code (it never
changes and cannot edit). On SQLite the in-process broker (memory.py) is all there is: one
process holds every open page. On PostgreSQL, where several workers or hosts share the
database, the relay (postgres.py) also sends a notice through LISTEN/NOTIFY (notice.py: the
new state, when it fits), and every process hands the change to its own pages. Nothing
outside this package knows which one runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from .memory import PING, PING_SECONDS, Broker, Subscription

if TYPE_CHECKING:
    from ..games.state import GameState
    from .postgres import PostgresRelay

__all__ = ["PING", "PING_SECONDS", "Broker", "LiveUpdates", "Subscription"]


class LiveUpdates:
    """This process's open pages, by topic (the broker), and on PostgreSQL the relay that
    tells the other processes; one per app, started and stopped by its lifespan."""

    def __init__(self) -> None:
        self.broker = Broker()
        self.relay: PostgresRelay | None = None
        self._pinging: asyncio.Task[None] | None = None

    def subscribe(self, topic: str) -> Subscription:
        """Start listening to a game's changes; call from the event loop the stream reads in."""
        return self.broker.subscribe(topic)

    def unsubscribe(self, subscription: Subscription) -> None:
        """Stop listening (the page closed)."""
        self.broker.unsubscribe(subscription)

    def publish_change(self, state: GameState) -> None:
        """Tell every open page of a game its state after a change (a game's topic is its
        watch code)."""
        self.publish(state.watch_code, state)

    def publish(self, topic: str, state: GameState) -> None:
        """Tell every open page of the game with this topic, in every process, its new state."""
        self.broker.remember(state)
        if self.relay is None:
            self.broker.publish(topic, state)
        else:
            self.relay.publish(topic, state)

    async def start(self, engine: Engine, *, load_state: Callable[[str], GameState]) -> None:
        """Keep idle streams alive; on PostgreSQL, listen for other processes' saves too
        (load_state reads a game's whole state by its topic, when a notice did not carry it)."""
        self._pinging = asyncio.create_task(self.broker.ping_idle_forever())
        if engine.dialect.name != "postgresql":
            return
        from .postgres import PostgresRelay

        relay = PostgresRelay(engine, self.broker, load_state=load_state)
        await relay.start()
        self.relay = relay

    async def stop(self) -> None:
        """Stop the relay and the pings (the app is shutting down); the broker stays."""
        relay, self.relay = self.relay, None
        if relay is not None:
            await relay.stop()
        if self._pinging is not None:
            self._pinging.cancel()
            await asyncio.gather(self._pinging, return_exceptions=True)
            self._pinging = None
