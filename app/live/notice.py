"""The notice a save sends the other processes (PostgreSQL NOTIFY): the game's topic, its new
version and, when it fits, the state itself, so a process whose pages follow the game
updates them without reading the database.

What never travels: the scorekeeper code (a hash of it only, to check the code the receiver
knows is still the game's) and a rematch's scorekeeper code (a notice about a game with a
rematch carries no state). The receiver fills in the scorekeeper code it knew; a notice
without a state, or for a game whose code the receiver does not know, costs it one read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..games.state import GameState, PlayerState, RoundState, SeatEntry
from ..games.store import parse_cards
from ..rules.schedule import ROUND_ORDERS

LIMIT_BYTES = 7999
"""PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more."""


@dataclass(frozen=True)
class Notice:
    """A notice as received: the game's topic and version, and the state it carried (None
    when it did not fit); the scorekeeper code is not in it, only keeper (its hash)."""

    topic: str
    version: int
    keeper: str | None = None
    state: dict[str, Any] | None = None

    def state_with(self, code: str) -> GameState | None:
        """The state carried, with the scorekeeper code the receiver knows for this game;
        None when no state came or code is not the game's scorekeeper code now."""
        if self.state is None or self.keeper != keeper_hash(code):
            return None
        return state_from(self.state, code=code, topic=self.topic, version=self.version)


def keeper_hash(code: str) -> str:
    """Enough of a scorekeeper code's SHA-256 to tell it from another, never to use it."""
    return hashlib.sha256(code.encode()).hexdigest()[:32]


def encode(state: GameState, *, limit: int = LIMIT_BYTES) -> str:
    """The notice for state: with the state when it fits in limit bytes, else topic and
    version only."""
    short = {"topic": state.watch_code, "version": state.version}
    if state.rematch_code is not None or not state.can_edit:
        return _dumps(short)
    whole = _dumps({**short, "keeper": keeper_hash(state.code), "state": _plain(state)})
    return whole if len(whole.encode()) <= limit else _dumps(short)


def decode(payload: str) -> Notice:
    """The notice in payload; ValueError when it is not one of ours."""
    try:
        found = json.loads(payload)
        notice = Notice(
            topic=str(found["topic"]),
            version=int(found["version"]),
            keeper=found.get("keeper"),
            state=found.get("state"),
        )
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError("not a notice") from error
    if notice.state is not None and not isinstance(notice.state, dict):
        raise ValueError("not a notice")
    return notice


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _plain(state: GameState) -> dict[str, Any]:
    return {
        "id": state.game_id,
        "uid": state.uid,
        "dealer": state.first_dealer,
        "finished": state.finished,
        "created": _when(state.created_at),
        "finished_at": _when(state.finished_at),
        "deleted": state.deleted,
        "mode": state.mode,
        "order": state.order,
        "seats": [[s.name, s.start_points, s.joined_round, s.left_round] for s in state.seats],
        "rounds": [
            [
                r.number,
                r.cards_dealt,
                r.wild_rank,
                r.dealer,
                r.first_player,
                r.kind,
                list(r.players_in),
                None if r.entries is None else [_entry(e) for e in r.entries],
            ]
            for r in state.rounds
        ],
    }


def _entry(entry: SeatEntry | None) -> list[Any] | None:
    if entry is None:
        return None
    cards = None if entry.cards is None else [card.code for card in entry.cards]
    return [entry.points, entry.went_out, cards, entry.layout]


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def state_from(plain: dict[str, Any], *, code: str, topic: str, version: int) -> GameState:
    """The scorekeeper's state a notice carried (as _plain wrote it), with its code."""
    seats = tuple(
        PlayerState(name=name, start_points=start, joined_round=joined, left_round=left)
        for name, start, joined, left in plain["seats"]
    )
    rounds = tuple(
        RoundState(
            number=number,
            cards_dealt=cards_dealt,
            wild_rank=wild_rank,
            dealer=dealer,
            first_player=first_player,
            entries=None if entries is None else tuple(_seat_entry(e) for e in entries),
            kind="tiebreak" if kind == "tiebreak" else "round",
            players_in=tuple(players_in),
        )
        for number, cards_dealt, wild_rank, dealer, first_player, kind, players_in, entries in (
            plain["rounds"]
        )
    )
    return GameState(
        code=code,
        watch_code=topic,
        can_edit=True,
        players=tuple(seat.name for seat in seats),
        first_dealer=plain["dealer"],
        rounds=rounds,
        finished=plain["finished"],
        version=version,
        game_id=plain["id"],
        uid=plain["uid"],
        created_at=_moment(plain["created"]),
        finished_at=_moment(plain["finished_at"]),
        deleted=plain["deleted"],
        mode="solitaire" if plain["mode"] == "solitaire" else "game",
        order=next((order for order in ROUND_ORDERS if order == plain["order"]), "up"),
        seats=seats,
    )


def _seat_entry(plain: list[Any] | None) -> SeatEntry | None:
    if plain is None:
        return None
    points, went_out, cards, layout = plain
    return SeatEntry(
        points=points,
        went_out=went_out,
        cards=None if cards is None else parse_cards(cards),
        layout=layout,
    )
