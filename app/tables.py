"""The tables service: a group of people who play together, their games and their stats.

It keeps its own records (people, which game each played, each game's result for each of
them) and keeps the results in step with every save through games.on_change, so a table's
stats are sums over small rows, never a replay of every game. It reaches games only
through the games service's functions."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import and_, case, not_
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, delete, func, or_, select

from . import games
from .db import begin_write
from .games import GameMode, GameState
from .models import PairSums, Person, PersonGame, PersonSums, PlayTable, Seat, TableGame
from .rules.schedule import RoundOrder
from .rules.stats import (
    HeadToHead,
    PersonStats,
    PersonTotals,
    game_outcomes,
    stats_from_totals,
)

TABLE_NAME_LENGTH = 60


class TableNotFound(LookupError):
    """No table has that code."""


class TableError(ValueError):
    """A change the table cannot take; the message says why."""


class ReadOnlyTable(TableError):
    """A change asked for with the table's watch code."""

    message = (
        "This is the table's watch link: it shows the games and stats but cannot change "
        "anything. Ask whoever keeps the table's scorekeeper link."
    )


class NoSuchPerson(TableError):
    """A person id that is not one of the table's people."""


@dataclass(frozen=True)
class PersonView:
    """Someone at the table, with their stats and their record against each other person."""

    id: int
    name: str
    stats: PersonStats
    versus: dict[int, HeadToHead]


class SeatView(NamedTuple):
    """A seat of a table game: who sat there and their total so far (a tuple: a table's
    list can hold thousands)."""

    person_id: int
    name: str
    total: int
    won: bool


class TableGameView(NamedTuple):
    """A game in the table's list."""

    code: str
    watch_code: str
    created_at: datetime
    finished: bool
    rounds_saved: int
    round_count: int
    seats: tuple[SeatView, ...]

    @property
    def winners(self) -> list[str]:
        return [seat.name for seat in self.seats if seat.won] if self.finished else []


@dataclass(frozen=True)
class TableState:
    """Everything a page or the API shows about a table."""

    code: str
    watch_code: str
    can_edit: bool
    name: str
    people: tuple[PersonView, ...]
    games: tuple[TableGameView, ...]
    game_count: int = 0

    def for_watchers(self) -> TableState:
        """The table as its watch link shows it: no scorekeeper code anywhere."""
        return replace(
            self,
            code=self.watch_code,
            can_edit=False,
            games=tuple(game._replace(code=game.watch_code) for game in self.games),
        )


@dataclass(frozen=True)
class TableSummary:
    """A table as a list of tables shows it."""

    code: str
    name: str
    can_edit: bool
    game_count: int


def find_tables(session: Session, *, codes: Sequence[str]) -> list[TableSummary]:
    """The tables with these codes (either kind), in the order asked; unknown codes skipped."""
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


def clean_table_name(name: str) -> str:
    """The table's name, trimmed; TableError when empty or too long."""
    cleaned = " ".join(str(name).split())
    if not cleaned:
        raise TableError("Give the table a name, such as your family's.")
    if len(cleaned) > TABLE_NAME_LENGTH:
        raise TableError(f"Table names have at most {TABLE_NAME_LENGTH} letters.")
    return cleaned


def create_table(session: Session, *, name: str) -> TableState:
    """Start a table with no people and no games yet."""
    table = PlayTable(
        code=games.new_code(), watch_code=games.new_code(), name=clean_table_name(name)
    )
    begin_write(session)
    session.add(table)
    session.commit()
    return load_table(session, code=table.code)


def load_table(session: Session, *, code: str, games_limit: int | None = None) -> TableState:
    """The table whose scorekeeper or watch code this is, or TableNotFound; its games
    newest first (only the newest games_limit when given)."""
    table = _find(session, code, for_edit=False)
    state = _state(session, table, games_limit=games_limit)
    return state if code == table.code else state.for_watchers()


def check_keeper_code(session: Session, *, code: str) -> None:
    """TableNotFound or ReadOnlyTable unless code is a table's scorekeeper code."""
    _find(session, code)
    session.rollback()


