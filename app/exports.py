"""Games as documents: the JSON export (with a format version and each game's stable id;
imports.py reads it back) and the score sheet as CSV. Joins the games and tables services;
nothing else."""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session

from . import games, tables
from .games import GameState, RoundState

FORMAT = 1


def game_document(state: GameState) -> dict[str, Any]:
    """The whole game as JSON: players (and when each came and went), the planned rounds
    and every saved result. Fields added since format 1 are optional on import, so every
    format 1 document still reads."""
    return {
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


def table_document(session: Session, *, table_code: str) -> dict[str, Any]:
    """Every game of the table, oldest first, in the game format."""
    table = tables.load_table(session, code=table_code)
    documents = [
        game_document(games.load_game(session, code=code))
        for code in tables.game_codes(session, table_code=table_code)
    ]
    return {"format": FORMAT, "name": table.name, "games": documents}


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
    writer.writerow(["Round", "Cards dealt", "Wild", "Dealer", *map(_cell, state.players)])
    if any(seat.joined for seat in state.seats):
        starts = [seat.start_points if seat.joined else "" for seat in state.seats]
        writer.writerow(["Joined with", "", "", "", *starts])

    def round_row(r: RoundState, label: str | int) -> list[str | int]:
        scores = r.scores or [None] * len(state.players)
        points = ["" if p is None else p for p in scores]
        return [label, r.cards_dealt, r.wild_rank_code, _cell(state.players[r.dealer]), *points]

    for r in state.main_rounds:
        writer.writerow(round_row(r, r.number))
    writer.writerow(["Total", "", "", "", *state.totals])
    for r in state.tiebreaks:
        writer.writerow(round_row(r, "Tie-break"))
    return out.getvalue()
