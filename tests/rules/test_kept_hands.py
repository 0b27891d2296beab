"""The totals a kept hand can leave, checked against a brute-force walk over every hand of
every round (3 to 13 cards), the tie-break round and every solitaire pile, with the decks
of RULES.md: one game holds every exact card twice, every rank ten times and 6 jokers; two
games combined twice that.

A kept hand is what a player who did not go out still holds after their last turn:
- every card dealt (nothing laid down), or at least three fewer (groups hold three or more);
- no three of its cards make a book or a run (any bigger group holds a group of three), or
  they would have been laid down too;
- once anything is laid down, no wild card and no joker: it could have joined what was laid.

The walk knows nothing of how app/rules counts: it adds card kinds in a fixed order (the
jokers, the wild rank's cards, then every natural card by rank and suit), any number of
copies the decks hold, and refuses a card that would make a group of three with two cards
held, using only `makes_group` below. Hands that agree on everything that can still matter
(the cards held that could still join two later cards, and which later cards are refused)
are walked once: that is what makes every round take a moment instead of years."""

from __future__ import annotations

import random
from functools import cache

import pytest

from app.rules.cards import RANK_CODES, SUITS, Decks, parse_card
from app.rules.leftovers import held_totals, kept_counts, kept_hand_question, leftover_totals
from app.rules.schedule import plan_rounds, plan_tiebreak, solitaire_piles
from app.rules.scoring import RoundError, SeatResult, score_round, typed_points_error
from app.rules.solitaire import PileError, score_pile
from app.rules.solver import solve

ONE_GAME, TWO_GAMES = Decks(games=1), Decks(games=2)
MOST_KEPT = 13
JOKER, WILD = "JOKER", "WILD"


def makes_group(three: tuple, wild_rank: int) -> bool:
    """Whether three cards are a book or a run, wilds standing in for anything. A card is
    (rank, suit): (None, None) a joker; a card of the wild rank is wild, whatever its suit."""
    naturals = [(rank, suit) for rank, suit in three if rank not in (None, wild_rank)]
    if len(naturals) <= 1:
        return True  # two wilds and a card make a book of its rank; three wilds a group
    ranks = sorted(rank for rank, _ in naturals)
    if len(set(ranks)) == 1:
        return True  # a book (two of a rank and a wild, or three of a rank)
    if len({suit for _, suit in naturals}) > 1 or len(set(ranks)) < len(ranks):
        return False  # two suits, or the same rank twice in a run
    return ranks[-1] - ranks[0] <= 2  # a run: the wild fills the gap or an end


@cache
def grouped(a: tuple, b: tuple, c: tuple) -> bool:
    """makes_group for cards whose wilds are all jokers (the same for every wild rank)."""
    return makes_group((a, b, c), wild_rank=0)


class Walk:
    """Every hand of up to 13 cards holding no group, for one wild rank and one set of decks:
    the totals reachable by hand size, with and without wild cards."""

    def __init__(self, wild_rank: int, decks: Decks):
        self.wild_rank = wild_rank
        # (card, copies the decks hold, points): wilds first, so a hand's wilds are known
        # before its first natural card.
        self.kinds = [
            ((None, None), decks.jokers, 50),
            ((wild_rank, None), decks.copies_of_rank, 20),
        ] + [
            ((rank, suit), decks.copies_of_card, rank)
            for rank in range(3, 14)
            if rank != wild_rank
            for suit in SUITS
        ]
        count = len(self.kinds)
        # Both wild kinds are any card: as far as groups go, they are the same card.
        cards = [(None, None)] * 2 + [card for card, _, _ in self.kinds[2:]]
        # third[i][j]: the kinds that make a group with one card of kind i and one of kind j.
        self.third = [[0] * count for _ in range(count)]
        for i in range(count):
            for j in range(i, count):
                self.third[i][j] = self.third[j][i] = sum(
                    1 << k for k in range(count) if grouped(cards[i], cards[j], cards[k])
                )
        # Whether a card of kind i can still make a group with two cards of kinds >= t.
        self.matters = [
            [any(self.third[i][j] >> t for j in range(t, count)) for t in range(count + 1)]
            for i in range(count)
        ]
        self.walk = cache(self._walk)

    def _walk(self, kind: int, held: tuple[int, ...], refused: int) -> tuple[int, ...]:
        """From card kind `kind` on, holding `held` (the held cards that still matter) with
        `refused` the later kinds that would make a group: the totals of what can be added,
        by number of cards (a bitset per size: bit t set when t points are possible)."""
        if kind == len(self.kinds):
            return (1,) + (0,) * MOST_KEPT
        _, copies, points = self.kinds[kind]
        by_size = [0] * (MOST_KEPT + 1)
        taken = 0
        while True:
            later = tuple(card for card in held if self.matters[card][kind + 1])
            rest = self.walk(kind + 1, later, refused >> 1)
            for size in range(MOST_KEPT + 1 - taken):
                by_size[size + taken] |= rest[size] << taken * points
            if taken in (copies, MOST_KEPT) or refused & 1:
                break
            # One more copy of this kind: it refuses whatever makes a group with it and a
            # card held (another copy included).
            for card in held:
                refused |= self.third[card][kind] >> kind
            held = (*held, kind)
            taken += 1
        return tuple(by_size)

    @property
    def any_cards(self) -> tuple[int, ...]:
        return self.walk(0, (), 0)

    @property
    def no_wild(self) -> tuple[int, ...]:
        return self.walk(2, (), 0)


