"""What the routes share: the codes in their paths looked up, the scorekeeper's check made
with the same read the change uses, and the limit on creating games and tables. Their
errors go on to errors.py, which answers them."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from .. import i18n
from ..db import SessionDep
from ..games import GameState, OpenGame, ReadOnlyLink, load_game, open_game
from ..imports import Imported, import_document
from ..tables import check_keeper_code, language_of_game, open_table_game
from .rendering import posted_fields

Code = Annotated[str, Path(description="The game's code from its link")]
TableCode = Annotated[str, Path(description="The table's code from its link")]


def in_table_language(session: Session, state: GameState) -> GameState:
    """A table's game is shown in the table's language to whoever chose none: call it in the
    route that draws the page (the language is the request's context)."""
    if not i18n.chosen():
        i18n.prefer(language_of_game(session, game_id=state.game_id))
    return state


async def form_fields(request: Request) -> dict[str, str]:
    """A form post's text fields, read on the event loop before the route runs: a route
    that writes is then a plain function, run in a thread, so the event loop never waits
    for the write lock."""
    return await posted_fields(request)


FormFields = Annotated[dict[str, str], Depends(form_fields)]


def keeper_table_code(code: TableCode, session: SessionDep) -> str:
    """The code, once it is known to be the table's scorekeeper code (else 404 or 403)."""
    check_keeper_code(session, code=code)
    return code


KeeperTableCode = Annotated[str, Depends(keeper_table_code)]


def check_create_limit(
    request: Request, what: str = "games", session: Session | None = None
) -> None:
    """RateLimited once this address has created CREATE_RATE_LIMIT games and tables (counted
    in session's transaction when it is writing: a game opened for a change)."""
    request.app.state.create_limiter.check(request, what, session=session)


def page_game_for_change(session: Session, code: str, *, at_table: bool = False) -> OpenGame:
    """The game opened for a change from a page; with at_table, for a change that touches
    its table's people (its table locked first)."""
    return open_table_game(session, code=code) if at_table else open_game(session, code=code)


def check_rematch_limit(request: Request, session: Session, game: OpenGame) -> None:
    """A rematch about to start a new game counts as one; asking again for one already
    started does not. RateLimited beyond CREATE_RATE_LIMIT (counted with the rematch)."""
    state = game.state()
    if state.finished and state.rematch_code is None:
        check_create_limit(request, session=session)


def page_game_to_edit(session: Session, code: str) -> GameState:
    """The game for a page that edits it, read but not yet changed (403 for a watch link)."""
    state = load_game(session, code=code)
    if not state.can_edit:
        raise ReadOnlyLink(ReadOnlyLink.message)
    return state


async def import_into(
    request: Request, session: Session, *, table_code: str, raw: bytes
) -> Imported:
    """Import an export's bytes at the table, off the event loop, within this server's
    IMPORT_MAX_GAMES and TABLE_MAX_PEOPLE (ImportRefused, or ImportTooBig, in words)."""
    settings = request.app.state.settings
    return await run_in_threadpool(
        import_document,
        session,
        raw,
        table_code=table_code,
        max_games=settings.import_max_games,
        max_people=settings.table_max_people,
    )
