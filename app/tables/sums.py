"""A table's copy of its games, kept in step with every change to them: which person sat in
each seat and their result. A change to a game updates its rows by seat, never by reading
them back; the figures are worked out from these rows (seasons.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlmodel import Session, col, delete, select

from ..db import insert_plain_rows
from ..games import GameChange, GameState
from ..i18n import fill
from ..i18n import gettext as _
from ..models import Person, PersonGame, TableGame, TableVersion, utc_now
from ..names import folded
from ..rules.stats import game_outcomes
from .state import TableError


def record_change(session: Session, change: GameChange) -> None:
    """Bring the table's copy of a game up to date with a change (called inside it)."""
    after = change.after
    if change.rematch_of is not None:
        _link_rematch(session, change)
        return
    table_id = session.execute(
        update(TableGame)
        .where(col(TableGame.game_id) == after.game_id)
        .values(**_listing(after))
        .returning(TableGame.table_id)
    ).scalar()
    if table_id is None:
        return  # not a table's game
    if change.joined_seat is not None:
        _seat_joined(session, table_id, after, change.joined_seat)
    results = _results(after)
    table = PersonGame.__table__
    session.connection().execute(
        update(table)  # type: ignore[arg-type]
        .where(
            table.c.game_id == bindparam("b_game_id"), table.c.position == bindparam("b_position")
        )
        .values({name: bindparam(f"b_{name}") for name in results[0] if name != "position"}),
        [{"b_game_id": after.game_id, **{f"b_{k}": v for k, v in row.items()}} for row in results],
    )
    # Last: a join or a rematch may hold the table and wait for this game.
    advance(session, [table_id])


def link_game(
    session: Session,
    table_id: int,
    state: GameState,
    person_ids: Sequence[int],
    *,
    source_id: str | None = None,
) -> None:
    """Put a game at the table, the person in each seat with their result so far."""
    link_games(session, table_id, [(state, person_ids, source_id)])


def link_games(
    session: Session,
    table_id: int,
    games: Sequence[tuple[GameState, Sequence[int], str | None]],
) -> None:
    """Put games at the table (each with the person in each seat, and the stable id it was
    imported with): one INSERT for the list, one for the seats. The sums are the caller's."""
    if not games:
        return
    session.execute(
        insert(TableGame),
        [
            {
                "table_id": table_id,
                "game_id": state.game_id,
                "source_id": source_id,
                "created_at": state.created_at,
                **_listing(state),
            }
            for state, _, source_id in games
        ],
    )
    session.execute(
        insert(PersonGame),
        [
            {"table_id": table_id, "game_id": state.game_id, "person_id": person, **result}
            for state, person_ids, _ in games
            for person, result in zip(person_ids, _results(state), strict=True)
        ],
    )
    advance(session, [table_id])


@dataclass(frozen=True)
class ImportedGame:
    """A game an import wrote hidden, as its table will hold it once it is linked: its
    listing, and each seat's name and result."""

    game_id: int
    source_id: str
    created_at: datetime
    listing: dict[str, Any]
    names: tuple[str, ...]
    keys: tuple[str, ...]
    """Each seat's name as the table matches it (names.folded), worked out beforehand."""
    results: tuple[dict[str, Any], ...]


def imported_game(
    state: GameState, source_id: str, people: Sequence[str] | None = None
) -> ImportedGame:
    """What the table keeps of a game an import wrote (and nothing more, so that an import
    holds only this of each game until it links them all). people: the person in each seat
    as the export names them (a table's export), else the names on the game's sheet."""
    names = state.players if people is None else tuple(people)
    return ImportedGame(
        game_id=state.game_id,
        source_id=source_id,
        created_at=state.created_at or utc_now(),
        listing=_listing(state),
        names=names,
        keys=tuple(folded(name) for name in names),
        results=tuple(_results(state)),
    )


def link_imported_games(
    session: Session,
    table_id: int,
    imported: Sequence[ImportedGame],
    person_of: dict[str, int],
) -> None:
    """Put imported games at the table, each seat's person found by its name's key in
    person_of: one INSERT for the list, one for the seats, straight to the database."""
    if not imported:
        return
    connection = session.connection()
    connection.execute(
        insert(TableGame.__table__),  # type: ignore[attr-defined]
        [
            {
                "table_id": table_id,
                "game_id": game.game_id,
                "source_id": game.source_id,
                "created_at": game.created_at,
                **game.listing,
            }
            for game in imported
        ],
    )
    insert_plain_rows(
        session,
        PersonGame.__table__,
        [
            {
                "table_id": table_id,
                "game_id": game.game_id,
                "person_id": person_of[key],
                **result,
            }
            for game in imported
            for key, result in zip(game.keys, game.results, strict=True)
        ],
    )
    advance(session, [table_id])


