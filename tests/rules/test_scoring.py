"""What leftover cards cost, and the limits the decks put on a round."""

import pytest

from app.rules.cards import CardError, Decks, card_points, parse_card
from app.rules.scoring import (
    RoundError,
    SeatResult,
    leftover_points,
    score_round,
)


def cards(*codes):
    return tuple(parse_card(code) for code in codes)


@pytest.mark.parametrize(
    ("code", "round_wild", "points"),
    [
        ("3", 13, 3),
        ("10H", 3, 10),
        ("J", 3, 11),
        ("Q", 3, 12),
        ("K", 3, 13),
        ("K", 13, 20),
        ("7S", 7, 20),
        ("JOKER", 3, 50),
        ("joker", 13, 50),
    ],
)
def test_card_values(code, round_wild, points):
    assert card_points(parse_card(code), wild_rank=round_wild) == points


def test_a_king_costs_13_in_round_one_and_20_in_round_eleven():
    king = parse_card("KS")
    assert card_points(king, wild_rank=3) == 13
    assert card_points(king, wild_rank=13) == 20


def test_worked_example_from_the_rulebook():
    assert leftover_points(cards("5R", "9H", "JOKER"), wild_rank=5) == 79


@pytest.mark.parametrize("code", ["2", "A", "11", "JOKERS", "QX", "", "1OH"])
def test_unknown_card_codes_are_refused(code):
    with pytest.raises(CardError):
        parse_card(code)


def test_card_codes_ignore_case_and_keep_suits():
    assert parse_card("qh").code == "QH"
    assert parse_card("10r").name == "Ten of stars"


def test_two_games_combined_double_the_decks():
    assert Decks.for_players(7) == Decks(games=1)
    assert Decks.for_players(8) == Decks(games=2)
    assert (Decks(2).copies_of_rank, Decks(2).copies_of_card, Decks(2).jokers) == (20, 4, 12)


NAMES = ["Ann", "Ben", "Cy"]


def play(results, *, round_number=1, names=NAMES, decks=None):
    return score_round(
        results,
        seat_names=names,
        cards_dealt=round_number + 2,
        wild_rank=round_number + 2,
        decks=decks or Decks.for_players(len(names)),
    )


def test_a_round_scores_went_out_cards_and_typed_points():
    # The rulebook's worked example: two wilds and a nine make a book, so it is confirmed.
    outcome = play(
        [
            SeatResult(went_out=True),
            SeatResult(cards=cards("5R", "9H", "JOKER"), confirmed=True),
            SeatResult(points=17),
        ],
        round_number=3,
    )
    assert outcome.scores == [0, 79, 17]
    assert outcome.went_out == 0


def test_several_players_may_score_zero_but_one_went_out():
    outcome = play([SeatResult(cards=()), SeatResult(went_out=True), SeatResult(points=0)])
    assert outcome.scores == [0, 0, 0]
    assert outcome.went_out == 1


def test_nobody_went_out_is_refused():
    with pytest.raises(RoundError, match="went out first"):
        play([SeatResult(points=5), SeatResult(points=6), SeatResult(points=7)])


def test_two_players_cannot_both_go_out_first():
    with pytest.raises(RoundError, match="Only one player goes out first"):
        play([SeatResult(went_out=True), SeatResult(went_out=True), SeatResult(points=7)])


def test_no_more_leftover_cards_than_dealt():
    with pytest.raises(RoundError) as caught:
        play(
            [
                SeatResult(went_out=True),
                SeatResult(cards=cards("4", "5", "6", "7")),
                SeatResult(points=13),
            ]
        )
    assert caught.value.seat_errors == {1: "Ben has 4 cards, but only 3 were dealt this round."}


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (-1, "negative"),
        (1, "worth 1 or 2"),
        (2, "worth 1 or 2"),
        (151, "at most 75"),
        (4, "keeps 0 or 3 cards"),
    ],
)
def test_impossible_typed_points(points, message):
    with pytest.raises(RoundError, match=message) as caught:
        play([SeatResult(went_out=True), SeatResult(points=points), SeatResult(points=0)])
    assert list(caught.value.seat_errors) == [1]


def test_typed_points_a_kept_hand_can_leave_are_taken():
    # Round 1: a joker, a King and a Queen (75); a four, a four and a five (13).
    outcome = play([SeatResult(went_out=True), SeatResult(points=75), SeatResult(points=13)])
    assert outcome.scores == [0, 75, 13]


def test_jokers_across_the_table_are_limited():
    with pytest.raises(RoundError, match="7 jokers across the table, but the decks hold only 6"):
        play(
            [
                SeatResult(went_out=True),
                SeatResult(cards=cards(*["JOKER"] * 4)),
                SeatResult(cards=cards(*["JOKER"] * 3)),
            ],
            round_number=2,
        )


