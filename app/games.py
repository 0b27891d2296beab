"""The service: load a game, let the rules decide, save, and tell open pages. Nothing else
joins the rules and storage."""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlmodel import Session, col, or_, select

from . import live
from .db import begin_write, locked
from .models import Game, GameRound, Seat, SeatScore
from .rules.cards import MAX_PLAYERS, MIN_PLAYERS, RANK_CODES, RANK_PLURALS, Card, Decks, parse_card
from .rules.schedule import first_player_seat, plan_rounds
from .rules.scoring import SeatResult, score_round
from .rules.standings import leaders, ranking, totals

NAME_LENGTH = 30


class GameNotFound(LookupError):
    """No game has that code."""


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


class StaleVersion(GameError):
    """The game changed since the client last read it."""


@dataclass(frozen=True)
class SeatEntry:
    """What was saved for one seat in one round."""

    points: int
    went_out: bool
    cards: tuple[Card, ...] | None


@dataclass(frozen=True)
class RoundState:
    """One round of a game: the plan and, once saved, the result."""

    number: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    first_player: int
    entries: tuple[SeatEntry, ...] | None

    @property
    def wild_rank_code(self) -> str:
        return RANK_CODES[self.wild_rank]

    @property
    def wild_rank_plural(self) -> str:
        return RANK_PLURALS[self.wild_rank]

    @property
    def scores(self) -> list[int] | None:
        return None if self.entries is None else [entry.points for entry in self.entries]

    @property
    def went_out(self) -> int | None:
        if self.entries is None:
            return None
        return next(seat for seat, entry in enumerate(self.entries) if entry.went_out)


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

    @property
    def decks(self) -> Decks:
        return Decks.for_players(len(self.players))

    @property
    def totals(self) -> list[int]:
        return totals([r.scores for r in self.rounds], seat_count=len(self.players))

    @property
    def leaders(self) -> list[int]:
        return leaders(self.totals)

    @property
    def standings(self) -> list[int]:
        """Seats from the lowest total up."""
        return ranking(self.totals)

    @property
    def winners(self) -> list[int]:
        return self.leaders if self.finished else []

    @property
    def current_round(self) -> RoundState | None:
        """The next round to play; None once the game is finished."""
        if self.finished:
            return None
        return next((r for r in self.rounds if r.entries is None), None)

    @property
    def rounds_saved(self) -> int:
        return sum(r.entries is not None for r in self.rounds)

    def for_watchers(self) -> GameState:
        """The same game as the watch link shows it: no scorekeeper code, no editing."""
        return replace(self, code=self.watch_code, can_edit=False)

    def round(self, number: int) -> RoundState:
        """Round number, or GameError when the game has no such round."""
        if not 1 <= number <= len(self.rounds):
            raise NoSuchRound(
                f"There is no round {number}: rounds run from 1 to {len(self.rounds)}."
            )
        return self.rounds[number - 1]


def new_code() -> str:
    """An unguessable, URL-safe game code (128 bits of randomness)."""
    return secrets.token_urlsafe(16)


def clean_names(names: Sequence[str]) -> list[str]:
    """Trimmed player names, checked for count, length and case-blind uniqueness."""
    cleaned = [_plain_name(name) for name in names]
    if not MIN_PLAYERS <= len(cleaned) <= MAX_PLAYERS:
        raise GameError(
            f"A game needs {MIN_PLAYERS} to {MAX_PLAYERS} players; you entered {len(cleaned)}."
        )
    seen: dict[str, str] = {}
    for position, name in enumerate(cleaned, start=1):
        if not name:
            raise GameError(f"Player {position} needs a name.")
        if len(name) > NAME_LENGTH:
            raise GameError(f"{name[:12]}… is too long: names have at most {NAME_LENGTH} letters.")
        if name.casefold() in seen:
            raise GameError(f"Two players are called {name}: give each player a different name.")
        seen[name.casefold()] = name
    return cleaned


def _plain_name(name: str) -> str:
    """name in one normal form, without control or invisible characters, spaces folded."""
    visible = "".join(
        char
        for char in unicodedata.normalize("NFC", str(name))
        if unicodedata.category(char) not in ("Cc", "Cf")
    )
    return " ".join(visible.split())


def create_game(session: Session, *, players: Sequence[str], first_dealer: int = 0) -> GameState:
    """Start a game with players in clockwise order; first_dealer is a seat index."""
    names = clean_names(players)
    if not 0 <= first_dealer < len(names):
        raise GameError(f"The first dealer must be one of the {len(names)} seats.")
    begin_write(session)
    game = Game(code=new_code(), watch_code=new_code(), first_dealer=first_dealer)
    session.add(game)
    session.flush()
    assert game.id is not None
    session.add_all(Seat(game_id=game.id, position=p, name=n) for p, n in enumerate(names))
    session.add_all(
        GameRound(
            game_id=game.id,
            number=plan.number,
            cards_dealt=plan.cards_dealt,
            wild_rank=plan.wild_rank,
            dealer=plan.dealer,
        )
        for plan in plan_rounds(seat_count=len(names), first_dealer=first_dealer)
    )
    session.commit()
    return load_game(session, code=game.code)


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
    game.code = new_code()
    game.version += 1
    session.add(game)
    session.commit()
    return _saved(session, game)


