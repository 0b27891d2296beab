"""The game operations: open a game (one read, under the write lock for a change), let the
rules decide, write, and tell the listeners and open pages. Nothing else joins the rules and
storage of a game; who sits where is in seating.py, recorded games in records.py."""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from ..db import begin_write
from ..i18n import fill
from ..i18n import gettext as _
from ..models import Game, GameRound, ReplacedCode, Seat, SeatScore
from ..rules.schedule import RoundOrder, plan_rounds, plan_tiebreak, solitaire_piles
from ..rules.scoring import RoundError, SeatResult, score_round
from ..rules.solitaire import PileError, score_pile
from . import changes, queries, store
from .seating import starting_names
from .state import (
    RESTORE_DAYS,
    GameChange,
    GameError,
    GameMode,
    GameNotFound,
    GameState,
    RoundState,
    StaleVersion,
    VersionRequired,
)
from .store import OpenGame, new_code


def load_game(session: Session, *, code: str) -> GameState:
    """The game whose scorekeeper or watch code this is, or GameNotFound."""
    return store.read(session, code=code, for_edit=False).view()


def find_game(session: Session, *, code: str, whole: bool = False) -> GameState | GameNotFound:
    """The game for code, or the GameNotFound saying why there is none (a ReplacedLink for
    a replaced scorekeeper code): for a caller to whom a missing game is an answer. whole:
    the scorekeeper's state even for a watch code (for the live pages, which keep it and
    show each page its own view)."""
    try:
        opened = store.read(session, code=code, for_edit=False)
    except GameNotFound as missing:
        return missing
    return opened.state() if whole else opened.view()


def load_games(session: Session, *, game_ids: Sequence[int]) -> list[GameState]:
    """The games with these ids (those not deleted), in that order, read together in a few
    statements: for an export, which wants many games and none of their rematches."""
    return store.read_many(session, game_ids=game_ids)


def load_for_live_pages(session: Session, *, watch_code: str) -> GameState:
    """The whole state of the game with this watch code, scorekeeper code included, for the
    live relay to hand to this process's open pages (each stream shows only its own view)."""
    return store.read(session, code=watch_code, for_edit=False).state()


def create_game(
    session: Session,
    *,
    players: Sequence[str],
    first_dealer: int = 0,
    order: RoundOrder = "up",
    mode: GameMode | None = None,
    link: Callable[[GameState], None] | None = None,
) -> GameState:
    """Start a game with players in clockwise order; first_dealer is a seat index. One
    player plays solitaire: eleven piles of 3 to 13 cards (mode, when given, must agree).
    With link (a table's new game), the write transaction is the caller's, begun with its
    table locked, and link puts the game at the table before the one commit."""
    if link is None:
        begin_write(session)
    opened = _new_game(session, players=players, first_dealer=first_dealer, order=order, mode=mode)
    return changes.commit(session, opened, None, then=link)


def _new_game(
    session: Session,
    *,
    players: Sequence[str],
    first_dealer: int,
    order: RoundOrder,
    mode: GameMode | None,
    rematch_of: int | None = None,
) -> OpenGame:
    """The rows of a new game, added to the transaction under way."""
    names = starting_names(players, first_dealer=first_dealer, order=order, mode=mode)
    solitaire = len(names) == 1
    if solitaire:
        plans = solitaire_piles()
    else:
        # A shuffled order is drawn once, now, and stored with the rounds.
        shuffle = random.Random(secrets.randbits(64))
        plans = plan_rounds(
            seat_count=len(names), first_dealer=first_dealer, order=order, rng=shuffle
        )
    game = Game(
        code=new_code(),
        watch_code=new_code(),
        first_dealer=first_dealer,
        mode="solitaire" if solitaire else "game",
        round_order="up" if solitaire else order,
        rematch_of=rematch_of,
        # The first change (changes.commit) makes it version 1, as a game has always started.
        version=0,
    )
    session.add(game)
    session.flush()
    assert game.id is not None
    seats = [Seat(game_id=game.id, position=p, name=n) for p, n in enumerate(names)]
    rounds = [store.round_row(game.id, plan) for plan in plans]
    session.add_all(seats)
    session.add_all(rounds)
    return OpenGame(
        game=game,
        seat_rows=seats,
        round_rows=rounds,
        asked_with=game.code,
        session=session,
        attached=True,
    )


