"""Round plans (kind, who plays, who starts), solitaire, round orders, players coming and going

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 12:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch_op:
        batch_op.add_column(
            sa.Column(
                "mode",
                sqlmodel.sql.sqltypes.AutoString(length=16),
                nullable=False,
                server_default="game",
            )
        )
        batch_op.add_column(
            sa.Column(
                "round_order",
                sqlmodel.sql.sqltypes.AutoString(length=16),
                nullable=False,
                server_default="up",
            )
        )
    with op.batch_alter_table("seat") as batch_op:
        batch_op.add_column(
            sa.Column("start_points", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(sa.Column("joined_round", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("left_round", sa.Integer(), nullable=True))
    with op.batch_alter_table("game_round") as batch_op:
        batch_op.add_column(sa.Column("first_player", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "kind",
                sqlmodel.sql.sqltypes.AutoString(length=16),
                nullable=False,
                server_default="round",
            )
        )
        batch_op.add_column(
            sa.Column("players_in", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True)
        )
    with op.batch_alter_table("seat_score") as batch_op:
        batch_op.add_column(sa.Column("layout", sqlmodel.sql.sqltypes.AutoString(), nullable=True))

    # Every existing game was played by the whole table in every round, and the player on
    # the dealer's left started: write that plan down as it was.
    connection = op.get_bind()
    seat_counts = connection.execute(
        sa.text("SELECT game_id, COUNT(*) FROM seat GROUP BY game_id ORDER BY game_id")
    ).all()
    for game_id, seat_count in seat_counts:
        connection.execute(
            sa.text(
                "UPDATE game_round SET first_player = (dealer + 1) % :n, players_in = :seats "
                "WHERE game_id = :game"
            ),
            {"n": seat_count, "seats": ",".join(map(str, range(seat_count))), "game": game_id},
        )
    connection.execute(
        sa.text("UPDATE game_round SET first_player = 0, players_in = '' WHERE players_in IS NULL")
    )
    with op.batch_alter_table("game_round") as batch_op:
        batch_op.alter_column("first_player", existing_type=sa.Integer(), nullable=False)
        batch_op.alter_column(
            "players_in", existing_type=sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False
        )


def downgrade() -> None:
    with op.batch_alter_table("seat_score") as batch_op:
        batch_op.drop_column("layout")
    with op.batch_alter_table("game_round") as batch_op:
        batch_op.drop_column("players_in")
        batch_op.drop_column("kind")
        batch_op.drop_column("first_player")
    with op.batch_alter_table("seat") as batch_op:
        batch_op.drop_column("left_round")
        batch_op.drop_column("joined_round")
        batch_op.drop_column("start_points")
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_column("round_order")
        batch_op.drop_column("mode")
