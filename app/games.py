"""The service: load a game, let the rules decide, save, and tell open pages. Nothing else
joins the rules and storage."""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlalchemy import insert
from sqlmodel import Session, col, or_, select

from . import live
from .db import begin_write, locked
from .models import Game, GameRound, ReplacedCode, Seat, SeatScore
from .names import UnreadableText, folded, looks_blank, plain_name
from .rules.cards import MAX_PLAYERS, MIN_PLAYERS, RANK_CODES, RANK_PLURALS, Card, Decks, parse_card
from .rules.schedule import (
    ROUND_ORDERS,
    RoundKind,
    RoundOrder,
    RoundPlan,
    plan_rounds,
    plan_tiebreak,
    replan,
    solitaire_piles,
)
from .rules.scoring import RoundError, SeatResult, score_round
from .rules.solitaire import PileError, score_pile, solitaire_result
from .rules.standings import after_tiebreaks, average_total, leaders, ranking, totals

NAME_LENGTH = 30
RESTORE_DAYS = 30


class GameNotFound(LookupError):
    """No game has that code."""


class ReplacedLink(GameNotFound):
    """A scorekeeper code that was replaced: it opens nothing, but can say so."""

    def __init__(self, watch_code: str) -> None:
        super().__init__(
            "This scorekeeper link was replaced by a new one and no longer works. "
            "Ask the scorekeeper for the new link, or follow the game with its watch link."
        )
        self.watch_code = watch_code


class GameError(ValueError):
    """A change the game cannot take; the message says why, in a player's words."""


class NoSuchRound(GameError):
    """A round number outside the game's rounds."""


class ReadOnlyLink(GameError):
    """A change asked for with the watch code, which can only look."""

    message = (
        "This is a watch link: it shows the game but cannot change it. "
        "Ask the scorekeeper to make the change."
    )


class PlayerError(GameError):
    """A player who cannot join or leave as asked (a name, a seat, a count)."""


class NoSuchSeat(GameError):
    """A seat number outside the table."""


class StaleVersion(GameError):
    """The game changed since the client last read it."""


GameMode = Literal["game", "solitaire"]
StartPoints = Literal["zero", "highest", "average"] | int
"""What a player sitting down mid-game starts with: 0, the highest total so far, the
rounded average of the totals, or a number."""


@dataclass(frozen=True)
class SeatEntry:
    """What was saved for one seat in one round (a solitaire pile's cards are the whole pile,
    with its best layout: groups and leftover)."""

    points: int
    went_out: bool
    cards: tuple[Card, ...] | None
    layout: dict[str, Any] | None = None


@dataclass(frozen=True)
class PlayerState:
    """A seat at the table and when its player came and went."""

    name: str
    start_points: int = 0
    joined_round: int | None = None
    left_round: int | None = None

    @property
    def left(self) -> bool:
        return self.left_round is not None

    @property
    def joined(self) -> bool:
        return self.joined_round is not None


@dataclass(frozen=True)
class RoundState:
    """One round of a game: the stored plan and, once saved, the result (None for each seat
    not in the round)."""

    number: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    first_player: int
    entries: tuple[SeatEntry | None, ...] | None
    kind: RoundKind = "round"
    players_in: tuple[int, ...] = ()

    @property
    def is_tiebreak(self) -> bool:
        return self.kind == "tiebreak"

    @property
    def decks(self) -> Decks:
        """Deck limits follow the number of players in this round."""
        return Decks.for_players(len(self.players_in))

    @property
    def layout(self) -> dict[str, Any] | None:
        """A solitaire pile's best books and runs, when its cards were given."""
        if not self.entries or self.entries[0] is None:
            return None
        return self.entries[0].layout

    @property
    def wild_rank_code(self) -> str:
        return RANK_CODES[self.wild_rank]

    @property
    def wild_rank_plural(self) -> str:
        return RANK_PLURALS[self.wild_rank]

    @property
    def scores(self) -> list[int | None] | None:
        if self.entries is None:
            return None
        return [None if entry is None else entry.points for entry in self.entries]

    @property
    def went_out(self) -> int | None:
        if self.entries is None:
            return None
        return next(
            (seat for seat, entry in enumerate(self.entries) if entry and entry.went_out), None
        )


