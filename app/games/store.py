"""Rows to state and back: the one read of a game, and the rows a game is written as. A
write reads its game here once, changes the rows it holds, and builds its answer from them."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol

from sqlalchemy import select as select_rows
from sqlalchemy.orm import make_transient_to_detached
from sqlmodel import Session, SQLModel

from ..i18n import fill
from ..i18n import gettext as _
from ..models import Game, GameRound, Seat, SeatScore
from ..rules.cards import Card, parse_card
from ..rules.schedule import ROUND_ORDERS, RoundKind, RoundOrder, RoundPlan
from . import queries
from .queries import SCORE_FIELDS, GameRecord, ScoreRecord
from .state import (
    GameNotFound,
    GameState,
    PlayerState,
    ReadOnlyLink,
    ReplacedLink,
    RoundState,
    SeatEntry,
)


@dataclass
class OpenGame:
    """A game's rows as read once (under the write lock for a change), and the code it was
    asked for with. state() builds the game from them, no read.

    The rows are plain (Core rows, GameRecord, ScoreRecord): a save reads and writes them
    without the ORM. An operation that changes seats or rounds asks for `seats`, `rounds`
    or `scores`, which turn the rows into ORM objects of the session (no statement runs:
    they are known as read), for the flush to write what it changes."""

    game: GameRecord | Game
    seat_rows: list[Any]
    round_rows: list[Any]
    score_rows: dict[int, list[Any]] = field(default_factory=dict)
    """The scores in force, by round id, seat by seat."""
    rematch: tuple[str, str] | None = None
    """The scorekeeper and watch codes of the rematch started from this game, if any."""
    asked_with: str = ""
    session: Session | None = field(default=None, repr=False)
    attached: bool = False
    """Whether seats, rounds and scores are ORM objects of the session (a new game's are)."""

    @property
    def id(self) -> int:
        assert self.game.id is not None
        return self.game.id

    @property
    def seats(self) -> list[Seat]:
        self._attach()
        return self.seat_rows

    @property
    def rounds(self) -> list[GameRound]:
        self._attach()
        return self.round_rows

    @property
    def scores(self) -> dict[int, list[SeatScore]]:
        self._attach()
        return self.score_rows

    def _attach(self) -> None:
        if self.attached:
            return
        assert self.session is not None, "rows read outside a session cannot be changed"
        session = self.session
        self.seat_rows = [_persistent(session, Seat, row._mapping) for row in self.seat_rows]
        self.round_rows = [
            _persistent(session, GameRound, {name: row._mapping[name] for name in ROUND_COLUMNS})
            for row in self.round_rows
        ]
        self.score_rows = {
            round_id: [_persistent(session, SeatScore, vars_of(score)) for score in scores]
            for round_id, scores in self.score_rows.items()
        }
        self.attached = True

    def state(self) -> GameState:
        """The game as its rows now say (the scorekeeper's view)."""
        return state_of(self)

    def view(self) -> GameState:
        """The game as the code it was asked for shows it (a watch code cannot edit)."""
        state = self.state()
        return state if self.asked_with == self.game.code else state.for_watchers()


def vars_of(score: ScoreRecord) -> dict[str, Any]:
    return {name: getattr(score, name) for name in SCORE_FIELDS}


ROUND_COLUMNS = tuple(column.name for column in queries.ROUND.columns)


def _persistent(session: Session, model: type[SQLModel], values: Mapping[str, Any]) -> Any:
    """An ORM object of the session for a row read with Core, as if the ORM had loaded it:
    no statement runs; the flush writes only what changes afterwards (a score's saved_at,
    not read, takes its default here and is never written)."""
    row = model(**values)
    make_transient_to_detached(row)
    session.add(row)
    return row


def unknown_code(code: str) -> GameNotFound:
    """No game has code, said with the code as it was given (cut to 24 characters)."""
    shown = code if len(code) <= 24 else code[:24] + "…"
    return GameNotFound(
        fill(_("No game has the code %(code)s. Check the link, or start a new game."), code=shown)
    )


def read(
    session: Session, *, code: str, for_edit: bool = True, include_deleted: bool = False
) -> OpenGame:
    """The game for code in three statements (game, seats, rounds with their scores), as
    plain rows; for an edit, the game row is locked until the write commits, so two
    processes saving the same version cannot both get through the version check.
    GameNotFound, ReplacedLink or ReadOnlyLink when the code cannot do that."""
    if "\x00" in code:  # no code holds one (and PostgreSQL refuses it in a query)
        raise unknown_code(code)
    connection = session.connection()
    query = queries.GAME_BY_CODE_LOCKED if for_edit else queries.GAME_BY_CODE
    found = connection.execute(query, {"code": code}).first()
    if found is None:
        replaced = connection.execute(queries.REPLACED_CODE, {"code_hash": code_hash(code)}).first()
        if replaced is not None:
            raise ReplacedLink(replaced[0])
    if found is None or (found.deleted_at is not None and not include_deleted):
        raise unknown_code(code)
    game = GameRecord.of(found._mapping)
    if for_edit and code != game.code:
        raise ReadOnlyLink(ReadOnlyLink.message)
    seats = connection.execute(queries.SEATS, {"game_id": game.id}).all()
    rounds: list[Any] = []
    scores: dict[int, list[Any]] = {}
    for row in connection.execute(queries.ROUNDS_WITH_SCORES, {"game_id": game.id}).all():
        if not rounds or rounds[-1].id != row.id:
            rounds.append(row)
        if row.score_id is not None:
            scores.setdefault(row.id, []).append(
                ScoreRecord(
                    position=row.score_position,
                    points=row.score_points,
                    went_out=row.score_went_out,
                    cards=row.score_cards,
                    layout=row.score_layout,
                    id=row.score_id,
                    round_id=row.id,
                )
            )
    rematch = found.rematch_code, found.rematch_watch_code
    return OpenGame(
        game=game,
        seat_rows=list(seats),
        round_rows=rounds,
        score_rows=scores,
        rematch=None if rematch[0] is None else rematch,
        asked_with=code,
        session=session,
    )


def read_many(session: Session, *, game_ids: Sequence[int]) -> list[GameState]:
    """The games with these ids that are not deleted, in the order asked, each as read()
    makes it (without its rematch), in four statements however many there are: plain rows
    of the columns a game is made of, no ORM objects."""
    if not game_ids:
        return []
    ids = list(game_ids)
    game, seat, db_round, score = queries.GAME, queries.SEAT, queries.ROUND, queries.SCORE
    connection = session.connection()
    found = {
        row.id: row
        for row in connection.execute(
            select_rows(game).where(game.c.id.in_(ids), game.c.deleted_at.is_(None))
        ).all()
    }
    seats: dict[int, list[Any]] = defaultdict(list)
    for row in connection.execute(
        select_rows(
            seat.c.game_id,
            seat.c.name,
            seat.c.start_points,
            seat.c.joined_round,
            seat.c.left_round,
        )
        .where(seat.c.game_id.in_(ids))
        .order_by(seat.c.game_id, seat.c.position)
    ).all():
        seats[row.game_id].append(row)
    rounds: dict[int, list[Any]] = defaultdict(list)
    for row in connection.execute(
        select_rows(db_round)
        .where(db_round.c.game_id.in_(ids))
        .order_by(db_round.c.game_id, db_round.c.number)
    ).all():
        rounds[row.game_id].append(row)
    saved: dict[int, dict[int, SeatEntry]] = defaultdict(dict)
    # Entries are frozen: the same result (most are a handful of points and no cards) is
    # made once and shared.
    made: dict[tuple[Any, ...], SeatEntry] = {}
    for round_id, position, *columns in connection.execute(
        select_rows(
            score.c.round_id,
            score.c.position,
            score.c.points,
            score.c.went_out,
            score.c.cards,
            score.c.layout,
        )
        .join(db_round, db_round.c.id == score.c.round_id)
        .where(db_round.c.game_id.in_(ids), score.c.replaced_at.is_(None))
        .order_by(score.c.round_id, score.c.position, score.c.id)
    ).all():
        key = tuple(columns)
        entry = made.get(key)
        if entry is None:
            entry = made[key] = entry_from(*columns)
        saved[round_id][position] = entry
    return [
        state_from(found[game_id], seats[game_id], rounds[game_id], saved)
        for game_id in ids
        if game_id in found
    ]


def state_of(opened: OpenGame) -> GameState:
    """The game its rows make: no statement runs."""
    saved = {
        round_id: {score.position: entry_of(score) for score in scores}
        for round_id, scores in opened.score_rows.items()
    }
    return state_from(opened.game, opened.seat_rows, opened.round_rows, saved, opened.rematch)


class GameRow(Protocol):
    """What state_from reads of a game row: a Game, or a plain row of the game table."""

    @property
    def id(self) -> int | None: ...
    @property
    def code(self) -> str: ...
    @property
    def watch_code(self) -> str: ...
    @property
    def first_dealer(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def finished_at(self) -> datetime | None: ...
    @property
    def version(self) -> int: ...
    @property
    def uid(self) -> str: ...
    @property
    def deleted_at(self) -> datetime | None: ...
    @property
    def mode(self) -> str: ...
    @property
    def round_order(self) -> str: ...


class SeatRow(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def start_points(self) -> int: ...
    @property
    def joined_round(self) -> int | None: ...
    @property
    def left_round(self) -> int | None: ...


class RoundRow(Protocol):
    @property
    def id(self) -> int | None: ...
    @property
    def number(self) -> int: ...
    @property
    def cards_dealt(self) -> int: ...
    @property
    def wild_rank(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def first_player(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def players_in(self) -> str: ...


class ScoreRow(Protocol):
    @property
    def position(self) -> int: ...
    @property
    def points(self) -> int: ...
    @property
    def went_out(self) -> bool: ...
    @property
    def cards(self) -> str | None: ...
    @property
    def layout(self) -> str | None: ...


def state_from(
    game: GameRow,
    seats: Sequence[SeatRow],
    rounds: Sequence[RoundRow],
    saved: Mapping[int, Mapping[int, SeatEntry]],
    rematch: tuple[str, str] | None = None,
) -> GameState:
    """The game these rows make (ORM objects or plain rows alike: only their columns are
    read): its seats by position, its rounds by number, and what the scores in force say,
    by round id and seat. No statement runs."""
    seat_count = len(seats)
    round_states = []
    for db_round in rounds:
        entries = saved.get(db_round.id or 0)
        round_states.append(
            RoundState(
                number=db_round.number,
                cards_dealt=db_round.cards_dealt,
                wild_rank=db_round.wild_rank,
                dealer=db_round.dealer,
                first_player=db_round.first_player,
                entries=tuple(entries.get(p) for p in range(seat_count)) if entries else None,
                kind=round_kind(db_round.kind),
                players_in=parse_seat_list(db_round.players_in),
            )
        )
    rematch = rematch if game.finished_at is not None else None
    return GameState(
        code=game.code,
        watch_code=game.watch_code,
        can_edit=True,
        players=tuple(seat.name for seat in seats),
        first_dealer=game.first_dealer,
        rounds=tuple(round_states),
        finished=game.finished_at is not None,
        version=game.version,
        game_id=game.id or 0,
        uid=game.uid,
        created_at=game.created_at,
        finished_at=game.finished_at,
        deleted=game.deleted_at is not None,
        rematch_code=None if rematch is None else rematch[0],
        rematch_watch_code=None if rematch is None else rematch[1],
        mode="solitaire" if game.mode == "solitaire" else "game",
        order=_order(game.round_order),
        seats=tuple(
            PlayerState(
                name=seat.name,
                start_points=seat.start_points,
                joined_round=seat.joined_round,
                left_round=seat.left_round,
            )
            for seat in seats
        ),
    )


def entry_of(score: ScoreRow) -> SeatEntry:
    """What a score row says a seat kept, laid down or went out with."""
    return entry_from(score.points, score.went_out, score.cards, score.layout)


def entry_from(points: int, went_out: bool, cards: str | None, layout: str | None) -> SeatEntry:
    """A seat's entry from a score row's columns (cards as stored: comma-separated codes)."""
    return SeatEntry(
        points=points,
        went_out=went_out,
        cards=None if cards is None else parse_cards(cards.split(",") if cards else ()),
        layout=None if layout is None else json.loads(layout),
    )


def round_row(game_id: int, plan: RoundPlan) -> GameRound:
    """The row a planned round is stored as."""
    return GameRound(
        game_id=game_id,
        number=plan.number,
        cards_dealt=plan.cards_dealt,
        wild_rank=plan.wild_rank,
        dealer=plan.dealer,
        first_player=plan.first_player,
        kind=plan.kind,
        players_in=seat_list(plan.players_in),
    )


def plan_of(db_round: RoundRow) -> RoundPlan:
    """The plan a round row holds."""
    return RoundPlan(
        number=db_round.number,
        cards_dealt=db_round.cards_dealt,
        wild_rank=db_round.wild_rank,
        dealer=db_round.dealer,
        first_player=db_round.first_player,
        kind=round_kind(db_round.kind),
        players_in=parse_seat_list(db_round.players_in),
    )


def round_kind(stored: str) -> RoundKind:
    return "tiebreak" if stored == "tiebreak" else "round"


def seat_list(seats: Sequence[int]) -> str:
    return ",".join(str(seat) for seat in seats)


@lru_cache(maxsize=1024)
def parse_seat_list(text: str) -> tuple[int, ...]:
    """The seats a stored list names (kept: the same few lists come back again and again)."""
    return tuple(int(seat) for seat in text.split(",") if seat)


def parse_cards(codes: Sequence[str]) -> tuple[Card, ...]:
    """Cards from card codes; CardError (a ValueError) names a code that is not a card."""
    return tuple(parse_card(code) for code in codes)


def new_code() -> str:
    """An unguessable, URL-safe game code (128 bits of randomness)."""
    return secrets.token_urlsafe(16)


def code_hash(code: str) -> str:
    """How a replaced code is kept: enough to recognise it, never enough to use it."""
    return hashlib.sha256(code.encode()).hexdigest()


def _order(stored: str) -> RoundOrder:
    for order in ROUND_ORDERS:
        if stored == order:
            return order
    return "up"
