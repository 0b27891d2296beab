"""The database holds two rules races broke: one person a name at a table, one rematch a game

Each person gets folded_name (their name casefolded), unique at their table; people
who share one already are joined when they never played in the same game (their games
become the first one's, the table's sums are made again on the next start), and renamed
("Zed 2") when they did. A game's rematch_of is unique: of several rematches of one game,
the one its page shows stays the rematch, the others become games of their own. A person
merged into another is remembered (merged_person), so a request naming them is told so. A
join or a rematch finds its game's table by code (ix_table_game_code).

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-03 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.names import plain_name

revision: str = "0011"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME_LENGTH = 30


def person_key(name: str) -> str:
    """The key tables matched names by until 0013 (which made it names.folded): the plain
    name, case folded."""
    return plain_name(name).casefold()


def upgrade() -> None:
    op.create_table(
        "merged_person",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=30), nullable=False),
        sa.Column("into_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_merged_person_table_id_play_table")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_merged_person")),
    )
    with op.batch_alter_table("merged_person") as batch_op:
        batch_op.create_index(batch_op.f("ix_merged_person_person_id"), ["person_id"])
    with op.batch_alter_table("person") as batch_op:
        batch_op.add_column(sa.Column("folded_name", sa.String(length=120), nullable=True))
    _fold_names(op.get_bind())
    with op.batch_alter_table("person") as batch_op:
        batch_op.alter_column("folded_name", existing_type=sa.String(length=120), nullable=False)
        batch_op.create_unique_constraint(
            "uq_person_table_id_folded_name", ["table_id", "folded_name"]
        )
    _one_rematch_a_game(op.get_bind())
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_index("ix_game_rematch_of")
        batch_op.create_index("ix_game_rematch_of", ["rematch_of"], unique=True)
    with op.batch_alter_table("table_game") as batch_op:
        batch_op.create_index("ix_table_game_code", ["code"])


def _fold_names(db: sa.Connection) -> None:
    """Fill folded_name, joining or renaming people who share one."""
    people = db.execute(sa.text("SELECT id, table_id, name FROM person ORDER BY id")).all()
    games: dict[int, set[int]] = {}
    for person_id, game_id in db.execute(sa.text("SELECT person_id, game_id FROM person_game")):
        games.setdefault(person_id, set()).add(game_id)
    first_with: dict[tuple[int, str], int] = {}  # (table, key): the person keeping it
    names = {}
    stale = set()
    for person_id, table_id, name in people:
        key = person_key(name)
        keeper = first_with.get((table_id, key))
        if keeper is None:
            first_with[(table_id, key)] = person_id
            names[person_id] = (name, key)
        elif not games.get(person_id, set()) & games.get(keeper, set()):
            _join(db, table_id, person_id, name, keeper)
            games.setdefault(keeper, set()).update(games.pop(person_id, set()))
            stale.add(table_id)
        else:
            number = 2
            while True:
                suffix = f" {number}"
                renamed = name[: NAME_LENGTH - len(suffix)].rstrip() + suffix
                if (table_id, person_key(renamed)) not in first_with:
                    break
                number += 1
            first_with[(table_id, person_key(renamed))] = person_id
            names[person_id] = (renamed, person_key(renamed))
    if names:
        db.execute(
            sa.text("UPDATE person SET name = :name, folded_name = :key WHERE id = :id"),
            [{"id": pid, "name": name, "key": key} for pid, (name, key) in names.items()],
        )
    already = {row[0] for row in db.execute(sa.text("SELECT table_id FROM stale_sums"))}
    for table_id in sorted(stale - already):
        db.execute(sa.text("INSERT INTO stale_sums (table_id) VALUES (:t)"), {"t": table_id})


def _join(db: sa.Connection, table_id: int, person_id: int, name: str, keeper: int) -> None:
    """person_id's games become keeper's, as a merge at the table would make them."""
    ids = {"person": person_id, "keeper": keeper}
    db.execute(sa.text("UPDATE person_game SET person_id = :keeper WHERE person_id = :person"), ids)
    db.execute(sa.text("DELETE FROM person_sums WHERE person_id = :person"), ids)
    db.execute(
        sa.text("DELETE FROM pair_sums WHERE person_id = :person OR other_id = :person"), ids
    )
    db.execute(sa.text("DELETE FROM person WHERE id = :person"), ids)
    db.execute(
        sa.text(
            "INSERT INTO merged_person (table_id, person_id, name, into_id) "
            "VALUES (:table, :person, :name, :keeper)"
        ),
        {**ids, "table": table_id, "name": name},
    )


def _one_rematch_a_game(db: sa.Connection) -> None:
    """Of several rematches of one game, keep the one its page shows (the newest not
    deleted, else the newest); the others are rematches of nothing."""
    rematches: dict[int, list[tuple[int, bool]]] = {}
    for game_id, rematch_of, deleted_at in db.execute(
        sa.text(
            "SELECT id, rematch_of, deleted_at FROM game WHERE rematch_of IS NOT NULL ORDER BY id"
        )
    ):
        rematches.setdefault(rematch_of, []).append((game_id, deleted_at is None))
    for found in rematches.values():
        shown = max(found, key=lambda game: (game[1], game[0]))[0]
        for game_id, _ in found:
            if game_id != shown:
                db.execute(
                    sa.text("UPDATE game SET rematch_of = NULL WHERE id = :id"), {"id": game_id}
                )


def downgrade() -> None:
    with op.batch_alter_table("table_game") as batch_op:
        batch_op.drop_index("ix_table_game_code")
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_index("ix_game_rematch_of")
        batch_op.create_index("ix_game_rematch_of", ["rematch_of"], unique=False)
    with op.batch_alter_table("person") as batch_op:
        batch_op.drop_constraint("uq_person_table_id_folded_name", type_="unique")
        batch_op.drop_column("folded_name")
    with op.batch_alter_table("merged_person") as batch_op:
        batch_op.drop_index(batch_op.f("ix_merged_person_person_id"))
    op.drop_table("merged_person")