def start_game(
    session: Session,
    *,
    table_code: str,
    players: Sequence[str],
    first_dealer: int = 0,
    order: RoundOrder = "up",
    mode: GameMode | None = None,
) -> GameState:
    """Start a game at the table: names that match a person (ignoring case) are that person,
    new names become new people of the table."""
    table = _find(session, table_code)
    table_id = table.id
    session.rollback()
    state = games.create_game(
        session, players=players, first_dealer=first_dealer, order=order, mode=mode
    )
    begin_write(session)
    _link(session, table_id or 0, state, _people_for(session, table_id or 0, state.players))
    session.commit()
    return state


def rematch(session: Session, *, code: str) -> tuple[GameState, bool]:
    """A rematch of a finished game, at the same table with the same people; True if new."""
    new, created = games.rematch_game(session, code=code)
    begin_write(session)
    old_link = _link_of(session, games.load_game(session, code=code).game_id)
    if created and old_link is not None:
        people = session.exec(
            select(PersonGame.person_id)
            .where(PersonGame.game_id == old_link.game_id)
            .order_by(col(PersonGame.position))
        ).all()
        _link(session, old_link.table_id, new, list(people))
    session.commit()
    return new, created


def rename_person(session: Session, *, table_code: str, person_id: int, name: str) -> TableState:
    """Give a person a new name; their games and stats stay theirs."""
    begin_write(session)
    table = _find(session, table_code)
    person = _person(session, table, person_id)
    if not name.strip():
        raise TableError("A person needs a name.")
    (cleaned,) = games.clean_names([name])
    clash = _by_name(session, table.id or 0).get(cleaned.casefold())
    if clash is not None and clash.id != person.id:
        raise TableError(f"{clash.name} is already at this table: merge the two instead.")
    person.name = cleaned
    session.add(person)
    session.commit()
    return load_table(session, code=table_code)


def merge_people(session: Session, *, table_code: str, keep_id: int, merge_id: int) -> TableState:
    """Make two people one (a misspelt name): merge_id's games and stats become keep_id's."""
    begin_write(session)
    table = _find(session, table_code)
    keep = _person(session, table, keep_id)
    merged = _person(session, table, merge_id)
    if keep.id == merged.id:
        raise TableError("Choose two different people to merge.")
    keep_games = set(
        session.exec(select(PersonGame.game_id).where(PersonGame.person_id == keep.id)).all()
    )
    merged_rows = session.exec(select(PersonGame).where(PersonGame.person_id == merged.id)).all()
    if any(row.game_id in keep_games for row in merged_rows):
        raise TableError(
            f"{keep.name} and {merged.name} played in the same game, so they are two people."
        )
    for row in merged_rows:
        row.person_id = keep.id or 0
        session.add(row)
    session.flush()
    for link in session.exec(
        select(TableGame).where(col(TableGame.game_id).in_([r.game_id for r in merged_rows]))
    ).all():
        link.seats = _seats_json(
            session.exec(
                select(PersonGame)
                .where(PersonGame.game_id == link.game_id)
                .order_by(col(PersonGame.position))
            ).all()
        )
        session.add(link)
    _refresh_sums(session, table.id or 0, None)
    session.delete(merged)
    session.commit()
    return load_table(session, code=table_code)


def add_recorded_game(
    session: Session, *, table_code: str, state: GameState, source_id: str
) -> None:
    """Put a game just recorded (an import, inside the caller's transaction) at the table;
    call refresh_stats once every game is in."""
    table = _find(session, table_code)
    _link(
        session,
        table.id or 0,
        state,
        _people_for(session, table.id or 0, state.players),
        source_id=source_id,
        refresh=False,
    )


def refresh_stats(session: Session, *, table_code: str) -> None:
    """Sum everyone's stats again (after recording many games at once)."""
    _refresh_sums(session, _find(session, table_code).id or 0, None)


def known_sources(session: Session, *, table_code: str) -> set[str]:
    """Stable ids of games already at the table: its own games' ids and those imported."""
    table = _find(session, table_code, for_edit=False)
    rows = session.exec(
        select(TableGame.game_id, TableGame.source_id).where(TableGame.table_id == table.id)
    ).all()
    known = {source for _, source in rows if source}
    known.update(games.uids_of(session, game_ids=[game_id for game_id, _ in rows]))
    return known


