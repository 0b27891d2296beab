"""The rows behind a table's answer: its games as listed, and its people in the order they
last played; and the tables a phone remembers, found by their codes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlmodel import Session, col, func, or_, select

from ..models import PersonGame, PlayTable, TableGame
from .state import SeatView, TableGameView, TableSummary


def game_views(
    session: Session, table_id: int, names: dict[int, str], limit: int | None
) -> list[TableGameView]:
    """The table's games, newest first, each with its seats (the newest `limit` only)."""
    query = (
        select(
            TableGame.game_id,
            TableGame.code,
            TableGame.watch_code,
            TableGame.created_at,
            TableGame.finished,
            TableGame.rounds_saved,
            TableGame.round_count,
        )
        .where(TableGame.table_id == table_id, col(TableGame.deleted).is_(False))
        .order_by(col(TableGame.created_at).desc(), col(TableGame.id).desc())
    )
    listed = session.exec(query if limit is None else query.limit(limit)).all()
    seated = select(
        PersonGame.game_id, PersonGame.person_id, PersonGame.total, PersonGame.won
    ).where(PersonGame.table_id == table_id)
    if limit is not None:
        seated = seated.where(col(PersonGame.game_id).in_([row[0] for row in listed]))
    seats: dict[int, list[SeatView]] = defaultdict(list)
    for game_id, person_id, total, won in session.exec(
        seated.order_by(col(PersonGame.game_id), col(PersonGame.position))
    ).all():
        seats[game_id].append(
            SeatView(person_id=person_id, name=names.get(person_id, "?"), total=total, won=won)
        )
    return [
        TableGameView(
            code=code,
            watch_code=watch_code,
            created_at=created_at,
            finished=finished,
            rounds_saved=saved,
            round_count=count,
            seats=tuple(seats[game_id]),
        )
        for game_id, code, watch_code, created_at, finished, saved, count in listed
    ]


def most_recent_first(
    session: Session, table_id: int, names: dict[int, str], listed: Sequence[TableGameView]
) -> list[int]:
    """People by their last game, newest first (in seat order within a game); people who
    never played last."""
    last_game = dict(
        session.exec(
            select(PersonGame.person_id, func.max(TableGame.id))
            .join(TableGame, col(TableGame.game_id) == col(PersonGame.game_id))
            .where(PersonGame.table_id == table_id, col(TableGame.deleted).is_(False))
            .group_by(col(PersonGame.person_id))
            .order_by(col(PersonGame.person_id))
        ).all()
    )
    seat_in_recent: dict[int, int] = {}
    for game in listed:
        for position, seat in enumerate(game.seats):
            seat_in_recent.setdefault(seat.person_id, position)
    return sorted(
        names,
        key=lambda pid: (-(last_game.get(pid) or 0), seat_in_recent.get(pid, 0), pid),
    )


def find_tables(session: Session, *, codes: Sequence[str]) -> list[TableSummary]:
    """The tables with these codes (either kind), in the order asked; unknown codes skipped."""
    codes = [code for code in codes if "\x00" not in code]
    found = session.exec(
        select(PlayTable).where(
            or_(col(PlayTable.code).in_(codes), col(PlayTable.watch_code).in_(codes))
        )
    ).all()
    by_code = {t.code: t for t in found} | {t.watch_code: t for t in found}
    summaries = []
    for code in codes:
        table = by_code.get(code)
        if table is None:
            continue
        count = session.exec(
            select(func.count())
            .select_from(TableGame)
            .where(TableGame.table_id == table.id, col(TableGame.deleted).is_(False))
        ).one()
        summaries.append(
            TableSummary(code=code, name=table.name, can_edit=code == table.code, game_count=count)
        )
    return summaries
