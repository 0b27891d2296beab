"""Tables of people, their games and kept-up results; a stable id, deletion and rematches

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 12:20:00
"""

import uuid
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Text = sqlmodel.sql.sqltypes.AutoString
Time = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("game") as batch_op:
        batch_op.add_column(sa.Column("uid", Text(length=64), nullable=True))
        batch_op.add_column(sa.Column("deleted_at", Time(), nullable=True))
        batch_op.add_column(sa.Column("rematch_of", sa.Integer(), nullable=True))
    connection = op.get_bind()
    # Every game already saved gets its stable id; nothing else about it changes.
    for (game_id,) in connection.execute(sa.text("SELECT id FROM game ORDER BY id")).all():
        connection.execute(
            sa.text("UPDATE game SET uid = :uid WHERE id = :id"),
            {"uid": uuid.uuid4().hex, "id": game_id},
        )
    with op.batch_alter_table("game") as batch_op:
        batch_op.alter_column("uid", existing_type=Text(length=64), nullable=False)
        batch_op.create_unique_constraint(batch_op.f("uq_game_uid"), ["uid"])
        batch_op.create_index(batch_op.f("ix_game_rematch_of"), ["rematch_of"], unique=False)

    op.create_table(
        "play_table",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", Text(length=64), nullable=False),
        sa.Column("watch_code", Text(length=64), nullable=False),
        sa.Column("name", Text(length=60), nullable=False),
        sa.Column("created_at", Time(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_play_table")),
        sa.UniqueConstraint("code", name=op.f("uq_play_table_code")),
        sa.UniqueConstraint("watch_code", name=op.f("uq_play_table_watch_code")),
    )
    op.create_table(
        "person",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("name", Text(length=30), nullable=False),
        sa.Column("created_at", Time(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_person_table_id_play_table")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person")),
    )
    op.create_index(op.f("ix_person_table_id"), "person", ["table_id"], unique=False)
    op.create_table(
        "table_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("code", Text(length=64), nullable=False),
        sa.Column("watch_code", Text(length=64), nullable=False),
        sa.Column("created_at", Time(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("rounds_saved", sa.Integer(), nullable=False),
        sa.Column("round_count", sa.Integer(), nullable=False),
        sa.Column("source_id", Text(length=64), nullable=True),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_table_game_table_id_play_table")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_table_game_game_id_game")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_game")),
        sa.UniqueConstraint("game_id", name=op.f("uq_table_game_game_id")),
    )
    op.create_index(
        "ix_table_game_table_id_created_at", "table_game", ["table_id", "created_at"], unique=False
    )
    op.create_index(op.f("ix_table_game_source_id"), "table_game", ["source_id"], unique=False)
    op.create_table(
        "person_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("solitaire", sa.Boolean(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("went_out", sa.Integer(), nullable=False),
        sa.Column("zero_rounds", sa.Integer(), nullable=False),
        sa.Column("full_game", sa.Boolean(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_person_game_table_id_play_table")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_person_game_game_id_game")),
        sa.ForeignKeyConstraint(
            ["person_id"], ["person.id"], name=op.f("fk_person_game_person_id_person")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person_game")),
        sa.UniqueConstraint("game_id", "position", name=op.f("uq_person_game_game_id")),
    )
    for column in ("table_id", "game_id", "person_id"):
        op.create_index(op.f(f"ix_person_game_{column}"), "person_game", [column], unique=False)
    sums = [
        sa.Column(name, sa.Integer(), nullable=name.startswith(("best", "worst", "solitaire_best")))
        for name in (
            "games",
            "wins",
            "full_games",
            "full_points",
            "best_total",
            "worst_total",
            "rounds",
            "went_out",
            "points",
            "zero_rounds",
            "solitaire_played",
            "solitaire_won",
            "solitaire_best",
        )
    ]
    op.create_table(
        "person_sums",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        *sums,
        sa.ForeignKeyConstraint(
            ["person_id"], ["person.id"], name=op.f("fk_person_sums_person_id_person")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_person_sums_table_id_play_table")
        ),
        sa.PrimaryKeyConstraint("person_id", name=op.f("pk_person_sums")),
    )
    op.create_index(op.f("ix_person_sums_table_id"), "person_sums", ["table_id"], unique=False)
    op.create_table(
        "pair_sums",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("other_id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("lower", sa.Integer(), nullable=False),
        sa.Column("higher", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["person_id"], ["person.id"], name=op.f("fk_pair_sums_person_id_person")
        ),
        sa.ForeignKeyConstraint(
            ["other_id"], ["person.id"], name=op.f("fk_pair_sums_other_id_person")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_pair_sums_table_id_play_table")
        ),
        sa.PrimaryKeyConstraint("person_id", "other_id", name=op.f("pk_pair_sums")),
    )
    op.create_index(op.f("ix_pair_sums_table_id"), "pair_sums", ["table_id"], unique=False)


def downgrade() -> None:
    op.drop_table("pair_sums")
    op.drop_table("person_sums")
    op.drop_table("person_game")
    op.drop_table("table_game")
    op.drop_table("person")
    op.drop_table("play_table")
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_rematch_of"))
        batch_op.drop_constraint(batch_op.f("uq_game_uid"), type_="unique")
        batch_op.drop_column("rematch_of")
        batch_op.drop_column("deleted_at")
        batch_op.drop_column("uid")
