"""The JSON API for games and the hand checker: thin routes over the games service. Errors
are answered by the app's handlers (web/errors.py).

A change opens its game (the write lock, then the one read that also checks the code is the
scorekeeper's) in the same thread that makes it, so the lock is held only while the change is
made: a watch code gets 403 whatever it sends (a body that cannot be read is answered with
the code's problem first, errors.py)."""

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Request, status
from fastapi.responses import JSONResponse

from ..db import SessionDep
from ..games import (
    add_player,
    add_tiebreak,
    create_game,
    finish_game,
    load_game,
    open_game,
    parse_cards,
    remove_player,
    replace_keeper_code,
    return_player,
    save_round,
)
from ..rules.cards import Decks
from ..rules.scoring import SeatResult
from ..rules.solver import check_hand_size, round_wild_rank, solve
from ..tables import check_room_for, open_table_game, start_game
from .deps import Code, check_create_limit
from .errors import api_problem
from .retrying import RetryingRoute
from .schemas import GameCreate, GamePublic, HandCheck, PlayerJoin, RoundSave, game_public

router = APIRouter(prefix="/api", tags=["games"], route_class=RetryingRoute)

NOT_FOUND = {404: {"description": "No game has this code"}}
WRITE_ERRORS = {
    **NOT_FOUND,
    403: {"description": "A watch code: it can read the game, never change it"},
}


@router.post(
    "/games",
    status_code=status.HTTP_201_CREATED,
    response_model=GamePublic,
    responses={429: {"description": "Too many new games from this address; see Retry-After"}},
)
def create(body: GameCreate, request: Request, session: SessionDep) -> Any:
    """Start a game (CREATE_RATE_LIMIT new games per client address: 429 beyond)."""
    check_create_limit(request)
    if body.table is None:
        state = create_game(
            session, players=body.players, first_dealer=body.first_dealer, order=body.order
        )
    else:
        state = start_game(
            session,
            table_code=body.table,
            players=body.players,
            first_dealer=body.first_dealer,
            order=body.order,
            max_people=request.app.state.settings.table_max_people,
        )
    return JSONResponse(game_public(state), status_code=201)


@router.get("/games/{code}", response_model=GamePublic, responses=NOT_FOUND)
def read(code: Code, session: SessionDep) -> Any:
    """The game's state."""
    return JSONResponse(game_public(load_game(session, code=code)))


@router.put(
    "/games/{code}/rounds/{number}",
    response_model=GamePublic,
    responses={
        **WRITE_ERRORS,
        409: {"description": "A stale version: the game changed since; `game` is as it is now"},
        428: {"description": "A round already saved changes only with the version it is based on"},
    },
)
def put_round(
    code: Code,
    number: Annotated[int, Path(description="Round number, 1 to 11")],
    body: Annotated[RoundSave, Body()],
    session: SessionDep,
) -> Any:
    """Save one round, or correct one already saved (with the version it is based on)."""
    game = open_game(session, code=code)
    results = [
        None
        if entry is None
        else SeatResult(
            went_out=entry.went_out,
            cards=None if entry.cards is None else parse_cards(entry.cards),
            points=entry.points,
            confirmed=entry.confirmed,
        )
        for entry in body.results
    ]
    state = save_round(session, game=game, number=number, results=results, version=body.version)
    return JSONResponse(game_public(state))


@router.post("/games/{code}/finish", response_model=GamePublic, responses=WRITE_ERRORS)
def finish(code: Code, session: SessionDep) -> Any:
    """End the game now; the lowest total wins."""
    return JSONResponse(game_public(finish_game(session, code=code)))


@router.post(
    "/games/{code}/tiebreak",
    status_code=status.HTTP_201_CREATED,
    response_model=GamePublic,
    responses={**WRITE_ERRORS, 409: {"description": "No shared lowest total to break"}},
)
def tiebreak(code: Code, session: SessionDep) -> Any:
    """Deal a 6-card tie-break round to the players sharing the lowest total."""
    return JSONResponse(game_public(add_tiebreak(session, code=code)), status_code=201)


@router.post(
    "/games/{code}/players",
    status_code=status.HTTP_201_CREATED,
    response_model=GamePublic,
    responses=WRITE_ERRORS,
)
def join(
    code: Code, body: Annotated[PlayerJoin, Body()], request: Request, session: SessionDep
) -> Any:
    """Seat a new player from the next unsaved round on (at a table: TABLE_MAX_PEOPLE)."""
    game = open_table_game(session, code=code)
    limit = request.app.state.settings.table_max_people
    check_room_for(session, game_id=game.id, name=body.name, max_people=limit)
    state = add_player(session, game=game, name=body.name, seat=body.seat, start=body.start)
    return JSONResponse(game_public(state), status_code=201)


@router.delete("/games/{code}/players/{seat}", response_model=GamePublic, responses=WRITE_ERRORS)
def leave(
    code: Code,
    seat: Annotated[int, Path(description="The seat of the player who leaves, from 0")],
    session: SessionDep,
) -> Any:
    """Take a player out from the next unsaved round on; their total stays on the sheet."""
    return JSONResponse(game_public(remove_player(session, code=code, seat=seat)))


@router.post(
    "/games/{code}/players/{seat}/return", response_model=GamePublic, responses=WRITE_ERRORS
)
def come_back(
    code: Code,
    seat: Annotated[int, Path(description="The seat of a player who left, from 0")],
    session: SessionDep,
) -> Any:
    """Seat again a player who left, from the next unsaved round on, with their total."""
    return JSONResponse(game_public(return_player(session, code=code, seat=seat)))


@router.post("/games/{code}/scorekeeper-code", response_model=GamePublic, responses=WRITE_ERRORS)
def replace_code(code: Code, session: SessionDep) -> Any:
    """Replace the scorekeeper code; the old one stops working at once."""
    return JSONResponse(game_public(replace_keeper_code(session, code=code)))


@router.post("/hands/solve", tags=["hands"])
def solve_hand(body: HandCheck) -> Any:
    """The best books and runs for a hand, and the fewest points it can be left with."""
    try:
        wild_rank = round_wild_rank(body.wild_rank, body.cards_dealt)
        if body.cards_dealt is not None:
            check_hand_size(len(body.cards), cards_dealt=body.cards_dealt, discard=body.discard)
        solution = solve(body.cards, wild_rank, body.discard, decks=Decks(body.games))
    except ValueError as error:
        return api_problem(422, str(error))
    return solution.to_dict()
