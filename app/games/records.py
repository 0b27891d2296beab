"""Recorded games brought in by an import: whole games checked round by round with the
rules, written in bulk inside the caller's transaction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert, update
from sqlmodel import Session, col

from ..i18n import fill
from ..i18n import gettext as _
from ..models import Game, GameRound, Seat, SeatScore, new_uid
from ..rules.cards import MAX_PLAYERS, MIN_PLAYERS, RANK_CODES, Decks
from ..rules.schedule import ROUND_ORDERS, RoundKind, RoundOrder
from ..rules.scoring import SeatResult, score_round
from . import store
from .seating import clean_names
from .service import score_pile_result
from .state import RESTORE_DAYS, GameError, GameMode, GameState, PlayerState, RoundState
from .store import new_code

HIDDEN_HOURS = 1
"""How long a hidden game waits to be shown before the purge may remove it: an import
never takes that long."""
ID_CHUNK = 1000
"""Ids in one IN (...): within what every database takes."""


@dataclass(frozen=True)
class RoundRecord:
    """A round as an export holds it: the plan, and each seat's result (None: not played).
    first_player and players_in are worked out as the app would when a record lacks them."""

    number: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    results: Sequence[SeatResult | None] | None
    kind: RoundKind = "round"
    first_player: int | None = None
    players_in: Sequence[int] | None = None


@dataclass(frozen=True)
class RecordedGame:
    """A recorded game checked by the rules, not yet written: its rows, and the game as it
    will be once written (game_id 0 until then)."""

    game: dict[str, Any]
    seats: list[dict[str, Any]]
    rounds: list[dict[str, Any]]
    scores: dict[int, list[dict[str, Any]]]
    """Each played round's result rows, by round number."""
    state: GameState