@dataclass(frozen=True)
class GameState:
    """Everything a page or the API shows about a game."""

    code: str
    watch_code: str
    can_edit: bool
    players: tuple[str, ...]
    first_dealer: int
    rounds: tuple[RoundState, ...]
    finished: bool
    version: int
    game_id: int = 0
    uid: str = ""
    created_at: datetime | None = None
    finished_at: datetime | None = None
    deleted: bool = False
    rematch_code: str | None = None
    rematch_watch_code: str | None = None
    mode: GameMode = "game"
    order: RoundOrder = "up"
    seats: tuple[PlayerState, ...] = ()

    @property
    def is_solitaire(self) -> bool:
        return self.mode == "solitaire"

    @property
    def decks(self) -> Decks:
        """The decks of the round being played (or of the whole table between rounds)."""
        current = self.current_round
        if current is not None:
            return current.decks
        return Decks.for_players(len(self.still_in))

    @property
    def main_rounds(self) -> tuple[RoundState, ...]:
        """The eleven rounds (or piles), without tie-breaks."""
        return tuple(r for r in self.rounds if not r.is_tiebreak)

    @property
    def tiebreaks(self) -> tuple[RoundState, ...]:
        return tuple(r for r in self.rounds if r.is_tiebreak)

    @property
    def still_in(self) -> list[int]:
        """Seats whose players have not left."""
        return [seat for seat, player in enumerate(self.seats) if not player.left]

    @property
    def totals(self) -> list[int]:
        """Start points plus the eleven rounds; tie-break points never count here."""
        return totals(
            [r.scores for r in self.main_rounds],
            seat_count=len(self.players),
            start_points=[player.start_points for player in self.seats],
        )

    @property
    def leaders(self) -> list[int]:
        return leaders(self.totals, still_in=self.still_in)

    @property
    def standings(self) -> list[int]:
        """Seats from the lowest total up; players who left come last."""
        order = ranking(self.totals)
        return [s for s in order if s in self.still_in] + [
            s for s in order if s not in self.still_in
        ]

    def start_points(self, start: StartPoints) -> int:
        """What a player sitting down now starts with; PlayerError for an unknown start."""
        totals_in = [self.totals[seat] for seat in self.still_in]
        if start == "zero":
            return 0
        if start == "highest":
            return max(totals_in, default=0)
        if start == "average":
            return average_total(totals_in)
        if isinstance(start, int) and not isinstance(start, bool) and 0 <= start <= 9999:
            return start
        raise PlayerError("Start with zero, highest, average or a number of points from 0 to 9999.")

    @property
    def won(self) -> bool | None:
        """Solitaire only: once every pile is saved, whether every pile closed."""
        if not self.is_solitaire:
            return None
        return solitaire_result([r.scores[0] if r.scores else None for r in self.rounds]).won

    @property
    def winners(self) -> list[int]:
        """Once finished: the lowest totals, narrowed by any tie-break rounds played."""
        if not self.finished:
            return []
        if self.is_solitaire:
            return [0] if self.won else []
        played = [r.scores for r in self.tiebreaks if r.scores is not None]
        return after_tiebreaks(self.leaders, played)

    @property
    def can_tiebreak(self) -> bool:
        """A finished game whose lowest total is still shared may play a tie-break round."""
        return self.finished and not self.is_solitaire and len(self.winners) > 1

    @property
    def current_round(self) -> RoundState | None:
        """The next round to play; None once the game is finished."""
        if self.finished:
            return None
        return self.next_round

    @property
    def next_round(self) -> RoundState | None:
        """The round to play next, finished or not: a tie-break waiting to be played, else
        the first unsaved round (none after a tie-break: the eleven rounds are over)."""
        if self.tiebreaks:
            return next((r for r in self.tiebreaks if r.entries is None), None)
        return next((r for r in self.rounds if r.entries is None), None)

    @property
    def rounds_saved(self) -> int:
        return sum(r.entries is not None for r in self.main_rounds)

    def round_name(self, round_state: RoundState) -> str:
        """How a player names a round: "round 3", "pile 3" or "the tie-break round"."""
        if round_state.is_tiebreak:
            return "the tie-break round"
        return f"{'pile' if self.is_solitaire else 'round'} {round_state.number}"

    def for_watchers(self) -> GameState:
        """The same game as the watch link shows it: no scorekeeper code, no editing."""
        return replace(
            self, code=self.watch_code, can_edit=False, rematch_code=self.rematch_watch_code
        )

    def round(self, number: int) -> RoundState:
        """Round number, or GameError when the game has no such round."""
        if not 1 <= number <= len(self.rounds):
            raise NoSuchRound(
                f"There is no round {number}: rounds run from 1 to {len(self.rounds)}."
            )
        return self.rounds[number - 1]


GameListener = Callable[[Session, GameState], None]
_listeners: list[GameListener] = []


def on_change(listener: GameListener) -> None:
    """Call listener inside every change's transaction with the game's new state, so another
    service (the tables' stats) stays in step with it."""
    _listeners.append(listener)


def new_code() -> str:
    """An unguessable, URL-safe game code (128 bits of randomness)."""
    return secrets.token_urlsafe(16)


