"""Years at a table: the period a question covers, win streaks, records and a skill rating,
each worked out from the table's finished games in the order they finished."""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime

from ..i18n import fill
from ..i18n import gettext as _
from .ratings import MU, NEW_UNTIL, SIGMA, ordinal, rate_game, rating_figure
from .stats import HeadToHead

EARLIEST_YEAR, LATEST_YEAR = 1, 9999


class PeriodError(ValueError):
    """A season that cannot be read: the message says why."""


@dataclass(frozen=True, slots=True)
class Period:
    """The games that finished from `start` to `end` (dates in UTC, both inclusive; None: no
    limit on that side)."""

    start: date | None = None
    end: date | None = None
    year: int | None = None

    def covers(self, finished_at: datetime) -> bool:
        day = _utc(finished_at).date()
        return (self.start is None or self.start <= day) and (self.end is None or day <= self.end)

    @property
    def all_time(self) -> bool:
        return self.start is None and self.end is None

    @property
    def label(self) -> str:
        if self.year is not None:
            return str(self.year)
        if self.all_time:
            return _("All time")
        since = self.start.isoformat() if self.start else _("the first game")
        until = self.end.isoformat() if self.end else _("today")
        return fill(_("%(since)s to %(until)s"), since=since, until=until)


def period_from(year: str | None, start: str | None, end: str | None) -> Period:
    """The period a question asks for: a year (YYYY), or from and to (ISO dates, both
    inclusive, either may be left out), or all time; PeriodError when it cannot be read."""
    if year not in (None, "") and (start or end):
        raise PeriodError(_("Choose a year, or from and to, not both."))
    if year not in (None, ""):
        if not (year.isascii() and year.isdigit() and len(year) == 4):
            raise PeriodError(
                fill(
                    _("The year must be four digits, such as 2026, not %(year)s."),
                    year=repr(year),
                )
            )
        number = int(year)
        if not EARLIEST_YEAR <= number <= LATEST_YEAR:
            raise PeriodError(
                fill(
                    _("The year must be from %(first)s to %(last)s."),
                    first=EARLIEST_YEAR,
                    last=LATEST_YEAR,
                )
            )
        return Period(date(number, 1, 1), date(number, 12, 31), year=number)
    first, last = _day(start, "from"), _day(end, "to")
    if first and last and first > last:
        raise PeriodError(
            fill(
                _("from (%(first)s) comes after to (%(last)s): nothing finished between."),
                first=first,
                last=last,
            )
        )
    return Period(first, last)


def _day(text: str | None, name: str) -> date | None:
    if text in (None, ""):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        if name == "from":
            message = _("from must be a date such as 2026-01-31, not %(text)s.")
        else:
            message = _("to must be a date such as 2026-01-31, not %(text)s.")
        raise PeriodError(fill(message, text=repr(text))) from None


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class FinishedSeat:
    """One person's part in a finished game, as streaks, records and ratings read it."""

    person: int
    total: int
    won: bool
    rounds: int
    went_out: int
    full_game: bool
    seated: bool = True
    """Still at the table when the game ended (False: left during it)."""
    highest_round: int | None = None
    """The most points the seat scored in one round of the game (tie-breaks left out)."""
    highest_rounds: tuple[int, ...] = ()
    """Every round in which it scored them, in order."""


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game of the table, with when it finished and its watch code."""

    game: int
    watch_code: str
    finished_at: datetime
    solitaire: bool
    seats: tuple[FinishedSeat, ...]

    def played(self) -> list[FinishedSeat]:
        """The seats of people who played a round of it (anyone else has no game here)."""
        return [seat for seat in self.seats if seat.rounds]


def in_order(games: Iterable[FinishedGame], period: Period = Period()) -> list[FinishedGame]:
    """The games that finished in period, in the order they finished."""
    chosen = [game for game in games if period.covers(game.finished_at)]
    return sorted(chosen, key=lambda game: (_utc(game.finished_at), game.game))


@dataclass(frozen=True, slots=True)
class Streaks:
    longest: int = 0
    current: int = 0
    longest_ended: FinishedGame | None = None
    """The last game of the longest streak (the latest one, when two are as long)."""
    longest_endings: tuple[FinishedGame, ...] = ()
    """The last game of every streak as long as the longest, in order."""


def win_streaks(games: Sequence[FinishedGame]) -> dict[int, Streaks]:
    """For each person, the most finished games in a row they won (a shared win counts) and
    the run they are on now, over games they played, in order of finishing. Solitaire is
    apart: it neither starts nor breaks a streak."""
    return SeasonTally(games).streaks()


def _next_streak(was: Streaks, seat: FinishedSeat, game: FinishedGame) -> Streaks:
    if not seat.won:
        return replace(was, current=0)
    current = was.current + 1
    if current > was.longest:  # this streak alone is the longest now
        return Streaks(current, current, game, (game,))
    if current == was.longest:  # a streak as long as the longest: one more ending
        return Streaks(current, current, game, (*was.longest_endings, game))
    return replace(was, current=current)


def _compared(game: FinishedGame) -> dict[int, tuple[int, bool]]:
    """Who a game compares for head to head (seated at its end, having played a round; no
    one in solitaire), each with a key that is lower for who finished lower: fewer points,
    or the same and the tie-break's winner."""
    if game.solitaire:
        return {}
    return {
        seat.person: (seat.total, not seat.won)
        for seat in game.seats
        if seat.rounds and seat.seated
    }