@cache
def walked(wild_rank: int, decks: Decks) -> Walk:
    return Walk(wild_rank, decks)


def members(bits: int) -> set[int]:
    return {total for total in range(bits.bit_length()) if bits >> total & 1}


def brute_force_totals(cards_dealt: int, wild_rank: int, decks: Decks) -> set[int]:
    """0 (gone out, or everything laid down), every group-free hand of all the cards dealt,
    and every group-free hand without a wild of three or more cards fewer."""
    walk = walked(wild_rank, decks)
    totals = {0} | members(walk.any_cards[cards_dealt])
    for size in range(1, cards_dealt - 2):
        totals |= members(walk.no_wild[size])
    return totals


ROUNDS = [(plan.cards_dealt, plan.wild_rank) for plan in plan_rounds(seat_count=2)]
TIEBREAK = plan_tiebreak(number=12, tied=(0, 1), last_dealer=0, dealing_seats=(0, 1), seat_count=2)
PILES = [(pile.cards_dealt, pile.wild_rank) for pile in solitaire_piles()]


@pytest.mark.parametrize(("cards_dealt", "wild_rank"), ROUNDS)
@pytest.mark.parametrize("decks", [ONE_GAME, TWO_GAMES], ids=["one game", "two games"])
def test_every_round_takes_exactly_the_totals_a_kept_hand_leaves(cards_dealt, wild_rank, decks):
    expected = brute_force_totals(cards_dealt, wild_rank, decks)
    assert leftover_totals(cards_dealt, wild_rank, decks) == expected
    taken = {
        points
        for points in range(0, 500)
        if not typed_points_error(
            points, cards_dealt=cards_dealt, wild_rank=wild_rank, decks=decks, round_name="it"
        )
    }
    assert taken == expected


def test_the_tiebreak_round_takes_exactly_those_totals_too():
    assert (TIEBREAK.cards_dealt, TIEBREAK.wild_rank) == (6, 6)
    expected = brute_force_totals(6, 6, ONE_GAME)
    assert leftover_totals(TIEBREAK.cards_dealt, TIEBREAK.wild_rank, ONE_GAME) == expected


@pytest.mark.parametrize(("cards_dealt", "wild_rank"), PILES)
def test_every_solitaire_pile_takes_exactly_the_totals_it_can_leave(cards_dealt, wild_rank):
    expected = brute_force_totals(cards_dealt, wild_rank, ONE_GAME)
    taken = set()
    for points in range(0, 500):
        try:
            score_pile(cards_dealt=cards_dealt, wild_rank=wild_rank, points=points)
        except PileError:
            continue
        taken.add(points)
    assert taken == expected


# The most a hand can cost, as the issue found them wrong: 100 in round 3 is two jokers kept
# beside the book they could have joined; a hand of all five cards holds at most one wild.
MOST = {3: 75, 4: 86, 5: 96, 6: 105, 7: 113, 8: 118, 9: 122, 10: 125, 11: 127, 12: 116, 13: 120}