def clean_names(names: Sequence[str], *, fewest: int = 1) -> list[str]:
    """Trimmed player names, checked for count, length, blankness and look-alike duplicates
    (one name is a solitaire game)."""
    try:
        cleaned = [plain_name(name) for name in names]
    except UnreadableText as error:
        raise GameError(f"A name {error}: type it again.") from error
    if not fewest <= len(cleaned) <= MAX_PLAYERS:
        raise GameError(
            f"A game needs {MIN_PLAYERS} to {MAX_PLAYERS} players (or 1 for solitaire); "
            f"you entered {len(cleaned)}."
        )
    seen: dict[str, str] = {}
    for position, name in enumerate(cleaned, start=1):
        if not name:
            raise GameError(f"Player {position} needs a name.")
        if looks_blank(name):
            raise GameError(f"Player {position}'s name shows nothing: type letters or emoji.")
        if len(name) > NAME_LENGTH:
            raise GameError(f"{name[:12]}… is too long: names have at most {NAME_LENGTH} letters.")
        key = folded(name)
        if key in seen:
            # Spelled differently, not only in case: say which name it copies.
            same = (
                f" (it looks like {seen[key]})" if name.casefold() != seen[key].casefold() else ""
            )
            raise GameError(
                f"Two players are called {name}{same}: give each player a different name."
            )
        seen[key] = name
    return cleaned


def create_game(
    session: Session,
    *,
    players: Sequence[str],
    first_dealer: int = 0,
    order: RoundOrder = "up",
    mode: GameMode | None = None,
    rematch_of: int | None = None,
) -> GameState:
    """Start a game with players in clockwise order; first_dealer is a seat index. One
    player plays solitaire: eleven piles of 3 to 13 cards (mode, when given, must agree)."""
    names = clean_names(players)
    if mode == "game" and len(names) < MIN_PLAYERS:
        raise GameError(
            f"A game needs {MIN_PLAYERS} to {MAX_PLAYERS} players; for one player, "
            "choose Solitaire."
        )
    if mode == "solitaire" and len(names) != 1:
        raise GameError(f"Solitaire is for one player; you entered {len(names)} names.")
    if not 0 <= first_dealer < len(names):
        raise GameError(f"The first dealer must be one of the {len(names)} seats.")
    if order not in ROUND_ORDERS:
        raise GameError(f"{order!r} is not an order of rounds: use up, down or shuffled.")
    solitaire = len(names) == 1
    if solitaire:
        plans = solitaire_piles()
    else:
        # A shuffled order is drawn once, now, and stored with the rounds.
        shuffle = random.Random(secrets.randbits(64))
        plans = plan_rounds(
            seat_count=len(names), first_dealer=first_dealer, order=order, rng=shuffle
        )
    begin_write(session)
    game = Game(
        code=new_code(),
        watch_code=new_code(),
        first_dealer=first_dealer,
        mode="solitaire" if solitaire else "game",
        round_order="up" if solitaire else order,
        rematch_of=rematch_of,
    )
    session.add(game)
    session.flush()
    assert game.id is not None
    session.add_all(Seat(game_id=game.id, position=p, name=n) for p, n in enumerate(names))
    session.add_all(_round_row(game.id, plan) for plan in plans)
    session.commit()
    return load_game(session, code=game.code)


def _round_row(game_id: int, plan: RoundPlan) -> GameRound:
    return GameRound(
        game_id=game_id,
        number=plan.number,
        cards_dealt=plan.cards_dealt,
        wild_rank=plan.wild_rank,
        dealer=plan.dealer,
        first_player=plan.first_player,
        kind=plan.kind,
        players_in=_seat_list(plan.players_in),
    )


def _seat_list(seats: Sequence[int]) -> str:
    return ",".join(str(seat) for seat in seats)


def _parse_seat_list(text: str) -> tuple[int, ...]:
    return tuple(int(seat) for seat in text.split(",") if seat)


def load_game(session: Session, *, code: str) -> GameState:
    """The game whose scorekeeper or watch code this is, or GameNotFound."""
    game = _find(session, code, for_edit=False)
    state = _state(session, game)
    return state if code == game.code else state.for_watchers()


def load_for_live_pages(session: Session, *, watch_code: str) -> GameState:
    """The whole state of the game with this watch code, scorekeeper code included, for the
    live relay to hand to this process's open pages (each stream shows only its own view)."""
    return _state(session, _find(session, watch_code, for_edit=False))


def replace_keeper_code(session: Session, *, code: str) -> GameState:
    """Give the game a new scorekeeper code; the old one stops working at once."""
    begin_write(session)
    game = _find(session, code)
    assert game.id is not None
    session.add(ReplacedCode(code_hash=code_hash(game.code), game_id=game.id))
    game.code = new_code()
    game.version += 1
    session.add(game)
    return _commit(session, game)