def game_codes(session: Session, *, table_code: str) -> list[str]:
    """Scorekeeper codes of the table's games (not deleted), oldest first, for an export."""
    table = _find(session, table_code, for_edit=False)
    return list(
        session.exec(
            select(TableGame.code)
            .where(TableGame.table_id == table.id, col(TableGame.deleted).is_(False))
            .order_by(col(TableGame.created_at), col(TableGame.id))
        ).all()
    )


def _find(session: Session, code: str, *, for_edit: bool = True) -> PlayTable:
    table = session.exec(
        select(PlayTable).where(or_(PlayTable.code == code, PlayTable.watch_code == code))
    ).first()
    if table is None:
        raise TableNotFound("No table has this code. Check the link, or start a new table.")
    if for_edit and code != table.code:
        raise ReadOnlyTable(ReadOnlyTable.message)
    return table


def _person(session: Session, table: PlayTable, person_id: int) -> Person:
    person = session.get(Person, person_id)
    if person is None or person.table_id != table.id:
        raise NoSuchPerson(f"Person {person_id} is not at this table.")
    return person


def _by_name(session: Session, table_id: int) -> dict[str, Person]:
    people = session.exec(
        select(Person).where(Person.table_id == table_id).order_by(col(Person.id))
    ).all()
    return {person.name.casefold(): person for person in people}


def _people_for(session: Session, table_id: int, names: Sequence[str]) -> list[int]:
    """The person for each name, ignoring case; new names become new people."""
    known = _by_name(session, table_id)
    ids = []
    for name in names:
        person = known.get(name.casefold())
        if person is None:
            person = known[name.casefold()] = Person(table_id=table_id, name=name)
            session.add(person)
            session.flush()
        ids.append(person.id or 0)
    return ids


def _link(
    session: Session,
    table_id: int,
    state: GameState,
    person_ids: Sequence[int],
    *,
    source_id: str | None = None,
    refresh: bool = True,
) -> None:
    session.add(
        TableGame(
            table_id=table_id,
            game_id=state.game_id,
            code=state.code,
            watch_code=state.watch_code,
            created_at=state.created_at,
            source_id=source_id,
        )
    )
    session.add_all(
        PersonGame(table_id=table_id, game_id=state.game_id, person_id=person, position=seat)
        for seat, person in enumerate(person_ids)
    )
    session.flush()
    _record(session, state, refresh=refresh)


def _link_of(session: Session, game_id: int) -> TableGame | None:
    return session.exec(select(TableGame).where(TableGame.game_id == game_id)).first()


def _record(session: Session, state: GameState, *, refresh: bool = True) -> None:
    """Bring the table's copy of a game's results up to date (called inside its save)."""
    link = _link_of(session, state.game_id)
    if link is None:
        return
    link.code, link.watch_code = state.code, state.watch_code
    link.finished, link.deleted = state.finished, state.deleted
    # Tie-breaks are not among the rounds a game has: one won in a tie-break is not "ended
    # early".
    link.rounds_saved, link.round_count = state.rounds_saved, len(state.main_rounds)
    session.add(link)
    # Tie-break rounds only pick the winner (state.winners); totals and round counts come
    # from the eleven rounds.
    outcomes = game_outcomes(
        [r.scores for r in state.main_rounds],
        [r.went_out for r in state.main_rounds],
        seat_count=len(state.players),
        winners=state.winners,
        start_points=[seat.start_points for seat in state.seats],
    )
    rows = _game_rows(session, state.game_id)
    while len(rows) < len(state.players):
        rows = _link_joined(session, link.table_id, state, rows)
    for row in rows:
        if row.position >= len(outcomes):
            continue
        outcome = outcomes[row.position]
        row.counted = state.finished and not state.deleted
        row.solitaire = state.is_solitaire
        row.total, row.rounds = outcome.total, outcome.rounds
        row.went_out, row.zero_rounds = outcome.went_out, outcome.zero_rounds
        row.full_game, row.won = outcome.full_game, outcome.won
        session.add(row)
    link.seats = _seats_json(rows)
    session.add(link)
    session.flush()
    if refresh:
        _refresh_sums(session, link.table_id, [row.person_id for row in rows])


def _game_rows(session: Session, game_id: int) -> list[PersonGame]:
    return list(
        session.exec(
            select(PersonGame)
            .where(PersonGame.game_id == game_id)
            .order_by(col(PersonGame.position))
        ).all()
    )


