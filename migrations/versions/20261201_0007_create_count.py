"""The create rate limit counted in the database, shared by every worker and host

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "create_count",
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("window_seconds", sa.Integer(), nullable=False),
        sa.Column("created", sa.Integer(), nullable=False),
        sa.Column("resets_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("address", "window_seconds", name=op.f("pk_create_count")),
    )
    op.create_index(op.f("ix_create_count_resets_at"), "create_count", ["resets_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_create_count_resets_at"), table_name="create_count")
    op.drop_table("create_count")