def save_round(
    session: Session,
    *,
    code: str,
    number: int,
    results: Sequence[SeatResult | None],
    version: int | None = None,
) -> GameState:
    """Save or correct round number; RoundError or GameError when it cannot stand."""
    begin_write(session)
    game = _find(session, code)
    state = _state(session, game)
    if version is not None and version != state.version:
        raise StaleVersion(
            "Someone else changed this game a moment ago. Check the sheet, then save again."
        )
    round_state = state.round(number)
    if round_state.entries is None:
        if state.finished:
            raise GameError("This game is over: no new round can be saved. Corrections still can.")
        waiting = state.next_round
        if waiting is None:
            raise GameError("The eleven rounds are over: a tie-break round is being played.")
        if not state.is_solitaire and waiting.number != number:
            raise GameError(f"Save round {waiting.number} first: rounds are saved in order.")
    round_name = state.round_name(round_state)
    layouts: list[dict[str, Any] | None] = [None] * len(state.players)
    if state.is_solitaire:
        scores, went_out, layouts[0] = _score_pile(results, round_state, round_name)
    else:
        outcome = score_round(
            results,
            seat_names=state.players,
            cards_dealt=round_state.cards_dealt,
            wild_rank=round_state.wild_rank,
            decks=round_state.decks,
            players_in=round_state.players_in,
            round_name=round_name,
        )
        scores, went_out = outcome.scores, outcome.went_out
    db_round = session.exec(
        select(GameRound).where(GameRound.game_id == game.id, GameRound.number == number)
    ).one()
    now = datetime.now(UTC)
    for old in _current_scores(session, [db_round.id]):
        old.replaced_at = now
        session.add(old)
    for position, (result, points) in enumerate(zip(results, scores, strict=True)):
        if result is None or points is None:
            continue
        kept_cards = None
        if result.points is None and not result.went_out:
            kept_cards = ",".join(card.code for card in result.cards or ())
        session.add(
            SeatScore(
                round_id=db_round.id,
                position=position,
                points=points,
                went_out=position == went_out,
                cards=kept_cards,
                layout=None if layouts[position] is None else json.dumps(layouts[position]),
                saved_at=now,
            )
        )
    session.flush()
    if game.finished_at is None and _state(session, game).next_round is None:
        game.finished_at = now
    game.version += 1
    session.add(game)
    return _commit(session, game)


def _score_pile(
    results: Sequence[SeatResult | None], pile: RoundState, pile_name: str
) -> tuple[list[int | None], int | None, dict[str, Any] | None]:
    """A solitaire pile's points, whether it closed, and its layout when cards were given."""
    if len(results) != 1 or results[0] is None:
        raise RoundError(table_errors=["Solitaire has one player: give one result for the pile."])
    result = results[0]
    try:
        scored = score_pile(
            cards_dealt=pile.cards_dealt,
            wild_rank=pile.wild_rank,
            closed=result.went_out,
            cards=result.cards,
            points=result.points,
            pile_name=pile_name,
        )
    except (PileError, ValueError) as error:
        raise RoundError(seat_errors={0: str(error)}) from error
    layout = None
    if scored.solution is not None:
        layout = {"groups": [g.to_dict() for g in scored.solution.groups]}
        layout["leftover"] = list(scored.solution.leftover)
    return [scored.points], 0 if scored.points == 0 else None, layout


def add_tiebreak(session: Session, *, code: str) -> GameState:
    """Deal a 6-card round to the players sharing the lowest total; GameError otherwise."""
    begin_write(session)
    game = _find(session, code)
    state = _state(session, game)
    if state.is_solitaire:
        raise GameError("Solitaire has no tie-break: there is only one player.")
    if not state.finished:
        raise GameError("A tie-break round comes after the game is over.")
    if not state.can_tiebreak:
        raise GameError("There is no tie for the lowest total: the game has one winner.")
    last_played = max((r for r in state.rounds if r.entries is not None), key=lambda r: r.number)
    assert game.id is not None
    plan = plan_tiebreak(
        number=len(state.rounds) + 1,
        tied=state.winners,
        last_dealer=last_played.dealer,
        dealing_seats=state.still_in,
        seat_count=len(state.players),
    )
    session.add(_round_row(game.id, plan))
    game.finished_at = None
    game.version += 1
    session.add(game)
    return _commit(session, game)


