"""In-process publish/subscribe: this process's open pages, each with its own small queue.

It is the whole of live updates on SQLite (one process), and the last step on PostgreSQL,
where the relay in postgres.py hands it the changes saved by other processes. A subscriber
too slow to keep up is dropped (its page reconnects and is sent the current state), so it
never holds up the others.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..games import GameState

QUEUE_SIZE = 8


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
