"""What a game is, as the pages, the API and the live pages see it: the state types and the
errors the service raises. Nothing here touches the database."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from ..i18n import fill, lazy
from ..i18n import gettext as _
from ..rules.cards import RANK_CODES, RANK_PLURALS, Card, Decks
from ..rules.schedule import RoundKind, RoundOrder
from ..rules.solitaire import solitaire_result
from ..rules.standings import after_tiebreaks, average_total, leaders, ranking, totals

NAME_LENGTH = 30
RESTORE_DAYS = 30


class GameNotFound(LookupError):
    """No game has that code."""


class ReplacedLink(GameNotFound):
    """A scorekeeper code that was replaced: it opens nothing, but can say so."""

    def __init__(self, watch_code: str) -> None:
        super().__init__(
            lazy(
                "This scorekeeper link was replaced by a new one and no longer works. "
                "Ask the scorekeeper for the new link, or follow the game with its watch link."
            )
        )
        self.watch_code = watch_code


class GameError(ValueError):
    """A change the game cannot take; the message says why, in a player's words."""


class NoSuchRound(GameError):
    """A round number outside the game's rounds."""


class ReadOnlyLink(GameError):
    """A change asked for with the watch code, which can only look."""

    message = lazy(
        "This is a watch link: it shows the game but cannot change it. "
        "Ask the scorekeeper to make the change."
    )


class PlayerError(GameError):
    """Players who cannot sit down, join or leave as asked: a name, a count, a seat, the
    first dealer or the order of a new game's rounds (what was sent, not the game's state)."""


class NoSuchSeat(GameError):
    """A seat number outside the table."""


class StaleVersion(GameError):
    """The game changed since the client last read it; current is the game as it is now."""

    def __init__(self, message: str, current: GameState | None = None) -> None:
        super().__init__(message)
        self.current = current


class VersionRequired(GameError):
    """A change to a round already saved that names no version of the game: it could save
    over results its sender never saw. current is the game as it is now."""

    def __init__(self, message: str, current: GameState | None = None) -> None:
        super().__init__(message)
        self.current = current


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
        """Who wears the crown: the lowest totals of those still in; once the game is
        decided, its winners (a tie-break's loser no longer leads)."""
        if self.finished and not self.is_solitaire:
            return self.winners
        return self._lowest

    @property
    def _lowest(self) -> list[int]:
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
        raise PlayerError(
            _("Start with zero, highest, average or a number of points from 0 to 9999.")
        )

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
        return after_tiebreaks(self._lowest, played)

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
            return _("the tie-break round")
        if self.is_solitaire:
            return fill(_("pile %(number)s"), number=round_state.number)
        return fill(_("round %(number)s"), number=round_state.number)

    def for_watchers(self) -> GameState:
        """The same game as the watch link shows it: no scorekeeper code, no editing."""
        return replace(
            self, code=self.watch_code, can_edit=False, rematch_code=self.rematch_watch_code
        )

    def round(self, number: int) -> RoundState:
        """Round number, or GameError when the game has no such round."""
        if not 1 <= number <= len(self.rounds):
            raise NoSuchRound(
                fill(
                    _("There is no round %(number)s: rounds run from 1 to %(last)s."),
                    number=number,
                    last=len(self.rounds),
                )
            )

        return self.rounds[number - 1]


@dataclass(frozen=True)
class GameChange:
    """A change just written, told to every listener inside its transaction: the game before
    (None for a new game) and after, and for a join the seat the newcomer took."""

    before: GameState | None
    after: GameState
    joined_seat: int | None = None
    rematch_of: int | None = None
    """For a rematch just started: the id of the game it follows."""
    rematch_seats: tuple[int, ...] = ()
    """For a rematch: the seats of the game it follows that its players sat in, in order."""