def check_recorded_game(
    *,
    players: Sequence[str],
    first_dealer: int,
    rounds: Sequence[RoundRecord],
    created_at: datetime,
    finished_at: datetime | None,
    mode: GameMode | None = None,
    order: RoundOrder = "up",
    seats: Sequence[PlayerState] | None = None,
) -> RecordedGame:
    """A whole game from a record (an import), every round checked with the rules; GameError
    or RoundError when the record cannot stand. Nothing is written: add_recorded_games does
    that, many games at once. One player (or mode "solitaire") is a solitaire game; seats say
    who joined or left when."""
    names = clean_names(players)
    solitaire = mode == "solitaire" or (mode is None and len(names) == 1)
    if solitaire and len(names) != 1:
        raise GameError(
            fill(_("Solitaire is for one player; the game has %(count)s names."), count=len(names))
        )
    if not solitaire and len(names) < MIN_PLAYERS:
        raise GameError(
            fill(
                _("A game needs %(fewest)s to %(most)s players."),
                fewest=MIN_PLAYERS,
                most=MAX_PLAYERS,
            )
        )
    if order not in ROUND_ORDERS:
        raise GameError(
            fill(
                _("%(order)s is not an order of rounds: use up, down or shuffled."),
                order=repr(order),
            )
        )
    seat_count = len(names)
    players_state = _recorded_seats(names, seats, round_count=len(rounds))
    if not 0 <= first_dealer < seat_count:
        raise GameError(
            fill(_("The first dealer must be one of the %(count)s seats."), count=seat_count)
        )
    if not rounds or [r.number for r in rounds] != list(range(1, len(rounds) + 1)):
        raise GameError(_("The rounds must be numbered 1, 2, 3… in order."))
    kinds = [r.kind for r in rounds]
    if "tiebreak" in kinds and (solitaire or "round" in kinds[kinds.index("tiebreak") :]):
        raise GameError(_("A tie-break round comes only after the eleven rounds of a game."))
    played_all = True
    tiebreak_waiting = False
    plans: list[dict[str, Any]] = []
    round_states: list[RoundState] = []
    scores_by_round: dict[int, list[dict[str, Any]]] = {}
    saved_at = finished_at or created_at
    for record in rounds:
        number = record.number
        round_name = fill(
            _("pile %(number)s") if solitaire else _("round %(number)s"), number=number
        )
        if record.wild_rank not in RANK_CODES or not 0 <= record.dealer < seat_count:
            raise GameError(
                fill(_("Round %(number)s has an unknown wild rank or dealer."), number=number)
            )
        if not 1 <= record.cards_dealt <= 20:
            raise GameError(
                fill(_("Round %(number)s deals an impossible number of cards."), number=number)
            )
        players_in = _recorded_players_in(record, players_state)
        first_player = record.first_player
        if first_player is None:
            clockwise = [*range(record.dealer + 1, seat_count), *range(record.dealer + 1)]
            first_player = next((s for s in clockwise if s in players_in), record.dealer)
        if not 0 <= first_player < seat_count:
            raise GameError(
                fill(
                    _("Round %(number)s starts with a seat the game does not have."),
                    number=number,
                )
            )
        plan = {
            "number": record.number,
            "cards_dealt": record.cards_dealt,
            "wild_rank": record.wild_rank,
            "dealer": record.dealer,
            "first_player": first_player,
            "kind": record.kind,
            "players_in": store.seat_list(players_in),
        }
        plans.append(plan)
        entries = None
        if record.results is None:
            played_all = False
            tiebreak_waiting = tiebreak_waiting or record.kind == "tiebreak"
        else:
            # Solitaire piles are saved in any order; a game's rounds one after another, and
            # its tie-breaks one after another (after the rounds played: a game ended early
            # and tied is decided by a tie-break too).
            skipped = tiebreak_waiting if record.kind == "tiebreak" else not played_all
            if skipped and not solitaire:
                raise GameError(
                    fill(
                        _("Round %(number)s is saved after a round that was not played."),
                        number=number,
                    )
                )
            rows = _scored_rows(record, names, players_in, solitaire, round_name, saved_at)
            scores_by_round[record.number] = rows
            saved = {
                row["position"]: store.entry_from(
                    row["points"], row["went_out"], row["cards"], row["layout"]
                )
                for row in rows
            }
            entries = tuple(saved.get(p) for p in range(seat_count)) if saved else None
        round_states.append(
            RoundState(
                number=record.number,
                cards_dealt=record.cards_dealt,
                wild_rank=record.wild_rank,
                dealer=record.dealer,
                first_player=first_player,
                entries=entries,
                kind=record.kind,
                players_in=players_in,
            )
        )
    if played_all and finished_at is None:
        finished_at = created_at
    game = {
        "code": new_code(),
        "watch_code": new_code(),
        "first_dealer": first_dealer,
        "created_at": created_at,
        "finished_at": finished_at,
        "mode": "solitaire" if solitaire else "game",
        "round_order": "up" if solitaire else order,
        "uid": new_uid(),
        "version": 1,
    }
    state = GameState(
        code=game["code"],
        watch_code=game["watch_code"],
        can_edit=True,
        players=tuple(names),
        first_dealer=first_dealer,
        rounds=tuple(round_states),
        finished=finished_at is not None,
        version=1,
        uid=game["uid"],
        created_at=created_at,
        finished_at=finished_at,
        mode="solitaire" if solitaire else "game",
        order="up" if solitaire else order,
        seats=tuple(players_state),
    )
    seat_rows = [
        {
            "position": position,
            "name": player.name,
            "start_points": player.start_points,
            "joined_round": player.joined_round,
            "left_round": player.left_round,
        }
        for position, player in enumerate(players_state)
    ]
    return RecordedGame(game, seat_rows, plans, scores_by_round, state)


def _scored_rows(
    record: RoundRecord,
    names: Sequence[str],
    players_in: tuple[int, ...],
    solitaire: bool,
    round_name: str,
    saved_at: datetime,
) -> list[dict[str, Any]]:
    """A played round's result rows, checked by the rules (RoundError when it cannot be)."""
    assert record.results is not None
    layout = None
    if solitaire:
        pile = RoundState(
            number=record.number,
            cards_dealt=record.cards_dealt,
            wild_rank=record.wild_rank,
            dealer=0,
            first_player=0,
            entries=None,
        )
        scores, went_out, pile_layout = score_pile_result(record.results, pile, round_name)
        layout = None if pile_layout is None else json.dumps(pile_layout)
    else:
        outcome = score_round(
            record.results,
            seat_names=names,
            cards_dealt=record.cards_dealt,
            wild_rank=record.wild_rank,
            decks=Decks.for_players(len(players_in)),
            players_in=players_in,
            round_name=round_name,
        )
        scores, went_out = outcome.scores, outcome.went_out
    return [
        {
            "position": position,
            "points": points,
            "went_out": position == went_out,
            "cards": None if result.cards is None else ",".join(c.code for c in result.cards),
            "layout": layout,
            "saved_at": saved_at,
        }
        for position, (result, points) in enumerate(zip(record.results, scores, strict=True))
        if result is not None and points is not None
    ]


