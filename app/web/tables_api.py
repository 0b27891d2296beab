"""The JSON API for tables, and for what a game offers looking back: rematch, export,
delete and restore. Thin routes over the tables, games and exports services."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Engine
from sqlmodel import Session

from ..db import SessionDep
from ..exports import ImportRefused, game_document, import_table, table_document
from ..games import GameError, delete_game, load_game, restore_game
from ..ratelimit import RateLimited
from ..tables import (
    NoSuchPerson,
    ReadOnlyTable,
    TableError,
    TableNotFound,
    TableState,
    check_keeper_code,
    create_table,
    load_table,
    merge_people,
    rematch,
    rename_person,
)
from .api import KeeperCode, game_public

router = APIRouter(prefix="/api", tags=["tables"])

TableCode = Annotated[str, Path(description="The table's code from its link")]
TABLE_ERRORS = {
    404: {"description": "No table (or person) has this code"},
    403: {"description": "The table's watch code: it can read, never change"},
}


class TableCreate(BaseModel):
    """A new table: its name."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class PersonRename(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class PersonMerge(BaseModel):
    """Merge the person in the path into this one: their games and stats move over."""

    model_config = ConfigDict(extra="forbid")
    into: int


def keeper_table_code(code: TableCode, session: SessionDep) -> str:
    """The code, once it is known to be the table's scorekeeper code (else 404 or 403)."""
    check_keeper_code(session, code=code)
    return code


KeeperTableCode = Annotated[str, Depends(keeper_table_code)]


def table_public(state: TableState) -> dict[str, Any]:
    """The API's view of a table; the watch view carries no scorekeeper code at all."""
    answer: dict[str, Any] = {"code": state.code}
    if state.can_edit:
        answer["watch_code"] = state.watch_code
    answer.update(
        name=state.name,
        can_edit=state.can_edit,
        people=[
            {
                "id": person.id,
                "name": person.name,
                "stats": {
                    "games": person.stats.games,
                    "wins": person.stats.wins,
                    "win_rate": person.stats.win_rate,
                    "average_total": person.stats.average_total,
                    "best_total": person.stats.best_total,
                    "worst_total": person.stats.worst_total,
                    "rounds": person.stats.rounds,
                    "went_out": person.stats.went_out,
                    "went_out_rate": person.stats.went_out_rate,
                    "average_round": person.stats.average_round,
                    "zero_rounds": person.stats.zero_rounds,
                    "solitaire": {
                        "played": person.stats.solitaire.played,
                        "won": person.stats.solitaire.won,
                        "best_total": person.stats.solitaire.best_total,
                    },
                },
                "versus": {
                    str(other): {"games": h.games, "lower": h.lower, "higher": h.higher}
                    for other, h in person.versus.items()
                },
            }
            for person in state.people
        ],
        game_count=state.game_count,
        games=[
            {
                "code": game.code,
                "created_at": game.created_at.isoformat(),
                "players": [seat.name for seat in game.seats],
                "person_ids": [seat.person_id for seat in game.seats],
                "totals": [seat.total for seat in game.seats],
                "winners": game.winners,
                "finished": game.finished,
                "rounds_saved": game.rounds_saved,
                "round_count": game.round_count,
            }
            for game in state.games
        ],
    )
    return answer


def check_rematch_limit(request: Request, session: Session, code: str) -> None:
    """A rematch about to start a new game counts as one; asking again for one already
    started does not. RateLimited beyond CREATE_RATE_LIMIT."""
    state = load_game(session, code=code)
    if state.finished and state.rematch_code is None:
        request.app.state.create_limiter.check(request)


def _too_many(error: RateLimited) -> JSONResponse:
    return JSONResponse(
        {"detail": str(error)}, status_code=429, headers={"Retry-After": str(error.retry_after)}
    )


def _error(status_code: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status_code)


def code_problem(engine: Engine, code: str, method: str) -> Exception | None:
    """Why a table request must fail whatever its body: an unknown or a watch code."""
    with Session(engine) as session:
        try:
            state = load_table(session, code=code)
        except TableNotFound as error:
            return error
    if method != "GET" and not state.can_edit:
        return ReadOnlyTable(ReadOnlyTable.message)
    return None


