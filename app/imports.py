"""A table's games brought in from an export. Joins the games and tables services; nothing
else.

Bounded in every way a body could stretch it: the document is first read once by a
streaming parser (yajl, in C: no backtracking) that checks it is JSON, how deep it nests,
its format and how many games it holds, and gathers the names it brings, without building
it; only then are its games read one at a time, checked by the rules and written a batch at
a time, each batch in a short transaction of its own, so saves to other games go on between
them. Written games stay hidden (as deleted, at no table) until a last short transaction,
with the table locked, puts them all at the table at once: the table sees the whole import
or none of it, and a refused or failed import removes what it wrote."""

from __future__ import annotations

import io
import json
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import ijson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from sqlmodel import Session

from . import games, tables
from .db import begin_write
from .exports import FORMAT
from .games import GameError, PlayerState, RoundRecord
from .i18n import fill
from .i18n import gettext as _
from .names import UnreadableText, plain_name
from .rules.cards import RANK_CODES, CardError, parse_card
from .rules.scoring import RoundError, SeatResult
from .tables import TableError

IMPORT_BATCH = 50
"""Games checked and written together: one short transaction, one INSERT a kind of row."""
IMPORTS_AT_ONCE = 1
"""Imports this process works on at once; the rest wait their turn, so ten large imports
cost the memory and the processor time of one."""
MOST_NESTING = 16
"""Deepest nesting the format has (table, games, a game, rounds, a round, results, a
result, cards) with room to spare; anything deeper is refused as soon as it is read."""
PARSE_CHUNK = 1 << 16
"""Bytes the parser takes at a time: it hands the interpreter on between chunks."""
LONGEST_VALUE = 1 << 16
"""No value of an export (a name, an id, a date, a number) comes near this many bytes."""
_STRUCTURE = tuple(bytes([char]) for char in b",:{}[]")
_RANK_BY_CODE = {code: rank for rank, code in RANK_CODES.items()}
_OPENS = frozenset(("start_map", "start_array"))
_CLOSES = frozenset(("end_map", "end_array"))
_importing = threading.BoundedSemaphore(IMPORTS_AT_ONCE)


class ImportRefused(ValueError):
    """A document that cannot be imported; the message says why. Nothing was changed."""


class ImportTooBig(ImportRefused):
    """A document with more games than one import takes (IMPORT_MAX_GAMES)."""


@dataclass
class Outline:
    """What one streaming pass learns of a document: its format, whether it is one game's
    export (not a table's), how many games it holds and the names they bring."""

    format: Any = None
    one_game: bool = False
    games: int = 0
    names: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Imported:
    """What an import did: games added, and games of the document already at the table."""

    added: int
    already_there: int


def check_document(raw: bytes, *, most_games: int, most: int = MOST_NESTING) -> Outline:
    """The document's outline, or ImportRefused (ImportTooBig past most_games) for a body
    that is not a JSON object, nests deeper than `most`, holds more games than one import
    takes or is in no format this Crownkeeper reads: judged in one pass of a streaming
    parser, the games counted as they are read and nothing built, so a hostile body costs
    time and memory in step with its size and is refused at the first byte that gives it
    away."""
    _check_values(raw)
    outline = Outline()
    depth = 0
    keys: set[str] = set()
    games_kind = None
    names_of_games: set[str] = set()
    names_of_one: set[str] = set()
    # A game of a table's export names the person in each seat ("people"): those are the
    # names it brings to the table, not the names on its sheet ("players").
    game_players: set[str] = set()
    game_people: set[str] | None = None
    # Where the parser is, as far down as an outline looks: the key open at each depth.
    path: list[str | None] = [None] * (most + 2)
    an_object = False
    try:
        for event, value in ijson.basic_parse(
            io.BytesIO(raw), use_float=True, buf_size=PARSE_CHUNK
        ):
            if event in _OPENS:
                if depth == 0:
                    an_object = event == "start_map"
                depth += 1
                if depth > most:
                    raise ImportRefused(
                        fill(
                            _(
                                "The document nests deeper than an export ever does "
                                "(more than %(most)s levels)."
                            ),
                            most=most,
                        )
                    )
                path[depth] = None
                if depth == 2 and path[1] == "games":
                    games_kind = event
                elif depth == 3 and path[1] == "games" and games_kind == "start_array":
                    _count_game(outline, most_games)
                    game_players, game_people = set(), None
                elif depth == 4 and path[1] == "games" and path[3] == "people":
                    game_people = set()
                continue
            if event in _CLOSES:
                if depth == 3 and path[1] == "games" and games_kind == "start_array":
                    names_of_games.update(game_players if game_people is None else game_people)
                depth -= 1
                continue
            if event == "map_key":
                path[depth] = value
                if depth == 1:
                    keys.add(value)
                continue
            if depth == 1 and path[1] == "format":
                outline.format = value
            elif depth == 2 and path[1] == "games" and games_kind == "start_array":
                _count_game(outline, most_games)
            elif event == "string" and depth == 4 and path[1] == "games" and path[3] == "players":
                _add_name(game_players, value)
            elif (
                event == "string"
                and depth == 4
                and path[1] == "games"
                and path[3] == "people"
                and game_people is not None
            ):
                _add_name(game_people, value)
            elif event == "string" and depth == 2 and path[1] == "players":
                _add_name(names_of_one, value)
    except ImportRefused:
        raise
    except (ijson.JSONError, ValueError, UnicodeDecodeError, OverflowError) as error:
        # ValueError: a number past Python's digit limit, or text that is not UTF-8.
        raise ImportRefused(_("The document is not valid JSON.")) from error
    if not an_object:
        raise ImportRefused(_("The document is not a Crownkeeper export (a JSON object)."))
    outline.one_game = "games" not in keys and "rounds" in keys
    outline.names = names_of_one if outline.one_game else names_of_games
    if outline.one_game:
        outline.games = 1
    _check_format(outline.format)
    if not outline.one_game and games_kind != "start_array":
        raise ImportRefused(_('The document is malformed at games: it needs a list of "games".'))
    return outline