def test_two_games_combined_allow_twelve_jokers():
    names = [f"P{i}" for i in range(8)]
    results = [SeatResult(went_out=True)] + [SeatResult(cards=cards("JOKER", "JOKER"))] * 6
    results.append(SeatResult(points=0))
    assert play(results, round_number=1, names=names).scores[1] == 100
    with pytest.raises(RoundError, match="14 jokers"):
        play(results[:-1] + [SeatResult(cards=cards("JOKER", "JOKER"))], names=names)


def test_no_more_of_a_rank_than_the_decks_hold():
    names = [f"P{i}" for i in range(5)]
    results = [SeatResult(went_out=True)] + [SeatResult(cards=cards("Q", "Q", "Q"))] * 4
    with pytest.raises(RoundError, match="12 Queens across the table, but the decks hold only 10"):
        play(results, names=names)


def test_no_more_of_an_exact_card_than_the_decks_hold():
    with pytest.raises(RoundError, match="3 of the Queen of hearts, but the decks hold only 2"):
        play(
            [
                SeatResult(went_out=True),
                SeatResult(cards=cards("QH", "QH")),
                SeatResult(cards=cards("QH")),
            ]
        )


def test_went_out_player_has_no_cards():
    with pytest.raises(RoundError, match="Ann went out, so Ann has no cards left"):
        play(
            [
                SeatResult(went_out=True, cards=cards("Q")),
                SeatResult(points=13),
                SeatResult(points=13),
            ]
        )


def test_a_seat_that_went_out_cannot_also_hold_points_or_cards():
    for result in (
        SeatResult(went_out=True, points=5),
        SeatResult(went_out=True, cards=cards("4")),
    ):
        with pytest.raises(RoundError) as caught:
            play([result, SeatResult(points=14), SeatResult(points=13)])
        assert caught.value.seat_errors == {0: "Ann went out, so Ann has no cards left."}


def test_went_out_with_zero_points_is_still_a_clean_round():
    outcome = play(
        [SeatResult(went_out=True, points=0), SeatResult(points=14), SeatResult(points=13)]
    )
    assert outcome.scores == [0, 14, 13] and outcome.went_out == 0


def test_exactly_ten_of_a_rank_fit_one_box_and_eleven_do_not():
    names = ["Ann", "Ben", "Cy", "Dee"]

    def kings(*counts):
        held = [SeatResult(cards=cards(*["K"] * n), confirmed=True) for n in counts]
        return [SeatResult(went_out=True), *held]

    one_box = Decks(1)
    outcome = score_round(
        kings(5, 5, 0), seat_names=names, cards_dealt=5, wild_rank=5, decks=one_box
    )
    assert outcome.scores == [0, 65, 65, 0]
    with pytest.raises(RoundError) as caught:
        score_round(kings(5, 5, 1), seat_names=names, cards_dealt=5, wild_rank=5, decks=one_box)
    assert caught.value.table_errors == ["11 Kings across the table, but the decks hold only 10."]


def test_exactly_two_of_a_card_fit_one_box_and_three_do_not():
    names = ["Ann", "Ben", "Cy"]
    two = [SeatResult(went_out=True), SeatResult(cards=cards("KH", "KH")), SeatResult(cards=())]
    assert play(two).scores == [0, 26, 0]
    three = [
        SeatResult(went_out=True),
        SeatResult(cards=cards("KH", "KH")),
        SeatResult(cards=cards("KH")),
    ]
    with pytest.raises(RoundError) as caught:
        score_round(three, seat_names=names, cards_dealt=3, wild_rank=3, decks=Decks(1))
    assert caught.value.table_errors == ["3 of the King of hearts, but the decks hold only 2."]


def test_jokers_fit_up_to_the_decks_count():
    three = SeatResult(cards=cards("JOKER", "JOKER", "JOKER"), confirmed=True)
    six = [SeatResult(went_out=True), three, three]
    assert play(six).scores == [0, 150, 150]
    seven = [*six[:2], SeatResult(cards=cards("JOKER", "JOKER", "JOKER", "JOKER"))]
    with pytest.raises(RoundError, match="7 jokers across the table, but the decks hold only 6"):
        score_round(
            seven, seat_names=["Ann", "Ben", "Cy"], cards_dealt=4, wild_rank=4, decks=Decks(1)
        )


def test_every_reason_a_round_is_refused_is_told_one_after_another():
    with pytest.raises(RoundError) as refused:
        score_round(
            [SeatResult(points=13), SeatResult(cards=cards("3H", "4H", "5H", "6H"))],
            seat_names=["Ann", "Ben"],
            cards_dealt=3,
            wild_rank=3,
            decks=Decks(1),
        )
    assert str(refused.value) == (
        "Choose the player who went out first. Ben has 4 cards, but only 3 were dealt this round."
    )