def replace_keeper_code(
    session: Session, *, code: str | None = None, game: OpenGame | None = None
) -> GameState:
    """Give the game a new scorekeeper code; the old one stops working at once."""
    opened = changes.opened(session, code, game)
    before = opened.state()
    session.add(ReplacedCode(code_hash=store.code_hash(opened.game.code), game_id=opened.id))
    opened.game.code = new_code()
    return changes.commit(session, opened, before)


def save_round(
    session: Session,
    *,
    code: str | None = None,
    game: OpenGame | None = None,
    number: int,
    results: Sequence[SeatResult | None],
    version: int | None = None,
) -> GameState:
    """Save or correct round number; RoundError or GameError when it cannot stand. A round
    already saved changes only with the version of the game the change is based on: none
    is VersionRequired, another StaleVersion."""
    opened = changes.opened(session, code, game)
    state = opened.state()
    stale = version is not None and version != state.version
    try:
        round_state, scores, went_out, layouts = _scored(state, number, results)
    except (RoundError, GameError):
        if stale:
            raise _stale(state) from None
        raise
    if _saved_as(round_state, results, scores, went_out):
        # This very round is saved already (a phone sent it again, its first answer lost, or
        # a correction that changes nothing): saved once, and the answer is the game as it
        # stands (the write lock let go).
        session.rollback()
        return state
    if stale:
        raise _stale(state)
    if version is None and round_state.entries is not None:
        # Without the version it was based on, a change could save over one never seen.
        name = state.round_name(round_state)
        raise VersionRequired(
            fill(
                _(
                    "%(round)s is saved already: a change to it must give the "
                    "version of the game it is based on, so it never saves over a change not "
                    "seen. Nothing was saved."
                ),
                round=name[0].upper() + name[1:],
            ),
            current=state,
        )
    round_id = opened.round_rows[number - 1].id
    assert round_id is not None
    now = datetime.now(UTC)
    connection = session.connection()
    if opened.score_rows.get(round_id):
        # A correction: the old results stay, marked replaced.
        connection.execute(queries.REPLACE_SCORES, {"of_round": round_id, "now": now})
    saved = []
    for position, (result, points) in enumerate(zip(results, scores, strict=True)):
        if result is None or points is None:
            continue
        kept_cards = None
        if result.points is None and not result.went_out:
            kept_cards = ",".join(card.code for card in result.cards or ())
        saved.append(
            queries.ScoreRecord(
                position=position,
                points=points,
                went_out=position == went_out,
                cards=kept_cards,
                layout=None if layouts[position] is None else json.dumps(layouts[position]),
                round_id=round_id,
            )
        )
    # One statement for every seat, plain rows; they are kept as written, for the answer.
    connection.execute(queries.INSERT_SCORES, [score.written(now) for score in saved])
    opened.score_rows[round_id] = saved
    if opened.game.finished_at is None and opened.state().next_round is None:
        opened.game.finished_at = now
    return changes.commit(session, opened, state)


def _saved_as(
    round_state: RoundState,
    results: Sequence[SeatResult | None],
    scores: Sequence[int | None],
    went_out: int | None,
) -> bool:
    """Whether the round is saved with exactly these results: the same points, the same
    player out first, the same cards kept by each seat (in any order: a hand is the same
    hand however its cards were tapped)."""
    if round_state.entries is None or round_state.went_out != went_out:
        return False
    for entry, result, points in zip(round_state.entries, results, scores, strict=True):
        if entry is None or result is None:
            if entry is not result:
                return False
            continue
        cards = None
        if result.points is None and not result.went_out:
            cards = sorted(card.code for card in result.cards or ())
        saved_cards = None if entry.cards is None else sorted(card.code for card in entry.cards)
        if (entry.points, saved_cards) != (points, cards):
            return False
    return True


def _stale(state: GameState) -> StaleVersion:
    return StaleVersion(
        _("Someone else changed this game a moment ago. Check the sheet, then save again."),
        current=state,
    )


def _scored(
    state: GameState, number: int, results: Sequence[SeatResult | None]
) -> tuple[RoundState, list[int | None], int | None, list[dict[str, Any] | None]]:
    """Round number scored from results: its plan, every seat's points, who went out and
    each seat's layout (solitaire); RoundError or GameError when it cannot stand."""
    round_state = state.round(number)
    if round_state.entries is None:
        if state.finished:
            raise GameError(
                _("This game is over: no new round can be saved. Corrections still can.")
            )
        waiting = state.next_round
        if waiting is None:
            raise GameError(_("The eleven rounds are over: a tie-break round is being played."))
        if not state.is_solitaire and waiting.number != number:
            raise GameError(
                fill(
                    _("Save round %(number)s first: rounds are saved in order."),
                    number=waiting.number,
                )
            )
    round_name = state.round_name(round_state)
    layouts: list[dict[str, Any] | None] = [None] * len(state.players)
    if state.is_solitaire:
        scores, went_out, layouts[0] = score_pile_result(results, round_state, round_name)
        return round_state, scores, went_out, layouts
    outcome = score_round(
        results,
        seat_names=state.players,
        cards_dealt=round_state.cards_dealt,
        wild_rank=round_state.wild_rank,
        decks=round_state.decks,
        players_in=round_state.players_in,
        round_name=round_name,
    )
    return round_state, outcome.scores, outcome.went_out, layouts


