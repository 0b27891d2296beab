"""The JSON API: thin routes over the games service."""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Path, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import Engine
from sqlmodel import Session

from ..db import SessionDep
from ..games import (
    GameError,
    GameNotFound,
    GameState,
    NoSuchRound,
    NoSuchSeat,
    PlayerError,
    ReadOnlyLink,
    StaleVersion,
    add_player,
    add_tiebreak,
    create_game,
    finish_game,
    load_game,
    parse_cards,
    remove_player,
    replace_keeper_code,
    save_round,
)
from ..rules.cards import CardError, Decks
from ..rules.schedule import RoundOrder
from ..rules.scoring import RoundError, SeatResult
from ..rules.solver import check_hand_size, round_wild_rank, solve

router = APIRouter(prefix="/api", tags=["games"])


class GameCreate(BaseModel):
    """A new game: names in clockwise seat order (one name: solitaire), who deals first,
    and the order of the rounds."""

    model_config = ConfigDict(extra="forbid")
    players: list[str] = Field(min_length=1, max_length=50)
    first_dealer: int = 0
    order: RoundOrder = Field(
        default="up",
        description='"up": 3 cards first (the rulebook); house rules: "down" (13 cards, '
        'Kings wild, first) or "shuffled" (a random order fixed when the game starts)',
    )


class SeatResultIn(BaseModel):
    """One seat's result: went out, the cards left in hand, or the points counted already."""

    model_config = ConfigDict(extra="forbid")
    went_out: bool = False
    cards: list[str] | None = Field(default=None, max_length=60)
    points: int | None = None

    @model_validator(mode="after")
    def one_kind(self) -> "SeatResultIn":
        given = sum([self.went_out, self.cards is not None, self.points is not None])
        if given > 1:
            raise ValueError("give one of went_out, cards or points for each player")
        return self


class RoundSave(BaseModel):
    """Every seat's result for one round, in seat order (null for a seat not in the round;
    solitaire: one result, the pile); version guards against overwrites."""

    model_config = ConfigDict(extra="forbid")
    results: list[SeatResultIn | None] = Field(max_length=50)
    version: int | None = None


class PlayerJoin(BaseModel):
    """A player sitting down mid-game: at clockwise position seat (default: last), starting
    with zero, the highest total so far, the rounded average, or a number of points."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    seat: int | None = None
    start: Literal["zero", "highest", "average"] | int = "zero"


class Group(BaseModel):
    kind: Literal["book", "run"]
    cards: list[str]
    stands_for: list[str | None]


class RoundPublic(BaseModel):
    number: int
    kind: Literal["round", "tiebreak"] = Field(
        description='"round" for the eleven rounds (or piles), "tiebreak" for a tie-break'
    )
    cards_dealt: int
    wild_rank: str
    dealer: int
    first_player: int
    players_in: list[int] = Field(description="The seats that play this round")
    went_out: int | None
    scores: list[int | None] | None = Field(description="Per seat; null for a seat not in it")
    cards: list[list[str] | None] | None = Field(
        description="Per seat, the cards entered on the picker (null: typed, went out or not "
        "in the round); in solitaire, the whole pile"
    )
    groups: list[Group] | None = Field(
        default=None, description="Solitaire: the pile's best books and runs"
    )
    leftover: list[str] | None = Field(
        default=None, description="Solitaire: the pile's cards left over, which score"
    )


class SeatPublic(BaseModel):
    name: str
    start_points: int = Field(description="Points a player who joined mid-game started with")
    joined_round: int | None = Field(description="The first round played, if joined mid-game")
    left_round: int | None = Field(description="The first round no longer played, if left")


class GamePublic(BaseModel):
    code: str = Field(description="The code this game was asked for with")
    can_edit: bool = Field(description="True for the scorekeeper's code, false for a watch code")
    watch_code: str | None = Field(
        default=None, description="The read-only code (only in the scorekeeper's answers)"
    )
    mode: Literal["game", "solitaire"]
    order: RoundOrder
    players: list[str]
    seats: list[SeatPublic]
    first_dealer: int
    rounds: list[RoundPublic]
    totals: list[int]
    current_round: int | None
    leaders: list[int]
    finished: bool
    winners: list[int]
    won: bool | None = Field(
        description="Solitaire, once every pile is saved: true if every pile closed"
    )
    can_tiebreak: bool = Field(
        description="The game is over and the lowest total is shared: a tie-break may be played"
    )
    version: int


def game_public(state: GameState) -> dict[str, Any]:
    """The API's view of a game."""
    current = state.current_round
    rounds = [
        RoundPublic(
            number=r.number,
            kind=r.kind,
            cards_dealt=r.cards_dealt,
            wild_rank=r.wild_rank_code,
            dealer=r.dealer,
            first_player=r.first_player,
            players_in=list(r.players_in),
            went_out=r.went_out,
            scores=r.scores,
            cards=None
            if r.entries is None
            else [
                None if e is None or e.cards is None else [c.code for c in e.cards]
                for e in r.entries
            ],
            groups=None if r.layout is None else r.layout["groups"],
            leftover=None if r.layout is None else r.layout["leftover"],
        )
        for r in state.rounds
    ]
    return GamePublic(
        code=state.code,
        can_edit=state.can_edit,
        watch_code=state.watch_code if state.can_edit else None,
        mode=state.mode,
        order=state.order,
        players=list(state.players),
        seats=[
            SeatPublic(
                name=seat.name,
                start_points=seat.start_points,
                joined_round=seat.joined_round,
                left_round=seat.left_round,
            )
            for seat in state.seats
        ],
        first_dealer=state.first_dealer,
        rounds=rounds,
        totals=state.totals,
        current_round=None if current is None else current.number,
        leaders=state.leaders,
        finished=state.finished,
        winners=state.winners,
        won=state.won,
        can_tiebreak=state.can_tiebreak and state.can_edit,
        version=state.version,
    ).model_dump(exclude=None if state.can_edit else {"watch_code"})


