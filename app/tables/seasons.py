"""A table over the years: its finished games read once per change (each person's part,
the most points they scored in one round, when the game finished), and from them a
season's stats, head to head, streaks, records and ratings. What the running sums cannot
hold is worked out here once after each change and kept, not worked out per request."""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, and_, col, func, select

from ..models import Game, GameRound, PersonGame, Seat, SeatScore, TableGame
from ..rules.seasons import (
    FinishedGame,
    FinishedSeat,
    Period,
    in_order,
    skill_ratings,
    table_records,
    win_streaks,
)
from ..rules.stats import PersonGameLine, head_to_head, table_stats
from .state import Season

KEPT_TABLES = 64
ROUND_SLOTS = 16
"""More than a game's rounds (eleven): a round number fits below one point."""
"""Tables whose history a process keeps: the families playing lately."""


@dataclass(frozen=True)
class TableHistory:
    """A table's finished games in the order they finished, and each person's lines."""

    games: list[FinishedGame]
    lines: list[tuple[datetime, PersonGameLine]]
    codes: dict[int, str]
    """Each game's scorekeeper code, by game id."""

    @property
    def years(self) -> list[int]:
        """The years with finished games, newest first."""
        return sorted({_utc(game.finished_at).year for game in self.games}, reverse=True)


_kept: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = OrderedDict()
_kept_lock = threading.Lock()


def season(session: Session, *, table_id: int, period: Period) -> Season:
    """The table's season: from what this process kept when nothing changed since, else
    worked out afresh (and kept)."""
    # Kept by database as well as table: a process may serve more than one (tests do).
    database = (id(session.get_bind()), str(session.get_bind().engine.url))
    stamp = _stamp(session, table_id)
    chosen = _recall(("season", database, table_id, period), stamp)
    if chosen is not None:
        return chosen  # type: ignore[no-any-return]
    history = _recall(("history", database, table_id), stamp)
    if history is None:
        history = _read(session, table_id)
        _keep(("history", database, table_id), stamp, history)
    games = in_order(history.games, period)
    lines = [line for finished_at, line in history.lines if period.covers(finished_at)]
    worked_out = Season(
        period=period,
        years=history.years,
        games=games,
        stats=None if period.all_time else table_stats(lines),
        versus=None if period.all_time else head_to_head(lines),
        streaks=win_streaks(games),
        records=table_records(games),
        ratings=skill_ratings(games),
        codes=history.codes,
    )
    if period.all_time or period.year is not None:
        # Any from and to may be asked for: those are worked out from the kept history each
        # time, never kept themselves, so nobody can crowd the years out of memory.
        _keep(("season", database, table_id, period), stamp, worked_out)
    return worked_out


def _recall(key: tuple[Any, ...], stamp: tuple[Any, ...]) -> Any:
    with _kept_lock:
        found = _kept.get(key)
        if found is None or found[0] != stamp:
            return None
        _kept.move_to_end(key)
        return found[1]


def _keep(key: tuple[Any, ...], stamp: tuple[Any, ...], value: Any) -> None:
    with _kept_lock:
        _kept[key] = (stamp, value)
        _kept.move_to_end(key)
        while len(_kept) > KEPT_TABLES * 4:
            _kept.popitem(last=False)


def _stamp(session: Session, table_id: int) -> tuple[Any, ...]:
    """What changes whenever anything a season reads does: every change to a game bumps its
    version (saves, corrections, deletes, restores), imports and purges change the count,
    and a merge moves rows to another person."""

    def of_games(figure: Any) -> Any:
        return (
            select(figure)
            .select_from(TableGame)
            .join(Game, col(Game.id) == col(TableGame.game_id))
            .where(TableGame.table_id == table_id)
            .scalar_subquery()
        )

    people = (
        select(func.coalesce(func.sum(PersonGame.person_id * (PersonGame.position + 1)), 0))
        .where(PersonGame.table_id == table_id)
        .scalar_subquery()
    )
    row = session.exec(
        select(  # type: ignore[call-overload]
            of_games(func.count()),
            of_games(func.coalesce(func.sum(Game.version), 0)),
            of_games(func.coalesce(func.sum(TableGame.game_id), 0)),
            of_games(func.max(TableGame.id)),
            people,
        )
    ).one()
    return tuple(row)


