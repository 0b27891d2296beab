"""The JSON API for tables, and for what a game offers looking back: rematch, export,
delete and restore. Errors are answered by the app's handlers (web/errors.py)."""

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, status
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from ..db import SessionDep
from ..exports import (
    attachment,
    download_name,
    game_document,
    table_export,
)
from ..games import delete_game, load_game, rematch_game, restore_game
from ..rules.seasons import period_from
from ..tables import (
    create_table,
    load_person,
    load_table,
    merge_people,
    open_table_game,
    rename_person,
    set_language,
)
from .deps import (
    Code,
    KeeperTableCode,
    TableCode,
    check_create_limit,
    check_rematch_limit,
    import_into,
)
from .retrying import RetryingRoute
from .schemas import (
    PersonMerge,
    PersonRename,
    TableCreate,
    TableSettings,
    game_public,
    person_public,
    table_public,
)

router = APIRouter(prefix="/api", tags=["tables"], route_class=RetryingRoute)

TABLE_ERRORS = {
    404: {"description": "No table (or person) has this code"},
    403: {"description": "The table's watch code: it can read, never change"},
    409: {"description": "A person merged into another: `into` is the person they are now"},
}


@router.post("/tables", status_code=status.HTTP_201_CREATED)
def create(body: TableCreate, request: Request, session: SessionDep) -> Any:
    """Start a table (counted with new games against CREATE_RATE_LIMIT: 429 beyond)."""
    check_create_limit(request, "tables")
    state = create_table(session, name=body.name)
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
    year: Annotated[str | None, Query(description="A season: the games finished that year")] = None,
    since: Annotated[
        str | None, Query(alias="from", description="A season's first day (ISO date, inclusive)")
    ] = None,
    until: Annotated[
        str | None, Query(alias="to", description="A season's last day (ISO date, inclusive)")
    ] = None,
) -> Any:
    """The table: its people with their stats, streaks and rating, its records, and its
    games, newest first (the newest 50 unless asked for more; `game_count` says how many
    there are). With `year`, or `from` and `to`, stats, head to head, records, streaks and
    ratings cover the games that finished then; `period` says which, `years` lists the years
    with finished games."""
    limit = None if games == "all" else int(games)
    period = period_from(year, since, until)
    return JSONResponse(
        table_public(load_table(session, code=code, games_limit=limit, period=period))
    )


@router.patch("/tables/{code}", responses=TABLE_ERRORS)
def change_table(code: KeeperTableCode, body: TableSettings, session: SessionDep) -> Any:
    """Choose the table's language: its pages, and its games' pages, are in it for every
    reader who chose none of their own (null: each reader's browser decides)."""
    return JSONResponse(
        table_public(set_language(session, table_code=code, language=body.language))
    )


@router.get("/tables/{code}/people/{person_id}", responses=TABLE_ERRORS)
def read_person(
    code: TableCode,
    person_id: int,
    session: SessionDep,
    year: Annotated[str | None, Query(description="A season: the games finished that year")] = None,
    since: Annotated[
        str | None, Query(alias="from", description="A season's first day (ISO date, inclusive)")
    ] = None,
    until: Annotated[
        str | None, Query(alias="to", description="A season's last day (ISO date, inclusive)")
    ] = None,
) -> Any:
    """One person at the table over the season (all time without one): stats, streaks,
    rating and their whole head to head, against everyone they played."""
    period = period_from(year, since, until)
    state, person = load_person(session, code=code, person_id=person_id, period=period)
    return JSONResponse(person_public(state, person))


@router.patch("/tables/{code}/people/{person_id}", responses=TABLE_ERRORS)
def rename(code: KeeperTableCode, person_id: int, body: PersonRename, session: SessionDep) -> Any:
    """Rename a person; their games and stats stay theirs."""
    state = rename_person(session, table_code=code, person_id=person_id, name=body.name)
    return JSONResponse(table_public(state))


@router.post("/tables/{code}/people/{person_id}/merge", responses=TABLE_ERRORS)
def merge(code: KeeperTableCode, person_id: int, body: PersonMerge, session: SessionDep) -> Any:
    """Merge a person into another (a misspelt name)."""
    state = merge_people(session, table_code=code, keep_id=body.into, merge_id=person_id)
    return JSONResponse(table_public(state))


@router.get("/tables/{code}/export", responses=TABLE_ERRORS)
def export_table(
    code: TableCode, request: Request, session: SessionDep, download: bool = False
) -> Any:
    """Every game of the table as one document (`?download=1`: as a file to save), written
    a game at a time as its games are read, a batch at a time, in threads of their own."""
    name, chunks = table_export(session, request.app.state.engine, table_code=code)
    # The games are read on sessions of their own: this one lets go of its connection now
    # rather than once the last byte is sent.
    session.close()
    headers = attachment(download_name(name)) if download else None
    return StreamingResponse(chunks, media_type="application/json", headers=headers)


@router.post("/tables/{code}/import", responses=TABLE_ERRORS)
async def import_games(code: KeeperTableCode, request: Request, session: SessionDep) -> Any:
    """Recreate an export's games at the table; games already there are skipped. Counted
    against CREATE_RATE_LIMIT like a new game; IMPORT_MAX_GAMES and TABLE_MAX_PEOPLE are
    checked before anything else, and the games are written off the event loop."""
    await run_in_threadpool(check_create_limit, request)
    raw = await request.body()
    imported = await import_into(request, session, table_code=code, raw=raw)
    state = await run_in_threadpool(load_table, session, code=code, games_limit=GAMES_LISTED)
    answer = {"imported": imported.added, "already_there": imported.already_there}
    return JSONResponse({**answer, "table": table_public(state)})


@router.post("/games/{code}/rematch", status_code=status.HTTP_201_CREATED)
def rematch(code: Code, request: Request, session: SessionDep) -> Any:
    """Start the next game: the same players and seats, the deal one seat further on (a new
    game: counted against CREATE_RATE_LIMIT)."""
    game = open_table_game(session, code=code)
    check_rematch_limit(request, session, game)
    state, created = rematch_game(session, game=game)
    return JSONResponse(game_public(state), status_code=201 if created else 200)


@router.get("/games/{code}/export")
def export_game(code: Annotated[str, Path()], session: SessionDep, download: bool = False) -> Any:
    """The whole game as a document, with a format version and a stable id (`?download=1`:
    as a file to save)."""
    state = load_game(session, code=code)
    name = download_name(*state.players, when=state.created_at)
    return JSONResponse(game_document(state), headers=attachment(name) if download else None)


@router.delete("/games/{code}")
def delete(code: Code, session: SessionDep) -> Any:
    """Delete the game: it leaves lists and stats; it can be restored for 30 days."""
    state = delete_game(session, code=code)
    return JSONResponse({"deleted": True, "code": state.code})


@router.post("/games/{code}/restore")
def restore(code: Annotated[str, Path()], session: SessionDep) -> Any:
    """Bring a deleted game back (within 30 days)."""
    return JSONResponse(game_public(restore_game(session, code=code)))