@pytest.mark.parametrize(("cards_dealt", "wild_rank"), ROUNDS)
def test_the_refusal_states_the_most_a_hand_can_cost(cards_dealt, wild_rank):
    most = max(brute_force_totals(cards_dealt, wild_rank, ONE_GAME))
    assert most == MOST[cards_dealt]
    beyond = max(held_totals(cards_dealt, wild_rank, ONE_GAME)) + 1
    message = typed_points_error(
        beyond, cards_dealt=cards_dealt, wild_rank=wild_rank, decks=ONE_GAME, round_name="it"
    )
    assert message == f"{beyond} is too many: in it the cards a player keeps cost at most {most}."


def test_the_figures_the_issue_found():
    def most(round_number):
        return max(leftover_totals(round_number + 2, round_number + 2, ONE_GAME))

    assert (most(3), most(10), most(11)) == (96, 116, 120)
    round_3 = leftover_totals(5, 5, ONE_GAME)
    assert 100 not in round_3 and 96 in round_3
    for round_number, refused in [
        (5, [84]),
        (6, [93]),
        (7, [101, 102, 103]),
        (8, range(107, 111)),
        (9, range(112, 116)),
        (10, range(117, 120)),
        (11, [121, 122]),
    ]:
        totals = leftover_totals(round_number + 2, round_number + 2, ONE_GAME)
        assert not set(refused) & totals, round_number


def test_a_hand_that_laid_down_keeps_no_wild():
    # Round 3 (5 cards, fives wild): two cards kept beside three laid down are two naturals
    # (two Kings: 26), never two jokers (100), which could have joined the three.
    assert kept_counts(5) == (1, 2, 5)
    round_3 = leftover_totals(5, 5, ONE_GAME)
    assert 26 in round_3 and 100 not in round_3
    # All five kept, nothing laid: one joker beside four naturals it makes nothing with.
    assert max(round_3) == 50 + 13 + 12 + 11 + 10


# --- the solver, which scores a pile's cards, leaves exactly these totals ------------------


def example_hand(walk: Walk, size: int, total: int, *, wilds: bool) -> list[tuple]:
    """One group-free hand of that size and total, found by following the walk's totals."""
    kind, held, refused, hand = (0 if wilds else 2), (), 0, []
    while kind < len(walk.kinds):
        card, copies, points = walk.kinds[kind]
        taken = 0
        while True:
            later = tuple(c for c in held if walk.matters[c][kind + 1])
            rest = walk.walk(kind + 1, later, refused >> 1)
            if size >= taken and rest[size - taken] >> (total - taken * points) & 1:
                break
            assert taken < copies and not refused & 1
            for c in held:
                refused |= walk.third[c][kind] >> kind
            held = (*held, kind)
            hand.append(card)
            taken += 1
        size, total = size - taken, total - taken * points
        held, refused, kind = later, refused >> 1, kind + 1
    assert size == 0 and total == 0
    return hand


def code(card: tuple, wild_rank: int) -> str:
    rank, suit = card
    if rank is None:
        return "JOKER"
    return RANK_CODES[rank] + (suit or "H")


def pile_leaving(kept: list[tuple], cards_dealt: int, wild_rank: int) -> list[str] | None:
    """The kept cards and a book of some other rank that no kept card can join, in or out
    of a run: the pile's best layout lays the book and leaves the kept cards."""
    laid = cards_dealt - len(kept)
    if laid == 0:
        return [code(card, wild_rank) for card in kept]
    for rank in range(3, 14):
        near = {suit for r, suit in kept if r is not None and abs(r - rank) <= 2}
        suits = [suit for suit in SUITS if suit not in near]
        if rank == wild_rank or any(r == rank for r, _ in kept) or 2 * len(suits) < min(laid, 3):
            continue
        book = [RANK_CODES[rank] + suit for suit in suits for _ in range(2)][:laid]
        if len(book) == laid:
            return [code(card, wild_rank) for card in kept] + book
    return None