def _link_joined(
    session: Session, table_id: int, state: GameState, rows: Sequence[PersonGame]
) -> list[PersonGame]:
    """A player sat down mid-game (one per save): the seats after theirs moved one place on,
    so their links move too, and the new seat's name becomes a person of the table."""
    linked = dict(
        session.exec(
            select(Person.id, Person.name).where(
                col(Person.id).in_([row.person_id for row in rows])
            )
        ).all()
    )
    position = next(
        (
            seat
            for seat, player in enumerate(state.seats)
            if player.joined
            and (
                seat >= len(rows)
                or linked.get(rows[seat].person_id, "").casefold() != player.name.casefold()
            )
        ),
        len(rows),
    )
    # One link at a time from the end, so no two links of the game share a position.
    for row in sorted(rows, key=lambda r: r.position, reverse=True):
        if row.position >= position:
            row.position += 1
            session.add(row)
            session.flush()
    (person_id,) = _people_for(session, table_id, [state.players[position]])
    session.add(
        PersonGame(table_id=table_id, game_id=state.game_id, person_id=person_id, position=position)
    )
    session.flush()
    return _game_rows(session, state.game_id)


def _seats_json(rows: Sequence[PersonGame]) -> str:
    return json.dumps([[row.person_id, row.total, int(row.won)] for row in rows])


games.on_change(_record)


def _state(session: Session, table: PlayTable, *, games_limit: int | None = None) -> TableState:
    names = dict(
        session.exec(
            select(Person.id, Person.name)
            .where(Person.table_id == table.id)
            .order_by(col(Person.id))
        ).all()
    )
    game_views = _games(session, table.id or 0, names, games_limit)
    game_count = session.exec(
        select(func.count())
        .select_from(TableGame)
        .where(TableGame.table_id == table.id, col(TableGame.deleted).is_(False))
    ).one()
    stats = _stats(session, table.id or 0)
    versus = _versus(session, table.id or 0)
    return TableState(
        code=table.code,
        watch_code=table.watch_code,
        can_edit=True,
        name=table.name,
        people=tuple(
            PersonView(
                id=person_id,
                name=names[person_id],
                stats=stats.get(person_id, PersonStats()),
                versus=versus.get(person_id, {}),
            )
            for person_id in _most_recent_first(session, table.id or 0, names, game_views)
        ),
        games=tuple(game_views),
        game_count=game_count,
    )


def _games(
    session: Session, table_id: int, names: dict[int, str], limit: int | None
) -> list[TableGameView]:
    """The table's games, newest first, each with its seats (the newest `limit` only)."""
    query = (
        select(
            TableGame.code,
            TableGame.watch_code,
            TableGame.created_at,
            TableGame.finished,
            TableGame.rounds_saved,
            TableGame.round_count,
            TableGame.seats,
        )
        .where(TableGame.table_id == table_id, col(TableGame.deleted).is_(False))
        .order_by(col(TableGame.created_at).desc(), col(TableGame.id).desc())
    )
    listed = session.exec(query if limit is None else query.limit(limit)).all()
    return [
        TableGameView(
            code=code,
            watch_code=watch_code,
            created_at=created_at,
            finished=finished,
            rounds_saved=saved,
            round_count=count,
            seats=tuple(
                SeatView(person_id=pid, name=names.get(pid, "?"), total=total, won=bool(won))
                for pid, total, won in json.loads(seats)
            ),
        )
        for code, watch_code, created_at, finished, saved, count, seats in listed
    ]


