"""Every figure of a table comes from its history: the stored sums go

A table's stats and head to head, all time as any season, are worked out from its people's
rows of each game (tables/seasons.py), so the running sums (person_sums, pair_sums) and the
list of tables to sum again (stale_sums) are dropped. Each table gets a version
(table_version), advanced by every change to it: what a server keeps of a table's figures
is kept against it. Going back makes them again, empty,
with every table listed to be summed on the next start.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SUMS = (
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
MAYBE_NONE = {"best_total", "worst_total", "solitaire_best"}


def upgrade() -> None:
    op.create_table(
        "table_version",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_table_version_table_id_play_table")
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_version")),
    )
    op.execute("INSERT INTO table_version (table_id, version) SELECT id, 0 FROM play_table")
    op.drop_table("stale_sums")
    op.drop_table("pair_sums")
    op.drop_table("person_sums")


def downgrade() -> None:
    op.drop_table("table_version")
    op.create_table(
        "person_sums",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=name in MAYBE_NONE) for name in SUMS),
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
    op.create_table(
        "stale_sums",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_stale_sums_table_id_play_table")
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_stale_sums")),
    )
    op.execute("INSERT INTO stale_sums (table_id) SELECT id FROM play_table")
