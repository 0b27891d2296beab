"""Stats count what a player played: every table's sums are made again on the next start

A game someone played no round of is no game of theirs; head to head counts only people
seated at a game's end, and a tie settled by a tie-break for its winner; solitaire's best
counts games of every pile. The sums stored so far were counted the old way: each table is
listed in stale_sums, and the server sums it again when it starts.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 21:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "stale_sums",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["play_table.id"], name=op.f("fk_stale_sums_table_id_play_table")
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_stale_sums")),
    )
    op.execute("INSERT INTO stale_sums (table_id) SELECT id FROM play_table")


def downgrade() -> None:
    op.drop_table("stale_sums")