def _check_values(raw: bytes) -> None:
    """ImportRefused when a stretch of the body holding none of JSON's , : { } [ ] covers
    two whole windows of LONGEST_VALUE bytes: no export has such a value, and the parser
    would copy a value that long again for every chunk it spans. One pass of the bytes'
    own search, a window at a time."""
    bare = 0
    for start in range(0, len(raw), LONGEST_VALUE):
        end = start + LONGEST_VALUE
        if any(raw.find(char, start, end) >= 0 for char in _STRUCTURE):
            bare = 0
            continue
        bare += 1
        if bare == 2:
            raise ImportRefused(
                fill(
                    _(
                        "The document holds a value longer than any export's (a name, a date "
                        "or a number running past %(kb)s KB)."
                    ),
                    kb=LONGEST_VALUE // 1024,
                )
            )


def _count_game(outline: Outline, most_games: int) -> None:
    outline.games += 1
    if outline.games > most_games:
        raise ImportTooBig(
            fill(
                _(
                    "The document holds %(games)s games or more; one import takes at most "
                    "%(most)s (IMPORT_MAX_GAMES). Split it, or ask whoever runs Crownkeeper "
                    "to raise the limit."
                ),
                games=outline.games,
                most=most_games,
            )
        )


def _add_name(names: set[str], name: str) -> None:
    try:
        cleaned = plain_name(name)
    except UnreadableText:
        return  # not a name: the game's check refuses it in words
    if cleaned:
        names.add(cleaned)


def _check_format(version: Any) -> None:
    if not isinstance(version, int) or isinstance(version, bool):
        raise ImportRefused(_('The document has no "format" version: it is not an export.'))
    if version > FORMAT:
        raise ImportRefused(
            fill(
                _(
                    "The document is in format %(version)s, made by a newer Crownkeeper; this "
                    "one reads format %(format)s. Update Crownkeeper first."
                ),
                version=version,
                format=FORMAT,
            )
        )
    if version < 1:
        raise ImportRefused(
            fill(_("Format %(version)s is not a format Crownkeeper ever wrote."), version=version)
        )


def import_document(
    session: Session, raw: bytes, *, table_code: str, max_games: int = 2000, max_people: int = 500
) -> Imported:
    """Recreate the document's games at the table (new codes, the same rounds, people by
    name); games already there (by stable id) are skipped. ImportRefused in words, with
    nothing changed, for a document that cannot be read, a malformed or newer one, or one
    over the limits (ImportTooBig: more than max_games; more people than max_people at the
    table), which are checked first. Run it off the event loop."""
    tables.check_keeper_code(session, code=table_code)
    outline = check_document(raw, most_games=max_games)
    _check_people(session, table_code, outline.names, max_people)
    with _importing:
        known = tables.known_sources(session, table_code=table_code)
        session.rollback()
        written: list[tables.ImportedGame] = []
        try:
            for batch in _batches(_games_of(raw, outline), known):
                begin_write(session)
                states = games.add_recorded_games(
                    session, [recorded for recorded, _, _ in batch], hidden=True
                )
                session.commit()
                written.extend(
                    tables.imported_game(state, source, people)
                    for state, (_, source, people) in zip(states, batch, strict=True)
                )
            added = tables.link_imported(
                session, table_code=table_code, imported=written, max_people=max_people
            )
        except TableError as error:  # the people limit, met meanwhile: nothing kept
            raise ImportRefused(str(error)) from error
        except BaseException:
            session.rollback()
            _remove(session, [game.game_id for game in written])
            raise
    return Imported(added=added, already_there=outline.games - added)


