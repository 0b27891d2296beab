"""A table's list of games reads who sat where from person_game: table_game.seats goes

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 12:00:00
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("table_game") as batch_op:
        batch_op.drop_column("seats")


def downgrade() -> None:
    with op.batch_alter_table("table_game") as batch_op:
        batch_op.add_column(sa.Column("seats", sa.Text(), nullable=False, server_default="[]"))
    # The copy as it was kept: [person id, total, won] for each seat, in seat order.
    db = op.get_bind()
    seats: dict[int, list[list[int]]] = {}
    for game_id, person_id, total, won in db.execute(
        sa.text("SELECT game_id, person_id, total, won FROM person_game ORDER BY game_id, position")
    ):
        seats.setdefault(game_id, []).append([person_id, total, int(won)])
    for game_id, rows in seats.items():
        db.execute(
            sa.text("UPDATE table_game SET seats = :seats WHERE game_id = :game_id"),
            {"seats": json.dumps(rows), "game_id": game_id},
        )
