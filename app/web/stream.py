"""Server-sent events: every open game page hears about each change within moments."""

import asyncio
from collections import Counter
from typing import Any

import anyio
import anyio.to_thread
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from fastapi.sse import KEEPALIVE_COMMENT, format_sse_event
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from .. import i18n
from ..caches import Recent
from ..games import GameNotFound, GameState, find_game
from ..i18n import fill
from ..i18n import gettext as _
from ..live import PING, LiveUpdates, Subscription
from ..tables import language_of_game
from .rendering import live_update, replaced_update

router = APIRouter(include_in_schema=False)

RENDERED_KEPT = 64
_rendered: Recent[tuple[str, int, str, str, str], str] = Recent(RENDERED_KEPT)
_events: Recent[tuple[str, int, str, str, str], bytes] = Recent(RENDERED_KEPT)


def _view(request: Request, state: GameState) -> tuple[str, int, str, str, str]:
    """What one rendering of a live update serves: the same game at the same version, seen
    through the same link, under the same ROOT_PATH, in the same language."""
    return (
        state.code,
        state.version,
        state.watch_code,
        request.scope.get("root_path", ""),
        i18n.language(),
    )


def rendered_once(request: Request, state: GameState) -> str:
    """The live update for state, rendered once and shared by every page showing the same
    view: two hundred watchers of one game cost one rendering, not two hundred."""
    key = _view(request, state)
    html = _rendered.get(key)
    if html is None:
        html = _rendered.put(key, live_update(request, state))
    return html


def event_once(request: Request, state: GameState) -> bytes:
    """The event that carries rendered_once's update, framed once for every page."""
    key = _view(request, state)
    event = _events.get(key)
    if event is None:
        html = rendered_once(request, state)
        event = _events.put(key, format_sse_event(data_str=html, id=str(state.version)))
    return event


def load_briefly(request: Request, code: str) -> GameState | GameNotFound:
    """The whole game for code (the scorekeeper's state, kept for the notices to come:
    notice.py), or why there is none, on a session closed at once (a stream may stay open
    for hours)."""
    with Session(request.app.state.engine) as session:
        return find_game(session, code=code, whole=True)


# Streams read the database on a few threads of their own: two thousand pages opening at
# once then queue here, and the threads that answer ordinary requests stay free.
STREAM_THREADS = anyio.CapacityLimiter(4)


def live_updates(request: Request) -> LiveUpdates:
    updates = request.app.state.live
    assert isinstance(updates, LiveUpdates)
    return updates


async def load_for_stream(request: Request, code: str) -> GameState | GameNotFound:
    """The game's newest state (or why there is none): from memory when a save or another
    page has seen it lately, from the database otherwise; pages arriving together for one
    game share one read."""
    updates = live_updates(request)
    known = updates.broker.latest(code)
    if known is not None:
        return known
    reading: dict[str, asyncio.Task[GameState | GameNotFound]] = request.app.state.stream_reads
    loading = reading.get(code)
    if loading is None:
        # A task of its own, so a page that leaves early does not cancel the others' read.
        loading = reading[code] = asyncio.create_task(_load(request, code))
        loading.add_done_callback(lambda done: _forget_load(reading, code, done))
    return await asyncio.shield(loading)


async def _load(request: Request, code: str) -> GameState | GameNotFound:
    state = await anyio.to_thread.run_sync(load_briefly, request, code, limiter=STREAM_THREADS)
    if not isinstance(state, GameState):
        return state
    live_updates(request).broker.remember(state)
    return state if code == state.code else state.for_watchers()


def _forget_load(
    reading: dict[str, asyncio.Task[GameState | GameNotFound]],
    code: str,
    done: asyncio.Task[GameState | GameNotFound],
) -> None:
    reading.pop(code, None)
    if not done.cancelled():
        done.exception()  # seen here, so a read nobody waited for to the end is not reported


def table_language(request: Request, game_id: int) -> str | None:
    with Session(request.app.state.engine) as session:
        return language_of_game(session, game_id=game_id)


async def in_table_language(request: Request, state: GameState) -> None:
    """A table's game is followed in the table's language by whoever chose none."""
    if not i18n.chosen():
        language = await anyio.to_thread.run_sync(
            table_language, request, state.game_id, limiter=STREAM_THREADS
        )
        i18n.prefer(language)


