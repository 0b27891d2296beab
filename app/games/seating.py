"""Who sits where: the names at a new table, and players joining or leaving mid-game (the
deal staying with whoever was to deal next)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import update
from sqlmodel import Session, col

from ..models import Seat, SeatScore
from ..names import UnreadableText, folded, looks_blank, plain_name
from ..rules.cards import MAX_PLAYERS, MIN_PLAYERS
from ..rules.schedule import replan
from . import changes, store
from .state import (
    NAME_LENGTH,
    GameError,
    GameState,
    NoSuchSeat,
    PlayerError,
    RoundState,
    StartPoints,
)
from .store import OpenGame


def clean_names(names: Sequence[str], *, fewest: int = 1, most: int = MAX_PLAYERS) -> list[str]:
    """Trimmed player names, checked for count, length, blankness and look-alike duplicates
    (one name is a solitaire game)."""
    try:
        cleaned = [plain_name(name) for name in names]
    except UnreadableText as error:
        raise PlayerError(f"A name {error}: type it again.") from error
    if not fewest <= len(cleaned) <= most:
        raise PlayerError(
            f"A game needs {MIN_PLAYERS} to {MAX_PLAYERS} players (or 1 for solitaire); "
            f"you entered {len(cleaned)}."
        )
    seen: dict[str, str] = {}
    for position, name in enumerate(cleaned, start=1):
        if not name:
            raise PlayerError(f"Player {position} needs a name.")
        if looks_blank(name):
            raise PlayerError(f"Player {position}'s name shows nothing: type letters or emoji.")
        if len(name) > NAME_LENGTH:
            raise PlayerError(
                f"{name[:12]}… is too long: names have at most {NAME_LENGTH} letters."
            )
        key = folded(name)
        if key in seen:
            # Spelled differently, not only in case: say which name it copies.
            same = (
                f" (it looks like {seen[key]})" if name.casefold() != seen[key].casefold() else ""
            )
            raise PlayerError(
                f"Two players are called {name}{same}: give each player a different name."
            )
        seen[key] = name
    return cleaned


def add_player(
    session: Session,
    *,
    code: str | None = None,
    game: OpenGame | None = None,
    name: str,
    seat: int | None = None,
    start: StartPoints = "zero",
) -> GameState:
    """Seat a new player at clockwise position seat (default: last) from the next unsaved
    round on; the deal stays with whoever was to deal next."""
    opened = changes.opened(session, code, game)
    state = opened.state()
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
    # Players who left keep their seats (and names): the limit counts those still in.
    new_name = clean_names(names, most=len(names))[position]
    start_points = state.start_points(start)

    def moved(old: int) -> int:
        return old + 1 if old >= position else old

    # One seat at a time from the end, so no two seats ever share a position.
    for row in reversed(opened.seats[position:]):
        row.position += 1
        session.add(row)
        session.flush()
    round_ids = [r.id for r in opened.rounds]
    # Results replaced by corrections move too; those in force are among the rows read.
    session.execute(
        update(SeatScore)
        .where(
            col(SeatScore.round_id).in_(round_ids),
            col(SeatScore.replaced_at).is_not(None),
            col(SeatScore.position) >= position,
        )
        .values(position=SeatScore.position + 1)
        .execution_options(synchronize_session=False)
    )
    for scores in opened.scores.values():
        for score in scores:
            score.position = moved(score.position)
    for db_round in opened.rounds:
        db_round.dealer = moved(db_round.dealer)
        db_round.first_player = moved(db_round.first_player)
        db_round.players_in = store.seat_list(
            [moved(s) for s in store.parse_seat_list(db_round.players_in)]
        )
    opened.game.first_dealer = moved(opened.game.first_dealer)
    newcomer = Seat(
        game_id=opened.id,
        position=position,
        name=new_name,
        start_points=start_points,
        joined_round=upcoming.number,
    )
    session.add(newcomer)
    opened.seats.insert(position, newcomer)
    still_in = sorted([moved(s) for s in state.still_in] + [position])
    _replan_from(
        opened,
        upcoming.number,
        next_dealer=moved(upcoming.dealer),
        seats_in=still_in,
        seat_count=len(state.players) + 1,
    )
    return changes.commit(session, opened, state, joined_seat=position)


def remove_player(
    session: Session, *, code: str | None = None, game: OpenGame | None = None, seat: int
) -> GameState:
    """Take the player in seat out from the next unsaved round on: skipped when dealing,
    their total kept on the sheet."""
    opened = changes.opened(session, code, game)
    state = opened.state()
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
    opened.seats[seat].left_round = upcoming.number
    _replan_from(
        opened,
        upcoming.number,
        next_dealer=upcoming.dealer,
        seats_in=[s for s in state.still_in if s != seat],
        seat_count=len(state.players),
    )
    return changes.commit(session, opened, state)


def return_player(
    session: Session, *, code: str | None = None, game: OpenGame | None = None, seat: int
) -> GameState:
    """Seat again a player who left (by mistake, or back from the kitchen), from the next
    unsaved round on, with their total as it stood: the undo of remove_player."""
    opened = changes.opened(session, code, game)
    state = opened.state()
    if not 0 <= seat < len(state.players):
        raise NoSuchSeat(f"There is no seat {seat}: seats run from 0 to {len(state.players) - 1}.")
    name = state.players[seat]
    if not state.seats[seat].left:
        raise GameError(f"{name} is still in the game.")
    upcoming = _changeable_round(state, "come back to")
    if len(state.still_in) >= MAX_PLAYERS:
        raise PlayerError(f"A game seats at most {MAX_PLAYERS} players.")
    opened.seats[seat].left_round = None
    _replan_from(
        opened,
        upcoming.number,
        next_dealer=upcoming.dealer,
        seats_in=sorted([*state.still_in, seat]),
        seat_count=len(state.players),
    )
    return changes.commit(session, opened, state)


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
    opened: OpenGame,
    first_number: int,
    *,
    next_dealer: int,
    seats_in: Sequence[int],
    seat_count: int,
) -> None:
    """Store new plans for the ordinary rounds from first_number on."""
    unplayed = [r for r in opened.rounds if r.number >= first_number and r.kind == "round"]
    plans = replan(
        [store.plan_of(r) for r in unplayed],
        next_dealer=next_dealer,
        seats_in=seats_in,
        seat_count=seat_count,
    )
    for db_round, plan in zip(unplayed, plans, strict=True):
        db_round.dealer = plan.dealer
        db_round.first_player = plan.first_player
        db_round.players_in = store.seat_list(plan.players_in)
