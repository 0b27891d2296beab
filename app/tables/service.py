"""The tables service: a group of people who play together, their games and their stats.

It keeps its own records (people, which game each played, each game's result for each of
them), kept in step with every change to a game by sums.record_change; every figure it
shows is worked out from them in one place (seasons.py). It reaches games only through the
games service's functions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from sqlmodel import Session, col, func, or_, select

from .. import games
from ..db import begin_write, locked
from ..games import GameMode, GameState, OpenGame
from ..i18n import fill
from ..i18n import gettext as _
from ..models import (
    MergedPerson,
    Person,
    PersonGame,
    PlayTable,
    TableGame,
    TableVersion,
)
from ..names import UnreadableText, folded
from ..rules.schedule import RoundOrder
from ..rules.seasons import Period
from ..rules.stats import PersonStats
from . import seasons
from .listing import game_views, most_recent_first
from .state import (
    DeletedGame,
    NoSuchPerson,
    PersonMerged,
    PersonView,
    ReadOnlyTable,
    TableError,
    TableNotFound,
    TableState,
    clean_table_name,
    crowded,
)
from .sums import ImportedGame, advance, link_game, link_imported_games, people_for


def create_table(session: Session, *, name: str) -> TableState:
    """Start a table with no people and no games yet."""
    table = PlayTable(
        code=games.new_code(), watch_code=games.new_code(), name=clean_table_name(name)
    )
    begin_write(session)
    session.add(table)
    session.flush()
    session.add(TableVersion(table_id=table.id or 0))
    session.commit()
    return load_table(session, code=table.code)


def load_table(
    session: Session, *, code: str, games_limit: int | None = None, period: Period | None = None
) -> TableState:
    """The table whose scorekeeper or watch code this is, or TableNotFound; its games
    newest first (only the newest games_limit when given), each person's head to head
    against those they played most. With a period, its season too: stats and head to head
    over the games finished then, streaks, records and ratings."""
    table = find_row(session, code, for_edit=False)
    state = _state(session, table, games_limit=games_limit)
    chosen = seasons.season(
        session,
        table_id=table.id or 0,
        version=_version(session, table.id or 0),
        period=period or Period(),
    )
    people = tuple(
        replace(
            person,
            stats=chosen.stats.get(person.id, PersonStats()),
            versus=chosen.versus.get(person.id, {}),
            opponents=chosen.opponents.get(person.id, 0),
        )
        for person in state.people
    )
    state = replace(state, people=people, season=None if period is None else chosen)
    return state if code == table.code else state.for_watchers()


def load_person(
    session: Session, *, code: str, person_id: int, period: Period
) -> tuple[TableState, PersonView]:
    """The table over the season (no games listed) and one of its people, with their whole
    head to head; PersonMerged (naming who they are one with) when they were merged away,
    NoSuchPerson when they were never at the table."""
    table = find_row(session, code, for_edit=False)
    state = load_table(session, code=code, games_limit=0, period=period)
    chosen = next((person for person in state.people if person.id == person_id), None)
    if chosen is None:
        raise _not_here(session, table, person_id)
    versus = seasons.person_versus(
        session,
        table_id=table.id or 0,
        version=_version(session, table.id or 0),
        period=period,
        person_id=person_id,
    )
    return state, replace(chosen, versus=versus)


def is_keeper_code(session: Session, *, code: str) -> bool:
    """True for a table's scorekeeper code, False for its watch code; TableNotFound else."""
    table = find_row(session, code, for_edit=False)
    session.rollback()
    return code == table.code


def check_keeper_code(session: Session, *, code: str) -> None:
    """TableNotFound or ReadOnlyTable unless code is a table's scorekeeper code."""
    find_row(session, code)
    session.rollback()


def start_game(
    session: Session,
    *,
    table_code: str,
    players: Sequence[str],
    first_dealer: int = 0,
    order: RoundOrder = "up",
    mode: GameMode | None = None,
    max_people: int | None = None,
) -> GameState:
    """Start a game at the table: names that match a person (names.folded) are that person,
    new names become new people of the table (TableError beyond max_people in all). One
    transaction, the table locked first: games started at once count each other's people."""
    begin_write(session)
    table_id = find_row(session, table_code, lock=True).id or 0
    if max_people is not None:
        keys = {folded(name) for name in games.clean_names(players)}
        known = session.exec(select(Person.folded_name).where(Person.table_id == table_id)).all()
        people = len(keys.union(known))
        if people > max_people:
            session.rollback()
            raise crowded(people, max_people, importing=False)

    def link(state: GameState) -> None:
        link_game(session, table_id, state, people_for(session, table_id, state.players))

    return games.create_game(
        session, players=players, first_dealer=first_dealer, order=order, mode=mode, link=link
    )


