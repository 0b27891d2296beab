"""Which totals a player's leftover cards can cost. A player who did not go out lays down
groups of three or more, so they keep all the cards dealt or at most three fewer; and the
cards they keep hold no book or run, or those would have been laid down too. Worked out
once per round (hand size and wild rank) by counting rank by rank, never hand by hand."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .cards import RANKS, Decks

JOKER_POINTS = 50
WILD_POINTS = 20
SUITS = 5
MOST_KEPT = 13

# A per-suit state, for hands without a wild: how many of the ranks just below hold a card
# of that suit (0: not the one below; 1: the one below only; 2: the two below, so a third
# in a row would make a run).
Runs = tuple[int, ...]


def kept_counts(cards_dealt: int) -> tuple[int, ...]:
    """How many cards a player who did not go out may keep: 1 to cards_dealt - 3, or all."""
    return (*range(1, cards_dealt - 2), cards_dealt)


@lru_cache(maxsize=64)
def leftover_totals(cards_dealt: int, wild_rank: int, decks: Decks) -> frozenset[int]:
    """Every total a player's leftover cards can cost in a round: 0 (out, or everything laid
    down), and the totals of the group-free hands of the sizes they may keep. One game of two
    decks or two games combined give the same totals: a kept hand holds at most two cards of
    a rank, and every card is there at least twice."""
    by_size = _group_free_totals(wild_rank, same_card_twice=decks.copies_of_card >= 2)
    totals = {0}
    for size in kept_counts(cards_dealt):
        totals |= _members(by_size[size])
    return frozenset(totals)


def kept_in_words(cards_dealt: int) -> str:
    """The counts a player may keep, as a sentence ends: "0 or 3", "0, 1 or 4",
    "0, 1 to 4, or 7"."""
    if cards_dealt <= 3:
        return f"0 or {cards_dealt}"
    if cards_dealt == 4:
        return "0, 1 or 4"
    if cards_dealt == 5:
        return "0, 1, 2 or 5"
    return f"0, 1 to {cards_dealt - 3}, or {cards_dealt}"


def _members(bits: int) -> set[int]:
    return {total for total in range(bits.bit_length()) if bits >> total & 1}


@lru_cache(maxsize=32)
def _group_free_totals(wild_rank: int, *, same_card_twice: bool = True) -> tuple[int, ...]:
    """For each hand size 0 to 13, the totals of hands holding no book or run (a bitset:
    bit t set when a total of t is possible)."""
    no_wild = _without_wilds(wild_rank, same_card_twice=same_card_twice)
    one_wild = _beside_one_wild(wild_rank)
    by_size = list(no_wild)
    for size in range(1, MOST_KEPT + 1):
        # One wild: a wild rank card (20) or a joker (50) beside naturals no two of which
        # could make a group with it.
        rest = one_wild[size - 1]
        by_size[size] |= rest << WILD_POINTS | rest << JOKER_POINTS
    # Two wilds make a book with any third card: two alone, or none.
    by_size[2] |= 1 << 2 * WILD_POINTS | 1 << WILD_POINTS + JOKER_POINTS | 1 << 2 * JOKER_POINTS
    return tuple(by_size)


def _without_wilds(wild_rank: int, *, same_card_twice: bool) -> list[int]:
    """Totals by size of hands of natural cards with no book (three of a rank) and no run
    (three ranks in a row in one suit)."""
    start: Runs = (0,) * SUITS
    table: dict[Runs, list[int]] = {start: [1] + [0] * MOST_KEPT}
    for rank in RANKS:
        grown: dict[Runs, list[int]] = {}
        for runs, sizes in table.items():
            choices = _rank_choices(runs, same_card_twice=same_card_twice)
            for chosen in [()] if rank == wild_rank else choices:
                after = tuple(
                    (1 if runs[suit] == 0 else 2) if suit in chosen else 0 for suit in range(SUITS)
                )
                _add(grown, after, sizes, len(chosen), len(chosen) * rank)
        table = grown
    return _union(table.values())


def _rank_choices(runs: Runs, *, same_card_twice: bool) -> list[tuple[int, ...]]:
    """The cards of one rank a hand may hold (by suit; a suit twice is the same card twice),
    at most two (three of a rank is a book), none in a suit with a card on each of the two
    ranks below."""
    open_suits = [suit for suit in range(SUITS) if runs[suit] < 2]
    choices: list[tuple[int, ...]] = [()]
    choices += [(suit,) for suit in open_suits]
    if same_card_twice:
        choices += [(suit, suit) for suit in open_suits]
    choices += [(first, second) for first in open_suits for second in open_suits if first < second]
    return choices


def _beside_one_wild(wild_rank: int) -> list[int]:
    """Totals by size of natural cards that make no group with one wild: no two of a rank,
    and two of one suit at least three ranks apart."""
    # Per suit: 0 free, 1 a card on the rank below, 2 a card two ranks below.
    start: Runs = (0,) * SUITS
    table: dict[Runs, list[int]] = {start: [1] + [0] * MOST_KEPT}
    for rank in RANKS:
        grown: dict[Runs, list[int]] = {}
        for runs, sizes in table.items():
            aged = tuple({0: 0, 1: 2, 2: 0}[state] for state in runs)
            _add(grown, aged, sizes, 0, 0)
            if rank == wild_rank:
                continue
            for suit in range(SUITS):
                if runs[suit] == 0:
                    after = tuple(1 if s == suit else aged[s] for s in range(SUITS))
                    _add(grown, after, sizes, 1, rank)
        table = grown
    return _union(table.values())


def _add(
    table: dict[Runs, list[int]], runs: Runs, sizes: list[int], cards: int, points: int
) -> None:
    into = table.setdefault(runs, [0] * (MOST_KEPT + 1))
    for size in range(MOST_KEPT + 1 - cards):
        if sizes[size]:
            into[size + cards] |= sizes[size] << points


def _union(tables: Iterable[list[int]]) -> list[int]:
    by_size = [0] * (MOST_KEPT + 1)
    for sizes in tables:
        for size, bits in enumerate(sizes):
            by_size[size] |= bits
    return by_size