@pytest.mark.parametrize(("cards_dealt", "wild_rank"), PILES)
def test_every_total_a_pile_may_leave_is_one_the_solver_gives(cards_dealt, wild_rank):
    walk = walked(wild_rank, ONE_GAME)
    for size in kept_counts(cards_dealt):
        bits = walk.any_cards[size] if size == cards_dealt else walk.no_wild[size]
        for total in members(bits):
            kept = example_hand(walk, size, total, wilds=size == cards_dealt)
            pile = pile_leaving(kept, cards_dealt, wild_rank)
            if pile is None:  # some other hand of that total leaves room for a book
                continue
            assert solve(pile, wild_rank).points == total, pile


@pytest.mark.parametrize(("cards_dealt", "wild_rank"), PILES)
def test_random_piles_leave_only_those_totals(cards_dealt, wild_rank):
    deck = [f"{RANK_CODES[r]}{s}" for r in range(3, 14) for s in SUITS] * 2 + ["JOKER"] * 6
    totals = leftover_totals(cards_dealt, wild_rank, ONE_GAME)
    draw = random.Random(cards_dealt)
    for _ in range(150):
        pile = draw.sample(deck, cards_dealt)
        assert solve(pile, wild_rank).points in totals, pile
        assert parse_card(pile[0])  # the deck holds only real cards


# --- a true score is never impossible to enter ---------------------------------------------


def any_hand_totals(cards_dealt: int, wild_rank: int, decks: Decks) -> set[int]:
    """What any cards of a count a player may keep cost, groups or wilds held or not."""
    values = [(50, decks.jokers), (20, decks.copies_of_rank)] + [
        (rank, decks.copies_of_rank) for rank in range(3, 14) if rank != wild_rank
    ]
    by_size = {0: {0}}
    for points, copies in values:
        grown = {size: set(totals) for size, totals in by_size.items()}
        for size, totals in by_size.items():
            for taken in range(1, min(copies, cards_dealt - size) + 1):
                more = {total + taken * points for total in totals}
                grown.setdefault(size + taken, set()).update(more)
        by_size = grown
    return {0}.union(*(by_size[size] for size in kept_counts(cards_dealt)))


@pytest.mark.parametrize(("cards_dealt", "wild_rank"), [(3, 3), (5, 5), (12, 12), (13, 13)])
def test_any_cards_a_player_may_keep_are_counted(cards_dealt, wild_rank):
    for decks in (ONE_GAME, TWO_GAMES):
        expected = any_hand_totals(cards_dealt, wild_rank, decks)
        assert held_totals(cards_dealt, wild_rank, decks) == expected


def refusal(points, cards_dealt, **extra):
    return typed_points_error(
        points,
        cards_dealt=cards_dealt,
        wild_rank=cards_dealt,
        decks=ONE_GAME,
        round_name=f"round {cards_dealt - 2}",
        **extra,
    )


def test_a_total_only_held_groups_or_wilds_leave_says_how_to_record_it():
    # Round 3: two jokers kept beside a book they could have joined; round 1: three jokers.
    for points, cards_dealt in [(100, 5), (97, 5), (150, 3), (250, 5), (117, 12), (122, 13)]:
        assert refusal(points, cards_dealt, name="Ben") == (
            f"In round {cards_dealt - 2}, only cards that hold a book or a run, or a wild card "
            f"kept after laying down, leave {points} points. If Ben kept such cards, tap them, "
            "then confirm."
        ), points


def test_totals_no_cards_can_leave_are_still_refused_as_before():
    assert refusal(4, 3) == "In round 1 a player keeps 0 or 3 cards; 4 points cannot be left."
    assert (
        refusal(251, 3) == "251 is too many: in round 1 the cards a player keeps cost at most 75."
    )
    assert refusal(1000, 13).endswith("cost at most 120.")
    assert refusal(2, 5) == "No card is worth 1 or 2 points: the lowest card is a 3."


def test_a_pile_cannot_be_confirmed_its_cards_are_laid_out_by_the_solver():
    with pytest.raises(PileError, match="100 is too many: in the pile of 5 .* at most 96"):
        score_pile(cards_dealt=5, wild_rank=5, points=100, pile_name="the pile of 5")
    # 100 would be two jokers kept beside a book of three: laid out, the pile closes.
    assert solve(["JOKER", "JOKER", "7H", "7S", "7C"], 5).points == 0
    assert score_pile(cards_dealt=5, wild_rank=5, points=96).points == 96