def open_table_game(session: Session, *, code: str) -> OpenGame:
    """The game for a change that touches its table's people (a join, a rematch), locked in
    the order every such change keeps: its table's row first (when it is a table's game),
    then the game's. As games.open_game otherwise."""
    begin_write(session)
    if "\x00" not in code:
        session.exec(
            locked(
                select(PlayTable.id)
                .join(TableGame, col(TableGame.table_id) == col(PlayTable.id))
                .where(TableGame.code == code),
                of=PlayTable,
            )
        ).first()
    return games.open_game(session, code=code, begun=True)


def rename_person(session: Session, *, table_code: str, person_id: int, name: str) -> TableState:
    """Give a person a new name; their games and stats stay theirs."""
    begin_write(session)
    table = find_row(session, table_code, lock=True)
    person = _person(session, table, person_id)
    if not name.strip():
        raise TableError(_("A person needs a name."))
    (cleaned,) = games.clean_names([name])
    key = folded(cleaned)
    clash = session.exec(
        select(Person).where(Person.table_id == table.id, Person.folded_name == key)
    ).first()
    if clash is not None and clash.id != person.id:
        raise TableError(
            fill(_("%(name)s is already at this table: merge the two instead."), name=clash.name)
        )
    person.name = cleaned
    person.folded_name = key
    session.add(person)
    advance(session, [table.id or 0])
    session.commit()
    return load_table(session, code=table_code)


def check_room_for(session: Session, *, game_id: int, name: str, max_people: int) -> None:
    """TableError when a player joining this game mid-game would be a new person at a table
    already holding max_people (nothing when the game is at no table, or the name is one of
    its people already). Call it with the table locked (open_table_game)."""
    table_id = session.exec(select(TableGame.table_id).where(TableGame.game_id == game_id)).first()
    if table_id is None:
        return
    try:
        key = folded(name)
    except UnreadableText:
        return  # not a name: the join refuses it in words
    keys = session.exec(select(Person.folded_name).where(Person.table_id == table_id)).all()
    if key in keys:
        return
    if len(keys) >= max_people:
        raise TableError(
            fill(
                _(
                    "%(name)s would be person %(number)s of this table; a table has at most "
                    "%(most)s (TABLE_MAX_PEOPLE). Merge people who are the same first."
                ),
                name=name.strip()[:30],
                number=len(keys) + 1,
                most=max_people,
            )
        )


def person_named(session: Session, *, table_code: str, name: str) -> int:
    """The id of the table's person with this name (as names.folded matches); TableError
    when nobody at the table has it."""
    table = find_row(session, table_code, for_edit=False)
    try:
        wanted = folded(name)
    except UnreadableText as error:
        raise TableError(
            _("The name holds characters that are not text (lone surrogates): type it again.")
        ) from error
    if not wanted:
        raise TableError(_("Choose who they are the same person as."))
    found = session.exec(
        select(Person.id).where(Person.table_id == table.id, Person.folded_name == wanted)
    ).first()
    if found is not None:
        return found
    raise TableError(
        fill(_("Nobody called %(name)s is at this table."), name=" ".join(name.split())[:30])
    )


def merge_people(session: Session, *, table_code: str, keep_id: int, merge_id: int) -> TableState:
    """Make two people one (a misspelt name): merge_id's games and stats become keep_id's."""
    begin_write(session)
    table = find_row(session, table_code, lock=True)
    keep = _person(session, table, keep_id)
    merged = _person(session, table, merge_id)
    if keep.id == merged.id:
        raise TableError(_("Choose two different people to merge."))
    keep_games = set(
        session.exec(select(PersonGame.game_id).where(PersonGame.person_id == keep.id)).all()
    )
    merged_rows = session.exec(select(PersonGame).where(PersonGame.person_id == merged.id)).all()
    if any(row.game_id in keep_games for row in merged_rows):
        raise TableError(
            fill(
                _("%(one)s and %(other)s played in the same game, so they are two people."),
                one=keep.name,
                other=merged.name,
            )
        )
    for row in merged_rows:
        row.person_id = keep.id or 0
        session.add(row)
    session.delete(merged)
    advance(session, [table.id or 0])
    session.add(
        MergedPerson(
            table_id=table.id or 0, person_id=merged.id or 0, name=merged.name, into_id=keep.id or 0
        )
    )
    session.flush()
    session.commit()
    return load_table(session, code=table_code)


