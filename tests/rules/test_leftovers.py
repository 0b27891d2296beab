"""Which totals a player's leftover cards can cost, checked against brute force: every hand
of up to five cards built card by card, kept when no three of its cards make a book or a run
(any bigger group holds a group of three), and against the hand solver for small hands.
Every round, the tie-break and every solitaire pile in full: test_kept_hands.py."""

import itertools
from collections import Counter

import pytest

from app.rules.cards import RANK_CODES, SUITS, Decks, card_points, parse_card
from app.rules.leftovers import kept_counts, kept_in_words, leftover_totals
from app.rules.scoring import typed_points_error
from app.rules.solver import solve

ONE_GAME, TWO_GAMES = Decks(games=1), Decks(games=2)
CARD_TYPES = [(rank, suit) for rank in range(3, 14) for suit in SUITS] + [(None, None)]


def makes_group(three, wild_rank):
    """Whether three cards are a book or a run, wilds standing in for anything."""
    naturals = [(rank, suit) for rank, suit in three if rank not in (None, wild_rank)]
    if len(naturals) <= 1:
        return True  # two wilds and a card make a book of its rank; three wilds a group
    ranks = sorted(rank for rank, _ in naturals)
    if len(set(ranks)) == 1:
        return True  # a book (two of a rank and a wild, or three of a rank)
    if len({suit for _, suit in naturals}) > 1 or len(set(ranks)) < len(ranks):
        return False
    return ranks[-1] - ranks[0] <= 2  # a run: the wild fills the gap or an end


def group_free_totals(most_cards, wild_rank, copies_of_card):
    """Totals by hand size of every hand from which nothing can be laid down, and of those
    without a wild card, found by adding cards in order of CARD_TYPES to hands that are
    already group-free. Each hand carries the cards that would make a group with two of its
    cards (a bitset), so a new card is checked against every pair at once."""
    count = len(CARD_TYPES)
    points = [card_points(parse_card(code(card)), wild_rank=wild_rank) for card in CARD_TYPES]
    wild = [card[0] in (None, wild_rank) for card in CARD_TYPES]
    third = [
        [
            sum(
                1 << k
                for k in range(count)
                if makes_group((CARD_TYPES[i], CARD_TYPES[j], CARD_TYPES[k]), wild_rank)
            )
            for j in range(count)
        ]
        for i in range(count)
    ]
    totals, natural_totals = {0: {0}}, {0: {0}}
    # (card indexes, cards that would make a group, points, whether a wild is held)
    hands = [((), 0, 0, False)]
    for size in range(1, most_cards + 1):
        grown = []
        for hand, forbidden, total, held_wild in hands:
            for card in range(hand[-1] if hand else 0, count):
                if forbidden >> card & 1:
                    continue
                if CARD_TYPES[card][0] is not None and hand.count(card) >= copies_of_card:
                    continue
                now_forbidden = forbidden
                for held in hand:
                    now_forbidden |= third[held][card]
                grown.append(
                    ((*hand, card), now_forbidden, total + points[card], held_wild or wild[card])
                )
        hands = grown
        totals[size] = {total for _, _, total, _ in hands}
        natural_totals[size] = {total for _, _, total, held_wild in hands if not held_wild}
    return totals, natural_totals


def code(card):
    rank, suit = card
    return "JOKER" if rank is None else f"{RANK_CODES[rank]}{suit}"


@pytest.mark.parametrize(("wild_rank", "most_cards"), [(3, 4), (4, 4), (5, 5), (8, 4), (13, 4)])
def test_every_hand_of_up_to_five_cards_agrees(wild_rank, most_cards):
    """Rounds 1 to 3 hand by hand (3 to 5 cards dealt, their own wilds); other wild ranks
    for every hand of up to four cards."""
    found, naturals = group_free_totals(most_cards, wild_rank, copies_of_card=2)
    cards_dealt = wild_rank  # round r deals r + 2 cards, and that rank is wild
    if cards_dealt <= most_cards:
        # All the cards dealt, or (once something is laid down) no wild at all.
        kept = {0} | found[cards_dealt]
        kept = kept.union(*(naturals[size] for size in kept_counts(cards_dealt)[:-1]))
        assert leftover_totals(cards_dealt, wild_rank, ONE_GAME) == kept
        assert leftover_totals(cards_dealt, wild_rank, TWO_GAMES) == kept
    from app.rules.leftovers import _group_free_totals, _members

    without_wilds, by_size = _group_free_totals(wild_rank)
    for size in range(1, most_cards + 1):
        if size >= 3:  # two wilds alone are group-free, but never a whole hand
            assert _members(by_size[size]) == found[size], size
        assert _members(without_wilds[size]) == naturals[size], size


def test_each_card_once_agrees_too():
    found, _ = group_free_totals(4, 8, copies_of_card=1)
    from app.rules.leftovers import _group_free_totals, _members

    _, by_size = _group_free_totals(8, same_card_twice=False)
    for size in range(3, 5):
        assert _members(by_size[size]) == found[size], size


@pytest.mark.parametrize("wild_rank", [3, 9])
def test_the_solver_lays_nothing_down_from_exactly_those_hands(wild_rank):
    """The hand solver, the app's own judge of books and runs, agrees on every three cards."""
    for hand in itertools.combinations_with_replacement(CARD_TYPES, 3):
        if max(Counter(hand).values()) > 2 and hand[0][0] is not None:
            continue
        codes = [code(card) for card in hand]
        cost = sum(card_points(parse_card(c), wild_rank=wild_rank) for c in codes)
        nothing_laid = solve(codes, wild_rank).points == cost
        assert nothing_laid == (not makes_group(hand, wild_rank)), codes


def test_round_one_keeps_three_cards_or_none():
    round_one = leftover_totals(3, 3, ONE_GAME)
    assert min(round_one - {0}) == 13  # a four, a four and a five: no book, no run
    assert 4 not in round_one and 150 not in round_one and 149 not in round_one
    assert kept_counts(3) == (3,) and kept_in_words(3) == "0 or 3"
    assert (
        typed_points_error(4, cards_dealt=3, wild_rank=3, decks=ONE_GAME, round_name="round 1")
        == "In round 1 a player keeps 0 or 3 cards; 4 points cannot be left."
    )


def test_round_two_may_keep_one_card():
    round_two = leftover_totals(4, 4, ONE_GAME)
    assert 4 not in round_two  # a four is wild in round 2: 20
    assert {5, 20, 50} <= round_two
    assert kept_counts(4) == (1, 4) and kept_in_words(4) == "0, 1 or 4"
    assert kept_in_words(7) == "0, 1 to 4, or 7"


def test_the_most_a_hand_keeps_is_thirteen_naturals():
    # Two wilds make a group with any third card, and one wild beside twelve naturals always
    # makes one too: the most a kept hand of 13 costs is thirteen naturals.
    most = max(leftover_totals(13, 13, TWO_GAMES))
    assert most == 2 * (12 + 11 + 10 + 9 + 8 + 7) + 6

    def refused(points):
        return typed_points_error(
            points, cards_dealt=13, wild_rank=13, decks=TWO_GAMES, round_name="round 11"
        )

    # Beyond it, cards held against the rules (recorded by tapping them), up to 12 jokers
    # and a King; beyond those, nothing.
    assert refused(most + 1).endswith("tap them, then confirm.")
    assert refused(12 * 50 + 20).endswith("tap them, then confirm.")
    assert refused(12 * 50 + 21).startswith("621 is too many")
