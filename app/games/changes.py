"""How every change to a game is made: open it (the write lock, then one read), change its
rows, and commit, telling the listeners inside the transaction and the commit hooks (the
live pages) after."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlmodel import Session

from ..db import begin_write
from . import store
from .state import GameChange, GameState
from .store import OpenGame

GameListener = Callable[[Session, GameChange], None]
CommitHook = Callable[[GameState], None]
PurgeListener = Callable[[Session, Sequence[int]], None]
_listeners: list[GameListener] = []
_committed: list[CommitHook] = []
_purged: list[PurgeListener] = []


def on_change(listener: GameListener) -> None:
    """Call listener inside every change's transaction with the change, so another service
    (the tables' stats) stays in step with it. Registering the same listener twice is once."""
    if listener not in _listeners:
        _listeners.append(listener)


def on_commit(hook: CommitHook) -> None:
    """Call hook with the game's new state after every change commits (the live pages are
    told so). Registering the same hook twice is once."""
    if hook not in _committed:
        _committed.append(hook)


def on_purge(listener: PurgeListener) -> None:
    """Call listener with the ids of games about to be removed for good, inside the purge's
    transaction, so another service drops what it keeps of them first."""
    if listener not in _purged:
        _purged.append(listener)


def tell_purged(session: Session, game_ids: Sequence[int]) -> None:
    """Hand the ids of games about to be removed to every purge listener."""
    for listener in _purged:
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
    for listener in _listeners:
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
    game.game.version += 1
    session.add(game.game)
    session.flush()
    state = game.state()
    tell(session, GameChange(before=before, after=state, **change))
    if then is not None:
        then(state)
    session.commit()
    for hook in _committed:
        hook(state)
    return state
