"""The round chart and the rotation of the deal, checked against the rulebook."""

import pytest

from app.rules.cards import RANK_CODES
from app.rules.schedule import ROUND_COUNT, cards_dealt, plan_rounds, wild_rank


def test_chart_matches_the_rulebook():
    chart = [(r, cards_dealt(r), RANK_CODES[wild_rank(r)]) for r in range(1, ROUND_COUNT + 1)]
    assert chart == [
        (1, 3, "3"),
        (2, 4, "4"),
        (3, 5, "5"),
        (4, 6, "6"),
        (5, 7, "7"),
        (6, 8, "8"),
        (7, 9, "9"),
        (8, 10, "10"),
        (9, 11, "J"),
        (10, 12, "Q"),
        (11, 13, "K"),
    ]


@pytest.mark.parametrize("bad_round", [0, 12, -1])
def test_there_are_only_eleven_rounds(bad_round):
    with pytest.raises(ValueError, match="rounds run from 1 to 11"):
        cards_dealt(bad_round)


def test_two_players_alternate_the_deal():
    plans = plan_rounds(seat_count=2, first_dealer=0)
    assert [p.dealer for p in plans] == [0, 1] * 5 + [0]
    assert [p.first_player for p in plans] == [1, 0] * 5 + [1]


def test_three_players_deal_clockwise_from_the_chosen_dealer():
    plans = plan_rounds(seat_count=3, first_dealer=2)
    assert [p.dealer for p in plans] == [2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]
    assert [p.first_player for p in plans] == [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1]


def test_seven_players():
    plans = plan_rounds(seat_count=7, first_dealer=0)
    assert [p.dealer for p in plans] == [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3]
    assert [p.first_player for p in plans] == [1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4]


def test_fourteen_players_never_wrap_within_eleven_rounds():
    plans = plan_rounds(seat_count=14, first_dealer=5)
    assert [p.dealer for p in plans] == [5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1]
    assert [p.first_player for p in plans] == [6, 7, 8, 9, 10, 11, 12, 13, 0, 1, 2]


def test_first_dealer_must_be_a_seat():
    with pytest.raises(ValueError, match="seat from 0 to 3"):
        plan_rounds(seat_count=4, first_dealer=4)