def advance(session: Session, table_ids: Sequence[int]) -> None:
    """Advance the tables' versions, inside the transaction that changes them: what a server
    keeps of their figures is then known to be stale."""
    if table_ids:
        session.execute(
            update(TableVersion)
            .where(col(TableVersion.table_id).in_(table_ids))
            .values(version=col(TableVersion.version) + 1)
        )


def people_for(session: Session, table_id: int, names: Sequence[str]) -> list[int]:
    """The person for each name, names matched as games match them (names.folded); new
    names become new people (one INSERT for all of them)."""
    known = dict(
        session.exec(select(Person.folded_name, Person.id).where(Person.table_id == table_id)).all()
    )
    keys = [folded(name) for name in names]
    new: dict[str, str] = {}  # the first spelling of each new name
    for key, name in zip(keys, names, strict=True):
        if key not in known:
            new.setdefault(key, name)
    if new:
        now = utc_now()
        made = session.execute(
            insert(Person).returning(Person.id, sort_by_parameter_order=True),
            [
                {"table_id": table_id, "name": name, "folded_name": key, "created_at": now}
                for key, name in new.items()
            ],
        ).scalars()
        known.update(zip(new, made, strict=True))
    return [known[key] or 0 for key in keys]


def _listing(state: GameState) -> dict[str, Any]:
    """What the table's list of games shows of a game."""
    return {
        "code": state.code,
        "watch_code": state.watch_code,
        "finished": state.finished,
        "deleted": state.deleted,
        # Tie-breaks are not among the rounds a game has: one won in a tie-break is not
        # "ended early".
        "rounds_saved": state.rounds_saved,
        "round_count": len(state.main_rounds),
    }


def _results(state: GameState) -> list[dict[str, Any]]:
    """Each seat's result, as its person's row of the game holds it."""
    # Tie-break rounds only pick the winner (state.winners); totals and round counts come
    # from the eleven rounds.
    outcomes = game_outcomes(
        [r.scores for r in state.main_rounds],
        [r.went_out for r in state.main_rounds],
        seat_count=len(state.players),
        winners=state.winners,
        start_points=[seat.start_points for seat in state.seats],
    )
    counted = state.finished and not state.deleted
    return [
        {
            "position": position,
            "counted": counted,
            "solitaire": state.is_solitaire,
            "total": outcome.total,
            "rounds": outcome.rounds,
            "went_out": outcome.went_out,
            "zero_rounds": outcome.zero_rounds,
            "full_game": outcome.full_game,
            "won": outcome.won,
        }
        for position, outcome in enumerate(outcomes)
    ]


def _seat_joined(session: Session, table_id: int, state: GameState, position: int) -> None:
    """A player sat down mid-game at position: the people in the seats after it move one
    place on with their seats, and the newcomer's name becomes a person of the table."""
    game_rows = col(PersonGame.game_id) == state.game_id
    # Through negative places, so no two rows of the game ever share a position.
    session.execute(
        update(PersonGame)
        .where(game_rows, col(PersonGame.position) >= position)
        .values(position=-(col(PersonGame.position) + 1))
        .execution_options(synchronize_session=False)
    )
    session.execute(
        update(PersonGame)
        .where(game_rows, col(PersonGame.position) < 0)
        .values(position=-col(PersonGame.position))
        .execution_options(synchronize_session=False)
    )
    (person_id,) = people_for(session, table_id, [state.players[position]])
    already = session.exec(
        select(PersonGame.position).where(
            PersonGame.game_id == state.game_id, PersonGame.person_id == person_id
        )
    ).first()
    if already is not None:
        # A person renamed at the table whose old name is still on this game's sheet.
        raise TableError(
            fill(
                _(
                    "%(name)s already plays in this game (as %(old)s): give the newcomer "
                    "another name."
                ),
                name=state.players[position],
                old=state.players[already],
            )
        )
    session.add(
        PersonGame(table_id=table_id, game_id=state.game_id, person_id=person_id, position=position)
    )
    session.flush()


def _link_rematch(session: Session, change: GameChange) -> None:
    """A rematch of a table's game is the table's too, with the same people in the seats
    (those who were still at the table when the old game ended)."""
    assert change.rematch_of is not None
    seated = session.exec(
        select(PersonGame.table_id, PersonGame.person_id)
        .where(PersonGame.game_id == change.rematch_of)
        .order_by(col(PersonGame.position))
    ).all()
    if not seated:
        return
    kept = change.rematch_seats or tuple(range(len(seated)))
    link_game(session, seated[0][0], change.after, [seated[seat][1] for seat in kept])


def forget_games(session: Session, game_ids: Sequence[int]) -> None:
    """Drop the table's copy of games being removed for good (deleted long ago: they count
    in no figure, but the tables' versions move on, as with any change to them)."""
    tables = select(TableGame.table_id).where(col(TableGame.game_id).in_(game_ids))
    advance(session, list(session.exec(tables.distinct()).all()))
    session.execute(delete(PersonGame).where(col(PersonGame.game_id).in_(game_ids)))
    session.execute(delete(TableGame).where(col(TableGame.game_id).in_(game_ids)))
