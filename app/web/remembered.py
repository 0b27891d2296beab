"""What this browser remembers: the games and tables it opened, kept in cookies (newest
first), and the home page's lists of them."""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response
from sqlmodel import Session

from ..games import GameState, find_game
from ..tables import TableSummary, find_tables
from .forms import NewGameForm

GAMES_COOKIE = "crownkeeper_games"
REMEMBERED_GAMES = 12
TABLES_COOKIE = "crownkeeper_tables"
REMEMBERED_TABLES = 8


def remembered_codes(request: Request) -> list[str]:
    """Game codes this browser has opened, newest first."""
    return _codes(request, GAMES_COOKIE, REMEMBERED_GAMES)


def remember(response: Response, request: Request, code: str) -> None:
    """Keep code first in this browser's list of games."""
    codes = [code, *(c for c in remembered_codes(request) if c != code)]
    _set_codes(response, request, GAMES_COOKIE, codes[:REMEMBERED_GAMES])


def forget(response: Response, request: Request, code: str) -> None:
    """Drop code from this browser's list of games (a replaced scorekeeper link)."""
    codes = [c for c in remembered_codes(request) if c != code]
    _set_codes(response, request, GAMES_COOKIE, codes)


def remembered_table_codes(request: Request) -> list[str]:
    """Table codes this browser has opened, newest first."""
    return _codes(request, TABLES_COOKIE, REMEMBERED_TABLES)


def remember_table(response: Response, request: Request, code: str) -> None:
    """Keep code first in this browser's list of tables."""
    codes = [code, *(c for c in remembered_table_codes(request) if c != code)]
    _set_codes(response, request, TABLES_COOKIE, codes[:REMEMBERED_TABLES])


def _codes(request: Request, cookie: str, most: int) -> list[str]:
    raw = request.cookies.get(cookie, "")
    return [code for code in raw.split(".") if 0 < len(code) <= 64][:most]


def _set_codes(response: Response, request: Request, cookie: str, codes: list[str]) -> None:
    # The cookies hold scorekeeper codes: never sent over plain HTTP once the site has HTTPS.
    response.set_cookie(
        cookie,
        ".".join(codes),
        max_age=400 * 24 * 3600,
        httponly=True,
        secure=request.url.scheme == "https",
        samesite="lax",
        path=request.scope.get("root_path") or "/",
    )


def remembered_tables(request: Request, session: Session) -> list[TableSummary]:
    """The tables this browser remembers that still exist, newest first."""
    return find_tables(session, codes=remembered_table_codes(request))


def home_context(request: Request, session: Session) -> dict[str, Any]:
    """What the home page shows: a blank new game, and this browser's games and tables."""
    found = [find_game(session, code=code) for code in remembered_codes(request)]
    return {
        "form": NewGameForm.blank(),
        "games": [game for game in found if isinstance(game, GameState)],
        "tables": remembered_tables(request, session),
    }
