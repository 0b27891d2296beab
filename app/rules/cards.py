"""Cards, card codes and the decks a table plays with."""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import fill
from ..i18n import gettext as _

RANKS: tuple[int, ...] = tuple(range(3, 14))
"""Ranks 3 to 13 (J = 11, Q = 12, K = 13); there are no aces or twos."""

RANK_CODES: dict[int, str] = {**{r: str(r) for r in range(3, 11)}, 11: "J", 12: "Q", 13: "K"}
RANK_NAMES: dict[int, str] = {
    3: "Three",
    4: "Four",
    5: "Five",
    6: "Six",
    7: "Seven",
    8: "Eight",
    9: "Nine",
    10: "Ten",
    11: "Jack",
    12: "Queen",
    13: "King",
}
RANK_PLURALS: dict[int, str] = {
    r: name + ("es" if r == 6 else "s") for r, name in RANK_NAMES.items()
}

SUITS: dict[str, str] = {"R": "stars", "H": "hearts", "C": "clubs", "S": "spades", "D": "diamonds"}
"""Suit letters in card codes (R is stars) and their names."""

JOKER = "JOKER"
JOKER_POINTS = 50
WILD_POINTS = 20
MIN_PLAYERS = 2
MAX_PLAYERS = 14
PLAYERS_PER_GAME = 7


class CardError(ValueError):
    """A card code that does not name a Five Crowns card."""


@dataclass(frozen=True, order=True)
class Card:
    """One card; a joker has neither rank nor suit."""

    rank: int | None
    suit: str | None = None

    @property
    def is_joker(self) -> bool:
        return self.rank is None

    @property
    def code(self) -> str:
        """The card's code: rank code then suit letter ("QH", "10R"), or "JOKER"."""
        if self.rank is None:
            return JOKER
        return RANK_CODES[self.rank] + (self.suit or "")

    @property
    def name(self) -> str:
        """What a person calls the card: "Queen", "Queen of hearts", "Joker"."""
        if self.rank is None:
            return "Joker"
        if self.suit is None:
            return RANK_NAMES[self.rank]
        return f"{RANK_NAMES[self.rank]} of {SUITS[self.suit]}"


def card_points(card: Card, *, wild_rank: int) -> int:
    """What the card costs left in hand: joker 50, the round's wild rank 20, J 11, Q 12,
    K 13, others face value."""
    if card.rank is None:
        return JOKER_POINTS
    if card.rank == wild_rank:
        return WILD_POINTS
    return card.rank


_RANK_BY_CODE = {code: rank for rank, code in RANK_CODES.items()}


def parse_rank(code: str) -> int:
    """The rank (3..13) for a rank code such as "7" or "k"."""
    rank = _RANK_BY_CODE.get(code.strip().upper())
    if rank is None:
        raise CardError(fill(_("%(code)s is not a rank: use 3 to 10, J, Q or K"), code=repr(code)))
    return rank


def parse_card(code: str, *, suit_required: bool = False) -> Card:
    """The card for a code like "QH", "10R", "7" or "JOKER" (any letter case)."""
    text = code.strip().upper() if isinstance(code, str) else ""
    if text == JOKER:
        return Card(None)
    suit: str | None = None
    if text[-1:] in SUITS:
        text, suit = text[:-1], text[-1]
    rank = _RANK_BY_CODE.get(text)
    if rank is None:
        raise CardError(
            fill(
                _(
                    "%(code)s is not a card: use a rank (3 to 10, J, Q, K), optionally with a "
                    "suit letter (S, H, C, D, R for stars), or JOKER"
                ),
                code=repr(code),
            )
        )
    if suit_required and suit is None:
        raise CardError(
            fill(
                _("%(code)s needs a suit: add S, H, C, D or R (stars), as in %(example)s"),
                code=repr(code),
                example=code.strip().upper() + "H",
            )
        )

    return Card(rank, suit)


@dataclass(frozen=True)
class Decks:
    """What the shuffled decks hold: one game of two decks, or two games combined."""

    games: int

    @classmethod
    def for_players(cls, player_count: int) -> Decks:
        """One game seats up to 7; 8 to 14 players play two games combined."""
        return cls(games=1 if player_count <= PLAYERS_PER_GAME else 2)

    @property
    def copies_of_rank(self) -> int:
        return 10 * self.games

    @property
    def copies_of_card(self) -> int:
        return 2 * self.games

    @property
    def jokers(self) -> int:
        return 6 * self.games

    @property
    def card_count(self) -> int:
        return 116 * self.games