def link_imported(
    session: Session, *, table_code: str, imported: Sequence[ImportedGame], max_people: int
) -> int:
    """Put the games an import wrote hidden at the table and bring them into view, in one
    short write transaction with the table locked: the table sees all of them or none. Games
    the table got meanwhile (the same document imported twice at once) are removed instead.
    How many were added; TableError when the people would pass max_people (every game of
    the import removed)."""
    begin_write(session)
    table = find_row(session, table_code, lock=True)
    table_id = table.id or 0
    known = _linked_sources(session, table_id)
    fresh = [game for game in imported if game.source_id not in known]
    again = [game.game_id for game in imported if game.source_id in known]
    new_names = {
        key: name for game in fresh for key, name in zip(game.keys, game.names, strict=True)
    }
    people = set(session.exec(select(Person.folded_name).where(Person.table_id == table_id)).all())
    if len(people | set(new_names)) > max_people:
        games.remove_games(session, [game.game_id for game in imported])
        session.commit()
        raise crowded(len(people | set(new_names)), max_people, importing=True)
    person_of = dict(
        zip(new_names, people_for(session, table_id, list(new_names.values())), strict=True)
    )
    if games.show_recorded_games(session, [game.game_id for game in fresh]) != len(fresh):
        session.rollback()
        raise TableError(_("The import took too long and was let go. Import the file again."))
    link_imported_games(session, table_id, fresh, person_of)
    if again:
        games.remove_games(session, again)
    session.commit()
    return len(fresh)


def people_after(session: Session, *, table_code: str, names: Sequence[str]) -> int:
    """How many people the table would have with these names among them (names match
    people as tables match them: names.folded)."""
    table = find_row(session, table_code, for_edit=False)
    known = set(session.exec(select(Person.folded_name).where(Person.table_id == table.id)).all())
    for name in names:
        try:
            known.add(folded(name))
        except UnreadableText:
            continue
    return len(known)


def known_sources(session: Session, *, table_code: str) -> set[str]:
    """Stable ids of games already at the table: its own games' ids and those imported."""
    table = find_row(session, table_code, for_edit=False)
    return _linked_sources(session, table.id or 0)


def _linked_sources(session: Session, table_id: int) -> set[str]:
    rows = session.exec(
        select(TableGame.game_id, TableGame.source_id).where(TableGame.table_id == table_id)
    ).all()
    known = {source for _, source in rows if source}
    known.update(games.uids_of(session, game_ids=[game_id for game_id, _ in rows]))
    return known


def recently_deleted(session: Session, *, table_code: str) -> list[DeletedGame]:
    """The table's games deleted lately enough to be restored, the newest delete first."""
    table = find_row(session, table_code)
    listed = session.exec(
        select(TableGame.game_id, TableGame.code, TableGame.created_at).where(
            TableGame.table_id == table.id, col(TableGame.deleted).is_(True)
        )
    ).all()
    dates = games.deleted_dates(session, game_ids=[game_id for game_id, _, _ in listed])
    names: dict[int, list[str]] = defaultdict(list)
    for game_id, name in session.exec(
        select(PersonGame.game_id, Person.name)
        .join(Person, col(Person.id) == col(PersonGame.person_id))
        .where(col(PersonGame.game_id).in_(list(dates)))
        .order_by(col(PersonGame.game_id), col(PersonGame.position))
    ).all():
        names[game_id].append(name)
    deleted = [
        DeletedGame(code, created_at, dates[game_id], tuple(names[game_id]))
        for game_id, code, created_at in listed
        if game_id in dates
    ]
    return sorted(deleted, key=lambda game: game.deleted_at, reverse=True)


