"""Tables match names by the rule games use: "Ann", "Ａｎｎ" and "Аnn" are one person

Each person's folded_name is made again with names.folded (full-width letters, case, spaces
and Cyrillic or Greek look-alikes folded), in a column wide enough for what it makes of a
30-letter name. People of one table who now share it are joined when they never played in
the same game: the later one's games become the first one's, and merged_person remembers
them (their page leads to the person kept). When they did play together they stay two,
the later one renamed ("Аnn 2"). A table that changed has its version advanced; its
stats, records and ratings are worked out from its people's games, so they follow. On
SQLite a person's id is never given again (AUTOINCREMENT), so that page stays theirs.

Going back makes folded_name the name casefolded again (the rule before this one). What
cannot be undone: people joined stay one (which of their games were whose is not kept,
nor is the person id merged away given back; merged_person still leads to the one kept),
and people renamed keep their new names. SQLite may give ids again.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.names import folded, plain_name

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME_LENGTH = 30
FOLDED_LENGTH = 450
FOLDED_LENGTH_BEFORE = 120
UNIQUE = "uq_person_table_id_folded_name"
# SQLite gives the highest id anew once its row is gone: a person merged away (whose page
# leads to the person kept) would have it taken by the next new person. Every rebuild of
# person on SQLite passes it, or the rebuilt table loses it.
NEVER_AGAIN = {"sqlite_autoincrement": True}


def upgrade() -> None:
    # Without the constraint while keys change: one row's new key may be another's old one.
    with op.batch_alter_table("person", table_kwargs=NEVER_AGAIN) as batch_op:
        batch_op.drop_constraint(UNIQUE, type_="unique")
        batch_op.alter_column(
            "folded_name",
            existing_type=sa.String(length=FOLDED_LENGTH_BEFORE),
            type_=sa.String(length=FOLDED_LENGTH),
            existing_nullable=False,
        )
    _fold_names(op.get_bind())
    with op.batch_alter_table("person", table_kwargs=NEVER_AGAIN) as batch_op:
        batch_op.create_unique_constraint(UNIQUE, ["table_id", "folded_name"])


def _fold_names(db: sa.Connection) -> None:
    """folded_name by names.folded, joining or renaming people who share one."""
    people = db.execute(
        sa.text("SELECT id, table_id, name, folded_name FROM person ORDER BY id")
    ).all()
    games: dict[int, set[int]] = {}
    for person_id, game_id in db.execute(sa.text("SELECT person_id, game_id FROM person_game")):
        games.setdefault(person_id, set()).add(game_id)
    # Every key a table's people have: a person renamed takes a name that is nobody's.
    taken: dict[int, set[str]] = {}
    for _, table_id, name, _ in people:
        taken.setdefault(table_id, set()).add(folded(name))
    first_with: dict[tuple[int, str], int] = {}  # (table, key): the person keeping it
    written: dict[int, tuple[str, str]] = {}  # person: their name and key, where they change
    changed: set[int] = set()
    for person_id, table_id, name, old_key in people:
        key = folded(name)
        keeper = first_with.get((table_id, key))
        if keeper is None:
            first_with[(table_id, key)] = person_id
            if key != old_key:
                written[person_id] = (name, key)
        elif not games.get(person_id, set()) & games.get(keeper, set()):
            _join(db, table_id, person_id, name, keeper)
            games.setdefault(keeper, set()).update(games.pop(person_id, set()))
            changed.add(table_id)
        else:
            renamed = _renamed(name, taken[table_id])
            taken[table_id].add(folded(renamed))
            first_with[(table_id, folded(renamed))] = person_id
            written[person_id] = (renamed, folded(renamed))
            changed.add(table_id)
    if written:
        db.execute(
            sa.text("UPDATE person SET name = :name, folded_name = :key WHERE id = :id"),
            [{"id": pid, "name": name, "key": key} for pid, (name, key) in written.items()],
        )
    if changed:
        db.execute(
            sa.text("UPDATE table_version SET version = version + 1 WHERE table_id = :table"),
            [{"table": table_id} for table_id in sorted(changed)],
        )


def _renamed(name: str, taken: set[str]) -> str:
    """name with the lowest number after it (" 2", " 3", ...) that makes a key nobody has."""
    number = 2
    while True:
        suffix = f" {number}"
        renamed = name[: NAME_LENGTH - len(suffix)].rstrip() + suffix
        if folded(renamed) not in taken:
            return renamed
        number += 1


def _join(db: sa.Connection, table_id: int, person_id: int, name: str, keeper: int) -> None:
    """person_id's games become keeper's, as a merge at the table would make them."""
    ids = {"person": person_id, "keeper": keeper}
    db.execute(sa.text("UPDATE person_game SET person_id = :keeper WHERE person_id = :person"), ids)
    db.execute(sa.text("DELETE FROM person WHERE id = :person"), ids)
    db.execute(
        sa.text(
            "INSERT INTO merged_person (table_id, person_id, name, into_id) "
            "VALUES (:table, :person, :name, :keeper)"
        ),
        {**ids, "table": table_id, "name": name},
    )


def downgrade() -> None:
    with op.batch_alter_table("person") as batch_op:
        batch_op.drop_constraint(UNIQUE, type_="unique")
    db = op.get_bind()
    people = db.execute(sa.text("SELECT id, name FROM person ORDER BY id")).all()
    if people:
        # The rule before this one (0011's): the plain name, case folded.
        db.execute(
            sa.text("UPDATE person SET folded_name = :key WHERE id = :id"),
            [{"id": person_id, "key": plain_name(name).casefold()} for person_id, name in people],
        )
    with op.batch_alter_table("person") as batch_op:
        batch_op.alter_column(
            "folded_name",
            existing_type=sa.String(length=FOLDED_LENGTH),
            type_=sa.String(length=FOLDED_LENGTH_BEFORE),
            existing_nullable=False,
        )
        batch_op.create_unique_constraint(UNIQUE, ["table_id", "folded_name"])
