"""Games as documents: the JSON export and import (with a format version and each game's
stable id) and the score sheet as CSV. Joins the games and tables services; nothing else."""

from __future__ import annotations

import csv
import gc
import io
import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import ijson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from sqlmodel import Session

from . import games, tables
from .db import begin_write
from .games import GameError, GameState, PlayerState, RoundRecord, RoundState
from .names import UnreadableText, plain_name
from .rules.cards import RANK_CODES, CardError, parse_card
from .rules.scoring import RoundError, SeatResult

FORMAT = 1
# Games checked and written together in an import (one INSERT a kind of row for each batch).
IMPORT_BATCH = 250
_RANK_BY_CODE = {code: rank for rank, code in RANK_CODES.items()}


class ImportRefused(ValueError):
    """A document that cannot be imported; the message says why. Nothing was changed."""


class ImportTooBig(ImportRefused):
    """A document with more games than one import takes (IMPORT_MAX_GAMES)."""


# Deepest nesting the format has (table, games, a game, rounds, a round, results, a result,
# cards) with room to spare; anything deeper is refused as soon as it is read.
MOST_NESTING = 16
PARSE_CHUNK = 1 << 19
_OPENS = frozenset(("start_map", "start_array"))
_CLOSES = frozenset(("end_map", "end_array"))


def check_document(raw: bytes, *, most_games: int, most: int = MOST_NESTING) -> None:
    """ImportRefused (ImportTooBig past most_games) for a body that is not JSON, nests
    deeper than `most` or holds more games than one import takes: judged in one pass of a
    streaming parser (yajl, in C, with no backtracking), the games counted as they are read
    and nothing built, so a hostile body costs time and memory in step with its size and
    is refused at the first byte that gives it away."""
    depth = 0
    top_key = None
    in_games = False
    games = 0
    try:
        for event, value in ijson.basic_parse(
            io.BytesIO(raw), use_float=True, buf_size=PARSE_CHUNK
        ):
            if event in _OPENS:
                depth += 1
                if depth > most:
                    raise ImportRefused(
                        "The document nests deeper than an export ever does "
                        f"(more than {most} levels)."
                    )
                if depth == 2 and top_key == "games" and event == "start_array":
                    in_games = True
                    continue
            elif event in _CLOSES:
                depth -= 1
                if depth == 1:
                    in_games = False
                continue
            elif event == "map_key":
                if depth == 1:
                    top_key = value
                continue
            if in_games and depth in (2, 3) and (event in _OPENS) == (depth == 3):
                games += 1
                if games > most_games:
                    raise ImportTooBig(
                        f"The document holds {games} games or more; one import takes at most "
                        f"{most_games} (IMPORT_MAX_GAMES). Split it, or ask whoever runs "
                        "Crownkeeper to raise the limit."
                    )
    except ImportRefused:
        raise
    except (ijson.JSONError, ValueError, UnicodeDecodeError, OverflowError) as error:
        # ValueError: a number past Python's digit limit, or text that is not UTF-8.
        raise ImportRefused("The document is not valid JSON.") from error


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


class _ResultIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    points: int = Field(ge=0, le=10_000)
    went_out: bool = False
    cards: list[str] | None = Field(default=None, max_length=60)


class _RoundIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    number: int
    kind: Literal["round", "tiebreak"] = "round"
    cards_dealt: int
    wild_rank: str
    dealer: int
    first_player: int | None = None
    players_in: list[int] | None = Field(default=None, min_length=1, max_length=50)
    results: list[_ResultIn | None] | None = Field(default=None, max_length=50)


class _SeatIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(max_length=200)
    start_points: int = Field(default=0, ge=0, le=9999)
    joined_round: int | None = Field(default=None, ge=1, le=100)
    left_round: int | None = Field(default=None, ge=1, le=100)