def save_round(
    session: Session,
    *,
    code: str,
    number: int,
    results: Sequence[SeatResult],
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
        waiting = state.current_round
        if waiting is not None and waiting.number < number:
            raise GameError(f"Save round {waiting.number} first: rounds are saved in order.")
    outcome = score_round(
        results,
        seat_names=state.players,
        cards_dealt=round_state.cards_dealt,
        wild_rank=round_state.wild_rank,
        decks=state.decks,
    )
    db_round = session.exec(
        select(GameRound).where(GameRound.game_id == game.id, GameRound.number == number)
    ).one()
    now = datetime.now(UTC)
    for old in _current_scores(session, [db_round.id]):
        old.replaced_at = now
        session.add(old)
    for position, (result, points) in enumerate(zip(results, outcome.scores, strict=True)):
        kept_cards = None
        if result.points is None and not result.went_out:
            kept_cards = ",".join(card.code for card in result.cards or ())
        session.add(
            SeatScore(
                round_id=db_round.id,
                position=position,
                points=points,
                went_out=position == outcome.went_out,
                cards=kept_cards,
                saved_at=now,
            )
        )
    if number == len(state.rounds) and game.finished_at is None:
        game.finished_at = now
    game.version += 1
    session.add(game)
    session.commit()
    return _saved(session, game)


def finish_game(session: Session, *, code: str) -> GameState:
    """End the game now (the shorter-game house rule); the lowest total wins."""
    begin_write(session)
    game = _find(session, code)
    if game.finished_at is None and not _state(session, game).rounds_saved:
        raise GameError("Save at least one round before ending the game: nobody has won yet.")
    if game.finished_at is None:
        game.finished_at = datetime.now(UTC)
        game.version += 1
        session.add(game)
        session.commit()
        return _saved(session, game)
    return _state(session, game)


def parse_cards(codes: Sequence[str]) -> tuple[Card, ...]:
    """Cards from card codes; CardError (a ValueError) names a code that is not a card."""
    return tuple(parse_card(code) for code in codes)


def _find(session: Session, code: str, *, for_edit: bool = True) -> Game:
    """The game for code; for an edit, locked until the write commits, so two processes
    saving the same version cannot both get through the version check."""
    query = select(Game).where(or_(Game.code == code, Game.watch_code == code))
    game = session.exec(locked(query) if for_edit else query).first()
    if game is None:
        raise GameNotFound("No game has this code. Check the link, or start a new game.")
    if for_edit and code != game.code:
        raise ReadOnlyLink(ReadOnlyLink.message)
    return game


def _saved(session: Session, game: Game) -> GameState:
    """The game's state after a change, told to every open page."""
    state = _state(session, game)
    live.publish(game.watch_code, state)
    return state


def _current_scores(session: Session, round_ids: Sequence[int | None]) -> Sequence[SeatScore]:
    """The scores in force (not replaced by a correction), round by round, seat by seat."""
    return session.exec(
        select(SeatScore)
        .where(col(SeatScore.round_id).in_(round_ids), col(SeatScore.replaced_at).is_(None))
        .order_by(col(SeatScore.round_id), col(SeatScore.position))
    ).all()


def _state(session: Session, game: Game) -> GameState:
    seats = session.exec(
        select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position))
    ).all()
    db_rounds = session.exec(
        select(GameRound).where(GameRound.game_id == game.id).order_by(col(GameRound.number))
    ).all()
    by_round: dict[int, dict[int, SeatEntry]] = {}
    for score in _current_scores(session, [r.id for r in db_rounds]):
        cards = (
            None
            if score.cards is None
            else parse_cards(score.cards.split(",") if score.cards else ())
        )
        by_round.setdefault(score.round_id, {})[score.position] = SeatEntry(
            points=score.points, went_out=score.went_out, cards=cards
        )
    seat_count = len(seats)
    rounds = []
    for db_round in db_rounds:
        saved = by_round.get(db_round.id or 0)
        entries = tuple(saved[p] for p in range(seat_count)) if saved else None
        rounds.append(
            RoundState(
                number=db_round.number,
                cards_dealt=db_round.cards_dealt,
                wild_rank=db_round.wild_rank,
                dealer=db_round.dealer,
                first_player=first_player_seat(db_round.dealer, seat_count=seat_count),
                entries=entries,
            )
        )
    return GameState(
        code=game.code,
        watch_code=game.watch_code,
        can_edit=True,
        players=tuple(seat.name for seat in seats),
        first_dealer=game.first_dealer,
        rounds=tuple(rounds),
        finished=game.finished_at is not None,
        version=game.version,
    )
