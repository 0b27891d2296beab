"""What a player's leftover cards can be, and which totals they can cost. A player who did
not go out lays down groups of three or more, so they keep all the cards dealt or at least
three fewer; the cards they keep hold no book or run, or those would have been laid down
too; and once they laid anything down they keep no wild card and no joker, which could have
joined what they laid. Worked out once per round (hand size and wild rank) by counting rank
by rank, never hand by hand.

Natural cards kept after laying down could sometimes have joined what was laid too; that
never changes the totals: a book of a rank they lack takes none of them, and the one kind of
hand holding every other rank (ten cards kept of 13, one of each) costs 75, which plenty of
other hands cost too."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ..i18n import fill
from ..i18n import gettext as _
from .card_words import a_rank, number_word, rank_name, rank_plural, suit_name
from .cards import (
    JOKER_POINTS,
    RANKS,
    SUITS,
    WILD_POINTS,
    Card,
    Decks,
)

SUIT_COUNT = len(SUITS)
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
    down), the group-free hands of all the cards dealt, and the group-free hands without a
    wild of the smaller sizes they may keep. One game of two decks or two games combined
    give the same totals: a kept hand holds at most two cards of a rank, and every card is
    there at least twice."""
    naturals, any_cards = _group_free_totals(wild_rank, same_card_twice=decks.copies_of_card >= 2)
    totals = {0} | _members(any_cards[cards_dealt])
    for size in kept_counts(cards_dealt)[:-1]:
        totals |= _members(naturals[size])
    return frozenset(totals)


@lru_cache(maxsize=64)
def held_totals(cards_dealt: int, wild_rank: int, decks: Decks) -> frozenset[int]:
    """Every total any cards a player may keep can cost, groups and wilds held or not: what
    a player who missed a group (or kept a wild after laying down) can be left with."""
    by_size = [1] + [0] * cards_dealt
    values = [(JOKER_POINTS, decks.jokers), (WILD_POINTS, decks.copies_of_rank)]
    values += [(rank, decks.copies_of_rank) for rank in RANKS if rank != wild_rank]
    for points, copies in values:
        grown = list(by_size)
        for size, bits in enumerate(by_size):
            for taken in range(1, min(copies, cards_dealt - size) + 1):
                grown[size + taken] |= bits << taken * points
        by_size = grown
    totals = {0}
    for size in kept_counts(cards_dealt):
        totals |= _members(by_size[size])
    return frozenset(totals)


def kept_in_words(cards_dealt: int) -> str:
    """The counts a player may keep, as a sentence ends: "0 or 3", "0, 1 or 4",
    "0, 1 to 4, or 7"."""
    if cards_dealt <= 3:
        return fill(_("0 or %(dealt)s"), dealt=cards_dealt)
    if cards_dealt == 4:
        return _("0, 1 or 4")
    if cards_dealt == 5:
        return _("0, 1, 2 or 5")
    return fill(_("0, 1 to %(most)s, or %(dealt)s"), most=cards_dealt - 3, dealt=cards_dealt)


def kept_hand_question(
    cards: Sequence[Card], *, cards_dealt: int, wild_rank: int, name: str
) -> str:
    """What to ask before saving tapped cards that are not a hand the rules leave ("" when
    they are): cards holding a book or a run would have been laid down, and a wild kept after
    laying down could have joined what was laid. A player may still have kept them: once
    confirmed, they are saved as tapped."""
    if not cards or len(cards) > cards_dealt:
        return ""
    group = _held_group(cards, wild_rank)
    if group:
        return fill(
            _("%(group)s: were they laid down? If %(name)s kept them, confirm."),
            group=group,
            name=name,
        )
    jokers = sum(card.is_joker for card in cards)
    wild_cards = sum(card.rank == wild_rank for card in cards)
    if not jokers + wild_cards or len(cards) > cards_dealt - 3:
        return ""
    parts = _wild_parts(jokers, wild_cards, wild_rank, article=False)
    wilds = (
        parts[0]
        if len(parts) == 1
        else fill(_("%(first)s and the %(second)s"), first=parts[0], second=parts[1])
    )
    if jokers + wild_cards == 1:
        question = _(
            "%(name)s kept %(count)s of the %(dealt)s cards dealt, so %(name)s laid cards "
            "down, and the %(wilds)s could have joined them: was it kept? If %(name)s kept "
            "it, confirm."
        )
    else:
        question = _(
            "%(name)s kept %(count)s of the %(dealt)s cards dealt, so %(name)s laid cards "
            "down, and the %(wilds)s could have joined them: were they kept? If %(name)s kept "
            "them, confirm."
        )
    return fill(question, name=name, count=len(cards), dealt=cards_dealt, wilds=wilds)


