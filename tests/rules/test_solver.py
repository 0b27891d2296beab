"""The exact hand solver: checked against an exhaustive reference and by hand.

The reference below is written from RULES.md alone (it shares no code with the solver):
it tries every way to split a hand into valid groups and a leftover. Every arrangement
the solver returns is re-checked by an independent validator.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.rules.cards import CardError, Decks
from app.rules.solver import (
    Group,
    Solution,
    check_hand_size,
    has_wild_only_group,
    round_wild_rank,
    solve,
)

SUITS = "SHCDR"
RANK_OF = {"J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(3, 11)}}
CODE_OF = {rank: code for code, rank in RANK_OF.items()}
DECK = [CODE_OF[r] + s for r in range(3, 14) for s in SUITS] * 2 + ["JOKER"] * 6


# --- the independent reference ------------------------------------------------------------


def split(code: str) -> tuple[int | None, str | None]:
    """(rank, suit) of a card code; (None, None) for a joker."""
    code = code.strip().upper()
    if code == "JOKER":
        return None, None
    return RANK_OF[code[:-1]], code[-1]


def is_wild(card: tuple[int | None, str | None], wild: int) -> bool:
    return card[0] is None or card[0] == wild


def value(card: tuple[int | None, str | None], wild: int) -> int:
    if card[0] is None:
        return 50
    return 20 if card[0] == wild else card[0]


def valid_group(cards: list[tuple[int | None, str | None]], wild: int) -> bool:
    """A book or a run per RULES.md: wilds may stand for anything, or be themselves."""
    if len(cards) < 3:
        return False
    fixed = [card for card in cards if not is_wild(card, wild)]
    if len({rank for rank, _suit in fixed}) <= 1:
        return True  # a book: one rank (duplicates allowed), wilds fill in; or only wilds
    if len(cards) > 11 or len({suit for _rank, suit in fixed}) != 1:
        return False
    ranks = [rank for rank, _suit in fixed]
    if len(set(ranks)) != len(ranks):
        return False  # an exact card once in a run
    low, high = min(ranks), max(ranks)  # type: ignore[type-var]
    return high - low + 1 <= len(cards)  # the wilds fill the gaps and extend within 3..K


def reference(hand: list[str], wild: int) -> tuple[int, int | None]:
    """(points without a discard, points with the best discard) by trying every split."""
    cards = [split(code) for code in hand]
    n = len(cards)
    groups_from: list[list[int]] = [[] for _ in range(n)]
    for mask in range(1, 1 << n):
        members = [i for i in range(n) if mask >> i & 1]
        if len(members) >= 3 and valid_group([cards[i] for i in members], wild):
            groups_from[members[0]].append(mask)

    @cache
    def least(mask: int) -> int:
        if not mask:
            return 0
        first = (mask & -mask).bit_length() - 1
        best = value(cards[first], wild) + least(mask & ~(1 << first))  # left over
        for group in groups_from[first]:
            if group & mask == group:
                best = min(best, least(mask & ~group))
        return best

    full = (1 << n) - 1
    with_discard = min((least(full & ~(1 << i)) for i in range(n)), default=None)
    return least(full), with_discard


# --- the independent validator ------------------------------------------------------------


def validate(hand: list[str], wild: int, discard: bool, result: Solution) -> None:
    """Every group valid with consistent stands_for; cards conserved; points recomputed."""
    held = Counter(code.strip().upper() for code in hand)
    used = Counter(code for group in result.groups for code in group.cards)
    used += Counter(result.leftover)
    if discard:
        assert result.discard is not None
        used[result.discard] += 1
    else:
        assert result.discard is None
    assert used == held
    assert result.points == sum(value(split(code), wild) for code in result.leftover)
    for group in result.groups:
        assert isinstance(group, Group)
        assert len(group.cards) == len(group.stands_for) >= 3
        effective: list[tuple[int, str | None]] = []
        for code, stands in zip(group.cards, group.stands_for, strict=True):
            card = split(code)
            if stands is None:
                assert card[0] is not None, "a joker must stand for something"
                effective.append((card[0], card[1]))
                continue
            assert is_wild(card, wild), f"{code} is not wild but stands for {stands}"
            if group.kind == "book":
                assert stands in RANK_OF, f"a book wild stands for a rank, not {stands}"
                effective.append((RANK_OF[stands], None))
            else:
                rank, suit = split(stands)
                assert rank is not None and suit in SUITS
                effective.append((rank, suit))
        ranks = [rank for rank, _suit in effective]
        if group.kind == "book":
            assert len(set(ranks)) == 1, group
        else:
            assert group.kind == "run"
            assert len({suit for _rank, suit in effective}) == 1, group
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks))), group
            assert ranks[0] >= 3 and ranks[-1] <= 13
        assert valid_group([split(code) for code in group.cards], wild)


def check(hand: list[str], wild: int, discard: bool = False, **options: Decks) -> Solution:
    result = solve(hand, CODE_OF[wild], discard, **options)
    validate(hand, wild, discard, result)
    return result


# --- the solver agrees with the reference ------------------------------------------------


def random_hand(rng: random.Random) -> list[str]:
    """Half from the real deck; half dense: few suits, few ranks, extra jokers."""
    size = rng.randint(3, 9)
    if rng.random() < 0.5:
        return rng.sample(DECK, size)
    suits = rng.sample(SUITS, rng.randint(1, 2))
    low = rng.randint(3, 11)
    high = min(13, low + rng.randint(2, 5))
    pool = [CODE_OF[r] + s for r in range(low, high + 1) for s in suits] * 2
    pool += ["JOKER"] * rng.randint(0, 6) + rng.sample(DECK, 4)
    while True:
        hand = rng.sample(pool, size)
        counts = Counter(hand)
        if counts["JOKER"] <= 6 and all(n <= 2 for c, n in counts.items() if c != "JOKER"):
            return hand


@pytest.mark.parametrize("wild", range(3, 14))
def test_solver_agrees_with_the_reference(wild: int) -> None:
    rng = random.Random(1000 + wild)
    for _ in range(1820):  # 11 wild ranks x 1820 = 20,020 hands, each with and without discard
        hand = random_hand(rng)
        points, with_discard = reference(hand, wild)
        assert check(hand, wild).points == points, hand
        assert check(hand, wild, discard=True).points == with_discard, hand


def test_two_games_agree_with_the_reference() -> None:
    """With two games combined an exact card can be held up to 4 times."""
    rng = random.Random(7)
    two = Decks(games=2)
    for _ in range(400):
        wild = rng.randint(3, 13)
        suit = rng.choice(SUITS)
        low = rng.randint(3, 10)
        pool = [CODE_OF[r] + suit for r in range(low, min(13, low + 3) + 1)] * 4 + ["JOKER"] * 3
        hand = rng.sample(pool, rng.randint(3, 9))
        points, with_discard = reference(hand, wild)
        assert check(hand, wild, decks=two).points == points, hand
        assert check(hand, wild, discard=True, decks=two).points == with_discard, hand


def test_full_size_hands_are_valid_and_deterministic() -> None:
    """13 and 14 cards (too many for the reference): arrangements re-checked, order-free."""
    rng = random.Random(99)
    for _ in range(150):
        wild = rng.randint(3, 13)
        hand = rng.sample(DECK, rng.choice([13, 14]))
        discard = len(hand) == 14
        result = check(hand, wild, discard)
        shuffled = rng.sample(hand, len(hand))
        assert solve([c.lower() for c in shuffled], CODE_OF[wild], discard) == result


# --- by hand ------------------------------------------------------------------------------


def test_worked_example_cards_make_a_group_when_laid_down() -> None:
    # RULES.md prices 5 of stars, 9 of hearts and a joker left in hand at 79 (round 3,
    # 5s wild). Laid down, though, they are a group: two wilds and the 9.
    assert sum(value(split(c), 5) for c in ["5R", "9H", "JOKER"]) == 79
    result = check(["5R", "9H", "JOKER"], 5)
    assert result.points == 0
    assert result.leftover == []
    assert len(result.groups) == 1


def test_worked_example_round_three_after_drawing() -> None:
    # Two wilds make one lone card a group (a book of the King or of the 9), the other of
    # the two is the discard, and 3 + 7 are left.
    result = check(["5R", "9H", "JOKER", "3C", "KD", "7S"], 5, discard=True)
    assert result.points == 10
    assert result.discard in ("9H", "KD")
    assert result.leftover == ["3C", "7S"]


def test_run_takes_the_card_the_book_wanted() -> None:
    # The 5 of hearts is wanted by the run 5-6-7 and the book of 5s: the run keeps 13
    # points out of hand, the book only 10.
    result = check(["5S", "5C", "5H", "6H", "7H"], 13)
    assert result.points == 10
    assert result.groups == [Group("run", ["5H", "6H", "7H"], [None] * 3)]
    assert result.leftover == ["5C", "5S"]
    # With a third 5 both fit.
    assert check(["5S", "5C", "5H", "6H", "7H", "5D"], 13).points == 0


def test_book_takes_the_card_when_it_is_worth_more() -> None:
    result = check(["7H", "8H", "9H", "9S", "9C"], 3)
    assert result.points == 15
    assert result.leftover == ["7H", "8H"]


def test_duplicates_split_between_two_runs() -> None:
    result = check(["5H", "5H", "6H", "6H", "7H", "7H"], 13)
    assert result.points == 0
    assert [g.cards for g in result.groups] == [["5H", "6H", "7H"], ["5H", "6H", "7H"]]
    assert check(["5H", "6H", "6H", "7H", "7H", "8H"], 13).points == 0
    # Duplicates cannot share one run: two 6s and a 5 make no run.
    assert check(["5H", "6H", "6H"], 13).points == 17


def test_joker_stands_for_the_missing_middle_card() -> None:
    result = check(["7H", "JOKER", "5H"], 13)
    assert result.groups == [Group("run", ["5H", "JOKER", "7H"], [None, "6H", None])]


def test_king_high_and_three_low_runs() -> None:
    assert check(["JH", "QH", "KH"], 3).groups == [Group("run", ["JH", "QH", "KH"], [None] * 3)]
    high = check(["QH", "KH", "JOKER"], 3)
    assert high.groups == [Group("run", ["JOKER", "QH", "KH"], ["JH", None, None])]
    low = check(["3S", "4S", "JOKER"], 13)
    assert low.groups == [Group("run", ["3S", "4S", "JOKER"], [None, None, "5S"])]
    assert check(["3S", "4S", "5S"], 13).points == 0
    # No wrap-around: Q-K-3 is no run.
    assert check(["QS", "KS", "3S"], 7).points == 28


def test_going_out_needs_discarding_a_card_that_fits() -> None:
    result = check(["5H", "6H", "7H", "8H"], 3, discard=True)
    assert result.points == 0
    assert result.discard in ("5H", "8H")
    book = check(["7H", "7S", "7C", "7D"], 3, discard=True)
    assert book.points == 0
    assert book.discard is not None and book.discard.startswith("7")
    # Three cards in a run and a wild: the wild or an end card goes, both go out.
    assert check(["5H", "6H", "7H", "JOKER"], 3, discard=True).points == 0


def test_discarding_a_wild_when_nothing_fits() -> None:
    result = check(["3H", "JOKER"], 9, discard=True)
    assert (result.points, result.discard, result.leftover) == (3, "JOKER", ["3H"])
    assert check(["JOKER"], 9, discard=True).points == 0
    # Nothing fits and no wild: the highest card goes.
    result = check(["3H", "8S", "KD"], 9, discard=True)
    assert (result.points, result.discard) == (11, "KD")


def test_a_group_of_wilds_only() -> None:
    result = check(["JOKER", "JOKER", "KH"], 13)
    assert result.points == 0
    assert result.groups == [Group("book", ["KH", "JOKER", "JOKER"], [None, "K", "K"])]
    jokers = check(["JOKER"] * 3, 5)
    assert jokers.groups == [Group("book", ["JOKER"] * 3, ["5"] * 3)]
    # Two wilds alone are no group.
    assert check(["JOKER", "5H"], 5).points == 70


def test_wild_rank_card_played_as_its_own_rank() -> None:
    run = check(["7H", "8H", "9H"], 7)
    assert run.groups == [Group("run", ["7H", "8H", "9H"], [None] * 3)]
    middle = check(["9S", "8S", "7S"], 8)
    assert middle.groups == [Group("run", ["7S", "8S", "9S"], [None] * 3)]
    book = check(["7H", "7S", "7C"], 7)
    assert book.groups == [Group("book", ["7H", "7C", "7S"], [None] * 3)]


def test_spare_wilds_are_never_left_over_once_a_group_is_down() -> None:
    result = check(["3S", "4S", "5S", "JOKER"], 13)
    assert result.points == 0 and len(result.groups[0].cards) == 4
    # 3 to King of hearts and a joker: the run is split in two to take the joker.
    full = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "JOKER"]
    assert len(check(full, 13).groups) == 2
    assert len(check(full + ["JOKER"], 4).groups) == 2
    assert check(full + ["JOKER"], 4).points == 0


def test_same_answer_whatever_the_order() -> None:
    hand = ["JOKER", "5h", "5H", "6h", "6S", "7H", "7s", "8S", "9S", "QD", "qc", "kd", "10R"]
    first = solve(hand, "q")
    rng = random.Random(5)
    for _ in range(20):
        assert solve(rng.sample(hand, len(hand)), "Q") == first
    assert first.to_dict() == solve(list(reversed(hand)), 12).to_dict()


def test_to_dict_is_json() -> None:
    result = solve(["5H", "JOKER", "7h", "KD", "3c"], "3", discard=True)
    data = json.loads(json.dumps(result.to_dict()))
    assert data == {
        "points": 0,
        "groups": [
            {
                "kind": "run",
                "cards": ["5H", "3C", "7H", "JOKER"],
                "stands_for": [None, "6H", None, "8H"],
            },
        ],
        "leftover": [],
        "discard": "KD",
    }


def test_empty_hand() -> None:
    assert solve([], "K") == Solution(points=0, groups=[], leftover=[], discard=None)


@pytest.mark.parametrize(
    ("cards", "wild", "message"),
    [
        (["QH", "1H"], "K", "'1H' is not a card"),
        (["QH", "ZZ"], "K", "'ZZ' is not a card"),
        (["QH", "Q"], "K", "'Q' needs a suit"),
        (["10"], "K", "'10' needs a suit"),
        ([""], "K", "'' is not a card"),
        ([7], "K", "7 is not a card"),
        (["QH", "qh", "QH"], "K", "3 of the Queen of hearts"),
        (["JOKER"] * 7, "K", "7 jokers"),
        (
            ["3H"] * 2
            + ["4H"] * 2
            + ["5H"] * 2
            + ["6H"] * 2
            + ["7H"] * 2
            + ["8H"] * 2
            + ["9H"] * 3,
            "K",
            "at most 14 cards",
        ),
        ("QH", "K", "list of card codes"),
        (["QH"], "2", "'2' is not a rank"),
        (["QH"], "A", "'A' is not a rank"),
        (["QH"], 14, "14 is not a wild rank"),
        (["QH"], 2, "2 is not a wild rank"),
        (["QH"], True, "True is not a wild rank"),
        (["QH"], None, "None is not a wild rank"),
    ],
)
def test_bad_input(cards: list[str], wild: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solve(cards, wild)


def test_bad_input_raises_card_error_for_card_codes() -> None:
    with pytest.raises(CardError):
        solve(["XX"], "K")


def test_nothing_to_discard() -> None:
    with pytest.raises(ValueError, match="no card to discard"):
        solve([], "K", discard=True)


def test_two_games_allow_four_copies() -> None:
    two = Decks(games=2)
    assert check(["QH"] * 4, 3, decks=two).points == 0
    assert check(["JOKER"] * 12, 3, decks=two).points == 0
    with pytest.raises(ValueError, match="5 of the Queen of hearts"):
        solve(["QH"] * 5, "3", decks=two)
    with pytest.raises(ValueError, match="13 jokers"):
        solve(["JOKER"] * 13, "3", decks=two)


def test_wild_rank_accepts_numbers_and_codes() -> None:
    hand = ["JH", "QH", "JOKER"]
    assert solve(hand, "J") == solve(hand, 11) == solve(hand, " j ") == solve(hand, "11")


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(
    hand=st.lists(st.sampled_from(DECK), min_size=1, max_size=8),
    wild=st.integers(min_value=3, max_value=13),
    discard=st.booleans(),
)
def test_any_small_hand_agrees_with_the_reference(
    hand: list[str], wild: int, discard: bool
) -> None:
    counts = Counter(hand)
    assume(all(n <= 2 for code, n in counts.items() if code != "JOKER") and counts["JOKER"] <= 6)
    points, with_discard = reference(hand, wild)
    assert check(hand, wild, discard).points == (with_discard if discard else points)


def test_a_group_of_only_wilds_is_recognised_for_the_ruling():
    assert has_wild_only_group(solve(["JOKER", "3H", "3S"], "3"), 3)
    assert not has_wild_only_group(solve(["9H", "9S", "JOKER"], "3"), 3)


# --- the round a hand is checked for ------------------------------------------------------


def test_a_hand_of_the_wrong_size_is_told_how_many_cards_it_holds():
    with pytest.raises(ValueError) as dealt:
        check_hand_size(4, cards_dealt=5, discard=False)
    assert str(dealt.value) == (
        "5 cards were dealt this round: a hand holds exactly 5 cards, not 4."
    )
    with pytest.raises(ValueError) as drawn:
        check_hand_size(5, cards_dealt=5, discard=True)
    assert str(drawn.value) == (
        "5 cards were dealt this round: a hand just after drawing, holds exactly 6 cards, not 5."
    )
    check_hand_size(5, cards_dealt=5, discard=False)
    check_hand_size(6, cards_dealt=5, discard=True)


def test_the_wild_rank_of_a_round_comes_from_the_cards_dealt_or_is_given():
    assert round_wild_rank(None, 11) == 11
    assert round_wild_rank("q", None) == 12
    assert round_wild_rank("K", 13) == 13
    with pytest.raises(ValueError) as never:
        round_wild_rank(None, 14)
    assert str(never.value) == "14 cards are never dealt: rounds deal 3 to 13."
    with pytest.raises(ValueError) as neither:
        round_wild_rank(None, None)
    assert str(neither.value) == "Give the wild rank, or the cards dealt this round."
    with pytest.raises(ValueError) as disagree:
        round_wild_rank("7", 11)
    assert str(disagree.value) == (
        "With 11 cards dealt the wild rank is J, not 7: the wild rank always matches the "
        "cards dealt."
    )
