"""The other ways to play: round orders, solitaire, the tie-break, players coming and going,
and the points a leftover hand can really cost."""

import random

import pytest

from app.rules.cards import Decks, parse_card
from app.rules.leftovers import leftover_totals
from app.rules.schedule import (
    ROUND_COUNT,
    cards_in_order,
    next_seat,
    plan_rounds,
    plan_tiebreak,
    replan,
    solitaire_piles,
)
from app.rules.scoring import SeatResult, score_round, typed_points_error
from app.rules.solitaire import PileError, score_pile, solitaire_result
from app.rules.standings import after_tiebreaks, average_total, leaders, totals

ONE_GAME = Decks(1)


# --- round orders -----------------------------------------------------------------------


def test_the_rulebook_order_deals_three_cards_first():
    assert cards_in_order("up") == list(range(3, 14))


def test_kings_first_deals_thirteen_cards_first():
    plans = plan_rounds(seat_count=3, order="down")
    assert [p.cards_dealt for p in plans] == list(range(13, 2, -1))
    assert plans[0].wild_rank == 13


def test_a_shuffled_order_plays_each_size_once_and_the_wild_rank_follows():
    plans = plan_rounds(seat_count=4, order="shuffled", rng=random.Random(7))
    assert sorted(p.cards_dealt for p in plans) == list(range(3, 14))
    assert [p.cards_dealt for p in plans] != list(range(3, 14))
    assert all(p.wild_rank == p.cards_dealt for p in plans)
    assert [p.number for p in plans] == list(range(1, ROUND_COUNT + 1))


def test_the_deal_rotates_in_every_order():
    plans = plan_rounds(seat_count=3, first_dealer=1, order="down")
    assert [p.dealer for p in plans][:4] == [1, 2, 0, 1]
    assert all(p.players_in == (0, 1, 2) for p in plans)


def test_an_unknown_order_is_refused():
    with pytest.raises(ValueError, match="up, down or shuffled"):
        cards_in_order("sideways")  # type: ignore[arg-type]


# --- solitaire --------------------------------------------------------------------------


def test_solitaire_deals_eleven_piles_each_wild_at_its_size():
    piles = solitaire_piles()
    assert [(p.cards_dealt, p.wild_rank) for p in piles] == [(n, n) for n in range(3, 14)]
    assert all(p.players_in == (0,) for p in piles)
    assert all(p.dealer == 0 and p.first_player == 0 for p in piles)  # the one player


def test_a_pile_of_cards_scores_what_the_best_layout_leaves():
    cards = [parse_card(c) for c in ["7H", "7S", "7C", "KD"]]
    pile = score_pile(cards_dealt=4, wild_rank=4, cards=cards)
    assert pile.points == 13
    assert pile.solution is not None and pile.solution.leftover == ["KD"]


def test_a_pile_uses_its_own_wild_rank():
    # Pile of 5: fives are wild, so 5R fills the run 9H 10H _ .
    cards = [parse_card(c) for c in ["9H", "10H", "5R", "3S", "3C"]]
    assert score_pile(cards_dealt=5, wild_rank=5, cards=cards).points == 6


def test_a_pile_needs_exactly_its_number_of_cards():
    cards = [parse_card(c) for c in ["7H", "7S", "7C"]]
    with pytest.raises(PileError, match="exactly 4, not 3"):
        score_pile(cards_dealt=4, wild_rank=4, cards=cards)


def test_a_closed_pile_scores_nothing_and_typed_points_must_be_reachable():
    assert score_pile(cards_dealt=3, wild_rank=3, closed=True).points == 0
    assert score_pile(cards_dealt=3, wild_rank=3, points=75).points == 75
    with pytest.raises(PileError, match="149 is too many: in pile 1 the cards a player keeps"):
        score_pile(cards_dealt=3, wild_rank=3, points=149, pile_name="pile 1")


def test_a_pile_says_what_it_needs_in_the_players_words():
    # Without a name a pile is "this pile", as the message a player reads starts with it.
    with pytest.raises(PileError) as wrong_count:
        score_pile(cards_dealt=4, wild_rank=4, cards=[parse_card("7H")])
    assert str(wrong_count.value) == "This pile holds 4 cards: tap exactly 4, not 1."
    with pytest.raises(PileError) as nothing:
        score_pile(cards_dealt=4, wild_rank=4)
    assert str(nothing.value) == "Say whether this pile closed, or give its cards or its points."