def versus_of(games: Iterable[FinishedGame], person: int) -> dict[int, HeadToHead]:
    """One person's head to head over these games, by the other's id (as
    stats.head_to_head counts it)."""
    tallies: dict[int, list[int]] = {}
    for game in games:
        compared = _compared(game)
        mine = compared.get(person)
        if mine is None:
            continue
        for other, theirs in compared.items():
            if other != person:
                tally = tallies.setdefault(other, [0, 0, 0])
                tally[0] += 1
                tally[1] += mine < theirs
                tally[2] += theirs < mine
    return {other: HeadToHead(*tally) for other, tally in sorted(tallies.items())}


def most_played(
    games: Iterable[FinishedGame], shown: int
) -> tuple[dict[int, dict[int, HeadToHead]], dict[int, int]]:
    """For each person, head to head against the `shown` people they played most games
    with (on equal games the lower id first), and how many people they played with in all:
    time and room in step with the games, whatever the number of people."""
    return SeasonTally(games).most_played(shown)


@dataclass(frozen=True, slots=True)
class RecordHolder:
    """A person holding a record: the figure, the game where it was set, and (for the most
    points in one round) which round."""

    person: int
    figure: int
    watch_code: str
    finished_at: datetime
    round: int | None = None


@dataclass(frozen=True, slots=True)
class Records:
    """The table's records over games of two or more players, each with every holder."""

    lowest_total: list[RecordHolder] = field(default_factory=list)
    highest_total: list[RecordHolder] = field(default_factory=list)
    highest_round: list[RecordHolder] = field(default_factory=list)
    most_went_out: list[RecordHolder] = field(default_factory=list)
    longest_win_streak: list[RecordHolder] = field(default_factory=list)


def table_records(
    games: Sequence[FinishedGame], streaks: dict[int, Streaks] | None = None
) -> Records:
    """Lowest and highest total of a full 11-round game, most points in one round, most
    rounds gone out in one game and the longest win streak: every holder of each (every
    round, game and streak that holds it)."""
    return SeasonTally(games).records()


