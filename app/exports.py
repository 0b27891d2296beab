"""Games as documents: the JSON export (with a format version and each game's stable id;
imports.py reads it back), a table's written out a game at a time, and the score sheet as
CSV. Joins the games and tables services; nothing else."""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from . import games, tables
from .games import GameState, RoundState
from .i18n import pgettext

FORMAT = 1


def game_document(state: GameState, people: Sequence[str] | None = None) -> dict[str, Any]:
    """The whole game as JSON: players (and when each came and went), the planned rounds
    and every saved result; with people (a table's export), the table's person in each
    seat, by the name the table knows them by now. Fields added since format 1 are
    optional on import, so every format 1 document still reads."""
    document = {
        "format": FORMAT,
        "id": state.uid,
        "mode": state.mode,
        "order": state.order,
        "players": list(state.players),
        "seats": [
            {
                "name": seat.name,
                "start_points": seat.start_points,
                "joined_round": seat.joined_round,
                "left_round": seat.left_round,
            }
            for seat in state.seats
        ],
        "first_dealer": state.first_dealer,
        "created_at": state.created_at.isoformat() if state.created_at else None,
        "finished_at": state.finished_at.isoformat() if state.finished_at else None,
        "rounds": [
            {
                "number": r.number,
                "kind": r.kind,
                "cards_dealt": r.cards_dealt,
                "wild_rank": r.wild_rank_code,
                "dealer": r.dealer,
                "first_player": r.first_player,
                "players_in": list(r.players_in),
                "results": None
                if r.entries is None
                else [
                    None
                    if entry is None
                    else {
                        "points": entry.points,
                        "went_out": entry.went_out,
                        "cards": None
                        if entry.cards is None
                        else [card.code for card in entry.cards],
                    }
                    for entry in r.entries
                ],
            }
            for r in state.rounds
        ],
    }
    if people is not None:
        # A person renamed or merged since keeps their old name on the game's sheet
        # ("players"): an import puts each seat's game with the person named here.
        document["people"] = list(people)
    return document


# A table's games are read this many at a time, each batch in a few statements.
EXPORT_BATCH = 200
# As JSONResponse writes JSON: an export is the same bytes whether written whole or a game
# at a time.
_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def table_export(
    session: Session, engine: Engine, *, table_code: str
) -> tuple[str, Iterator[bytes]]:
    """The table's name, and every game of the table, oldest first, in the game format, as
    one document ({"format", "name", "games"}) written a game at a time. The table is found
    at once with session (TableNotFound before anything is written); its games are read as
    the bytes are asked for, on engine (table_chunks), so the document can be sent after
    session is gone, from a thread, without holding the event loop."""
    name, game_ids = tables.exported_games(session, table_code=table_code)
    return name, table_chunks(engine, name=name, game_ids=game_ids)


def table_chunks(engine: Engine, *, name: str, game_ids: Sequence[int]) -> Iterator[bytes]:
    """The table's document, written a game at a time and handed on a batch at a time: the
    games read EXPORT_BATCH at a time, each batch in a short session of its own, so a slow
    reader holds no connection between batches (and the server's thread is asked for the
    next bytes once a batch, not once a game). A game deleted meanwhile is left out."""
    yield b'{"format":%d,"name":%s,"games":[' % (FORMAT, _JSON.encode(name).encode())
    first = True
    for start in range(0, len(game_ids), EXPORT_BATCH):
        with Session(engine) as session:
            batch = games.load_games(session, game_ids=game_ids[start : start + EXPORT_BATCH])
            people = tables.seated_people(session, game_ids=[state.game_id for state in batch])
        written = [
            _JSON.encode(game_document(state, people.get(state.game_id))).encode()
            for state in batch
        ]
        if written:
            yield (b"" if first else b",") + b",".join(written)
            first = False
    yield b"]}"


def download_name(*parts: str, when: datetime | None = None, suffix: str = "json") -> str:
    """A file name for a download: crownkeeper-, the words that name it (letters and digits
    only, joined by hyphens), the date, the suffix."""
    words = [
        word
        for part in parts
        for word in re.split(r"[^0-9a-z]+", unicodedata.normalize("NFKD", part).lower())
        if word
    ]
    stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%d")
    return "-".join(["crownkeeper", *words[:8], stamp]) + f".{suffix}"


def attachment(filename: str) -> dict[str, str]:
    """The header that makes a browser save the answer as filename."""
    return {"Content-Disposition": f'attachment; filename="{filename}"'}


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """A text cell a spreadsheet will not run as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def sheet_csv(state: GameState) -> str:
    """The score sheet: a header, a row per round (number, cards dealt, wild rank, dealer,
    each player's points; blank when not played or not in it), and a totals row. A player
    who sat down mid-game adds a "Joined with" row first, so each column adds up to its
    total; tie-break rounds, which never count in the totals, come after it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    heading = [
        pgettext("sheet", "Round"),
        pgettext("sheet", "Cards dealt"),
        pgettext("sheet", "Wild"),
        pgettext("sheet", "Dealer"),
    ]
    writer.writerow([*heading, *map(_cell, state.players)])
    if any(seat.joined for seat in state.seats):
        starts = [seat.start_points if seat.joined else "" for seat in state.seats]
        writer.writerow([pgettext("sheet", "Joined with"), "", "", "", *starts])

    def round_row(r: RoundState, label: str | int) -> list[str | int]:
        scores = r.scores or [None] * len(state.players)
        points = ["" if p is None else p for p in scores]
        return [label, r.cards_dealt, r.wild_rank_code, _cell(state.players[r.dealer]), *points]

    for r in state.main_rounds:
        writer.writerow(round_row(r, r.number))
    writer.writerow([pgettext("sheet", "Total"), "", "", "", *state.totals])
    for r in state.tiebreaks:
        writer.writerow(round_row(r, pgettext("sheet", "Tie-break")))

    return out.getvalue()