def test_typed_pile_points_follow_the_piles_own_wild_rank():
    # Threes are wild in the pile of 3: a three left costs 20, so 3 points cannot be left,
    # while 33 can (a wild three, a four and a nine) and so can 13 (a four, a four, a five).
    with pytest.raises(PileError, match="In this pile a player keeps 0 or 3 cards; 3 points"):
        score_pile(cards_dealt=3, wild_rank=3, points=3)
    assert score_pile(cards_dealt=3, wild_rank=3, points=33).points == 33
    assert score_pile(cards_dealt=3, wild_rank=3, points=13).points == 13


def test_solitaire_is_won_only_when_every_pile_closed():
    assert solitaire_result([0] * 11).won is True
    lost = solitaire_result([0] * 10 + [13])
    assert lost.finished and lost.won is False and lost.total == 13
    going = solitaire_result([0, None] + [0] * 9)
    assert not going.finished and going.won is None


# --- the tie-break ----------------------------------------------------------------------


def test_the_tiebreak_deals_six_cards_to_the_tied_only():
    plan = plan_tiebreak(
        number=12, tied=[3, 1], last_dealer=0, dealing_seats=[0, 1, 2, 3], seat_count=4
    )
    assert (plan.kind, plan.cards_dealt, plan.wild_rank) == ("tiebreak", 6, 6)
    assert plan.players_in == (1, 3)
    assert plan.dealer == 1  # the deal passes on as usual
    assert plan.first_player == 3  # the first tied player on the dealer's left


def test_one_player_alone_has_nobody_to_break_a_tie_with():
    with pytest.raises(ValueError) as alone:
        plan_tiebreak(number=12, tied=[2], last_dealer=0, dealing_seats=[0, 1, 2], seat_count=3)
    assert str(alone.value) == "a tie-break needs at least two tied players"


def test_the_tiebreak_dealer_need_not_play():
    plan = plan_tiebreak(
        number=12, tied=[0, 2], last_dealer=0, dealing_seats=[0, 1, 2], seat_count=3
    )
    assert plan.dealer == 1 and plan.first_player == 2


def test_a_player_who_left_does_not_deal_the_tiebreak():
    plan = plan_tiebreak(
        number=12, tied=[0, 3], last_dealer=0, dealing_seats=[0, 2, 3], seat_count=4
    )
    assert plan.dealer == 2 and plan.first_player == 3


def test_the_fewest_tiebreak_points_win_and_a_new_tie_plays_again():
    assert after_tiebreaks([0, 2], [[5, None, 9]]) == [0]
    assert after_tiebreaks([0, 1, 2], [[5, 5, 9]]) == [0, 1]
    assert after_tiebreaks([0, 1, 2], [[5, 5, 9], [None, 0, None]]) == [1]
    # A tie-break round none of them played settles nothing; the next one still counts.
    assert after_tiebreaks([0, 1], [[None, None, 4], [3, 7, None]]) == [0]


def test_a_tiebreak_round_scores_only_the_tied_seats():
    outcome = score_round(
        [None, SeatResult(went_out=True), SeatResult(points=12)],
        seat_names=["Ann", "Ben", "Cy"],
        cards_dealt=6,
        wild_rank=6,
        decks=ONE_GAME,
        players_in=[1, 2],
    )
    assert outcome.scores == [None, 0, 12]


def test_a_result_for_a_seat_not_in_the_round_is_refused():
    with pytest.raises(ValueError) as refused:
        score_round(
            [SeatResult(points=13), SeatResult(went_out=True), SeatResult(points=12)],
            seat_names=["Ann", "Ben", "Cy"],
            cards_dealt=6,
            wild_rank=6,
            decks=ONE_GAME,
            players_in=[1, 2],
        )
    assert "Ann is not in this round" in str(refused.value)


# --- players coming and going -----------------------------------------------------------


def test_after_a_join_the_same_dealer_deals_then_the_deal_moves_round_the_new_table():
    # Four seats after Eve sat down at seat 2; Cy (now seat 3) was to deal round 4.
    unplayed = plan_rounds(seat_count=3)[3:]
    plans = replan(unplayed, next_dealer=3, seats_in=[0, 1, 2, 3], seat_count=4)
    assert [p.dealer for p in plans][:5] == [3, 0, 1, 2, 3]
    assert plans[0].first_player == 0
    assert all(p.players_in == (0, 1, 2, 3) for p in plans)
    assert [p.cards_dealt for p in plans] == list(range(6, 14))


