"""What a table is, as the pages and the API see it: its people with their stats, its games,
and the errors the tables service raises. Nothing here touches the database."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import NamedTuple

from ..i18n import fill, lazy
from ..i18n import gettext as _
from ..names import UnreadableText, looks_blank, plain_name
from ..rules.seasons import FinishedGame, Period, Ratings, Records, Streaks
from ..rules.stats import HeadToHead, PersonStats

TABLE_NAME_LENGTH = 60


class TableNotFound(LookupError):
    """No table has that code."""


class TableError(ValueError):
    """A change the table cannot take; the message says why."""


class ReadOnlyTable(TableError):
    """A change asked for with the table's watch code."""

    message = lazy(
        "This is the table's watch link: it shows the games and stats but cannot change "
        "anything. Ask whoever keeps the table's scorekeeper link."
    )


class NoSuchPerson(TableError):
    """A person id that is not one of the table's people."""


class PersonMerged(TableError):
    """A person merged into another (a moment ago, perhaps by a request sent at the same
    time): they are no longer at the table under that id."""

    def __init__(self, message: str, *, into_id: int) -> None:
        super().__init__(message)
        self.into_id = into_id
        """The person they are one with now (through every merge since)."""


@dataclass(frozen=True)
class PersonView:
    """Someone at the table, with their stats and their record against each other person."""

    id: int
    name: str
    stats: PersonStats
    versus: dict[int, HeadToHead]
    """Head to head against those they played most (on their own answer: everyone)."""
    opponents: int = 0
    """How many people they played with in all."""


class SeatView(NamedTuple):
    """A seat of a table game: who sat there and their total so far (a tuple: a table's
    list can hold thousands)."""

    person_id: int
    name: str
    total: int
    won: bool


class TableGameView(NamedTuple):
    """A game in the table's list."""

    code: str
    watch_code: str
    created_at: datetime
    finished: bool
    rounds_saved: int
    round_count: int
    seats: tuple[SeatView, ...]

    @property
    def winners(self) -> list[str]:
        return [seat.name for seat in self.seats if seat.won] if self.finished else []


@dataclass(frozen=True)
class Season:
    """Everything a table shows for one period (all time too); versus: each person's head
    to head against those they played most, and opponents: how many they played with."""

    period: Period
    years: list[int]
    games: list[FinishedGame]
    stats: dict[int, PersonStats]
    versus: dict[int, dict[int, HeadToHead]]
    opponents: dict[int, int]
    streaks: dict[int, Streaks]
    records: Records
    ratings: Ratings
    codes: dict[int, str]


@dataclass(frozen=True)
class TableState:
    """Everything a page or the API shows about a table."""

    code: str
    watch_code: str
    can_edit: bool
    name: str
    people: tuple[PersonView, ...]
    games: tuple[TableGameView, ...]
    game_count: int = 0
    season: Season | None = None
    language: str | None = None

    def for_watchers(self) -> TableState:
        """The table as its watch link shows it: no scorekeeper code anywhere."""
        return replace(
            self,
            code=self.watch_code,
            can_edit=False,
            games=tuple(game._replace(code=game.watch_code) for game in self.games),
            season=None if self.season is None else replace(self.season, codes={}),
        )


@dataclass(frozen=True)
class TableSummary:
    """A table as a list of tables shows it."""

    code: str
    name: str
    can_edit: bool
    game_count: int


class DeletedGame(NamedTuple):
    """A game of the table deleted lately, which can still be restored."""

    code: str
    created_at: datetime
    deleted_at: datetime
    players: tuple[str, ...]


def clean_table_name(name: str) -> str:
    """The table's name in the form player names take (one normal form, no control or
    invisible characters, spaces folded); TableError when it shows nothing or is too long."""
    try:
        cleaned = plain_name(str(name))
    except UnreadableText as error:
        raise TableError(
            _(
                "The table's name holds characters that are not text (lone surrogates): "
                "type it again."
            )
        ) from error
    if not cleaned:
        raise TableError(_("Give the table a name, such as your family's."))
    if looks_blank(cleaned):
        raise TableError(_("The table's name shows nothing: type letters or emoji."))
    if len(cleaned) > TABLE_NAME_LENGTH:
        raise TableError(
            fill(_("Table names have at most %(most)s letters."), most=TABLE_NAME_LENGTH)
        )
    return cleaned


def crowded(people: int, most: int, *, importing: bool) -> TableError:
    """A game or an import that would seat more people at the table than it takes."""
    if importing:
        message = _(
            "The import would bring the table to %(people)s people; a table has at most "
            "%(most)s (TABLE_MAX_PEOPLE). Nothing was imported."
        )
    else:
        message = _(
            "This game would bring the table to %(people)s people; a table has at most "
            "%(most)s (TABLE_MAX_PEOPLE). Merge people who are the same, or start the game "
            "without the table."
        )
    return TableError(fill(message, people=people, most=most))
