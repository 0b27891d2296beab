"""Who sits where: the names at a new table, and players joining or leaving mid-game (the
deal staying with whoever was to deal next)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import update
from sqlmodel import Session, col

from ..i18n import fill, lazy
from ..i18n import gettext as _
from ..models import Seat, SeatScore
from ..names import UnreadableText, folded, looks_blank, plain_name
from ..rules.cards import MAX_PLAYERS, MIN_PLAYERS
from ..rules.schedule import ROUND_ORDERS, replan
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
        raise PlayerError(
            _("A name holds characters that are not text (lone surrogates): type it again.")
        ) from error
    if not fewest <= len(cleaned) <= most:
        raise PlayerError(
            fill(
                _(
                    "A game needs %(fewest)s to %(most)s players (or 1 for solitaire); "
                    "you entered %(count)s."
                ),
                fewest=MIN_PLAYERS,
                most=MAX_PLAYERS,
                count=len(cleaned),
            )
        )
    seen: dict[str, str] = {}
    for position, name in enumerate(cleaned, start=1):
        if not name:
            raise PlayerError(fill(_("Player %(position)s needs a name."), position=position))
        if looks_blank(name):
            raise PlayerError(
                fill(
                    _("Player %(position)s's name shows nothing: type letters or emoji."),
                    position=position,
                )
            )
        if len(name) > NAME_LENGTH:
            raise PlayerError(
                fill(
                    _("%(start)s… is too long: names have at most %(most)s letters."),
                    start=name[:12],
                    most=NAME_LENGTH,
                )
            )
        key = folded(name)
        if key in seen:
            # Spelled differently, not only in case: say which name it copies.
            if name.casefold() != seen[key].casefold():
                message = _(
                    "Two players are called %(name)s (it looks like %(same)s): give each "
                    "player a different name."
                )
            else:
                message = _("Two players are called %(name)s: give each player a different name.")
            raise PlayerError(fill(message, name=name, same=seen[key]))

        seen[key] = name
    return cleaned


def starting_names(
    players: Sequence[str], *, first_dealer: int, order: str, mode: str | None
) -> list[str]:
    """The cleaned names of a new game, checked against its mode, first dealer and order."""
    names = clean_names(players)
    if mode == "game" and len(names) < MIN_PLAYERS:
        raise PlayerError(
            fill(
                _("A game needs %(fewest)s to %(most)s players; for one player, choose Solitaire."),
                fewest=MIN_PLAYERS,
                most=MAX_PLAYERS,
            )
        )
    if mode == "solitaire" and len(names) != 1:
        raise PlayerError(
            fill(_("Solitaire is for one player; you entered %(count)s names."), count=len(names))
        )
    if not 0 <= first_dealer < len(names):
        raise PlayerError(
            fill(_("The first dealer must be one of the %(count)s seats."), count=len(names))
        )
    if order not in ROUND_ORDERS:
        raise PlayerError(
            fill(
                _("%(order)s is not an order of rounds: use up, down or shuffled."),
                order=repr(order),
            )
        )
    return names


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
            fill(
                _(
                    "Seat %(position)s does not exist: choose 0 to %(last)s "
                    "(the new player sits before the player in that seat)."
                ),
                position=position,
                last=len(state.players),
            )
        )
    if len(state.still_in) >= MAX_PLAYERS:
        raise PlayerError(fill(_("A game seats at most %(most)s players."), most=MAX_PLAYERS))
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
        raise NoSuchSeat(_no_seat(seat, state))
    name = state.players[seat]
    if state.seats[seat].left:
        raise GameError(fill(_("%(name)s has already left the game."), name=name))
    upcoming = _changeable_round(state, "leave")
    if len(state.still_in) <= MIN_PLAYERS:
        raise PlayerError(
            fill(
                _(
                    "%(name)s cannot leave: a game needs at least %(fewest)s players. "
                    "End the game instead."
                ),
                name=name,
                fewest=MIN_PLAYERS,
            )
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
        raise NoSuchSeat(_no_seat(seat, state))
    name = state.players[seat]
    if not state.seats[seat].left:
        raise GameError(fill(_("%(name)s is still in the game."), name=name))
    upcoming = _changeable_round(state, "come back")
    if len(state.still_in) >= MAX_PLAYERS:
        raise PlayerError(fill(_("A game seats at most %(most)s players."), most=MAX_PLAYERS))
    opened.seats[seat].left_round = None
    _replan_from(
        opened,
        upcoming.number,
        next_dealer=upcoming.dealer,
        seats_in=sorted([*state.still_in, seat]),
        seat_count=len(state.players),
    )
    return changes.commit(session, opened, state)


def _no_seat(seat: int, state: GameState) -> str:
    return fill(
        _("There is no seat %(seat)s: seats run from 0 to %(last)s."),
        seat=seat,
        last=len(state.players) - 1,
    )


REFUSED_CHANGES = {
    "join": (
        lazy("Solitaire is for one player: nobody can join it."),
        lazy("This game is over: nobody can join it now."),
        lazy("The tie-break round is for the tied players: nobody can join now."),
    ),
    "leave": (
        lazy("Solitaire is for one player: nobody can leave it."),
        lazy("This game is over: nobody can leave it now."),
        lazy("The tie-break round is for the tied players: nobody can leave now."),
    ),
    "come back": (
        lazy("Solitaire is for one player: nobody can come back to it."),
        lazy("This game is over: nobody can come back to it now."),
        lazy("The tie-break round is for the tied players: nobody can come back now."),
    ),
}
"""Why nobody can join, leave or come back now: solitaire, a game over, a tie-break."""


def _changeable_round(state: GameState, change: str) -> RoundState:
    """The round from which a player may join or leave: the next unsaved ordinary round."""
    solitaire, over, tiebreak = REFUSED_CHANGES[change]
    if state.is_solitaire:
        raise GameError(str(solitaire))
    upcoming = state.current_round
    if upcoming is None:
        raise GameError(str(over))
    if upcoming.is_tiebreak:
        raise GameError(str(tiebreak))
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