def test_after_a_leave_the_deal_skips_the_player_who_left():
    unplayed = plan_rounds(seat_count=4)[2:]
    plans = replan(unplayed, next_dealer=2, seats_in=[0, 2, 3], seat_count=4)
    assert [p.dealer for p in plans][:4] == [2, 3, 0, 2]
    assert [p.first_player for p in plans][:3] == [3, 0, 2]


def test_a_changed_table_plays_the_same_rounds_with_the_same_wild_ranks():
    # Kings first: round 4 deals 10 cards, tens wild, and still does after someone joins.
    unplayed = plan_rounds(seat_count=3, order="down")[3:]
    plans = replan(unplayed, next_dealer=0, seats_in=[0, 1, 2, 3], seat_count=4)
    assert [(p.number, p.cards_dealt, p.wild_rank) for p in plans] == [
        (number, 14 - number, 14 - number) for number in range(4, 12)
    ]
    assert all(p.kind == "round" for p in plans)


def test_a_tiebreak_stays_a_tiebreak_when_a_tied_player_leaves():
    tiebreak = plan_tiebreak(
        number=12, tied=[0, 1, 2], last_dealer=0, dealing_seats=[0, 1, 2], seat_count=3
    )
    [plan] = replan([tiebreak], next_dealer=1, seats_in=[1, 2], seat_count=3)
    assert (plan.number, plan.kind, plan.cards_dealt, plan.wild_rank) == (12, "tiebreak", 6, 6)
    assert plan.players_in == (1, 2)


def test_when_the_next_dealer_leaves_the_next_player_still_in_deals():
    unplayed = plan_rounds(seat_count=4)[2:]
    plans = replan(unplayed, next_dealer=2, seats_in=[0, 1, 3], seat_count=4)
    assert [p.dealer for p in plans][:3] == [3, 0, 1]


def test_next_seat_goes_clockwise_among_the_players_named():
    assert next_seat(3, among=[0, 2], seat_count=5) == 0
    assert next_seat(0, among=[0], seat_count=5) == 0


def test_next_seat_says_when_nobody_can_take_the_deal():
    with pytest.raises(ValueError) as empty:
        next_seat(1, among=[], seat_count=4)
    assert str(empty.value) == "nobody is left at the table"
    with pytest.raises(ValueError) as elsewhere:
        next_seat(1, among=[5, 7], seat_count=4)
    assert str(elsewhere.value) == "no seat of [5, 7] sits at a table of 4"


def test_a_late_arrival_starts_with_points_and_leavers_are_not_leaders():
    sums = totals([[0, 10, None], [5, None, 7]], seat_count=3, start_points=[0, 0, 42])
    assert sums == [5, 10, 49]
    assert leaders([30, 10, 20], still_in=[0, 2]) == [2]


def test_the_average_start_is_rounded():
    assert average_total([10, 11]) == 11  # 10.5 rounds up
    assert average_total([10, 10, 11]) == 10
    assert average_total([]) == 0  # nobody to average: a start of nothing


# --- only hands a deal could give -------------------------------------------------------


def test_round_one_points_a_hand_could_cost():
    # Nothing, or three cards holding no group: 4, 4 and 5 (13) up to K, Q and a joker.
    reachable = leftover_totals(3, 3, ONE_GAME)
    assert min(reachable - {0}) == 13 and 13 + 12 + 50 in reachable
    assert not {3, 4, 12, 149, 150} & reachable  # three jokers are a group


def test_the_refusal_says_why():
    message = typed_points_error(
        4, cards_dealt=3, wild_rank=3, decks=ONE_GAME, round_name="round 1"
    )
    assert message == "In round 1 a player keeps 0 or 3 cards; 4 points cannot be left."
    assert (
        typed_points_error(13, cards_dealt=3, wild_rank=3, decks=ONE_GAME, round_name="round 1")
        == ""
    )


def test_typed_points_in_a_round_are_checked():
    with pytest.raises(ValueError, match="In round 1 a player keeps 0 or 3 cards; 3 points"):
        score_round(
            [SeatResult(went_out=True), SeatResult(points=3)],
            seat_names=["Ann", "Ben"],
            cards_dealt=3,
            wild_rank=3,
            decks=ONE_GAME,
            round_name="round 1",
        )