def _error(status_code: int, detail: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"detail": detail, **extra}, status_code=status_code)


Code = Annotated[str, Path(description="The game's code from its link")]
NOT_FOUND = {404: {"description": "No game has this code"}}
WRITE_ERRORS = {
    **NOT_FOUND,
    403: {"description": "A watch code: it can read the game, never change it"},
}


def scorekeeper_code(code: Code, session: SessionDep) -> str:
    """The code, once it is known to be the scorekeeper's: checked before the body is read,
    so a watch code gets 403 whatever it sends (GameNotFound and ReadOnlyLink are answered
    by the app's handlers)."""
    if not load_game(session, code=code).can_edit:
        raise ReadOnlyLink(ReadOnlyLink.message)
    session.rollback()
    return code


def code_problem(engine: Engine, code: str, method: str) -> GameError | GameNotFound | None:
    """Why a request for code must fail whatever its body: an unknown code, or a change
    asked for with a watch code. Used when the body itself could not be read."""
    with Session(engine) as session:
        try:
            state = load_game(session, code=code)
        except GameNotFound as error:
            return error
    if method != "GET" and not state.can_edit:
        return ReadOnlyLink(ReadOnlyLink.message)
    return None


KeeperCode = Annotated[str, Depends(scorekeeper_code)]


@router.post("/games", status_code=status.HTTP_201_CREATED, response_model=GamePublic)
def create(body: GameCreate, session: SessionDep) -> Any:
    """Start a game."""
    try:
        state = create_game(
            session, players=body.players, first_dealer=body.first_dealer, order=body.order
        )
    except GameError as error:
        return _error(422, str(error))
    return JSONResponse(game_public(state), status_code=201)


@router.get("/games/{code}", response_model=GamePublic, responses=NOT_FOUND)
def read(code: Code, session: SessionDep) -> Any:
    """The game's state."""
    return JSONResponse(game_public(load_game(session, code=code)))


@router.put("/games/{code}/rounds/{number}", response_model=GamePublic, responses=WRITE_ERRORS)
def put_round(
    code: KeeperCode,
    number: Annotated[int, Path(description="Round number, 1 to 11")],
    body: Annotated[RoundSave, Body()],
    session: SessionDep,
) -> Any:
    """Save or correct one round."""
    try:
        results = [
            None
            if entry is None
            else SeatResult(
                went_out=entry.went_out,
                cards=None if entry.cards is None else parse_cards(entry.cards),
                points=entry.points,
            )
            for entry in body.results
        ]
        state = save_round(session, code=code, number=number, results=results, version=body.version)
    except StaleVersion as error:
        session.rollback()
        return _error(409, str(error), game=game_public(load_game(session, code=code)))
    except RoundError as error:
        return _error(
            422,
            str(error),
            seat_errors={str(seat): message for seat, message in error.seat_errors.items()},
            table_errors=error.table_errors,
        )
    except CardError as error:
        return _error(422, str(error))
    except (NoSuchRound, ReadOnlyLink):
        raise  # answered by the app's handlers: 404 and 403
    except GameError as error:
        return _error(409, str(error))
    return JSONResponse(game_public(state))


