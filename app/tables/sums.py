"""A table's copy of its games, kept in step with every change to them: which person sat in
each seat and their result, and each person's and pair's sums. A change to a game updates
its rows by seat and the sums of its people by SQL arithmetic, never by reading them back,
so a table's stats are sums over small rows, never a replay of every game."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from sqlalchemy import and_, bindparam, case, insert, not_, true, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, delete, func, or_, select

from ..db import upsert_from_select
from ..games import GameChange, GameState
from ..models import PairSums, Person, PersonGame, PersonSums, Seat, TableGame, utc_now
from ..names import person_key
from ..rules.stats import PersonTotals, game_outcomes
from .state import TableError

SUM_FIELDS = [f.name for f in fields(PersonTotals)]


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
    if change.counted_before or change.counted_after:
        sum_game(session, after.game_id)


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
    if state.finished and not state.deleted:
        sum_game(session, state.game_id)


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


def people_for(session: Session, table_id: int, names: Sequence[str]) -> list[int]:
    """The person for each name, ignoring case (names.person_key); new names become new
    people (one INSERT for all of them)."""
    known = dict(
        session.exec(select(Person.folded_name, Person.id).where(Person.table_id == table_id)).all()
    )
    new: dict[str, str] = {}  # the first spelling of each new name
    for name in names:
        if person_key(name) not in known:
            new.setdefault(person_key(name), name)
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
    return [known[person_key(name)] or 0 for name in names]


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
            f"{state.players[position]} already plays in this game (as "
            f"{state.players[already]}): give the newcomer another name."
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


def sum_game(session: Session, game_id: int) -> None:
    """Sum again the stats of the people of one game, and of each pair of them: one
    statement a table of sums."""
    people = select(PersonGame.person_id).where(PersonGame.game_id == game_id)
    _upsert_sums(
        session, col(Person.id).in_(people), _pairs(lambda first: first.game_id == game_id)
    )


def sum_table(session: Session, table_id: int) -> None:
    """Sum again everyone's stats at the table (after a merge, or many games at once)."""
    for model in (PersonSums, PairSums):
        session.execute(delete(model).where(col(model.table_id) == table_id))
    pairs = _pairs(
        lambda first: and_(first.table_id == table_id, first.counted, not_(first.solitaire))
    )
    _upsert_sums(session, col(Person.table_id) == table_id, pairs)


def _pairs(chosen: Any) -> Any:
    """Every two people who sat in the same game, for the games `chosen` picks (given the
    first person's row of the game)."""
    first, second = aliased(PersonGame), aliased(PersonGame)
    return (
        select(
            first.person_id.label("person_id"),
            second.person_id.label("other_id"),
            first.table_id.label("table_id"),
        )
        .join(second, and_(second.game_id == first.game_id, second.person_id != first.person_id))
        .where(chosen(first))
        .distinct()
    )


def _upsert_sums(session: Session, chosen_people: Any, pairs: Any) -> None:
    """Each chosen person's sums over their finished games, and the sums of the given pairs,
    worked out and written by the database."""
    # A game someone played no round of (they left before their first) is no game of theirs.
    played = and_(col(PersonGame.counted), col(PersonGame.rounds) > 0)
    together = and_(played, not_(col(PersonGame.solitaire)))
    full = and_(together, col(PersonGame.full_game))
    alone = and_(played, col(PersonGame.solitaire))

    def count_if(condition: Any) -> Any:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    def sum_if(condition: Any, column: Any) -> Any:
        return func.coalesce(func.sum(case((condition, column), else_=0)), 0)

    person_sums = (
        select(
            col(Person.id),
            col(Person.table_id),
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
            # Like other games, solitaire's best counts games of every pile only.
            func.min(case((and_(alone, col(PersonGame.full_game)), PersonGame.total))),
        )
        .select_from(Person)
        .outerjoin(
            PersonGame,
            and_(col(PersonGame.person_id) == col(Person.id), col(PersonGame.counted)),
        )
        .outerjoin(
            Seat,
            and_(
                col(Seat.game_id) == col(PersonGame.game_id),
                col(Seat.position) == col(PersonGame.position),
            ),
        )
        .where(chosen_people)
        .group_by(col(Person.id), col(Person.table_id))
    )
    upsert_from_select(
        session, PersonSums, ["person_id", "table_id", *SUM_FIELDS], person_sums, ["person_id"]
    )
    chosen = pairs.subquery()
    mine, theirs = aliased(PersonGame), aliased(PersonGame)
    mine_seat, their_seat = aliased(Seat), aliased(Seat)

    def lower(first: Any, second: Any) -> Any:
        # Fewer points, or the same and the tie-break's winner against its loser.
        return case(
            (
                or_(
                    first.total < second.total,
                    and_(first.total == second.total, first.won, not_(second.won)),
                ),
                1,
            ),
            else_=0,
        )

    # A game counts for two people only when both played it and sat at the table at its end.
    together_sums = (
        select(
            mine.person_id.label("person_id"),
            theirs.person_id.label("other_id"),
            func.count().label("games"),
            func.sum(lower(mine, theirs)).label("lower"),
            func.sum(lower(theirs, mine)).label("higher"),
        )
        .join(theirs, and_(theirs.game_id == mine.game_id, theirs.person_id != mine.person_id))
        .join(
            mine_seat,
            and_(mine_seat.game_id == mine.game_id, mine_seat.position == mine.position),
        )
        .join(
            their_seat,
            and_(their_seat.game_id == theirs.game_id, their_seat.position == theirs.position),
        )
        .where(
            mine.counted,
            not_(mine.solitaire),
            mine.rounds > 0,
            theirs.rounds > 0,
            col(mine_seat.left_round).is_(None),
            col(their_seat.left_round).is_(None),
            mine.person_id.in_(select(chosen.c.person_id)),
        )
        .group_by(mine.person_id, theirs.person_id)
        .subquery()
    )
    pair_sums = (
        select(
            chosen.c.person_id,
            chosen.c.other_id,
            chosen.c.table_id,
            func.coalesce(together_sums.c.games, 0),
            func.coalesce(together_sums.c.lower, 0),
            func.coalesce(together_sums.c.higher, 0),
        )
        .outerjoin(
            together_sums,
            and_(
                together_sums.c.person_id == chosen.c.person_id,
                together_sums.c.other_id == chosen.c.other_id,
            ),
        )
        .where(true())
    )
    upsert_from_select(
        session,
        PairSums,
        ["person_id", "other_id", "table_id", "games", "lower", "higher"],
        pair_sums,
        ["person_id", "other_id"],
    )


def forget_games(session: Session, game_ids: Sequence[int]) -> None:
    """Drop the table's copy of games being removed for good (deleted long ago: their rows
    no longer count in any sum, so no sum changes)."""
    session.execute(delete(PersonGame).where(col(PersonGame.game_id).in_(game_ids)))
    session.execute(delete(TableGame).where(col(TableGame.game_id).in_(game_ids)))