def _read(session: Session, table_id: int) -> TableHistory:
    """The table's finished games (not deleted), their seats and each seat's best round."""
    finished = and_(
        col(TableGame.table_id) == table_id,
        col(TableGame.deleted).is_(False),
        col(TableGame.finished),
    )
    # Each seat's most points in one round, and the first round it scored them, worked out
    # by the database: one number holds both (points, then the earlier round above later).
    best_round = func.max(SeatScore.points * ROUND_SLOTS + (ROUND_SLOTS - 1 - GameRound.number))
    highest: dict[tuple[int, int], tuple[int, int]] = {}
    for game_id, position, best in session.exec(
        select(GameRound.game_id, SeatScore.position, best_round)
        .join(SeatScore, col(SeatScore.round_id) == col(GameRound.id))
        .join(TableGame, col(TableGame.game_id) == col(GameRound.game_id))
        .where(finished, col(SeatScore.replaced_at).is_(None), col(GameRound.kind) == "round")
        .group_by(col(GameRound.game_id), col(SeatScore.position))
        .order_by(col(GameRound.game_id), col(SeatScore.position))
    ).all():
        points, slot = divmod(best, ROUND_SLOTS)
        highest[(game_id, position)] = (points, ROUND_SLOTS - 1 - slot)
    seats: dict[int, list[FinishedSeat]] = defaultdict(list)
    about: dict[int, tuple[str, str, datetime, bool]] = {}
    lines: list[tuple[datetime, PersonGameLine]] = []
    rows = session.exec(
        select(
            PersonGame.game_id,
            PersonGame.position,
            PersonGame.person_id,
            PersonGame.total,
            PersonGame.won,
            PersonGame.rounds,
            PersonGame.went_out,
            PersonGame.zero_rounds,
            PersonGame.full_game,
            PersonGame.solitaire,
            Seat.start_points,
            Seat.left_round,
            TableGame.code,
            TableGame.watch_code,
            Game.finished_at,
        )
        .join(TableGame, col(TableGame.game_id) == col(PersonGame.game_id))
        .join(Game, col(Game.id) == col(PersonGame.game_id))
        .join(
            Seat,
            and_(
                col(Seat.game_id) == col(PersonGame.game_id),
                col(Seat.position) == col(PersonGame.position),
            ),
        )
        .where(finished, col(PersonGame.counted), col(Game.finished_at).is_not(None))
        .order_by(col(PersonGame.game_id), col(PersonGame.position))
    ).all()
    for row in rows:
        (game_id, position, person, total, won, rounds, went_out, zeros, full, alone) = row[:10]
        start_points, left_round, code, watch_code, finished_at = row[10:]
        finished_at = _utc(finished_at)
        best = highest.get((game_id, position))
        seated = left_round is None
        seats[game_id].append(
            FinishedSeat(
                person=person,
                total=total,
                won=won,
                rounds=rounds,
                went_out=went_out,
                full_game=full,
                seated=seated,
                highest_round=best[0] if best else None,
                highest_round_number=best[1] if best else None,
            )
        )
        about[game_id] = (code, watch_code, finished_at, alone)
        lines.append(
            (
                finished_at,
                PersonGameLine(
                    game=game_id,
                    person=person,
                    total=total,
                    rounds=rounds,
                    went_out=went_out,
                    zero_rounds=zeros,
                    full_game=full,
                    won=won,
                    solitaire=alone,
                    start_points=start_points,
                    seated=seated,
                ),
            )
        )
    games = [
        FinishedGame(game_id, watch_code, finished_at, alone, tuple(seats[game_id]))
        for game_id, (_, watch_code, finished_at, alone) in about.items()
    ]
    return TableHistory(
        games=in_order(games),
        lines=lines,
        codes={game_id: code for game_id, (code, *_) in about.items()},
    )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
