"""Rows to state and back: the one read of a game, and the rows a game is written as. A
write reads its game here once, changes the rows it holds, and builds its answer from them."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import aliased
from sqlmodel import Session, and_, col, or_, select

from ..db import locked
from ..models import Game, GameRound, ReplacedCode, Seat, SeatScore
from ..rules.cards import Card, parse_card
from ..rules.schedule import ROUND_ORDERS, RoundOrder, RoundPlan
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
    asked for with. Changes go to these rows; state() builds the game from them, no read."""

    game: Game
    seats: list[Seat]
    rounds: list[GameRound]
    scores: dict[int, list[SeatScore]] = field(default_factory=dict)
    """The scores in force, by round id, seat by seat."""
    rematch: tuple[str, str] | None = None
    """The scorekeeper and watch codes of the rematch started from this game, if any."""
    asked_with: str = ""

    @property
    def id(self) -> int:
        assert self.game.id is not None
        return self.game.id

    def state(self) -> GameState:
        """The game as its rows now say (the scorekeeper's view)."""
        return state_of(self)

    def view(self) -> GameState:
        """The game as the code it was asked for shows it (a watch code cannot edit)."""
        state = self.state()
        return state if self.asked_with == self.game.code else state.for_watchers()


def read(
    session: Session, *, code: str, for_edit: bool = True, include_deleted: bool = False
) -> OpenGame:
    """The game for code in three statements (game, seats, rounds with their scores); for an
    edit, the game row is locked until the write commits, so two processes saving the same
    version cannot both get through the version check. GameNotFound, ReplacedLink or
    ReadOnlyLink when the code cannot do that."""
    if "\x00" in code:  # no code holds one (and PostgreSQL refuses it in a query)
        raise GameNotFound("No game has this code. Check the link, or start a new game.")
    rematch = aliased(Game)
    newest_rematch = (
        select(rematch.id)
        .where(rematch.rematch_of == Game.id, col(rematch.deleted_at).is_(None))
        .order_by(col(rematch.id).desc())
        .limit(1)
        .correlate(Game)
        .scalar_subquery()
    )
    query = (
        select(Game, rematch.code, rematch.watch_code)
        .outerjoin(rematch, rematch.id == newest_rematch)
        .where(or_(Game.code == code, Game.watch_code == code))
    )
    if for_edit:
        query = locked(query, of=Game)
    found = session.exec(query).first()
    if found is None:
        replaced = session.exec(
            select(Game.watch_code)
            .join(ReplacedCode, col(ReplacedCode.game_id) == col(Game.id))
            .where(ReplacedCode.code_hash == code_hash(code))
        ).first()
        if replaced is not None:
            raise ReplacedLink(replaced)
    if found is None or (found[0].deleted_at is not None and not include_deleted):
        raise GameNotFound("No game has this code. Check the link, or start a new game.")
    game, rematch_code, rematch_watch_code = found
    if for_edit and code != game.code:
        raise ReadOnlyLink(ReadOnlyLink.message)
    seats = session.exec(
        select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position))
    ).all()
    rows = session.exec(
        select(GameRound, SeatScore)
        .outerjoin(
            SeatScore,
            and_(
                col(SeatScore.round_id) == col(GameRound.id),
                col(SeatScore.replaced_at).is_(None),
            ),
        )
        .where(GameRound.game_id == game.id)
        .order_by(col(GameRound.number), col(SeatScore.position), col(SeatScore.id))
    ).all()
    rounds: list[GameRound] = []
    scores: dict[int, list[SeatScore]] = {}
    for db_round, score in rows:
        if not rounds or rounds[-1] is not db_round:
            rounds.append(db_round)
        if score is not None:
            scores.setdefault(score.round_id, []).append(score)
    return OpenGame(
        game=game,
        seats=list(seats),
        rounds=rounds,
        scores=scores,
        rematch=None if rematch_code is None else (rematch_code, rematch_watch_code),
        asked_with=code,
    )


def state_of(opened: OpenGame) -> GameState:
    """The game its rows make: no statement runs."""
    game, seats = opened.game, opened.seats
    seat_count = len(seats)
    rounds = []
    for db_round in opened.rounds:
        saved = {
            score.position: entry_of(score) for score in opened.scores.get(db_round.id or 0, ())
        }
        plan = plan_of(db_round)
        rounds.append(
            RoundState(
                number=plan.number,
                cards_dealt=plan.cards_dealt,
                wild_rank=plan.wild_rank,
                dealer=plan.dealer,
                first_player=plan.first_player,
                entries=tuple(saved.get(p) for p in range(seat_count)) if saved else None,
                kind=plan.kind,
                players_in=plan.players_in,
            )
        )
    rematch = opened.rematch if game.finished_at is not None else None
    return GameState(
        code=game.code,
        watch_code=game.watch_code,
        can_edit=True,
        players=tuple(seat.name for seat in seats),
        first_dealer=game.first_dealer,
        rounds=tuple(rounds),
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


def entry_of(score: SeatScore) -> SeatEntry:
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


def plan_of(db_round: GameRound) -> RoundPlan:
    """The plan a round row holds."""
    return RoundPlan(
        number=db_round.number,
        cards_dealt=db_round.cards_dealt,
        wild_rank=db_round.wild_rank,
        dealer=db_round.dealer,
        first_player=db_round.first_player,
        kind="tiebreak" if db_round.kind == "tiebreak" else "round",
        players_in=parse_seat_list(db_round.players_in),
    )


def seat_list(seats: Sequence[int]) -> str:
    return ",".join(str(seat) for seat in seats)


def parse_seat_list(text: str) -> tuple[int, ...]:
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