def _when(value: datetime | None) -> datetime | None:
    """A date as stored: with a time zone (UTC when it has none), within what the databases
    hold (years 1 to 9999 in UTC)."""
    if value is None:
        return None
    try:
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:
        raise ValueError("is outside the dates Crownkeeper keeps (years 1 to 9999)") from None


def _plain_id(value: str) -> str:
    if any(unicodedata.category(char) in ("Cc", "Cf", "Cs") for char in value):
        raise ValueError("holds control or invisible characters")
    return value


class _GameIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    format: int | None = None
    id: Annotated[str, AfterValidator(_plain_id)] = Field(min_length=1, max_length=64)
    mode: Literal["game", "solitaire"] | None = None
    order: Literal["up", "down", "shuffled"] = "up"
    players: list[str] = Field(min_length=1, max_length=50)
    seats: list[_SeatIn] | None = Field(default=None, max_length=50)
    first_dealer: int = 0
    created_at: Annotated[datetime, AfterValidator(_when)]
    finished_at: Annotated[datetime | None, AfterValidator(_when)] = None
    rounds: list[_RoundIn] = Field(min_length=1, max_length=50)


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


@dataclass(frozen=True)
class Imported:
    """What an import did: games added, and games of the document already at the table."""

    added: int
    already_there: int


def import_document(session: Session, raw: bytes, **limits: Any) -> Imported:
    """Read an export's bytes and import its games (see import_table); ImportRefused in
    words for a document that cannot be read. Run it off the event loop: the cycle collector
    waits meanwhile, since an import makes a few million short-lived objects and each full
    collection through them held every other request for up to seconds."""
    check_document(raw, most_games=limits.get("max_games", 2000))
    paused = gc.isenabled()
    gc.disable()
    try:
        try:
            document = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError) as error:
            raise ImportRefused("The document is not valid JSON.") from error
        return import_table(session, document=document, **limits)
    finally:
        if paused:
            gc.enable()


def import_table(
    session: Session,
    *,
    table_code: str,
    document: Any,
    max_games: int = 2000,
    max_people: int = 500,
) -> Imported:
    """Recreate the document's games at the table (new codes, the same rounds, people by
    name); games already there (by stable id) are skipped. Says how many were added.
    ImportRefused, with nothing changed, for a malformed or newer document, or one over the
    limits (ImportTooBig: more than max_games; more people than max_people at the table),
    which are checked first. The games are written in bulk, in one transaction."""
    tables.check_keeper_code(session, code=table_code)
    document = _table_document(document)
    games_in = document.get("games")
    if isinstance(games_in, list) and len(games_in) > max_games:
        raise ImportTooBig(
            f"The document holds {len(games_in)} games; one import takes at most {max_games} "
            "(IMPORT_MAX_GAMES). Split it, or ask whoever runs Crownkeeper to raise the limit."
        )
    people = tables.people_after(session, table_code=table_code, names=_names_in(games_in))
    session.rollback()
    if people > max_people:
        raise ImportRefused(
            f"The import would bring the table to {people} people; a table has at most "
            f"{max_people} (TABLE_MAX_PEOPLE). Nothing was imported."
        )
    games_in = _parse(document)
    begin_write(session)
    # Under the write lock: a second import of the same document waits, then skips it all.
    known = tables.known_sources(session, table_code=table_code, lock=True)
    # One transaction, written a batch of games at a time: each game is read into the format
    # and checked on its own (the document's copy let go as it goes), so neither the
    # document nor its rows are ever all in memory twice, and a refusal anywhere rolls
    # everything back.
    added = 0
    for start in range(0, len(games_in), IMPORT_BATCH):
        checked: list[tuple[games.RecordedGame, str]] = []
        for index in range(start, min(start + IMPORT_BATCH, len(games_in))):
            game = _game(games_in, index)
            if game.id in known:
                continue
            try:
                recorded = games.check_recorded_game(
                    players=game.players,
                    first_dealer=game.first_dealer,
                    rounds=[_round_record(r) for r in game.rounds],
                    created_at=game.created_at,
                    finished_at=game.finished_at,
                    mode=game.mode,
                    order=game.order,
                    seats=None if game.seats is None else [_seat(seat) for seat in game.seats],
                )
            except (GameError, RoundError, CardError) as error:
                session.rollback()
                raise ImportRefused(f"Game {index + 1} of the document: {error}") from error
            checked.append((recorded, game.id))
            known.add(game.id)
        states = games.add_recorded_games(session, [recorded for recorded, _ in checked])
        tables.add_recorded_games(
            session,
            table_code=table_code,
            recorded=[(state, source) for state, (_, source) in zip(states, checked, strict=True)],
        )
        added += len(states)
    tables.sum_stats(session, table_code=table_code)
    session.commit()
    return Imported(added=added, already_there=len(games_in) - added)


