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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..games.state import GameState

QUEUE_SIZE = 8
LATEST_KEPT = 4096
PING_SECONDS = 15.0
"""A stream that sent nothing for this long is sent a comment, so proxies keep it open."""
PING = "ping"
"""What next_state gives for a stream to ping (never a state: those are GameStates)."""


class Subscription:
    """One open page's place in line for a game's changes: a short list and, while the page
    waits, a future to wake it (lighter than an asyncio.Queue: thousands are open)."""

    __slots__ = ("topic", "loop", "states", "waiter", "dropped", "sent_at")

    def __init__(self, topic: str, loop: asyncio.AbstractEventLoop) -> None:
        self.topic = topic
        self.loop = loop
        self.states: list[Any] = []
        self.waiter: asyncio.Future[None] | None = None
        self.dropped = False
        self.sent_at = loop.time()

    async def next_state(self) -> Any:
        """The game's next state (or PING when the stream has been idle a while), or None
        once this subscriber has been dropped."""
        while not self.states:
            self.waiter = self.loop.create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        state = self.states.pop(0)
        self.sent_at = self.loop.time()
        return None if self.dropped else state

    def put(self, state: Any) -> bool:
        """Hand state to the page (from its loop); False when its line is full."""
        if len(self.states) >= QUEUE_SIZE:
            return False
        self.states.append(state)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)
        return True


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

    def keeper_code(self, topic: str) -> str | None:
        """The scorekeeper code of topic's game, as its newest state kept here says."""
        with self._lock:
            state = self._latest.get(topic)
        return state.code if state is not None and state.can_edit else None

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
        subscription = Subscription(topic, asyncio.get_running_loop())
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

    def _deliver(self, subscription: Subscription, state: Any) -> None:
        if subscription.put(state):
            return
        subscription.dropped = True
        self.unsubscribe(subscription)
        # Wake the subscriber so it ends its stream; its page reconnects and catches up.
        subscription.states.clear()
        subscription.put(state)

    def ping_idle(self) -> None:
        """Hand PING to every stream of this loop that has sent nothing for PING_SECONDS."""
        loop = asyncio.get_running_loop()
        quiet_since = loop.time() - PING_SECONDS
        with self._lock:
            idle = [
                subscription
                for listeners in self._subscribers.values()
                for subscription in listeners
                if subscription.loop is loop and subscription.sent_at <= quiet_since
            ]
        for subscription in idle:
            if not subscription.states:
                subscription.put(PING)

    async def ping_idle_forever(self) -> None:
        """ping_idle a few times a period: one timer for every stream, not one each."""
        while True:
            await asyncio.sleep(PING_SECONDS / 3)
            self.ping_idle()