async def game_to_follow(request: Request, code: str) -> GameState:
    """The game, or a 404 (410 for a replaced scorekeeper link: errors.py) before the stream
    starts."""
    found = await load_for_stream(request, code)
    if isinstance(found, GameNotFound):
        raise found
    return found


# A page turned away from its stream polls the live regions instead, this often (seconds).
POLL_SECONDS = 15


class StreamCounts:
    """Open streams, per game and in all: STREAMS_PER_GAME and STREAMS_TOTAL cap them, so a
    crowd of viewers cannot starve the table of connections and memory."""

    def __init__(self, *, per_game: int, total: int) -> None:
        self.per_game = per_game
        self.total = total
        self.open: Counter[str] = Counter()

    def try_open(self, game: str) -> bool:
        """Take a place for one stream of game; False when a cap is reached."""
        if self.open[game] >= self.per_game or self.open.total() >= self.total:
            return False
        self.open[game] += 1
        return True

    def close(self, game: str) -> None:
        self.open[game] -= 1
        if self.open[game] <= 0:
            del self.open[game]


@router.get("/g/{code}/live", response_class=HTMLResponse)
async def game_live(request: Request, code: str) -> HTMLResponse:
    """The live regions once, as a stream would send them: what a page polls when the
    server had no room for its stream."""
    state = await game_to_follow(request, code)
    await in_table_language(request, state)
    html = await run_in_threadpool(rendered_once, request, state)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


class GameEvents:
    """GET /g/{code}/events: the game's live regions now, then again after every change, as
    server-sent events. A plain ASGI route: thousands of pages hold their streams open for
    hours, so each is one coroutine (and one more that waits for the page to leave), not a
    framework's tasks and channels per stream; idle streams are pinged by one timer for all
    (LiveUpdates)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        code = scope["path_params"]["code"]
        game = await game_to_follow(request, code)
        await in_table_language(request, game)
        counts: StreamCounts = request.app.state.streams
        if not counts.try_open(game.watch_code):
            raise HTTPException(
                503,
                fill(
                    _(
                        "Too many live pages are open; this page refreshes its totals every "
                        "%(seconds)s s instead."
                    ),
                    seconds=POLL_SECONDS,
                ),
                headers={"Retry-After": str(POLL_SECONDS)},
            )
        updates = live_updates(request)
        subscription = updates.subscribe(game.watch_code)
        leaving = asyncio.create_task(_until_gone(receive, subscription))
        try:
            await send(STREAM_START)
            await _follow(request, code, subscription, send)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            leaving.cancel()
            updates.unsubscribe(subscription)
            counts.close(game.watch_code)


STREAM_START: Message = {
    "type": "http.response.start",
    "status": 200,
    "headers": [
        (b"content-type", b"text/event-stream; charset=utf-8"),
        (b"cache-control", b"no-cache"),
        (b"x-accel-buffering", b"no"),  # proxies pass each event on at once
    ],
}
GONE = object()
"""What a stream's line is handed when its page has gone."""


async def _until_gone(receive: Receive, subscription: Subscription) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    subscription.states.clear()
    subscription.put(GONE)


async def _follow(request: Request, code: str, subscription: Subscription, send: Send) -> None:
    # Subscribed first, then read: a change in between is not missed (and a game gone since
    # has nothing more to show).
    found = await load_for_stream(request, code)
    state: Any = found if isinstance(found, GameState) else None  # a state, PING or GONE
    shown_version = -1
    while state is not None:
        if state is PING:
            await send({"type": "http.response.body", "body": KEEPALIVE_COMMENT, "more_body": True})
        elif state.version > shown_version:
            # (Saves publish after they commit, so two close together can arrive swapped.)
            shown_version = state.version
            if code not in (state.code, state.watch_code):
                # The scorekeeper link was replaced: the page says so, never sees the new one.
                html = replaced_update(request, state.watch_code)
                await send({"type": "http.response.body", "body": format_sse_event(data_str=html)})
                return
            shown = state if code == state.code else state.for_watchers()
            event = event_once(request, shown)
            await send({"type": "http.response.body", "body": event, "more_body": True})
        state = await subscription.next_state()
        if state is GONE:
            return


def stream_routes() -> list[Route]:
    """The events stream, for the app to add beside the router's routes."""
    return [Route("/g/{code}/events", GameEvents(), methods=["GET"], name="game_events")]