class _Best:
    """The record figure so far and its holders: a holder is made only for a figure that
    ties or beats it (a table of thousands of seats makes few)."""

    def __init__(self, *, lowest: bool = False) -> None:
        self.lowest = lowest
        self.figure: int | None = None
        self.found: list[RecordHolder] = []

    def holders_of(self, figure: int) -> list[RecordHolder]:
        """The list a holder of figure joins (emptied when figure beats the record)."""
        if self.figure is None or (figure < self.figure if self.lowest else figure > self.figure):
            self.figure, self.found = figure, []
        return self.found if figure == self.figure else []

    def offer(
        self, figure: int, seat: FinishedSeat, game: FinishedGame, round_number: int | None = None
    ) -> None:
        beaten = self.figure is not None and (
            figure > self.figure if self.lowest else figure < self.figure
        )
        if not beaten:
            self.holders_of(figure).append(
                RecordHolder(seat.person, figure, game.watch_code, game.finished_at, round_number)
            )

    def holders(self) -> list[RecordHolder]:
        # Sorting is stable: games finishing at the same moment stay in the order of their ids.
        return sorted(
            self.found,
            key=lambda holder: (_utc(holder.finished_at), holder.person, holder.round or 0),
        )


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill rating: mu, its uncertainty sigma, the ordinal mu - 3 sigma (what a person is
    at least, almost surely) and the games of the season it was rated on."""

    mu: float
    sigma: float
    ordinal: float
    games: int = 0

    @property
    def figure(self) -> int:
        """The figure the pages show (1000 to start with, never below 100)."""
        return rating_figure(self.mu, self.sigma)

    @property
    def new(self) -> bool:
        """Fewer than NEW_UNTIL rated games: the figure is still held back."""
        return self.games < NEW_UNTIL


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A person's ordinal (and the figure shown) after one rated game."""

    finished_at: datetime
    watch_code: str
    ordinal: float
    figure: int = 0


@dataclass(frozen=True, slots=True)
class Ratings:
    now: dict[int, Rating]
    history: dict[int, list[RatingPoint]]


def game_ranks(seats: Sequence[FinishedSeat]) -> list[float]:
    """Ranks for the rating (1 the best): everyone seated at the end ahead of everyone who
    left; then lower totals rank higher; equal totals share a rank unless a tie-break
    decided them, when its winner ranks ahead."""
    return _ranks([_rank_key(seat) for seat in seats])


def _rank_key(seat: FinishedSeat) -> tuple[bool, int, bool]:
    """Lower for who finished ahead: seated before left, then the total, then the
    tie-break's winner (nobody who left can win)."""
    return (not seat.seated, seat.total, not seat.won)


def _ranks(keys: Sequence[tuple[bool, int, bool]]) -> list[float]:
    rank_of = {key: float(rank) for rank, key in enumerate(sorted(set(keys)), start=1)}
    return [rank_of[key] for key in keys]


def rated_seats(game: FinishedGame) -> list[FinishedSeat]:
    """Who a game rates: everyone who played a round of it, those who left too (ranked
    behind everyone seated at the end); none in solitaire, nor in a game of one."""
    if game.solitaire:
        return []
    seats = game.played()
    return seats if len(seats) >= 2 else []


def skill_ratings(games: Sequence[FinishedGame]) -> Ratings:
    """openskill's Plackett-Luce model with its defaults, teams of one, the games rated in
    order of finishing, everyone starting afresh; who left a game after playing a round of
    it is rated as finishing behind everyone seated at its end (game_ranks)."""
    return SeasonTally(games).ratings()


_LOWER, _HIGHER = 21, 42
"""Where a pair's count of games finished lower and higher sit in its one number (the
games in the lowest 21 bits: two million games together, far past any table's)."""
_GAMES = (1 << _LOWER) - 1