def add_player(
    session: Session,
    *,
    code: str,
    name: str,
    seat: int | None = None,
    start: StartPoints = "zero",
) -> GameState:
    """Seat a new player at clockwise position seat (default: last) from the next unsaved
    round on; the deal stays with whoever was to deal next."""
    begin_write(session)
    game = _find(session, code)
    state = _state(session, game)
    upcoming = _changeable_round(state, "join")
    position = len(state.players) if seat is None else seat
    if not 0 <= position <= len(state.players):
        raise PlayerError(
            f"Seat {position} does not exist: choose 0 to {len(state.players)} "
            "(the new player sits before the player in that seat)."
        )
    if len(state.still_in) >= MAX_PLAYERS:
        raise PlayerError(f"A game seats at most {MAX_PLAYERS} players.")
    names = [*state.players[:position], name, *state.players[position:]]
    try:
        new_name = clean_names(names)[position]
    except GameError as error:
        raise PlayerError(str(error)) from error
    start_points = state.start_points(start)

    def moved(old: int) -> int:
        return old + 1 if old >= position else old

    assert game.id is not None
    seats = session.exec(
        select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position).desc())
    ).all()
    # One seat at a time from the end, so no two seats ever share a position.
    for row in seats:
        if row.position >= position:
            row.position += 1
            session.add(row)
            session.flush()
    db_rounds = _round_rows(session, game)
    for score in _current_scores(session, [r.id for r in db_rounds], include_replaced=True):
        score.position = moved(score.position)
        session.add(score)
    for db_round in db_rounds:
        db_round.dealer = moved(db_round.dealer)
        db_round.first_player = moved(db_round.first_player)
        db_round.players_in = _seat_list([moved(s) for s in _parse_seat_list(db_round.players_in)])
        session.add(db_round)
    game.first_dealer = moved(game.first_dealer)
    session.add(
        Seat(
            game_id=game.id,
            position=position,
            name=new_name,
            start_points=start_points,
            joined_round=upcoming.number,
        )
    )
    still_in = sorted([moved(s) for s in state.still_in] + [position])
    _replan_from(
        db_rounds,
        upcoming.number,
        next_dealer=moved(upcoming.dealer),
        seats_in=still_in,
        seat_count=len(state.players) + 1,
    )
    game.version += 1
    session.add(game)
    return _commit(session, game)


def remove_player(session: Session, *, code: str, seat: int) -> GameState:
    """Take the player in seat out from the next unsaved round on: skipped when dealing,
    their total kept on the sheet."""
    begin_write(session)
    game = _find(session, code)
    state = _state(session, game)
    if not 0 <= seat < len(state.players):
        raise NoSuchSeat(f"There is no seat {seat}: seats run from 0 to {len(state.players) - 1}.")
    name = state.players[seat]
    if state.seats[seat].left:
        raise GameError(f"{name} has already left the game.")
    upcoming = _changeable_round(state, "leave")
    if len(state.still_in) <= MIN_PLAYERS:
        raise PlayerError(
            f"{name} cannot leave: a game needs at least {MIN_PLAYERS} players. "
            "End the game instead."
        )
    row = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.position == seat)).one()
    row.left_round = upcoming.number
    session.add(row)
    _replan_from(
        _round_rows(session, game),
        upcoming.number,
        next_dealer=upcoming.dealer,
        seats_in=[s for s in state.still_in if s != seat],
        seat_count=len(state.players),
    )
    game.version += 1
    session.add(game)
    return _commit(session, game)


def _changeable_round(state: GameState, change: str) -> RoundState:
    """The round from which a player may join or leave: the next unsaved ordinary round."""
    if state.is_solitaire:
        raise GameError(f"Solitaire is for one player: nobody can {change} it.")
    upcoming = state.current_round
    if upcoming is None:
        raise GameError(f"This game is over: nobody can {change} it now.")
    if upcoming.is_tiebreak:
        raise GameError(f"The tie-break round is for the tied players: nobody can {change} now.")
    return upcoming


def _replan_from(
    db_rounds: Sequence[GameRound],
    first_number: int,
    *,
    next_dealer: int,
    seats_in: Sequence[int],
    seat_count: int,
) -> None:
    """Store new plans for the ordinary rounds from first_number on."""
    unplayed = [r for r in db_rounds if r.number >= first_number and r.kind == "round"]
    plans = replan(
        [_plan_of(r) for r in unplayed],
        next_dealer=next_dealer,
        seats_in=seats_in,
        seat_count=seat_count,
    )
    for db_round, plan in zip(unplayed, plans, strict=True):
        db_round.dealer = plan.dealer
        db_round.first_player = plan.first_player
        db_round.players_in = _seat_list(plan.players_in)


def _plan_of(db_round: GameRound) -> RoundPlan:
    return RoundPlan(
        number=db_round.number,
        cards_dealt=db_round.cards_dealt,
        wild_rank=db_round.wild_rank,
        dealer=db_round.dealer,
        first_player=db_round.first_player,
        kind="tiebreak" if db_round.kind == "tiebreak" else "round",
        players_in=_parse_seat_list(db_round.players_in),
    )


