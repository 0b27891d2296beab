"""The cards as the pages show them: a face as printed (3 to 10, J, Q, K, Joker, never
translated) with its spoken name in the reader's language ("Queen of hearts", "Herz-Dame")
for screen readers, the round form's keypad and the hand checker's grid."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.card_words import JOKER_NAME, card_name, rank_name
from ..rules.cards import JOKER, JOKER_POINTS, RANK_CODES, RANKS, CardError, card_points, parse_card


@dataclass(frozen=True)
class KeypadKey:
    """One button of the card picker."""

    code: str
    label: str
    name: str
    points: int
    wild: bool


def keypad(wild_rank: int) -> list[KeypadKey]:
    """The picker's buttons for a round: 3 .. K, then Joker, with what each costs."""
    keys = [
        KeypadKey(
            code=RANK_CODES[rank],
            label=RANK_CODES[rank],
            name=rank_name(rank),
            points=card_points(parse_card(RANK_CODES[rank]), wild_rank=wild_rank),
            wild=rank == wild_rank,
        )
        for rank in RANKS
    ]
    keys.append(
        KeypadKey(code=JOKER, label="Joker", name=str(JOKER_NAME), points=JOKER_POINTS, wild=True)
    )
    return keys


SUIT_SYMBOLS = {"R": "★", "H": "♥", "C": "♣", "S": "♠", "D": "♦"}


@dataclass(frozen=True)
class CardFace:
    """How a card is drawn on a page: rank, suit symbol and colour class, spoken name."""

    code: str
    rank: str
    suit: str
    symbol: str
    name: str


def card_face(code: str) -> CardFace:
    """The face for a card code ("QH", "9", "JOKER")."""
    card = parse_card(code)
    if card.rank is None:
        return CardFace(code=JOKER, rank="Joker", suit="joker", symbol="", name=str(JOKER_NAME))
    suit = card.suit or ""
    return CardFace(
        code=card.code,
        rank=RANK_CODES[card.rank],
        suit=suit,
        symbol=SUIT_SYMBOLS.get(suit, ""),
        name=card_name(card),
    )


def chip_face(code: str) -> CardFace:
    """The face for a chip; a code that is not a card shows as typed (its error says why)."""
    try:
        return card_face(code)
    except CardError:
        return CardFace(code=code, rank=code, suit="", symbol="", name=code)


def suit_grid() -> list[list[CardFace]]:
    """The hand checker's buttons: a row per rank, a column per suit."""
    return [[card_face(RANK_CODES[rank] + suit) for suit in SUIT_SYMBOLS] for rank in RANKS]