# --- tapped cards that hold a group, or a wild after laying down ---------------------------


def question(codes, cards_dealt, name="Ben"):
    cards = [parse_card(c) for c in codes]
    return kept_hand_question(cards, cards_dealt=cards_dealt, wild_rank=cards_dealt, name=name)


@pytest.mark.parametrize(
    ("codes", "cards_dealt", "words"),
    [
        (["JOKER"] * 3, 3, "Three jokers make a book: were they laid down?"),
        (["7", "7", "7"], 3, "Three Sevens make a book: were they laid down?"),
        (["7", "7", "7", "7", "K"], 5, "Four Sevens make a book: were they laid down?"),
        (["7", "JOKER", "7", "9", "10"], 5, "Two Sevens and a joker make a book"),
        (["9", "JOKER", "5", "K", "Q"], 5, "A Nine, a joker and a Five make a book"),
        (["6H", "7H", "8H", "QS", "KD"], 5, "The Six, Seven and Eight of hearts make a run"),
        (
            ["6H", "JOKER", "8H", "QS", "KS"],
            5,
            "The Six and Eight of hearts and a joker make a run",
        ),
        (["3", "3", "4"], 4, "Two Threes and a Four make a book"),
        (["8", "JOKER", "JOKER"], 5, "An Eight and two jokers make a book"),
    ],
)
def test_tapped_cards_that_hold_a_group_are_named_in_words(codes, cards_dealt, words):
    text = question(codes, cards_dealt)
    assert text.startswith(words), text
    assert text.endswith("If Ben kept them, confirm."), text


def test_a_wild_kept_after_laying_down_is_asked_about():
    assert question(["JOKER", "JOKER"], 5) == (
        "Ben kept 2 of the 5 cards dealt, so Ben laid cards down, and the two jokers could "
        "have joined them: were they kept? If Ben kept them, confirm."
    )
    assert question(["5", "9"], 5) == (
        "Ben kept 2 of the 5 cards dealt, so Ben laid cards down, and the Five (wild) could "
        "have joined them: was it kept? If Ben kept it, confirm."
    )


@pytest.mark.parametrize(
    ("codes", "cards_dealt"),
    [
        (["JOKER", "9", "K"], 3),  # all three kept: one wild beside cards it makes nothing with
        (["9", "K"], 5),
        (["6H", "7S", "8C", "QS", "KD"], 5),  # three suits: no run
        (["6", "7", "8", "Q", "K"], 5),  # no suits tapped: a run cannot be told
        (["7", "7", "9", "9", "K"], 5),
        ([], 5),
    ],
)
def test_hands_the_rules_leave_ask_nothing(codes, cards_dealt):
    assert question(codes, cards_dealt) == ""


def test_a_round_saves_such_cards_only_once_confirmed():
    def play(**ben):
        return score_round(
            [
                SeatResult(went_out=True),
                SeatResult(cards=tuple(map(parse_card, ["JOKER"] * 3)), **ben),
            ],
            seat_names=["Ann", "Ben"],
            cards_dealt=3,
            wild_rank=3,
            decks=ONE_GAME,
            round_name="round 1",
        )

    with pytest.raises(RoundError) as refused:
        play()
    assert refused.value.seat_errors == {
        1: "Three jokers make a book: were they laid down? If Ben kept them, confirm."
    }
    assert refused.value.to_confirm == {1}
    assert play(confirmed=True).scores == [0, 150]


def test_a_confirmed_total_is_one_some_kept_cards_can_leave():
    def play(points, **ben):
        return score_round(
            [SeatResult(went_out=True), SeatResult(points=points, **ben)],
            seat_names=["Ann", "Ben"],
            cards_dealt=5,
            wild_rank=5,
            decks=ONE_GAME,
            round_name="round 3",
        )

    with pytest.raises(RoundError, match="If Ben kept such cards, tap them, then confirm"):
        play(100)
    assert play(100, confirmed=True).scores == [0, 100]  # what an import of a recorded game sends
    with pytest.raises(RoundError, match="at most 96"):
        play(300, confirmed=True)
