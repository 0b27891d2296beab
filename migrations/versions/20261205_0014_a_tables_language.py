"""A table may choose the language of its pages

play_table.language: one of the languages Crownkeeper speaks ('de', 'fr'...), or nothing (each
reader's browser decides). Its pages, and its games' pages, are in it for every reader who did
not choose a language of their own. Going back drops the column: the tables' pages follow
their readers' browsers again.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05 07:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("play_table") as table:
        table.add_column(sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("play_table") as table:
        table.drop_column("language")