def score_pile_result(
    results: Sequence[SeatResult | None], pile: RoundState, pile_name: str
) -> tuple[list[int | None], int | None, dict[str, Any] | None]:
    """A solitaire pile's points, whether it closed, and its layout when cards were given."""
    if len(results) != 1 or results[0] is None:
        raise RoundError(
            table_errors=[_("Solitaire has one player: give one result for the pile.")]
        )
    result = results[0]
    try:
        scored = score_pile(
            cards_dealt=pile.cards_dealt,
            wild_rank=pile.wild_rank,
            closed=result.went_out,
            cards=result.cards,
            points=result.points,
            pile_name=pile_name,
            recorded=result.confirmed,
        )
    except (PileError, ValueError) as error:
        raise RoundError(seat_errors={0: str(error)}) from error
    layout = None
    if scored.solution is not None:
        layout = {"groups": [g.to_dict() for g in scored.solution.groups]}
        layout["leftover"] = list(scored.solution.leftover)
    return [scored.points], 0 if scored.points == 0 else None, layout


def add_tiebreak(
    session: Session, *, code: str | None = None, game: OpenGame | None = None
) -> GameState:
    """Deal a 6-card round to the players sharing the lowest total; GameError otherwise."""
    opened = changes.opened(session, code, game)
    state = opened.state()
    if state.is_solitaire:
        raise GameError(_("Solitaire has no tie-break: there is only one player."))
    if not state.finished:
        raise GameError(_("A tie-break round comes after the game is over."))
    if not state.can_tiebreak:
        raise GameError(_("There is no tie for the lowest total: the game has one winner."))
    last_played = max((r for r in state.rounds if r.entries is not None), key=lambda r: r.number)
    plan = plan_tiebreak(
        number=len(state.rounds) + 1,
        tied=state.winners,
        last_dealer=last_played.dealer,
        dealing_seats=state.still_in,
        seat_count=len(state.players),
    )
    db_round = store.round_row(opened.id, plan)
    session.add(db_round)
    opened.rounds.append(db_round)
    opened.game.finished_at = None
    return changes.commit(session, opened, state)


def finish_game(
    session: Session, *, code: str | None = None, game: OpenGame | None = None
) -> GameState:
    """End the game now (the shorter-game house rule); the lowest total wins."""
    opened = changes.opened(session, code, game)
    state = opened.state()
    if state.finished:
        session.rollback()
        return state
    if not state.rounds_saved:
        raise GameError(_("Save at least one round before ending the game: nobody has won yet."))
    # Ending during a tie-break means the tied players share the win after all: the
    # unplayed tie-break round goes, so it is not offered twice.
    for db_round in [r for r in opened.rounds if r.kind == "tiebreak"]:
        if not opened.scores.get(db_round.id or 0):
            session.delete(db_round)
            opened.rounds.remove(db_round)
    opened.game.finished_at = datetime.now(UTC)
    return changes.commit(session, opened, state)


