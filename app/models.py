"""The tables. They are created and changed only through Alembic migrations."""

from datetime import UTC, datetime

from sqlalchemy import UniqueConstraint
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
