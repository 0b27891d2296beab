"""Replaced scorekeeper codes, kept as hashes, so an old link can say it was replaced

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-30 12:15:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "replaced_code",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("replaced_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["game.id"], name=op.f("fk_replaced_code_game_id_game")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_replaced_code")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_replaced_code_code_hash")),
    )
    with op.batch_alter_table("replaced_code") as batch_op:
        batch_op.create_index(batch_op.f("ix_replaced_code_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("replaced_code") as batch_op:
        batch_op.drop_index(batch_op.f("ix_replaced_code_game_id"))
    op.drop_table("replaced_code")
