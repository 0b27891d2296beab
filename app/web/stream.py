"""Server-sent events: every open game page hears about each change within moments."""

from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Request
from fastapi.sse import EventSourceResponse, ServerSentEvent
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from .. import live
from ..games import GameNotFound, GameState, ReplacedLink, load_game
from .pages import live_update, replaced_update

router = APIRouter(include_in_schema=False)

RENDERED_KEPT = 64
_rendered: OrderedDict[tuple[str, int, str, str], str] = OrderedDict()


def rendered_once(request: Request, state: GameState) -> str:
    """The live update for state, rendered once and shared by every page showing the same
    view: two hundred watchers of one game cost one rendering, not two hundred."""
    key = (state.code, state.version, state.watch_code, request.scope.get("root_path", ""))
    html = _rendered.get(key)
    if html is None:
        html = _rendered[key] = live_update(request, state)
        while len(_rendered) > RENDERED_KEPT:
            _rendered.popitem(last=False)
    return html


def load_briefly(request: Request, code: str) -> GameState:
    """The game for code, on a session closed at once (a stream may stay open for hours)."""
    with Session(request.app.state.engine) as session:
        return load_game(session, code=code)


def game_to_follow(request: Request, code: Annotated[str, Path()]) -> GameState:
    """The game, or a 404 (410 for a replaced scorekeeper link) before the stream starts."""
    try:
        return load_briefly(request, code)
    except ReplacedLink as error:
        raise HTTPException(410, str(error)) from error
    except GameNotFound as error:
        raise HTTPException(404, str(error)) from error


@router.get("/g/{code}/events", response_class=EventSourceResponse)
async def game_events(
    request: Request, code: str, game: Annotated[GameState, Depends(game_to_follow)]
) -> AsyncIterator[ServerSentEvent]:
    """The game's live regions now, then again after every change."""
    subscription = live.subscribe(game.watch_code)
    try:
        # Subscribed first, then read: a change in between is not missed.
        state: GameState | None = await run_in_threadpool(load_briefly, request, code)
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
    except GameNotFound:
        return
    finally:
        live.unsubscribe(subscription)
