"""A table over the years: its finished games read once (each person's part, the most
points they scored in one round, when the game finished), and from them a season's stats,
head to head, streaks, records and ratings.

What is kept, and its bounds: the history of the KEPT_TABLES tables read last, each with
its all-time season and up to SEASONS_KEPT others (any year, any from and to: a table's many
seasons push out only that table's own). Every read first asks the database for each game's
fingerprint (its version, its people); a game whose fingerprint changed is read again alone,
and the kept seasons of that table are worked out afresh. At most SEASON_WORKERS seasons are
worked out at once, so a crowd of new seasons leaves the rest of the server its time."""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any

from sqlmodel import Session, and_, col, func, select

from ..caches import Recent
from ..models import Game, GameRound, PersonGame, Seat, SeatScore, TableGame
from ..rules.seasons import (
    FinishedGame,
    FinishedSeat,
    Period,
    SeasonTally,
    in_order,
    versus_of,
)
from ..rules.stats import HeadToHead, PersonGameLine, table_stats
from .state import Season

KEPT_TABLES = 32
"""Tables whose history a process keeps: the families playing lately."""
KEPT_SEATS = 120_000
"""Seats of finished games the kept tables may hold in all (about 60 MB): a few clubs'
tables of thousands of big games push out the rest rather than swell the server."""
SEASONS_KEPT = 12
"""Seasons a table keeps besides all time (the oldest asked for goes first)."""
SEASON_WORKERS = 1
"""Seasons (or histories) worked out at once: the rest wait their turn."""
VERSUS_KEPT = 10
"""Each person's head to head in a table's answer: those they played most."""
READ_ALONE = 200
"""Changed games read again by id; more than this and the whole table is read."""

Fingerprint = tuple[Any, ...]


@dataclass(frozen=True)
class TableHistory:
    """A table's finished games in the order they finished, and each game's lines."""

    games: list[FinishedGame]
    days: list[date]
    """Each game's finishing day (UTC), in the same order: a season is a slice."""
    lines: dict[int, tuple[PersonGameLine, ...]]
    codes: dict[int, str]
    """Each game's scorekeeper code, by game id."""
    years: list[int]
    """The years with finished games, newest first."""

    def chosen(self, period: Period) -> list[FinishedGame]:
        """The games that finished in period, in the order they finished."""
        first = 0 if period.start is None else bisect.bisect_left(self.days, period.start)
        last = len(self.days) if period.end is None else bisect.bisect_right(self.days, period.end)
        return self.games[first:last]


@dataclass
class _Part:
    """One game as the history holds it (None: not finished, or deleted)."""

    game: FinishedGame | None
    lines: tuple[PersonGameLine, ...]
    code: str


@dataclass
class _Worked:
    """A season as worked out (None once games were added to its tally, until it is asked
    for again), and the tally behind it (to add games that finish later)."""

    period: Period
    season: Season | None
    tally: SeasonTally | None
    """Kept only for a season that games finishing now can still join."""


@dataclass
class _Kept:
    """What one table keeps: each game's fingerprint and part, the history built from
    them, and its seasons (all time apart, never pushed out by the others)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    version: int | None = None
    """The table's version the history was read at (or found unchanged at)."""
    fingerprints: dict[int, Fingerprint] = field(default_factory=dict)
    parts: dict[int, _Part] = field(default_factory=dict)
    history: TableHistory | None = None
    seats: int = 0
    """The seats of the history's games: what it weighs against KEPT_SEATS."""
    all_time: _Worked | None = None
    seasons: OrderedDict[Period, _Worked] = field(default_factory=OrderedDict)


_tables: Recent[tuple[Any, ...], _Kept] = Recent(
    KEPT_TABLES, weigh=lambda kept: kept.seats, weight=KEPT_SEATS
)
_workers = threading.BoundedSemaphore(SEASON_WORKERS)


def season(session: Session, *, table_id: int, version: int, period: Period) -> Season:
    """The table's season: kept when the table's version is the one it was kept against,
    else worked out (and kept, within the table's bound). Working a season out needs no
    database: the session's connection goes back to the pool while it waits its turn."""
    kept = _table_kept(session, table_id)
    history = _current_history(session, table_id, version, kept)
    with kept.lock:
        found = kept.all_time if period.all_time else kept.seasons.get(period)
        if found is not None and kept.history is history:
            if not period.all_time:
                kept.seasons.move_to_end(period)
            if found.season is None:  # games were added to its tally since
                assert found.tally is not None
                found.season = _season_of(found.tally, history, period)
            return found.season
    session.rollback()
    with _workers:
        worked_out = _work_out(history, period)
    with kept.lock:
        if kept.history is history:  # else a change came meanwhile: not kept against it
            if period.all_time:
                kept.all_time = worked_out
            else:
                kept.seasons[period] = worked_out
                while len(kept.seasons) > SEASONS_KEPT:
                    kept.seasons.popitem(last=False)
    assert worked_out.season is not None
    return worked_out.season


