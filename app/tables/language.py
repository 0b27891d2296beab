"""A table's language: the language of its pages, and of its games' pages, for every reader
who did not choose one of their own (app/i18n.py says who decides)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from ..db import begin_write
from ..i18n import LANGUAGES, _, fill
from ..models import PlayTable, TableGame
from .service import find_row, load_table
from .state import TableError, TableState
from .sums import advance


def set_language(session: Session, *, table_code: str, language: str | None) -> TableState:
    """Choose the language of the table's pages (None: each reader's browser decides)."""
    if language is not None and language not in LANGUAGES:
        raise TableError(
            fill(
                _("A table's language is one of %(languages)s, or none."),
                languages=", ".join(LANGUAGES),
            )
        )
    begin_write(session)
    table = find_row(session, table_code, lock=True)
    table.language = language
    session.add(table)
    advance(session, [table.id or 0])
    session.commit()
    return load_table(session, code=table_code)


def language_of_game(session: Session, *, game_id: int) -> str | None:
    """The language chosen by the table a game was played at (None: none, or no table)."""
    return session.exec(
        select(PlayTable.language)
        .join(TableGame, col(TableGame.table_id) == PlayTable.id)
        .where(TableGame.game_id == game_id)
    ).first()
