"""The statements of a game's hot path, built once when the module is imported: SQLAlchemy
Core, so reading a game makes plain rows (no ORM objects, no identity map) and the
statement cache finds each one at once; and the plain records a change holds of the rows
they read and write (GameRecord, ScoreRecord). store.py and the service run them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Table, and_, bindparam, insert, or_, select, update
from sqlmodel import SQLModel

from ..models import Game, GameRound, ReplacedCode, Seat, SeatScore


def table_of(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


GAME = table_of(Game)
SEAT = table_of(Seat)
ROUND = table_of(GameRound)
SCORE = table_of(SeatScore)
REPLACED = table_of(ReplacedCode)

_rematch = GAME.alias("rematch")
_newest_rematch = (
    select(_rematch.c.id)
    .where(_rematch.c.rematch_of == GAME.c.id, _rematch.c.deleted_at.is_(None))
    .order_by(_rematch.c.id.desc())
    .limit(1)
    .correlate(GAME)
    .scalar_subquery()
)

GAME_BY_CODE = (
    select(
        GAME,
        _rematch.c.code.label("rematch_code"),
        _rematch.c.watch_code.label("rematch_watch_code"),
    )
    .outerjoin(_rematch, _rematch.c.id == _newest_rematch)
    .where(or_(GAME.c.code == bindparam("code"), GAME.c.watch_code == bindparam("code")))
)
"""The game whose scorekeeper or watch code is :code, with its newest rematch's codes."""

GAME_BY_CODE_LOCKED = GAME_BY_CODE.with_for_update(of=GAME, key_share=True)
"""The same, the game row locked until the write commits (SELECT ... FOR NO KEY UPDATE on
PostgreSQL, as db.locked explains; SQLite's BEGIN IMMEDIATE already holds the database)."""

REPLACED_CODE = (
    select(GAME.c.watch_code)
    .join(REPLACED, REPLACED.c.game_id == GAME.c.id)
    .where(REPLACED.c.code_hash == bindparam("code_hash"))
)
"""The watch code of the game whose replaced scorekeeper code hashes to :code_hash."""

SEATS = select(SEAT).where(SEAT.c.game_id == bindparam("game_id")).order_by(SEAT.c.position)
"""A game's seats, clockwise."""

SCORE_COLUMNS = ("id", "round_id", "position", "points", "went_out", "cards", "layout")
ROUNDS_WITH_SCORES = (
    select(ROUND, *(SCORE.c[name].label(f"score_{name}") for name in SCORE_COLUMNS))
    .outerjoin(SCORE, and_(SCORE.c.round_id == ROUND.c.id, SCORE.c.replaced_at.is_(None)))
    .where(ROUND.c.game_id == bindparam("game_id"))
    .order_by(ROUND.c.number, SCORE.c.position, SCORE.c.id)
)
"""A game's rounds by number, each with the scores in force (none yet: one row of NULLs)."""

REPLACE_SCORES = (
    update(SCORE)
    .where(SCORE.c.round_id == bindparam("of_round"), SCORE.c.replaced_at.is_(None))
    .values(replaced_at=bindparam("now"))
)
"""Mark a round's scores in force replaced (a correction keeps the old rows)."""

INSERT_SCORES = insert(SCORE)
"""Scores, many rows in one executemany."""

UPDATE_GAME = update(GAME).where(GAME.c.id == bindparam("of_game"))
"""A game row's changed columns (the parameters name them), by :of_game."""


# --- the rows they read and write ---------------------------------------------------


@dataclass
class GameRecord:
    """A game row as read (plain values, no ORM object), changed in place by an operation;
    the commit writes the columns that differ from what was read (changes())."""

    id: int
    code: str
    watch_code: str
    first_dealer: int
    created_at: datetime
    finished_at: datetime | None
    version: int
    uid: str
    deleted_at: datetime | None
    rematch_of: int | None
    mode: str
    round_order: str
    read_as: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, row: Any) -> GameRecord:
        values = {name: row[name] for name in GAME_COLUMNS}
        return cls(**values, read_as=dict(values))

    def changes(self) -> dict[str, Any]:
        """The columns changed since the row was read (or last written), now marked written."""
        changed = {
            name: getattr(self, name)
            for name in GAME_COLUMNS
            if getattr(self, name) != self.read_as[name]
        }
        self.read_as.update(changed)
        return changed


GAME_COLUMNS = tuple(column.name for column in GAME.columns)


@dataclass
class ScoreRecord:
    """A score in force as read or just written: what a state is built from."""

    position: int
    points: int
    went_out: bool
    cards: str | None
    layout: str | None
    id: int | None = None
    round_id: int = 0

    def written(self, saved_at: datetime) -> dict[str, Any]:
        """The row to insert for this score, saved at saved_at."""
        values = {name: getattr(self, name) for name in SCORE_FIELDS[1:]}
        return {**values, "saved_at": saved_at, "replaced_at": None}


SCORE_FIELDS = ("id", "round_id", "position", "points", "went_out", "cards", "layout")