def person_versus(
    session: Session, *, table_id: int, version: int, period: Period, person_id: int
) -> dict[int, HeadToHead]:
    """One person's whole head to head over the season, by the other person's id."""
    chosen = season(session, table_id=table_id, version=version, period=period)
    return versus_of(chosen.games, person_id)


def _work_out(history: TableHistory, period: Period) -> _Worked:
    tally = SeasonTally(history.chosen(period))
    still_open = period.end is None or period.end >= datetime.now(UTC).date()
    return _Worked(period, _season_of(tally, history, period), tally if still_open else None)


def _season_of(tally: SeasonTally, history: TableHistory, period: Period) -> Season:
    """The season as the tally has it now (its own copies: the tally goes on)."""
    versus, opponents = tally.most_played(VERSUS_KEPT)
    games = list(tally.games)
    return Season(
        period=period,
        years=history.years,
        games=games,
        stats=table_stats(line for game in games for line in history.lines[game.game]),
        versus=versus,
        opponents=opponents,
        streaks=tally.streaks(),
        records=tally.records(),
        ratings=tally.ratings(),
        codes=history.codes,
    )


def _brought_on(kept: _Kept, history: TableHistory, appended: list[FinishedGame]) -> None:
    """Bring every kept season up to date with games that finished after all the others:
    the seasons they fall in add them to their tallies (the season itself worked out again
    when next asked for; one kept without a tally is let go), the rest take the new
    history's years and codes."""
    if kept.all_time is not None:
        kept.all_time = _joined(kept.all_time, history, appended)
    for period, chosen in list(kept.seasons.items()):
        joined = _joined(chosen, history, appended)
        if joined is None:
            del kept.seasons[period]
        else:
            kept.seasons[period] = joined


def _joined(chosen: _Worked, history: TableHistory, appended: list[FinishedGame]) -> _Worked | None:
    joining = [game for game in appended if chosen.period.covers(game.finished_at)]
    if joining:
        if chosen.tally is None:
            return None
        chosen.tally.extend(joining)
        chosen.season = None
    elif chosen.season is not None:
        chosen.season = replace(chosen.season, years=history.years, codes=history.codes)
    return chosen


def _table_kept(session: Session, table_id: int) -> _Kept:
    # Kept by database as well as table: a process may serve more than one (tests do).
    bind = session.get_bind()
    key = (id(bind), str(bind.engine.url), table_id)
    return _tables.get_or_make(key, _Kept)


def _current_history(session: Session, table_id: int, version: int, kept: _Kept) -> TableHistory:
    """The table's history as the database holds it now: as kept while the table's version
    is the one it was kept against; else the games whose fingerprint changed read again
    (all of them the first time), the rest as kept."""
    with kept.lock:
        if kept.history is not None and kept.version == version:
            return kept.history
    fingerprints = _fingerprints(session, table_id)
    with kept.lock:
        if kept.history is not None and fingerprints == kept.fingerprints:
            kept.version = version
            return kept.history
        changed = [
            game for game, mark in fingerprints.items() if kept.fingerprints.get(game) != mark
        ]
        before = kept.parts
        with _workers:
            read = _read(session, table_id, None if len(changed) > READ_ALONE else changed)
        parts = {game: before[game] for game in fingerprints if game in before}
        for game in changed:
            parts.pop(game, None)
        parts.update(read)
        gone = [game for game in before if game not in fingerprints]
        # A round saved to a game still going changes no season: those stay kept. Games
        # that finished after every other are added to the kept seasons; any other change
        # to a finished game works them out afresh.
        moved = [game for game in [*changed, *gone] if before.get(game) != parts.get(game)]
        kept.fingerprints, kept.parts, kept.version = fingerprints, parts, version
        if not moved and kept.history is not None:
            return kept.history
        old, kept.history = kept.history, _history(parts)
        kept.seats = sum(len(game.seats) for game in kept.history.games)
        appended = _appended(old, before, parts, moved)
        if appended is None:
            kept.all_time, kept.seasons = None, OrderedDict()
        else:
            _brought_on(kept, kept.history, appended)
        return kept.history


def _appended(
    old: TableHistory | None,
    before: dict[int, _Part],
    parts: dict[int, _Part],
    moved: list[int],
) -> list[FinishedGame] | None:
    """The games that moved, in the order they finished, when each of them is newly
    finished and finished after every game the old history holds; None otherwise."""
    if old is None:
        return None
    appended = []
    for game_id in moved:
        was, now = before.get(game_id), parts.get(game_id)
        if (was is not None and was.game is not None) or now is None or now.game is None:
            return None
        appended.append(now.game)
    appended = in_order(appended)
    if old.games and _order_key(appended[0]) <= _order_key(old.games[-1]):
        return None
    return appended