def finish_game(session: Session, *, code: str) -> GameState:
    """End the game now (the shorter-game house rule); the lowest total wins."""
    begin_write(session)
    game = _find(session, code)
    if game.finished_at is None and not _state(session, game).rounds_saved:
        raise GameError("Save at least one round before ending the game: nobody has won yet.")
    if game.finished_at is None:
        # Ending during a tie-break means the tied players share the win after all: the
        # unplayed tie-break round goes, so it is not offered twice.
        for db_round in _round_rows(session, game):
            if db_round.kind == "tiebreak" and not _current_scores(session, [db_round.id]):
                session.delete(db_round)
        game.finished_at = datetime.now(UTC)
        game.version += 1
        session.add(game)
        return _commit(session, game)
    return _state(session, game)


def uids_of(session: Session, *, game_ids: Sequence[int]) -> set[str]:
    """The stable ids of these games."""
    return set(session.exec(select(Game.uid).where(col(Game.id).in_(game_ids))).all())


def parse_cards(codes: Sequence[str]) -> tuple[Card, ...]:
    """Cards from card codes; CardError (a ValueError) names a code that is not a card."""
    return tuple(parse_card(code) for code in codes)


def code_hash(code: str) -> str:
    """How a replaced code is kept: enough to recognise it, never enough to use it."""
    return hashlib.sha256(code.encode()).hexdigest()


def rematch_game(session: Session, *, code: str) -> tuple[GameState, bool]:
    """The next game of a finished one: the same players in the same seats, the deal starting
    one seat further on. Pages watching the old game are told. True when it is new (a second
    ask gets the rematch already started)."""
    begin_write(session)
    game = _find(session, code)
    if game.finished_at is None:
        raise GameError("Finish this game before starting a rematch.")
    existing = _rematch(session, game)
    if existing is not None:
        return _state(session, existing), False
    old = _state(session, game)
    session.rollback()
    new = create_game(
        session,
        players=old.players,
        first_dealer=(old.first_dealer + 1) % len(old.players),
        order=old.order,
        mode=old.mode,
        rematch_of=old.game_id,
    )
    begin_write(session)
    game = _find(session, code)
    game.version += 1
    session.add(game)
    _commit(session, game)
    return new, True


def delete_game(session: Session, *, code: str) -> GameState:
    """Put the game away: it leaves every list and stat, and can be restored for a while."""
    begin_write(session)
    game = _find(session, code)
    game.deleted_at = datetime.now(UTC)
    game.version += 1
    session.add(game)
    return _commit(session, game)


def restore_game(session: Session, *, code: str) -> GameState:
    """Bring back a deleted game, within RESTORE_DAYS of deleting it."""
    begin_write(session)
    game = _find(session, code, include_deleted=True)
    if game.deleted_at is None:
        return _state(session, game)
    deleted_at = game.deleted_at.replace(tzinfo=game.deleted_at.tzinfo or UTC)
    if datetime.now(UTC) - deleted_at > timedelta(days=RESTORE_DAYS):
        raise GameNotFound(
            f"This game was deleted more than {RESTORE_DAYS} days ago and cannot come back."
        )
    game.deleted_at = None
    game.version += 1
    session.add(game)
    return _commit(session, game)


@dataclass(frozen=True)
class RoundRecord:
    """A round as an export holds it: the plan, and each seat's result (None: not played).
    first_player and players_in are worked out as the app would when a record lacks them."""

    number: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    results: Sequence[SeatResult | None] | None
    kind: RoundKind = "round"
    first_player: int | None = None
    players_in: Sequence[int] | None = None


