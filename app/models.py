"""The tables. They are created and changed only through Alembic migrations."""

import uuid
from datetime import UTC, datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

# Set before any table exists, so every constraint gets a stable name for batch migrations.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_uid() -> str:
    """A game's stable id for exports: it never changes, whatever its codes become."""
    return uuid.uuid4().hex


class Game(SQLModel, table=True):
    """One game at one table. `code` is the scorekeeper's secret link, `watch_code` the
    read-only one."""

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, max_length=64)
    watch_code: str = Field(unique=True, max_length=64)
    first_dealer: int
    created_at: datetime = Field(default_factory=utc_now)
    finished_at: datetime | None = None
    version: int = 1
    uid: str = Field(default_factory=new_uid, unique=True, max_length=64)
    deleted_at: datetime | None = None
    # One rematch a game: two asked at the same moment cannot both be written.
    rematch_of: int | None = Field(default=None, index=True, unique=True)
    mode: str = Field(default="game", max_length=16)
    """ "game" for the eleven rounds at a table, "solitaire" for one player's eleven piles."""
    round_order: str = Field(default="up", max_length=16)
    """ "up" (the rulebook, 3 cards first), "down" or "shuffled" (house rules)."""


class ReplacedCode(SQLModel, table=True):
    """A scorekeeper code that was replaced, kept only as a hash: an old link can then say
    it was replaced (and point to the game's watch link) without ever working again."""

    __tablename__ = "replaced_code"

    id: int | None = Field(default=None, primary_key=True)
    code_hash: str = Field(unique=True, max_length=64)
    game_id: int = Field(foreign_key="game.id", index=True)
    replaced_at: datetime = Field(default_factory=utc_now)


class Seat(SQLModel, table=True):
    """A place at the table, clockwise from position 0."""

    __table_args__ = (UniqueConstraint("game_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    position: int
    name: str = Field(max_length=30)
    start_points: int = 0
    """What a player who sat down mid-game starts with."""
    joined_round: int | None = None
    """The first round played by a player who sat down mid-game (None: from the start)."""
    left_round: int | None = None
    """The first round no longer played by a player who left (None: still in)."""


class GameRound(SQLModel, table=True):
    """A round as planned: stored, and replanned only when the table changes, never
    re-derived from its number."""

    __tablename__ = "game_round"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    number: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    first_player: int
    kind: str = Field(default="round", max_length=16)
    """ "round" for the eleven rounds (or piles), "tiebreak" for a round among tied players."""
    players_in: str = Field(max_length=100)
    """The seats that play the round, comma-separated in seat order."""


class SeatScore(SQLModel, table=True):
    """One seat's result in one round; a correction replaces it and keeps the old row."""

    __tablename__ = "seat_score"

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = Field(foreign_key="game_round.id", index=True)
    position: int
    points: int
    went_out: bool = False
    cards: str | None = Field(default=None, max_length=200)
    layout: str | None = None
    """A solitaire pile's best books and runs as JSON (groups and leftover)."""
    saved_at: datetime = Field(default_factory=utc_now)
    replaced_at: datetime | None = None


class PlayTable(SQLModel, table=True):
    """A group of people who play together; `code` edits it, `watch_code` only shows it."""

    __tablename__ = "play_table"

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, max_length=64)
    watch_code: str = Field(unique=True, max_length=64)
    name: str = Field(max_length=60)
    created_at: datetime = Field(default_factory=utc_now)
    language: str | None = Field(default=None, max_length=8)
    """The language of the table's pages for readers who chose none (app/i18n.py)."""


class TableVersion(SQLModel, table=True):
    """A table's version, advanced by every change to it (its games, its people): what a
    server keeps of the table's figures is current while this is what it was kept against.
    A row of its own, not a column of play_table: a save holds its game and then advances
    this, while a join or a rematch holds play_table and then waits for the game."""

    __tablename__ = "table_version"

    table_id: int = Field(foreign_key="play_table.id", primary_key=True)
    version: int = 0


class Person(SQLModel, table=True):
    """Someone at a table, the same from game to game."""

    # One person a name at a table, whoever adds it at the same moment. An id is never given
    # again (SQLite would give the highest one anew): a merged person's page leads on.
    __table_args__ = (
        UniqueConstraint("table_id", "folded_name", name="uq_person_table_id_folded_name"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="play_table.id", index=True)
    name: str = Field(max_length=30)
    # names.folded of a 30-letter name: it makes as many as 15 letters of one (ﷺ).
    folded_name: str = Field(max_length=450)
    """The name as tables (and games) match it, names.folded: written with the name, always."""
    created_at: datetime = Field(default_factory=utc_now)


class MergedPerson(SQLModel, table=True):
    """A person merged into another: a request naming them that comes after the merge is
    told so, rather than that the table never had them."""

    __tablename__ = "merged_person"

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="play_table.id")
    person_id: int = Field(index=True)
    name: str = Field(max_length=30)
    into_id: int


class TableGame(SQLModel, table=True):
    """A game played at a table, with what the table's list shows, kept up to date on save."""

    __tablename__ = "table_game"
    __table_args__ = (Index("ix_table_game_table_id_created_at", "table_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="play_table.id")
    game_id: int = Field(foreign_key="game.id", unique=True)
    # A join or a rematch finds the game's table by the code it was asked with.
    code: str = Field(max_length=64, index=True)
    watch_code: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utc_now)
    finished: bool = False
    deleted: bool = False
    rounds_saved: int = 0
    round_count: int = 11
    source_id: str | None = Field(default=None, max_length=64, index=True)


class PersonGame(SQLModel, table=True):
    """One person's seat in one table game and its result, kept up to date on every save."""

    __tablename__ = "person_game"
    __table_args__ = (UniqueConstraint("game_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="play_table.id", index=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    person_id: int = Field(foreign_key="person.id", index=True)
    position: int
    counted: bool = False
    solitaire: bool = False
    total: int = 0
    rounds: int = 0
    went_out: int = 0
    zero_rounds: int = 0
    full_game: bool = False
    won: bool = False


class CreateCount(SQLModel, table=True):
    """How many games and tables one client address started in one window of
    CREATE_RATE_LIMIT (such as its minute), kept in the database so that every worker, every
    host and the next start share one count (app/ratelimit.py)."""

    __tablename__ = "create_count"

    address: str = Field(primary_key=True, max_length=64)
    window_seconds: int = Field(primary_key=True)
    created: int
    resets_at: float = Field(index=True)
    """When the window closes, in seconds since 1970 (UTC): the next creation opens a new one."""