def _order_key(game: FinishedGame) -> tuple[datetime, int]:
    return (_utc(game.finished_at), game.game)


def _fingerprints(session: Session, table_id: int) -> dict[int, Fingerprint]:
    """Each game of the table and what changes whenever anything the history reads of it
    does: every change to a game bumps its version (saves, corrections, deletes, restores),
    and a merge moves its rows to another person."""
    people = func.coalesce(func.sum(PersonGame.person_id * (PersonGame.position + 1)), 0)
    query = (
        select(TableGame.game_id, Game.version, TableGame.deleted, TableGame.finished, people)
        .join(Game, col(Game.id) == col(TableGame.game_id))
        .outerjoin(PersonGame, col(PersonGame.game_id) == col(TableGame.game_id))
        .where(col(TableGame.table_id) == table_id)
        .group_by(
            col(TableGame.game_id),
            col(Game.version),
            col(TableGame.deleted),
            col(TableGame.finished),
        )
    )
    return {row[0]: tuple(row[1:]) for row in _rows(session, query)}


def _rows(session: Session, query: Any) -> list[Any]:
    """The rows of a query, as plain rows (no ORM objects: thousands are read at once)."""
    return list(session.connection().execute(query).all())


def _read(session: Session, table_id: int, only: Collection[int] | None) -> dict[int, _Part]:
    """The table's finished games (not deleted) with their seats and each seat's best
    round: all of them, or only those with these ids."""
    finished = and_(
        col(TableGame.table_id) == table_id,
        col(TableGame.deleted).is_(False),
        col(TableGame.finished),
        *([] if only is None else [col(TableGame.game_id).in_(list(only))]),
    )
    if only is not None and not only:
        return {}
    # Each seat's most points in one round (tie-breaks left out), and every round it scored
    # them in, picked out by the database: about one row a seat.
    seat_best = (
        func.max(SeatScore.points)
        .over(partition_by=(col(GameRound.game_id), col(SeatScore.position)))
        .label("best")
    )
    scored = (
        select(GameRound.game_id, SeatScore.position, SeatScore.points, GameRound.number, seat_best)
        .join(SeatScore, col(SeatScore.round_id) == col(GameRound.id))
        .join(TableGame, col(TableGame.game_id) == col(GameRound.game_id))
        .where(finished, col(SeatScore.replaced_at).is_(None), col(GameRound.kind) == "round")
        .subquery()
    )
    highest: dict[tuple[int, int], tuple[int, list[int]]] = {}
    for game_id, position, points, number in _rows(
        session,
        select(scored.c.game_id, scored.c.position, scored.c.points, scored.c.number)
        .where(scored.c.points == scored.c.best)
        .order_by(scored.c.game_id, scored.c.position, scored.c.number),
    ):
        highest.setdefault((game_id, position), (points, []))[1].append(number)
    rows = _rows(
        session,
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
        .order_by(col(PersonGame.game_id), col(PersonGame.position)),
    )
    seats: dict[int, list[FinishedSeat]] = defaultdict(list)
    lines: dict[int, list[PersonGameLine]] = defaultdict(list)
    about: dict[int, tuple[str, str, datetime, bool]] = {}
    for row in rows:
        (game_id, position, person, total, won, rounds, went_out, zeros, full, alone) = row[:10]
        start_points, left_round, code, watch_code, finished_at = row[10:]
        best = highest.get((game_id, position))
        seated = left_round is None
        seats[game_id].append(
            FinishedSeat(
                person=person,
                total=total,
                won=bool(won),
                rounds=rounds,
                went_out=went_out,
                full_game=bool(full),
                seated=seated,
                highest_round=best[0] if best else None,
                highest_rounds=tuple(best[1]) if best else (),
            )
        )
        if game_id not in about:
            about[game_id] = (code, watch_code, _utc(finished_at), bool(alone))
        lines[game_id].append(
            PersonGameLine(
                game=game_id,
                person=person,
                total=total,
                rounds=rounds,
                went_out=went_out,
                zero_rounds=zeros,
                full_game=bool(full),
                won=bool(won),
                solitaire=bool(alone),
                start_points=start_points,
                seated=seated,
            )
        )
    return {
        game_id: _Part(
            FinishedGame(game_id, watch_code, finished_at, alone, tuple(seats[game_id])),
            tuple(lines[game_id]),
            code,
        )
        for game_id, (code, watch_code, finished_at, alone) in about.items()
    }


def _history(parts: dict[int, _Part]) -> TableHistory:
    finished = [part for part in parts.values() if part.game is not None]
    games = in_order(part.game for part in finished if part.game is not None)
    return TableHistory(
        games=games,
        days=[game.finished_at.date() for game in games],
        lines={game.game: part.lines for part in finished if (game := part.game) is not None},
        codes={part.game.game: part.code for part in finished if part.game is not None},
        years=sorted({game.finished_at.year for game in games}, reverse=True),
    )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
