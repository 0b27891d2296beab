"""How every change to a game is made: open it (the write lock, then one read), change its
rows, and commit, telling the listeners the session carries (GameEvents) inside the
transaction and the commit hooks (the live pages) after."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from ..db import begin_write
from . import queries, store
from .queries import GameRecord
from .state import GameChange, GameState
from .store import OpenGame

GameListener = Callable[[Session, GameChange], None]
CommitHook = Callable[[GameState], None]
PurgeListener = Callable[[Session, Sequence[int]], None]
EVENTS_KEY = "crownkeeper.game_events"


@dataclass(frozen=True, slots=True)
class GameEvents:
    """Who hears of every change to a game, built by the app's factory and carried by each
    session it opens (`sessions`): changed, inside the change's transaction (the tables'
    copy of their games); committed, with the new state after the commit (the live pages);
    purged, with the ids of games about to be removed for good, inside the purge's
    transaction."""

    changed: tuple[GameListener, ...] = ()
    committed: tuple[CommitHook, ...] = ()
    purged: tuple[PurgeListener, ...] = ()


class Unwired(RuntimeError):
    """A change was asked of a session that does not say who hears of it."""


def sessions(engine: Engine, events: GameEvents) -> Callable[[], Session]:
    """Open sessions on engine whose changes are told to events' listeners."""
    return partial(Session, engine, info={EVENTS_KEY: events})


def events_of(session: Session) -> GameEvents:
    """The listeners session's changes are told to: a session opened without them is an
    error, never a change the tables silently miss."""
    try:
        events = session.info[EVENTS_KEY]
    except KeyError:
        raise Unwired(
            "Changes need a session that says who hears of them: open it with "
            "games.sessions(engine, events)."
        ) from None
    assert isinstance(events, GameEvents)
    return events


def tell_purged(session: Session, game_ids: Sequence[int]) -> None:
    """Hand the ids of games about to be removed to every purge listener."""
    for listener in events_of(session).purged:
        listener(session, game_ids)


def open_game(
    session: Session, *, code: str, include_deleted: bool = False, begun: bool = False
) -> OpenGame:
    """The game for a change with the scorekeeper's code: the write lock taken, its rows
    read once. Pass it to the operation as `game`; GameNotFound or ReadOnlyLink otherwise.
    begun: the caller began the write transaction and locked what comes before a game in
    the lock order (its table)."""
    if not begun:
        begin_write(session)
    try:
        return store.read(session, code=code, include_deleted=include_deleted)
    except Exception:
        # An unknown or a watch code: let go of the write lock here, in this thread.
        session.rollback()
        raise


def opened(
    session: Session, code: str | None, game: OpenGame | None, *, include_deleted: bool = False
) -> OpenGame:
    """The game an operation changes: the one the caller opened, else opened now by code."""
    if game is not None:
        return game
    assert code is not None, "give the game's code or the game opened for the change"
    return open_game(session, code=code, include_deleted=include_deleted)


def tell(session: Session, change: GameChange) -> None:
    """Hand a change to every listener, inside its transaction."""
    for listener in events_of(session).changed:
        listener(session, change)


def commit(
    session: Session,
    game: OpenGame,
    before: GameState | None,
    *,
    then: Callable[[GameState], None] | None = None,
    **change: Any,
) -> GameState:
    """Write the change (with every listener's part of it, and then's: the caller's), then
    tell every open page. The answer is built from the rows written, not read back."""
    events = events_of(session)
    game.game.version += 1
    if isinstance(game.game, GameRecord):
        session.flush()  # the seats and rounds an operation changed (none for a save)
        session.connection().execute(
            queries.UPDATE_GAME, {"of_game": game.id, **game.game.changes()}
        )
    else:  # a game just added (its rows are ORM objects)
        session.add(game.game)
        session.flush()
    state = game.state()
    tell(session, GameChange(before=before, after=state, **change))
    if then is not None:
        then(state)
    session.commit()
    for hook in events.committed:
        hook(state)
    return state
