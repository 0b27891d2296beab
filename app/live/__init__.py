"""Live updates: every open page of a game hears about a change within moments.

Two calls: `subscribe(topic)` when a page opens its stream, `publish(topic, state)` after a
save; a game's topic is its watch code (it never changes and cannot edit). On SQLite the
in-process broker (memory.py) is all there is: one process holds every open page. On
PostgreSQL, where several workers or hosts share the database, the relay (postgres.py) also
sends a small notice through LISTEN/NOTIFY, and every process hands the change to its own
pages. Nothing outside this package knows which one runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from .memory import Broker, Subscription

if TYPE_CHECKING:
    from ..games.state import GameState
    from .postgres import PostgresRelay

broker = Broker()
"""This process's open pages, by topic."""

_relay: PostgresRelay | None = None


def subscribe(topic: str) -> Subscription:
    """Start listening to a game's changes; call from the event loop the stream reads in."""
    return broker.subscribe(topic)


def unsubscribe(subscription: Subscription) -> None:
    """Stop listening (the page closed)."""
    broker.unsubscribe(subscription)


def publish_change(state: GameState) -> None:
    """Tell every open page of a game its state after a change (a game's topic is its watch
    code)."""
    publish(state.watch_code, state)


def publish(topic: str, state: GameState) -> None:
    """Tell every open page of the game with this topic, in every process, its new state."""
    broker.remember(state)
    if _relay is None:
        broker.publish(topic, state)
    else:
        _relay.publish(topic, state)


async def start(engine: Engine, *, load_state: Callable[[str], GameState]) -> PostgresRelay | None:
    """Choose the backend for engine's database; on PostgreSQL, start listening for other
    processes' saves (load_state reads a game's whole state by its topic) and return the
    relay, to hand to stop() at shutdown."""
    global _relay
    if engine.dialect.name != "postgresql":
        return None
    from .postgres import PostgresRelay

    started = PostgresRelay(engine, broker, load_state=load_state)
    await started.start()
    _relay = started
    return started


async def stop(started: PostgresRelay | None) -> None:
    """Stop the relay start() returned (the app is shutting down); the in-process broker
    stays. Another app's relay in the same process (tests run several) is left alone."""
    global _relay
    if started is None:
        return
    if _relay is started:
        _relay = None
    await started.stop()


def relay() -> PostgresRelay | None:
    """The running PostgreSQL relay, if any (for tests and the benchmark)."""
    return _relay