def exported_games(session: Session, *, table_code: str) -> tuple[str, list[int]]:
    """The table's name and the ids of its games (not deleted), oldest first, for an
    export; TableNotFound for an unknown code."""
    table = find_row(session, table_code, for_edit=False)
    game_ids = session.exec(
        select(TableGame.game_id)
        .where(TableGame.table_id == table.id, col(TableGame.deleted).is_(False))
        .order_by(col(TableGame.created_at), col(TableGame.id))
    ).all()
    return table.name, list(game_ids)


def seated_people(session: Session, *, game_ids: Sequence[int]) -> dict[int, list[str]]:
    """The name the table now knows the person in each seat of these games by, seat by seat
    (a person renamed or merged since a game keeps their old name on its sheet)."""
    people: dict[int, list[str]] = defaultdict(list)
    for game_id, name in session.exec(
        select(PersonGame.game_id, Person.name)
        .join(Person, col(Person.id) == col(PersonGame.person_id))
        .where(col(PersonGame.game_id).in_(list(game_ids)))
        .order_by(col(PersonGame.game_id), col(PersonGame.position))
    ).all():
        people[game_id].append(name)
    return people


def _version(session: Session, table_id: int) -> int:
    """The table's version (tables made before versions were kept have one from the
    migration)."""
    found = session.exec(select(TableVersion.version).where(TableVersion.table_id == table_id))
    return found.first() or 0


def find_row(
    session: Session, code: str, *, for_edit: bool = True, lock: bool = False
) -> PlayTable:
    """The table for code; with lock, its row locked until the write transaction ends (on
    PostgreSQL: SQLite's write lock already holds the whole database)."""
    # No code holds a NUL (and PostgreSQL refuses one in a query).
    table = None
    if "\x00" not in code:
        query = select(PlayTable).where(or_(PlayTable.code == code, PlayTable.watch_code == code))
        table = session.exec(locked(query) if lock else query).first()
    if table is None:
        raise TableNotFound(_("No table has this code. Check the link, or start a new table."))
    if for_edit and code != table.code:
        raise ReadOnlyTable(ReadOnlyTable.message)
    return table


def _person(session: Session, table: PlayTable, person_id: int) -> Person:
    # Ids are 64-bit: a larger number (from a path or a form) is nobody, not a database error.
    person = session.get(Person, person_id) if 0 < person_id < 2**63 else None
    if person is not None and person.table_id == table.id:
        return person
    raise _not_here(session, table, person_id)


def _not_here(session: Session, table: PlayTable, person_id: int) -> TableError:
    """Why person_id is not at the table: PersonMerged naming who they are one with now
    (through the merges made since) for someone merged away, else NoSuchPerson."""
    name, seen, asked = "", set(), person_id
    while 0 < asked < 2**63 and asked not in seen:
        seen.add(asked)
        gone = session.exec(
            select(MergedPerson)
            .where(MergedPerson.person_id == asked, MergedPerson.table_id == table.id)
            .order_by(col(MergedPerson.id).desc())
        ).first()
        if gone is None:
            break
        name, asked = name or gone.name, gone.into_id
        into = session.get(Person, asked)
        if into is not None and into.table_id == table.id:
            return PersonMerged(
                fill(
                    _(
                        "%(name)s was merged and is one person with %(into)s now. Reload the "
                        "table to see who is at it."
                    ),
                    name=name,
                    into=into.name,
                ),
                into_id=asked,
            )
    return NoSuchPerson(fill(_("Person %(number)s is not at this table."), number=person_id))


def _state(session: Session, table: PlayTable, *, games_limit: int | None = None) -> TableState:
    names = dict(
        session.exec(
            select(Person.id, Person.name)
            .where(Person.table_id == table.id)
            .order_by(col(Person.id))
        ).all()
    )
    listed = game_views(session, table.id or 0, names, games_limit)
    game_count = session.exec(
        select(func.count())
        .select_from(TableGame)
        .where(TableGame.table_id == table.id, col(TableGame.deleted).is_(False))
    ).one()
    return TableState(
        code=table.code,
        watch_code=table.watch_code,
        can_edit=True,
        name=table.name,
        people=tuple(
            PersonView(
                id=person_id,
                name=names[person_id],
                stats=PersonStats(),
                versus={},
            )
            for person_id in most_recent_first(session, table.id or 0, names, listed)
        ),
        games=tuple(listed),
        game_count=game_count,
        language=table.language,
    )