def _check_people(session: Session, table_code: str, names: set[str], max_people: int) -> None:
    people = tables.people_after(session, table_code=table_code, names=sorted(names))
    session.rollback()
    if people > max_people:
        raise ImportRefused(str(tables.crowded(people, max_people, importing=True)))


def _remove(session: Session, game_ids: list[int]) -> None:
    """Remove the games an import wrote hidden and did not keep."""
    if game_ids:
        begin_write(session)
        games.remove_games(session, game_ids)
        session.commit()


def _games_of(raw: bytes, outline: Outline) -> Iterator[Any]:
    """The document's games, one at a time, as parsed JSON (never the whole document)."""
    if outline.one_game:
        yield json.loads(raw)
        return
    yield from ijson.items(io.BytesIO(raw), "games.item", use_float=True, buf_size=PARSE_CHUNK)


def _batches(
    games_in: Iterator[Any], known: set[str]
) -> Iterator[list[tuple[games.RecordedGame, str, list[str] | None]]]:
    """The document's games not yet at the table, each read into the format and checked by
    the rules, IMPORT_BATCH at a time, with the person in each seat when the document names
    them; ImportRefused saying which game when one cannot stand."""
    batch: list[tuple[games.RecordedGame, str, list[str] | None]] = []
    for index, raw_game in enumerate(games_in):
        game = _game(raw_game, index)
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
            people = None if game.people is None else _people(game.people, game.players)
        except (GameError, RoundError, CardError) as error:
            raise ImportRefused(
                fill(
                    _("Game %(number)s of the document: %(error)s"),
                    number=index + 1,
                    error=error,
                )
            ) from error
        known.add(game.id)
        batch.append((recorded, game.id, people))
        if len(batch) == IMPORT_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


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
        raise ValueError(_("is outside the dates Crownkeeper keeps (years 1 to 9999)")) from None


def _plain_id(value: str) -> str:
    if any(unicodedata.category(char) in ("Cc", "Cf", "Cs") for char in value):
        raise ValueError(_("holds control or invisible characters"))
    return value


class _GameIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    format: int | None = None
    id: Annotated[str, AfterValidator(_plain_id)] = Field(min_length=1, max_length=64)
    mode: Literal["game", "solitaire"] | None = None
    order: Literal["up", "down", "shuffled"] = "up"
    players: list[str] = Field(min_length=1, max_length=50)
    people: list[Annotated[str, Field(max_length=200)]] | None = Field(
        default=None, min_length=1, max_length=50
    )
    seats: list[_SeatIn] | None = Field(default=None, max_length=50)
    first_dealer: int = 0
    created_at: Annotated[datetime, AfterValidator(_when)]
    finished_at: Annotated[datetime | None, AfterValidator(_when)] = None
    rounds: list[_RoundIn] = Field(min_length=1, max_length=50)


def _people(people: list[str], players: list[str]) -> list[str]:
    """The person in each seat, named as players are (GameError when they cannot be, or when
    two seats name one person)."""
    if len(people) != len(players):
        raise GameError(
            fill(
                _("The game has %(players)s players but names %(people)s people."),
                players=len(players),
                people=len(people),
            )
        )
    return games.clean_names(people)


def _game(raw: Any, index: int) -> _GameIn:
    """Game index of the document in the format; ImportRefused, saying where, when it is
    malformed."""
    try:
        return _GameIn.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in ("games", index, *first.get("loc", ())))
        raise ImportRefused(
            fill(
                _("The document is malformed at %(where)s: %(problem)s."),
                where=where,
                problem=first["msg"],
            )
        ) from error


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
        raise GameError(
            fill(_("Round %(number)s has an unknown wild rank."), number=round_in.number)
        )

    results = None
    if round_in.results is not None:
        # Cards, when kept, are what was typed (a solitaire pile that closed keeps its cards
        # and their layout); else going out; else the points. A recorded game is what was
        # played: cards holding a group, or a total only such cards leave, count as confirmed.
        results = [
            None
            if result is None
            else SeatResult(cards=tuple(parse_card(c) for c in result.cards), confirmed=True)
            if result.cards is not None
            else SeatResult(went_out=True)
            if result.went_out
            else SeatResult(points=result.points, confirmed=True)
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