def add_recorded_games(
    session: Session, recorded: Sequence[RecordedGame], *, hidden: bool = False
) -> list[GameState]:
    """Write checked games inside the caller's transaction: one INSERT a kind of row (games,
    seats, rounds, results), whatever their number. Returns each game as written. hidden:
    written as games deleted long ago, seen nowhere until show_recorded_games, and removed
    by the purge within HIDDEN_HOURS if never shown (an import cut short leaves nothing)."""
    if not recorded:
        return []
    rows = [game.game for game in recorded]
    if hidden:
        hidden_at = datetime.now(UTC) - timedelta(days=RESTORE_DAYS) + timedelta(hours=HIDDEN_HOURS)
        rows = [{**row, "deleted_at": hidden_at} for row in rows]
    games, seats, rounds = Game.__table__, Seat.__table__, GameRound.__table__  # type: ignore[attr-defined]
    # Core, not the ORM: a big import's rows go straight to the database.
    game_ids = (
        session.connection()
        .execute(insert(games).returning(games.c.id, sort_by_parameter_order=True), rows)
        .scalars()
        .all()
    )
    session.connection().execute(
        insert(seats),
        [
            {**seat, "game_id": game_id}
            for game, game_id in zip(recorded, game_ids, strict=True)
            for seat in game.seats
        ],
    )
    round_ids = (
        session.connection()
        .execute(
            insert(rounds).returning(rounds.c.id, sort_by_parameter_order=True),
            [
                {**plan, "game_id": game_id}
                for game, game_id in zip(recorded, game_ids, strict=True)
                for plan in game.rounds
            ],
        )
        .scalars()
        .all()
    )
    ids = iter(round_ids)
    score_rows = []
    for game in recorded:
        for plan in game.rounds:
            round_id = next(ids)
            score_rows.extend(
                {**row, "round_id": round_id} for row in game.scores.get(plan["number"], ())
            )
    if score_rows:
        session.connection().execute(insert(SeatScore.__table__), score_rows)  # type: ignore[attr-defined]
    return [
        replace(game.state, game_id=game_id)
        for game, game_id in zip(recorded, game_ids, strict=True)
    ]


def show_recorded_games(session: Session, game_ids: Sequence[int]) -> int:
    """Bring hidden games into view (inside the caller's transaction); how many were still
    there to bring (fewer when the purge took some)."""
    shown = 0
    for start in range(0, len(game_ids), ID_CHUNK):
        chunk = game_ids[start : start + ID_CHUNK]
        result = session.execute(
            update(Game)
            .where(col(Game.id).in_(chunk), col(Game.deleted_at).is_not(None))
            .values(deleted_at=None)
            .execution_options(synchronize_session=False)
        )
        shown += result.rowcount  # type: ignore[attr-defined]
    return shown


def add_recorded_game(session: Session, **record: Any) -> GameState:
    """One recorded game, checked and written inside the caller's transaction."""
    (state,) = add_recorded_games(session, [check_recorded_game(**record)])
    return state


def _recorded_seats(
    names: Sequence[str], seats: Sequence[PlayerState] | None, *, round_count: int
) -> list[PlayerState]:
    """The seats of a recorded game: its names, with when each player came and went."""
    if seats is None:
        return [PlayerState(name=name) for name in names]
    if len(seats) != len(names):
        raise GameError(
            fill(
                _("The game has %(players)s players but %(seats)s seats."),
                players=len(names),
                seats=len(seats),
            )
        )
    kept = []
    for name, seat in zip(names, seats, strict=True):
        for when in (seat.joined_round, seat.left_round):
            if when is not None and not 1 <= when <= round_count + 1:
                raise GameError(
                    fill(
                        _("%(name)s joins or leaves at a round the game does not have."),
                        name=name,
                    )
                )
        if not 0 <= seat.start_points <= 9999:
            raise GameError(
                fill(
                    _("%(name)s starts with %(points)s points: at most 9999."),
                    name=name,
                    points=seat.start_points,
                )
            )
        kept.append(replace(seat, name=name))
    return kept


def _recorded_players_in(record: RoundRecord, seats: Sequence[PlayerState]) -> tuple[int, ...]:
    """The seats in a recorded round: as recorded, else those with a result, else those at
    the table for that round."""
    if record.players_in is not None:
        players_in = tuple(sorted(set(record.players_in)))
        if not players_in or not all(0 <= s < len(seats) for s in players_in):
            raise GameError(
                fill(
                    _("Round %(number)s is played by seats the game does not have."),
                    number=record.number,
                )
            )

        return players_in
    if record.results is not None:
        return tuple(
            s
            for s in range(len(seats))
            if s < len(record.results) and record.results[s] is not None
        )
    return tuple(
        s
        for s, seat in enumerate(seats)
        if (seat.joined_round is None or seat.joined_round <= record.number)
        and (seat.left_round is None or seat.left_round > record.number)
    )
