"""A read-only watch code for every game

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 10:40:00
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch_op:
        batch_op.add_column(
            sa.Column("watch_code", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
    connection = op.get_bind()
    for (game_id,) in connection.execute(sa.text("SELECT id FROM game")).all():
        connection.execute(
            sa.text("UPDATE game SET watch_code = :code WHERE id = :id"),
            {"code": secrets.token_urlsafe(16), "id": game_id},
        )
    with op.batch_alter_table("game") as batch_op:
        batch_op.alter_column("watch_code", nullable=False)
        batch_op.create_unique_constraint(batch_op.f("uq_game_watch_code"), ["watch_code"])


def downgrade() -> None:
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_game_watch_code"), type_="unique")
        batch_op.drop_column("watch_code")