def _sum_people(
    session: Session, table_id: int, person_ids: Collection[int] | None
) -> list[tuple[int, PersonTotals]]:
    """Each person's sums over their finished games, added up by the database."""
    together = and_(col(PersonGame.counted), not_(col(PersonGame.solitaire)))
    full = and_(together, col(PersonGame.full_game))
    alone = and_(col(PersonGame.counted), col(PersonGame.solitaire))

    def count_if(condition: Any) -> Any:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    def sum_if(condition: Any, column: Any) -> Any:
        return func.coalesce(func.sum(case((condition, column), else_=0)), 0)

    query = (
        select(
            PersonGame.person_id,
            count_if(together),
            count_if(and_(together, col(PersonGame.won))),
            count_if(full),
            sum_if(full, PersonGame.total),
            func.min(case((full, PersonGame.total))),
            func.max(case((full, PersonGame.total))),
            sum_if(together, PersonGame.rounds),
            sum_if(together, PersonGame.went_out),
            # Points scored in rounds: a joined player's start points are in no round.
            sum_if(together, PersonGame.total - func.coalesce(Seat.start_points, 0)),
            sum_if(together, PersonGame.zero_rounds),
            count_if(alone),
            count_if(and_(alone, col(PersonGame.won))),
            func.min(case((alone, PersonGame.total))),
        )
        .outerjoin(
            Seat,
            and_(
                col(Seat.game_id) == col(PersonGame.game_id),
                col(Seat.position) == col(PersonGame.position),
            ),
        )
        .where(PersonGame.table_id == table_id, col(PersonGame.counted))
        .group_by(col(PersonGame.person_id))
        .order_by(col(PersonGame.person_id))
    )
    if person_ids is not None:
        query = query.where(col(PersonGame.person_id).in_(person_ids))
    return [(row[0], PersonTotals(*row[1:])) for row in session.exec(query).all()]


def _sum_pairs(
    session: Session, table_id: int, person_ids: Collection[int] | None
) -> list[tuple[int, int, int, int, int]]:
    """Games together and who finished lower, for every pair, counted by the database."""
    mine, theirs = aliased(PersonGame), aliased(PersonGame)
    query = (
        select(
            mine.person_id,
            theirs.person_id,
            func.count(),
            func.sum(case((mine.total < theirs.total, 1), else_=0)),
            func.sum(case((theirs.total < mine.total, 1), else_=0)),
        )
        .join(theirs, and_(theirs.game_id == mine.game_id, theirs.person_id != mine.person_id))
        .where(mine.table_id == table_id, col(mine.counted), not_(col(mine.solitaire)))
        .group_by(mine.person_id, theirs.person_id)
        .order_by(mine.person_id, theirs.person_id)
    )
    if person_ids is not None:
        query = query.where(col(mine.person_id).in_(person_ids))
    return [(a, b, n, lower, higher) for a, b, n, lower, higher in session.exec(query).all()]


def _refresh_sums(session: Session, table_id: int, person_ids: Collection[int] | None) -> None:
    """Sum again the stats of these people (everyone at the table when None), so reading a
    table's stats is reading a row per person and per pair."""
    for model in (PersonSums, PairSums):
        stale = delete(model).where(col(model.table_id) == table_id)
        if person_ids is not None:
            stale = stale.where(col(model.person_id).in_(person_ids))
        session.execute(stale)
    session.add_all(
        PersonSums(person_id=person_id, table_id=table_id, **asdict(sums))
        for person_id, sums in _sum_people(session, table_id, person_ids)
    )
    session.add_all(
        PairSums(
            person_id=person_id,
            other_id=other_id,
            table_id=table_id,
            games=together,
            lower=lower,
            higher=higher,
        )
        for person_id, other_id, together, lower, higher in _sum_pairs(
            session, table_id, person_ids
        )
    )
    session.flush()


def _stats(session: Session, table_id: int) -> dict[int, PersonStats]:
    rows = session.exec(
        select(PersonSums).where(PersonSums.table_id == table_id).order_by(PersonSums.person_id)
    ).all()
    fields = [name for name in PersonTotals.__dataclass_fields__]
    return {
        row.person_id: stats_from_totals(PersonTotals(**{f: getattr(row, f) for f in fields}))
        for row in rows
    }


def _versus(session: Session, table_id: int) -> dict[int, dict[int, HeadToHead]]:
    rows = session.exec(
        select(
            PairSums.person_id, PairSums.other_id, PairSums.games, PairSums.lower, PairSums.higher
        )
        .where(PairSums.table_id == table_id)
        .order_by(col(PairSums.person_id), col(PairSums.other_id))
    ).all()
    versus: dict[int, dict[int, HeadToHead]] = defaultdict(dict)
    for person_id, other_id, together, lower, higher in rows:
        versus[person_id][other_id] = HeadToHead(games=together, lower=lower, higher=higher)
    return versus


def _most_recent_first(
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