def add_recorded_game(
    session: Session,
    *,
    players: Sequence[str],
    first_dealer: int,
    rounds: Sequence[RoundRecord],
    created_at: datetime,
    finished_at: datetime | None,
    mode: GameMode | None = None,
    order: RoundOrder = "up",
    seats: Sequence[PlayerState] | None = None,
) -> GameState:
    """Add a whole game from a record (an import) inside the caller's transaction, checking
    every round with the rules; GameError or RoundError when the record cannot stand. One
    player (or mode "solitaire") is a solitaire game; seats say who joined or left when."""
    names = clean_names(players)
    solitaire = mode == "solitaire" or (mode is None and len(names) == 1)
    if solitaire and len(names) != 1:
        raise GameError(f"Solitaire is for one player; the game has {len(names)} names.")
    if not solitaire and len(names) < MIN_PLAYERS:
        raise GameError(f"A game needs {MIN_PLAYERS} to {MAX_PLAYERS} players.")
    if order not in ROUND_ORDERS:
        raise GameError(f"{order!r} is not an order of rounds: use up, down or shuffled.")
    seat_count = len(names)
    players_state = _recorded_seats(names, seats, round_count=len(rounds))
    if not 0 <= first_dealer < seat_count:
        raise GameError(f"The first dealer must be one of the {seat_count} seats.")
    if not rounds or [r.number for r in rounds] != list(range(1, len(rounds) + 1)):
        raise GameError("The rounds must be numbered 1, 2, 3… in order.")
    kinds = [r.kind for r in rounds]
    if "tiebreak" in kinds and (solitaire or "round" in kinds[kinds.index("tiebreak") :]):
        raise GameError("A tie-break round comes only after the eleven rounds of a game.")
    game = Game(
        code=new_code(),
        watch_code=new_code(),
        first_dealer=first_dealer,
        created_at=created_at,
        finished_at=finished_at,
        mode="solitaire" if solitaire else "game",
        round_order="up" if solitaire else order,
    )
    session.add(game)
    session.flush()
    session.add_all(
        Seat(
            game_id=game.id,
            position=p,
            name=player.name,
            start_points=player.start_points,
            joined_round=player.joined_round,
            left_round=player.left_round,
        )
        for p, player in enumerate(players_state)
    )
    played_all = True
    plans: list[dict[str, Any]] = []
    scored: dict[
        int, tuple[Sequence[SeatResult | None], list[int | None], int | None, str | None]
    ] = {}
    for record in rounds:
        round_name = f"{'pile' if solitaire else 'round'} {record.number}"
        if record.wild_rank not in RANK_CODES or not 0 <= record.dealer < seat_count:
            raise GameError(f"Round {record.number} has an unknown wild rank or dealer.")
        if not 1 <= record.cards_dealt <= 20:
            raise GameError(f"Round {record.number} deals an impossible number of cards.")
        players_in = _recorded_players_in(record, players_state)
        first_player = record.first_player
        if first_player is None:
            clockwise = [*range(record.dealer + 1, seat_count), *range(record.dealer + 1)]
            first_player = next((s for s in clockwise if s in players_in), record.dealer)
        if not 0 <= first_player < seat_count:
            raise GameError(f"Round {record.number} starts with a seat the game does not have.")
        plans.append(
            {
                "game_id": game.id,
                "number": record.number,
                "cards_dealt": record.cards_dealt,
                "wild_rank": record.wild_rank,
                "dealer": record.dealer,
                "first_player": first_player,
                "kind": record.kind,
                "players_in": _seat_list(players_in),
            }
        )
        if record.results is None:
            played_all = False
            continue
        # Solitaire piles are saved in any order; a game's rounds one after another.
        if not played_all and not solitaire:
            raise GameError(f"Round {record.number} is saved after a round that was not played.")
        layout = None
        if solitaire:
            pile = RoundState(
                number=record.number,
                cards_dealt=record.cards_dealt,
                wild_rank=record.wild_rank,
                dealer=0,
                first_player=0,
                entries=None,
            )
            scores, went_out, pile_layout = _score_pile(record.results, pile, round_name)
            layout = None if pile_layout is None else json.dumps(pile_layout)
        else:
            outcome = score_round(
                record.results,
                seat_names=names,
                cards_dealt=record.cards_dealt,
                wild_rank=record.wild_rank,
                decks=Decks.for_players(len(players_in)),
                players_in=players_in,
                round_name=round_name,
            )
            scores, went_out = outcome.scores, outcome.went_out
        scored[record.number] = (record.results, scores, went_out, layout)
    # Many games at once (a whole table's history): rows go in as plain inserts.
    round_ids = dict(
        session.execute(insert(GameRound).returning(GameRound.number, GameRound.id), plans).all()
    )
    score_rows = [
        {
            "round_id": round_ids[number],
            "position": position,
            "points": points,
            "went_out": position == went_out,
            "cards": None if result.cards is None else ",".join(c.code for c in result.cards),
            "layout": layout,
            "saved_at": finished_at or created_at,
        }
        for number, (results, scores, went_out, layout) in scored.items()
        for position, (result, points) in enumerate(zip(results, scores, strict=True))
        if result is not None and points is not None
    ]
    if score_rows:
        session.execute(insert(SeatScore), score_rows)
    if played_all and game.finished_at is None:
        game.finished_at = created_at
    session.flush()
    return _state(session, game)


def _recorded_seats(
    names: Sequence[str], seats: Sequence[PlayerState] | None, *, round_count: int
) -> list[PlayerState]:
    """The seats of a recorded game: its names, with when each player came and went."""
    if seats is None:
        return [PlayerState(name=name) for name in names]
    if len(seats) != len(names):
        raise GameError(f"The game has {len(names)} players but {len(seats)} seats.")
    kept = []
    for name, seat in zip(names, seats, strict=True):
        for when in (seat.joined_round, seat.left_round):
            if when is not None and not 1 <= when <= round_count + 1:
                raise GameError(f"{name} joins or leaves at a round the game does not have.")
        if not 0 <= seat.start_points <= 9999:
            raise GameError(f"{name} starts with {seat.start_points} points: at most 9999.")
        kept.append(replace(seat, name=name))
    return kept