@router.post("/tables", status_code=status.HTTP_201_CREATED)
def create(body: TableCreate, request: Request, session: SessionDep) -> Any:
    """Start a table (counted with new games against CREATE_RATE_LIMIT: 429 beyond)."""
    try:
        request.app.state.create_limiter.check(request, "tables")
    except RateLimited as error:
        return _too_many(error)
    try:
        state = create_table(session, name=body.name)
    except TableError as error:
        return _error(422, str(error))
    created = table_public(state)
    del created["game_count"]  # nothing to count yet: the answer is exactly the new table
    return JSONResponse(created, status_code=201)


GAMES_LISTED = 50


@router.get("/tables/{code}", responses=TABLE_ERRORS)
def read(
    code: TableCode,
    session: SessionDep,
    games: Annotated[
        str,
        Query(pattern=r"^(all|[0-9]{1,6})$", description="How many games to list, or all"),
    ] = str(GAMES_LISTED),
) -> Any:
    """The table: its people with their stats, and its games, newest first (the newest 50
    unless asked for more; `game_count` says how many there are)."""
    limit = None if games == "all" else int(games)
    return JSONResponse(table_public(load_table(session, code=code, games_limit=limit)))


@router.patch("/tables/{code}/people/{person_id}", responses=TABLE_ERRORS)
def rename(code: KeeperTableCode, person_id: int, body: PersonRename, session: SessionDep) -> Any:
    """Rename a person; their games and stats stay theirs."""
    try:
        state = rename_person(session, table_code=code, person_id=person_id, name=body.name)
    except NoSuchPerson:
        raise
    except (GameError, TableError) as error:
        return _error(422, str(error))
    return JSONResponse(table_public(state))


@router.post("/tables/{code}/people/{person_id}/merge", responses=TABLE_ERRORS)
def merge(code: KeeperTableCode, person_id: int, body: PersonMerge, session: SessionDep) -> Any:
    """Merge a person into another (a misspelt name)."""
    try:
        state = merge_people(session, table_code=code, keep_id=body.into, merge_id=person_id)
    except NoSuchPerson:
        raise
    except TableError as error:
        return _error(422, str(error))
    return JSONResponse(table_public(state))


@router.get("/tables/{code}/export", responses=TABLE_ERRORS)
def export_table(code: TableCode, session: SessionDep) -> Any:
    """Every game of the table as one document."""
    return JSONResponse(table_document(session, table_code=code))


@router.post("/tables/{code}/import", responses=TABLE_ERRORS)
async def import_games(code: KeeperTableCode, request: Request, session: SessionDep) -> Any:
    """Recreate an export's games at the table; games already there are skipped."""
    try:
        document = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        return _error(422, "The document is not valid JSON.")
    try:
        added = import_table(session, table_code=code, document=document)
    except ImportRefused as error:
        return _error(422, str(error))
    state = load_table(session, code=code, games_limit=GAMES_LISTED)
    return JSONResponse({"imported": added, "table": table_public(state)})


@router.post("/games/{code}/rematch", status_code=status.HTTP_201_CREATED)
def rematch_game(code: KeeperCode, request: Request, session: SessionDep) -> Any:
    """Start the next game: the same players and seats, the deal one seat further on (a new
    game: counted against CREATE_RATE_LIMIT)."""
    try:
        check_rematch_limit(request, session, code)
    except RateLimited as error:
        return _too_many(error)
    try:
        state, created = rematch(session, code=code)
    except GameError as error:
        return _error(409, str(error))
    return JSONResponse(game_public(state), status_code=201 if created else 200)


@router.get("/games/{code}/export")
def export_game(code: Annotated[str, Path()], session: SessionDep) -> Any:
    """The whole game as a document, with a format version and a stable id."""
    return JSONResponse(game_document(load_game(session, code=code)))


@router.delete("/games/{code}")
def delete(code: KeeperCode, session: SessionDep) -> Any:
    """Delete the game: it leaves lists and stats; it can be restored for 30 days."""
    state = delete_game(session, code=code)
    return JSONResponse({"deleted": True, "code": state.code})


@router.post("/games/{code}/restore")
def restore(code: Annotated[str, Path()], session: SessionDep) -> Any:
    """Bring a deleted game back (within 30 days)."""
    return JSONResponse(game_public(restore_game(session, code=code)))
