"""In-process publish/subscribe: this process's open pages, each with its own small queue.

It is the whole of live updates on SQLite (one process), and the last step on PostgreSQL,
where the relay in postgres.py hands it the changes saved by other processes. A subscriber
too slow to keep up is dropped (its page reconnects and is sent the current state), so it
never holds up the others.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..games.state import GameState

QUEUE_SIZE = 8
LATEST_KEPT = 4096


@dataclass(eq=False)
class Subscription:
    """One open page's place in line for a game's changes."""

    topic: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[GameState] = field(
        default_factory=lambda: asyncio.Queue(maxsize=QUEUE_SIZE)
    )
    dropped: bool = False

    async def next_state(self) -> GameState | None:
        """The game's next state, or None once this subscriber has been dropped."""
        state = await self.queue.get()
        return None if self.dropped else state


class Broker:
    """Subscribers by topic (a game's watch code, which never changes)."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscription]] = {}
        self._lock = threading.Lock()
        # The newest state seen of recent games, by topic, and each scorekeeper code's topic:
        # a page opening its stream starts from here instead of the database, so a crowd of
        # viewers arriving at once costs one read per game, not one each.
        self._latest: OrderedDict[str, GameState] = OrderedDict()
        self._topic_of: dict[str, str] = {}

    def remember(self, state: GameState) -> None:
        """Keep state as its game's newest, unless a newer one is known already."""
        topic = state.watch_code
        with self._lock:
            known = self._latest.get(topic)
            if known is not None and (
                known.version > state.version or (known.version == state.version and known.can_edit)
            ):
                return
            if known is not None and known.can_edit:
                self._topic_of.pop(known.code, None)
            self._latest[topic] = state
            self._latest.move_to_end(topic)
            if state.can_edit:
                self._topic_of[state.code] = topic
            while len(self._latest) > LATEST_KEPT:
                _, dropped = self._latest.popitem(last=False)
                self._topic_of.pop(dropped.code, None)

    def forget(self, topic: str | None = None) -> None:
        """Drop the newest state kept of topic's game (of every game with None): another
        process changed it, and the database now knows better."""
        with self._lock:
            topics = list(self._latest) if topic is None else [topic]
            for forgotten in topics:
                state = self._latest.pop(forgotten, None)
                if state is not None:
                    self._topic_of.pop(state.code, None)

    def latest(self, code: str) -> GameState | None:
        """The newest known state of the game with this scorekeeper or watch code, as that
        code may see it; None when it is not known here."""
        with self._lock:
            state = self._latest.get(self._topic_of.get(code, code))
        if state is None:
            return None
        if code == state.watch_code:
            return state.for_watchers() if state.can_edit else state
        return state if state.can_edit and code == state.code else None

    def subscribe(self, topic: str) -> Subscription:
        """Start listening; call from the event loop the subscriber reads in."""
        subscription = Subscription(topic=topic, loop=asyncio.get_running_loop())
        with self._lock:
            self._subscribers.setdefault(topic, set()).add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            listeners = self._subscribers.get(subscription.topic, set())
            listeners.discard(subscription)
            if not listeners:
                self._subscribers.pop(subscription.topic, None)

    def count(self, topic: str) -> int:
        """How many pages are listening to topic."""
        with self._lock:
            return len(self._subscribers.get(topic, ()))

    def topics(self) -> list[str]:
        """Every topic some page of this process is listening to."""
        with self._lock:
            return sorted(self._subscribers)

    def publish(self, topic: str, state: GameState) -> None:
        """Hand state to every subscriber of topic; safe to call from any thread."""
        with self._lock:
            listeners = list(self._subscribers.get(topic, ()))
        for subscription in listeners:
            try:
                subscription.loop.call_soon_threadsafe(self._deliver, subscription, state)
            except RuntimeError:  # its event loop has closed: nobody is reading any more
                self.unsubscribe(subscription)

    def _deliver(self, subscription: Subscription, state: GameState) -> None:
        try:
            subscription.queue.put_nowait(state)
        except asyncio.QueueFull:
            subscription.dropped = True
            self.unsubscribe(subscription)
            # Wake the subscriber so it ends its stream; its page reconnects and catches up.
            subscription.queue.get_nowait()
            subscription.queue.put_nowait(state)