def _recorded_players_in(record: RoundRecord, seats: Sequence[PlayerState]) -> tuple[int, ...]:
    """The seats in a recorded round: as recorded, else those with a result, else those at
    the table for that round."""
    if record.players_in is not None:
        players_in = tuple(sorted(set(record.players_in)))
        if not players_in or not all(0 <= s < len(seats) for s in players_in):
            raise GameError(f"Round {record.number} is played by seats the game does not have.")
        return players_in
    if record.results is not None:
        return tuple(
            s
            for s in range(len(seats))
            if s < len(record.results) and record.results[s] is not None
        )
    return tuple(
        s
        for s, seat in enumerate(seats)
        if (seat.joined_round is None or seat.joined_round <= record.number)
        and (seat.left_round is None or seat.left_round > record.number)
    )


def _find(
    session: Session, code: str, *, for_edit: bool = True, include_deleted: bool = False
) -> Game:
    """The game for code; for an edit, locked until the write commits, so two processes
    saving the same version cannot both get through the version check."""
    query = select(Game).where(or_(Game.code == code, Game.watch_code == code))
    game = session.exec(locked(query) if for_edit else query).first()
    if game is None:
        replaced = session.exec(
            select(Game)
            .join(ReplacedCode, col(ReplacedCode.game_id) == col(Game.id))
            .where(ReplacedCode.code_hash == code_hash(code))
        ).first()
        if replaced is not None:
            raise ReplacedLink(replaced.watch_code)
    if game is None or (game.deleted_at is not None and not include_deleted):
        raise GameNotFound("No game has this code. Check the link, or start a new game.")
    if for_edit and code != game.code:
        raise ReadOnlyLink(ReadOnlyLink.message)
    return game


def _commit(session: Session, game: Game) -> GameState:
    """Commit a change (with every listener's part of it), then tell every open page."""
    session.flush()
    state = _state(session, game)
    for listener in _listeners:
        listener(session, state)
    session.commit()
    live.publish(state.watch_code, state)
    return state


def _rematch(session: Session, game: Game) -> Game | None:
    return session.exec(
        select(Game)
        .where(Game.rematch_of == game.id, col(Game.deleted_at).is_(None))
        .order_by(col(Game.id).desc())
    ).first()


def _current_scores(
    session: Session, round_ids: Sequence[int | None], *, include_replaced: bool = False
) -> Sequence[SeatScore]:
    """The scores in force (not replaced by a correction; all of them with
    include_replaced), round by round, seat by seat."""
    query = select(SeatScore).where(col(SeatScore.round_id).in_(round_ids))
    if not include_replaced:
        query = query.where(col(SeatScore.replaced_at).is_(None))
    return session.exec(
        query.order_by(col(SeatScore.round_id), col(SeatScore.position), col(SeatScore.id))
    ).all()


def _round_rows(session: Session, game: Game) -> Sequence[GameRound]:
    return session.exec(
        select(GameRound).where(GameRound.game_id == game.id).order_by(col(GameRound.number))
    ).all()


def _state(session: Session, game: Game) -> GameState:
    seats = session.exec(
        select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position))
    ).all()
    db_rounds = _round_rows(session, game)
    by_round: dict[int, dict[int, SeatEntry]] = {}
    for score in _current_scores(session, [r.id for r in db_rounds]):
        cards = (
            None
            if score.cards is None
            else parse_cards(score.cards.split(",") if score.cards else ())
        )
        by_round.setdefault(score.round_id, {})[score.position] = SeatEntry(
            points=score.points,
            went_out=score.went_out,
            cards=cards,
            layout=None if score.layout is None else json.loads(score.layout),
        )
    seat_count = len(seats)
    rounds = []
    for db_round in db_rounds:
        saved = by_round.get(db_round.id or 0)
        entries = tuple(saved.get(p) for p in range(seat_count)) if saved else None
        plan = _plan_of(db_round)
        rounds.append(
            RoundState(
                number=plan.number,
                cards_dealt=plan.cards_dealt,
                wild_rank=plan.wild_rank,
                dealer=plan.dealer,
                first_player=plan.first_player,
                entries=entries,
                kind=plan.kind,
                players_in=plan.players_in,
            )
        )
    rematch = _rematch(session, game) if game.finished_at is not None else None
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
        rematch_code=None if rematch is None else rematch.code,
        rematch_watch_code=None if rematch is None else rematch.watch_code,
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


def _order(stored: str) -> RoundOrder:
    for order in ROUND_ORDERS:
        if stored == order:
            return order
    return "up"