def _table_document(document: Any) -> dict[str, Any]:
    """The document as a table export (one game's export is a table of one game)."""
    if not isinstance(document, dict):
        raise ImportRefused("The document is not a Crownkeeper export (a JSON object).")
    if "games" not in document and "rounds" in document:
        return {"format": document.get("format"), "games": [document]}
    return document


def _names_in(games_in: Any) -> list[str]:
    """The player names a document's games hold, as names are kept (before any check)."""
    names = []
    for game in games_in if isinstance(games_in, list) else ():
        players = game.get("players") if isinstance(game, dict) else None
        for name in players if isinstance(players, list) else ():
            if isinstance(name, str):
                try:
                    names.append(plain_name(name))
                except UnreadableText:
                    continue
    return [name for name in names if name]


def _parse(document: dict[str, Any]) -> list[Any]:
    """The document's games, once its format is one this Crownkeeper reads."""
    version = document.get("format")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ImportRefused('The document has no "format" version: it is not an export.')
    if version > FORMAT:
        raise ImportRefused(
            f"The document is in format {version}, made by a newer Crownkeeper; this one "
            f"reads format {FORMAT}. Update Crownkeeper first."
        )
    if version < 1:
        raise ImportRefused(f"Format {version} is not a format Crownkeeper ever wrote.")
    games_in = document.get("games")
    if not isinstance(games_in, list):
        raise ImportRefused('The document is malformed at games: it needs a list of "games".')
    return games_in


def _game(games_in: list[Any], index: int) -> _GameIn:
    """Game index of the document in the format (its raw copy let go); ImportRefused, saying
    where, when it is malformed."""
    raw, games_in[index] = games_in[index], None
    try:
        return _GameIn.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in ("games", index, *first.get("loc", ())))
        raise ImportRefused(f"The document is malformed at {where}: {first['msg']}.") from error


def _seat(seat: _SeatIn) -> PlayerState:
    return PlayerState(
        name=seat.name,
        start_points=seat.start_points,
        joined_round=seat.joined_round,
        left_round=seat.left_round,
    )


def _round_record(round_in: _RoundIn) -> RoundRecord:
    rank = _RANK_BY_CODE.get(round_in.wild_rank.upper())
    if rank is None:
        raise GameError(f"Round {round_in.number} has an unknown wild rank.")
    results = None
    if round_in.results is not None:
        # Cards, when kept, are what was typed (a solitaire pile that closed keeps its cards
        # and their layout); else going out; else the points.
        results = [
            None
            if result is None
            else SeatResult(cards=tuple(parse_card(c) for c in result.cards))
            if result.cards is not None
            else SeatResult(went_out=True)
            if result.went_out
            else SeatResult(points=result.points)
            for result in round_in.results
        ]
    return RoundRecord(
        number=round_in.number,
        cards_dealt=round_in.cards_dealt,
        wild_rank=rank,
        dealer=round_in.dealer,
        results=results,
        kind=round_in.kind,
        first_player=round_in.first_player,
        players_in=round_in.players_in,
    )


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