@router.post("/games/{code}/finish", response_model=GamePublic, responses=WRITE_ERRORS)
def finish(code: KeeperCode, session: SessionDep) -> Any:
    """End the game now; the lowest total wins."""
    try:
        return JSONResponse(game_public(finish_game(session, code=code)))
    except GameError as error:
        return _error(409, str(error))


@router.post(
    "/games/{code}/tiebreak",
    status_code=status.HTTP_201_CREATED,
    response_model=GamePublic,
    responses={**WRITE_ERRORS, 409: {"description": "No shared lowest total to break"}},
)
def tiebreak(code: KeeperCode, session: SessionDep) -> Any:
    """Deal a 6-card tie-break round to the players sharing the lowest total."""
    try:
        return JSONResponse(game_public(add_tiebreak(session, code=code)), status_code=201)
    except GameError as error:
        return _error(409, str(error))


@router.post(
    "/games/{code}/players",
    status_code=status.HTTP_201_CREATED,
    response_model=GamePublic,
    responses=WRITE_ERRORS,
)
def join(code: KeeperCode, body: Annotated[PlayerJoin, Body()], session: SessionDep) -> Any:
    """Seat a new player from the next unsaved round on."""
    try:
        state = add_player(session, code=code, name=body.name, seat=body.seat, start=body.start)
    except PlayerError as error:
        return _error(422, str(error))
    except GameError as error:
        return _error(409, str(error))
    return JSONResponse(game_public(state), status_code=201)


@router.delete("/games/{code}/players/{seat}", response_model=GamePublic, responses=WRITE_ERRORS)
def leave(
    code: KeeperCode,
    seat: Annotated[int, Path(description="The seat of the player who leaves, from 0")],
    session: SessionDep,
) -> Any:
    """Take a player out from the next unsaved round on; their total stays on the sheet."""
    try:
        return JSONResponse(game_public(remove_player(session, code=code, seat=seat)))
    except NoSuchSeat as error:
        return _error(404, str(error))
    except PlayerError as error:
        return _error(422, str(error))
    except GameError as error:
        return _error(409, str(error))


@router.post("/games/{code}/scorekeeper-code", response_model=GamePublic, responses=WRITE_ERRORS)
def replace_code(code: KeeperCode, session: SessionDep) -> Any:
    """Replace the scorekeeper code; the old one stops working at once."""
    return JSONResponse(game_public(replace_keeper_code(session, code=code)))


class HandCheck(BaseModel):
    """A hand to lay out: card codes with suits, the round's wild rank, and whether the
    hand is the one after drawing (one card then goes to the discard pile)."""

    model_config = ConfigDict(extra="forbid")
    cards: list[str] = Field(max_length=60)
    wild_rank: str | int | None = Field(
        default=None, description="The wild rank; with cards_dealt it may be left out"
    )
    cards_dealt: int | None = Field(
        default=None,
        ge=3,
        le=13,
        description="The round's cards dealt: the hand then holds exactly that many cards, "
        "or one more with discard",
    )
    discard: bool = False
    games: int = Field(
        default=1, ge=1, le=2, description="2 for two games combined (8 to 14 players)"
    )


@router.post("/hands/solve", tags=["hands"])
def solve_hand(body: HandCheck) -> Any:
    """The best books and runs for a hand, and the fewest points it can be left with."""
    try:
        wild_rank = round_wild_rank(body.wild_rank, body.cards_dealt)
        if body.cards_dealt is not None:
            check_hand_size(len(body.cards), cards_dealt=body.cards_dealt, discard=body.discard)
        solution = solve(body.cards, wild_rank, body.discard, decks=Decks(body.games))
    except ValueError as error:
        return _error(422, str(error))
    return solution.to_dict()