def _held_group(cards: Sequence[Card], wild_rank: int) -> str:
    """A book or a run the cards hold, in words ("Three jokers make a book"), or "". Cards
    tapped without a suit make books only: whether they make a run cannot be told."""
    jokers = sum(card.is_joker for card in cards)
    wild_cards = sum(card.rank == wild_rank for card in cards)
    naturals = [card for card in cards if card.rank is not None and card.rank != wild_rank]
    # The rank held most often (the first tapped of those): a book if wilds fill it to three.
    by_rank = Counter(card.rank for card in naturals if card.rank is not None)
    rank, count = max(by_rank.items(), key=lambda item: item[1], default=(0, 0))
    if count + jokers + wild_cards >= 3:
        book = [_rank_count(count, rank)] if count else []
        book += _wild_parts(jokers, wild_cards, wild_rank)
        return fill(_("%(cards)s make a book"), cards=_listed(book))
    # No book, so at most one wild: a run is three ranks in a row in one suit, or two ranks
    # of one suit a wild's gap or end away.
    by_suit = {
        suit: sorted({card.rank for card in naturals if card.suit == suit and card.rank})
        for suit in SUITS
    }
    for suit, ranks in by_suit.items():
        for low in ranks:
            if low + 1 in ranks and low + 2 in ranks:
                names = _listed([rank_name(low), rank_name(low + 1), rank_name(low + 2)])
                return fill(
                    _("The %(ranks)s of %(suit)s make a run"), ranks=names, suit=suit_name(suit)
                )
    wild = _wild_parts(jokers, wild_cards, wild_rank)
    for suit, ranks in by_suit.items():
        for low, high in zip(ranks, ranks[1:], strict=False):
            if wild and high - low <= 2:
                names = _listed([rank_name(low), rank_name(high)])
                return fill(
                    _("The %(ranks)s of %(suit)s and %(wild)s make a run"),
                    ranks=names,
                    suit=suit_name(suit),
                    wild=wild[0],
                )
    return ""


def _rank_count(count: int, rank: int) -> str:
    """ "an Eight", "two Sevens"."""
    if count == 1:
        return a_rank(rank)
    return fill(_("%(count)s %(ranks)s"), count=number_word(count), ranks=rank_plural(rank))


def _wild_parts(jokers: int, wild_cards: int, wild_rank: int, *, article: bool = True) -> list[str]:
    """The wilds held, in words: ["two jokers", "a Five"], or without the article for one
    card and with the wild rank said: ["joker", "Five (wild)"]."""
    parts = []
    if jokers == 1:
        parts.append(_("a joker") if article else _("joker"))
    elif jokers:
        parts.append(fill(_("%(count)s jokers"), count=number_word(jokers)))
    if wild_cards:
        if wild_cards > 1:
            said = _rank_count(wild_cards, wild_rank)
        else:
            said = a_rank(wild_rank) if article else rank_name(wild_rank)
        parts.append(said if article else fill(_("%(cards)s (wild)"), cards=said))
    return parts


def _listed(parts: Sequence[str]) -> str:
    """ "A", "A and B", "A, B and C", its first letter a capital."""
    if len(parts) == 1:
        text = parts[-1]
    else:
        text = fill(_("%(first)s and %(last)s"), first=", ".join(parts[:-1]), last=parts[-1])
    return text[:1].upper() + text[1:]


def _members(bits: int) -> set[int]:
    return {total for total in range(bits.bit_length()) if bits >> total & 1}


@lru_cache(maxsize=32)
def _group_free_totals(
    wild_rank: int, *, same_card_twice: bool = True
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For each hand size 0 to 13, the totals of hands holding no book or run (a bitset:
    bit t set when a total of t is possible): without a wild, and with at most one wild (two
    wilds make a book with any third card, so no hand of three or more holds two)."""
    no_wild = _without_wilds(wild_rank, same_card_twice=same_card_twice)
    one_wild = _beside_one_wild(wild_rank)
    by_size = list(no_wild)
    for size in range(1, MOST_KEPT + 1):
        # One wild: a wild rank card (20) or a joker (50) beside naturals no two of which
        # could make a group with it.
        rest = one_wild[size - 1]
        by_size[size] |= rest << WILD_POINTS | rest << JOKER_POINTS
    return tuple(no_wild), tuple(by_size)


def _without_wilds(wild_rank: int, *, same_card_twice: bool) -> list[int]:
    """Totals by size of hands of natural cards with no book (three of a rank) and no run
    (three ranks in a row in one suit)."""
    start: Runs = (0,) * SUIT_COUNT
    table: dict[Runs, list[int]] = {start: [1] + [0] * MOST_KEPT}
    for rank in RANKS:
        grown: dict[Runs, list[int]] = {}
        for runs, sizes in table.items():
            choices = _rank_choices(runs, same_card_twice=same_card_twice)
            for chosen in [()] if rank == wild_rank else choices:
                after = tuple(
                    (1 if runs[suit] == 0 else 2) if suit in chosen else 0
                    for suit in range(SUIT_COUNT)
                )
                _add(grown, after, sizes, len(chosen), len(chosen) * rank)
        table = grown
    return _union(table.values())


def _rank_choices(runs: Runs, *, same_card_twice: bool) -> list[tuple[int, ...]]:
    """The cards of one rank a hand may hold (by suit; a suit twice is the same card twice),
    at most two (three of a rank is a book), none in a suit with a card on each of the two
    ranks below."""
    open_suits = [suit for suit in range(SUIT_COUNT) if runs[suit] < 2]
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
    start: Runs = (0,) * SUIT_COUNT
    table: dict[Runs, list[int]] = {start: [1] + [0] * MOST_KEPT}
    for rank in RANKS:
        grown: dict[Runs, list[int]] = {}
        for runs, sizes in table.items():
            aged = tuple({0: 0, 1: 2, 2: 0}[state] for state in runs)
            _add(grown, aged, sizes, 0, 0)
            if rank == wild_rank:
                continue
            for suit in range(SUIT_COUNT):
                if runs[suit] == 0:
                    after = tuple(1 if s == suit else aged[s] for s in range(SUIT_COUNT))
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