def rematch_game(
    session: Session, *, code: str | None = None, game: OpenGame | None = None
) -> tuple[GameState, bool]:
    """The next game of a finished one: the same players in the same seats, the deal starting
    one seat further on. Pages watching the old game are told. True when it is new (a second
    ask gets the rematch already started)."""
    opened = changes.opened(session, code, game)
    old = opened.state()
    if not old.finished:
        raise GameError(_("Finish this game before starting a rematch."))
    # Read again now the game is locked: on PostgreSQL the one read saw the game's rematch
    # as it was before that lock was let go by a rematch asked at the same moment.
    started = session.exec(
        select(Game.id, Game.code, Game.deleted_at).where(Game.rematch_of == opened.id)
    ).first()
    if started is not None and started[2] is None:
        existing = store.read(session, code=started[1], for_edit=False).state()
        session.rollback()
        return existing, False
    if started is not None:
        # The rematch was deleted: a new one takes its place (one rematch a game).
        session.execute(update(Game).where(col(Game.id) == started[0]).values(rematch_of=None))
    # The players at the table at the end, in their seats' order; the deal starts with the
    # first of them clockwise after the old game's first dealer.
    kept = old.still_in
    clockwise = [*range(old.first_dealer + 1, len(old.players)), *range(old.first_dealer + 1)]
    first_dealer = kept.index(next(seat for seat in clockwise if seat in kept))
    new = _new_game(
        session,
        players=[old.players[seat] for seat in kept],
        first_dealer=first_dealer,
        order=old.order,
        mode=old.mode,
        rematch_of=old.game_id,
    )
    new.game.version += 1
    session.flush()
    new_state = new.state()
    changes.tell(
        session,
        GameChange(before=None, after=new_state, rematch_of=old.game_id, rematch_seats=tuple(kept)),
    )
    opened.rematch = (new.game.code, new.game.watch_code)
    changes.commit(session, opened, old)
    return new_state, True


def delete_game(
    session: Session, *, code: str | None = None, game: OpenGame | None = None
) -> GameState:
    """Put the game away: it leaves every list and stat, and can be restored for a while."""
    opened = changes.opened(session, code, game)
    before = opened.state()
    opened.game.deleted_at = datetime.now(UTC)
    return changes.commit(session, opened, before)


def restore_game(
    session: Session, *, code: str | None = None, game: OpenGame | None = None
) -> GameState:
    """Bring back a deleted game, within RESTORE_DAYS of deleting it."""
    opened = changes.opened(session, code, game, include_deleted=True)
    before = opened.state()
    deleted_at = opened.game.deleted_at
    if deleted_at is None:
        session.rollback()
        return before
    deleted_at = deleted_at.replace(tzinfo=deleted_at.tzinfo or UTC)
    if datetime.now(UTC) - deleted_at > timedelta(days=RESTORE_DAYS):
        raise GameNotFound(
            fill(
                _("This game was deleted more than %(days)s days ago and cannot come back."),
                days=RESTORE_DAYS,
            )
        )
    opened.game.deleted_at = None
    return changes.commit(session, opened, before)


def deleted_dates(session: Session, *, game_ids: Sequence[int]) -> dict[int, datetime]:
    """When each of these games was deleted, for those deleted recently enough to be
    restored (RESTORE_DAYS)."""
    cutoff = datetime.now(UTC) - timedelta(days=RESTORE_DAYS)
    found = session.exec(
        select(Game.id, Game.deleted_at).where(
            col(Game.id).in_(game_ids), col(Game.deleted_at).is_not(None)
        )
    ).all()
    dates = {
        game_id: when.replace(tzinfo=when.tzinfo or UTC)
        for game_id, when in found
        if game_id is not None and when is not None
    }
    return {game_id: when for game_id, when in dates.items() if when >= cutoff}


def uids_of(session: Session, *, game_ids: Sequence[int]) -> set[str]:
    """The stable ids of these games."""
    return set(session.exec(select(Game.uid).where(col(Game.id).in_(game_ids))).all())


def purge_deleted(session: Session, *, now: datetime | None = None) -> int:
    """Remove for good the games deleted more than RESTORE_DAYS ago (their rounds, seats,
    results and replaced codes, and whatever the purge listeners keep of them). Returns how
    many went."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=RESTORE_DAYS)
    begin_write(session)
    game_ids = list(
        session.exec(
            select(Game.id).where(col(Game.deleted_at).is_not(None), col(Game.deleted_at) < cutoff)
        ).all()
    )
    if not game_ids:
        session.rollback()
        return 0
    remove_games(session, game_ids)
    session.commit()
    return len(game_ids)


def remove_games(session: Session, game_ids: Sequence[int]) -> None:
    """Remove games for good inside the caller's write transaction: their rounds, seats,
    results and replaced codes, and whatever the purge listeners keep of them."""
    changes.tell_purged(session, game_ids)
    round_ids = select(GameRound.id).where(col(GameRound.game_id).in_(game_ids))
    for statement in (
        delete(SeatScore).where(col(SeatScore.round_id).in_(round_ids)),
        delete(GameRound).where(col(GameRound.game_id).in_(game_ids)),
        delete(Seat).where(col(Seat.game_id).in_(game_ids)),
        delete(ReplacedCode).where(col(ReplacedCode.game_id).in_(game_ids)),
        delete(Game).where(col(Game.id).in_(game_ids)),
    ):
        session.execute(statement)
