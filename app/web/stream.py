"""Server-sent events: every open game page hears about each change within moments."""

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
import anyio.to_thread
from fastapi import APIRouter, Depends, HTTPException, Path, Request
from fastapi.responses import HTMLResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from .. import i18n, live
from ..caches import Recent
from ..games import GameNotFound, GameState, find_game
from ..i18n import fill
from ..i18n import gettext as _
from ..tables import language_of_game
from .rendering import live_update, replaced_update

router = APIRouter(include_in_schema=False)

RENDERED_KEPT = 64
_rendered: Recent[tuple[str, int, str, str, str], str] = Recent(RENDERED_KEPT)


def rendered_once(request: Request, state: GameState) -> str:
    """The live update for state, rendered once and shared by every page showing the same
    view: two hundred watchers of one game cost one rendering, not two hundred."""
    key = (
        state.code,
        state.version,
        state.watch_code,
        request.scope.get("root_path", ""),
        i18n.language(),
    )
    html = _rendered.get(key)
    if html is None:
        html = _rendered.put(key, live_update(request, state))
    return html


def load_briefly(request: Request, code: str) -> GameState | GameNotFound:
    """The game for code, or why there is none, on a session closed at once (a stream may
    stay open for hours)."""
    with Session(request.app.state.engine) as session:
        return find_game(session, code=code)


# Streams read the database on a few threads of their own: two thousand pages opening at
# once then queue here, and the threads that answer ordinary requests stay free.
STREAM_THREADS = anyio.CapacityLimiter(4)


_loading: dict[str, asyncio.Task[GameState | GameNotFound]] = {}


async def load_for_stream(request: Request, code: str) -> GameState | GameNotFound:
    """The game's newest state (or why there is none): from memory when a save or another
    page has seen it lately, from the database otherwise; pages arriving together for one
    game share one read."""
    known = live.broker.latest(code)
    if known is not None:
        return known
    loading = _loading.get(code)
    if loading is None:
        # A task of its own, so a page that leaves early does not cancel the others' read.
        loading = _loading[code] = asyncio.create_task(_load(request, code))
        loading.add_done_callback(lambda done: _forget_load(code, done))
    return await asyncio.shield(loading)


async def _load(request: Request, code: str) -> GameState | GameNotFound:
    state = await anyio.to_thread.run_sync(load_briefly, request, code, limiter=STREAM_THREADS)
    if isinstance(state, GameState):
        live.broker.remember(state)
    return state


def _forget_load(code: str, done: asyncio.Task[GameState | GameNotFound]) -> None:
    _loading.pop(code, None)
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


async def game_to_follow(request: Request, code: Annotated[str, Path()]) -> GameState:
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


async def stream_place(
    request: Request, game: Annotated[GameState, Depends(game_to_follow)]
) -> AsyncIterator[GameState]:
    """A place among the capped streams for the whole life of this one, or 503. Runs on the
    event loop, so checking and taking a place cannot interleave with another request."""
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
    try:
        yield game
    finally:
        counts.close(game.watch_code)


@router.get("/g/{code}/live", response_class=HTMLResponse)
async def game_live(request: Request, code: str) -> HTMLResponse:
    """The live regions once, as a stream would send them: what a page polls when the
    server had no room for its stream."""
    state = await game_to_follow(request, code)
    await in_table_language(request, state)
    html = await run_in_threadpool(rendered_once, request, state)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/g/{code}/events", response_class=EventSourceResponse)
async def game_events(
    request: Request, code: str, game: Annotated[GameState, Depends(stream_place)]
) -> AsyncIterator[ServerSentEvent]:
    """The game's live regions now, then again after every change."""
    await in_table_language(request, game)
    subscription = live.subscribe(game.watch_code)
    try:
        # Subscribed first, then read: a change in between is not missed (and a game gone
        # since has nothing more to show).
        found = await load_for_stream(request, code)
        state = found if isinstance(found, GameState) else None
        shown_version = -1
        while state is not None:
            if state.version <= shown_version:
                # Saves publish after they commit, so two close together can arrive swapped.
                state = await subscription.next_state()
                continue
            shown_version = state.version
            if code not in (state.code, state.watch_code):
                # The scorekeeper link was replaced: the page says so, and never sees the new one.
                yield ServerSentEvent(raw_data=replaced_update(request, state.watch_code))
                return
            shown = state if code == state.code else state.for_watchers()
            yield ServerSentEvent(raw_data=rendered_once(request, shown), id=str(state.version))
            state = await subscription.next_state()
    finally:
        live.unsubscribe(subscription)