class SeasonTally:
    """A season's streaks, records, ratings and head to head, brought up to date one game
    at a time in the order the games finished: a game that finishes after all the others
    costs only itself, whatever the number of games before it."""

    def __init__(self, games: Iterable[FinishedGame] = ()) -> None:
        self.games: list[FinishedGame] = []
        self._streaks: dict[int, Streaks] = {}
        self._lowest, self._highest = _Best(lowest=True), _Best()
        self._best_round, self._most_out = _Best(), _Best()
        self._ratings: dict[int, tuple[float, float]] = {}
        self._rating_history: dict[int, list[RatingPoint]] = {}
        self._pairs: dict[int, dict[int, int]] = defaultdict(dict)
        """For each person, each other person compared with them: games, lower and higher
        in one number (see _LOWER): a big table has a quarter of a million pairs."""
        self.extend(games)

    def extend(self, games: Iterable[FinishedGame]) -> None:
        """Add games that finished after every game added so far, in order of finishing."""
        for game in games:
            self._add(game)

    def _add(self, game: FinishedGame) -> None:
        self.games.append(game)
        if game.solitaire:
            return
        # played() and _compared() of the game, each seat looked at once.
        seated = []
        for seat in game.seats:
            if not seat.rounds:
                continue
            if seat.seated:
                seated.append(seat)
            self._streaks[seat.person] = _next_streak(
                self._streaks.get(seat.person, Streaks()), seat, game
            )
            if seat.full_game:
                self._lowest.offer(seat.total, seat, game)
                self._highest.offer(seat.total, seat, game)
            if seat.highest_round is not None:
                for number in seat.highest_rounds:  # every round it was scored in
                    self._best_round.offer(seat.highest_round, seat, game, number)
            if seat.went_out:
                self._most_out.offer(seat.went_out, seat, game)
        self._rate(game)
        if len(seated) < 2:
            return
        keys = [(seat.total, not seat.won) for seat in seated]
        for seat, mine in zip(seated, keys, strict=True):
            tallies = self._pairs[seat.person]
            for other, theirs in zip(seated, keys, strict=True):
                if other.person != seat.person:
                    tallies[other.person] = (
                        tallies.get(other.person, 0)
                        + 1
                        + ((mine < theirs) << _LOWER)
                        + ((theirs < mine) << _HIGHER)
                    )

    def _rate(self, game: FinishedGame) -> None:
        rated = rated_seats(game)
        if not rated:
            return
        fresh = (MU, SIGMA)
        before = [self._ratings.get(seat.person, fresh) for seat in rated]
        after = rate_game(before, game_ranks(rated))
        for seat, (mu, sigma) in zip(rated, after, strict=True):
            self._ratings[seat.person] = (mu, sigma)
            self._rating_history.setdefault(seat.person, []).append(
                RatingPoint(
                    game.finished_at, game.watch_code, ordinal(mu, sigma), rating_figure(mu, sigma)
                )
            )

    def streaks(self) -> dict[int, Streaks]:
        return dict(self._streaks)

    def records(self) -> Records:
        longest = _Best()
        for person, streak in self._streaks.items():
            if streak.longest:
                longest.holders_of(streak.longest).extend(
                    RecordHolder(person, streak.longest, ended.watch_code, ended.finished_at)
                    for ended in streak.longest_endings
                )
        return Records(
            lowest_total=self._lowest.holders(),
            highest_total=self._highest.holders(),
            highest_round=self._best_round.holders(),
            most_went_out=self._most_out.holders(),
            longest_win_streak=longest.holders(),
        )

    def ratings(self) -> Ratings:
        now = {
            person: Rating(mu, sigma, ordinal(mu, sigma), len(self._rating_history[person]))
            for person, (mu, sigma) in self._ratings.items()
        }
        history = {person: list(points) for person, points in self._rating_history.items()}
        return Ratings(now=now, history=history)

    def most_played(self, shown: int) -> tuple[dict[int, dict[int, HeadToHead]], dict[int, int]]:
        """Each person's head to head against the `shown` people they played most (on
        equal games the lower id first), and how many people they played with in all."""
        versus: dict[int, dict[int, HeadToHead]] = {}
        opponents: dict[int, int] = {}
        for person, tallies in self._pairs.items():
            opponents[person] = len(tallies)
            chosen = heapq.nsmallest(
                shown, tallies.items(), key=lambda item: (-(item[1] & _GAMES), item[0])
            )
            versus[person] = {
                other: HeadToHead(
                    tally & _GAMES, (tally >> _LOWER) & _GAMES, (tally >> _HIGHER) & _GAMES
                )
                for other, tally in chosen
            }
        return versus, opponents
