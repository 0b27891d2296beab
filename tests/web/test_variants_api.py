"""The API for every way to play: solitaire, the tie-break, players coming and going,
round orders, and only the points a deal could give."""

import pytest

from tests.conftest import went_out_first


def put_round(client, code, number, results, **extra):
    return client.put(f"/api/games/{code}/rounds/{number}", json={"results": results, **extra})


def play_rounds(client, code, numbers, seat_count, *, out=0, points=None):
    for number in numbers:
        results = went_out_first(
            seat_count, out=out, points=points or [0] + [13] * (seat_count - 1)
        )
        response = put_round(client, code, number, results)
        assert response.status_code == 200, response.text
    return response.json()


# --- solitaire --------------------------------------------------------------------------


def test_one_player_is_a_solitaire_game_of_eleven_piles(new_game):
    game = new_game(["Sol"])
    assert game["mode"] == "solitaire"
    assert [(r["cards_dealt"], r["wild_rank"]) for r in game["rounds"]] == [
        (3, "3"), (4, "4"), (5, "5"), (6, "6"), (7, "7"), (8, "8"),
        (9, "9"), (10, "10"), (11, "J"), (12, "Q"), (13, "K"),
    ]  # fmt: skip
    assert all(r["players_in"] == [0] for r in game["rounds"])
    assert game["won"] is None and game["finished"] is False


def test_an_ordinary_game_says_so(new_game):
    game = new_game()
    assert game["mode"] == "game" and game["order"] == "up"
    assert {r["kind"] for r in game["rounds"]} == {"round"}


def test_a_pile_of_cards_is_laid_out_by_the_solver(client, new_game):
    code = new_game(["Sol"])["code"]
    response = put_round(client, code, 2, [{"cards": ["7H", "7S", "7C", "KD"]}])
    assert response.status_code == 200, response.text
    pile = response.json()["rounds"][1]
    assert pile["scores"] == [13]
    assert pile["leftover"] == ["KD"]
    [book] = pile["groups"]
    assert book["kind"] == "book" and sorted(book["cards"]) == ["7C", "7H", "7S"]
    assert book["stands_for"] == [None, None, None]
    assert pile["cards"] == [["7H", "7S", "7C", "KD"]]


def test_a_pile_with_the_wrong_number_of_cards_is_422(client, new_game):
    code = new_game(["Sol"])["code"]
    for cards in (["7H", "7S", "7C"], ["7H", "7S", "7C", "KD", "KH"]):
        response = put_round(client, code, 2, [{"cards": cards}])
        assert response.status_code == 422
        assert "exactly 4" in response.json()["detail"]


def test_a_pile_needs_suits_and_one_result(client, new_game):
    code = new_game(["Sol"])["code"]
    assert put_round(client, code, 1, [{"cards": ["7", "7H", "7S"]}]).status_code == 422
    two = put_round(client, code, 1, [{"went_out": True}, {"points": 4}])
    assert two.status_code == 422 and "one result" in two.json()["detail"]


def test_piles_are_saved_in_any_order_and_an_all_closed_game_is_won(client, new_game):
    code = new_game(["Sol"])["code"]
    for number in [11, 3, 7, 1, 2, 4, 5, 6, 8, 9]:
        state = put_round(client, code, number, [{"went_out": True}]).json()
        assert state["finished"] is False and state["won"] is None
    state = put_round(client, code, 10, [{"went_out": True}]).json()
    assert state["finished"] is True and state["won"] is True
    assert state["totals"] == [0]


def test_a_solitaire_game_with_points_left_is_lost_with_the_total(client, new_game):
    code = new_game(["Sol"])["code"]
    put_round(client, code, 1, [{"points": 14}])
    put_round(client, code, 2, [{"cards": ["7H", "7S", "7C", "KD"]}])
    for number in range(3, 12):
        state = put_round(client, code, number, [{"went_out": True}]).json()
    assert state["finished"] is True and state["won"] is False
    assert state["totals"] == [27]


def test_typed_pile_points_must_be_reachable(client, new_game):
    code = new_game(["Sol"])["code"]
    response = put_round(client, code, 1, [{"points": 58}])
    assert response.status_code == 422
    refusal = "In pile 1 a player keeps 0 or 3 cards; 58 points cannot be left."
    assert refusal in response.json()["detail"]
    # A pile of 5 (fives wild) never leaves 100: two jokers beside a book would join it.
    response = put_round(client, code, 3, [{"points": 100}])
    assert response.status_code == 422
    assert response.json()["detail"] == (
        "100 is too many: in pile 3 the cards a player keeps cost at most 96."
    )
    assert put_round(client, code, 3, [{"points": 96}]).status_code == 200


def test_solitaire_has_no_tiebreak_and_nobody_joins(client, new_game):
    code = new_game(["Sol"])["code"]
    assert client.post(f"/api/games/{code}/tiebreak").status_code == 409
    assert client.post(f"/api/games/{code}/players", json={"name": "Eve"}).status_code == 409
    assert client.delete(f"/api/games/{code}/players/0").status_code == 409


# --- the tie-break ----------------------------------------------------------------------


def tied_game(client, new_game, players=("Ann", "Ben", "Cy", "Dee")):
    """A finished game in which Ann and Cy share the lowest total (0)."""
    code = new_game(list(players))["code"]
    seats = len(players)
    for number in range(1, 12):
        points = [0, 13, 0, 19][:seats]
        state = put_round(client, code, number, went_out_first(seats, out=0, points=points)).json()
    assert state["finished"] and state["winners"] == [0, 2]
    return code, state


def test_a_shared_win_can_be_broken_by_a_six_card_round(client, new_game):
    code, before = tied_game(client, new_game)
    assert before["can_tiebreak"] is True
    response = client.post(f"/api/games/{code}/tiebreak")
    assert response.status_code == 201, response.text
    game = response.json()
    tiebreak = game["rounds"][-1]
    assert tiebreak["number"] == 12
    assert tiebreak["kind"] == "tiebreak"
    assert tiebreak["cards_dealt"] == 6 and tiebreak["wild_rank"] == "6"
    assert tiebreak["players_in"] == [0, 2]
    # Round 11 was dealt by Cy (seat 2, first dealer 0); Dee deals on, Ann plays first.
    assert game["rounds"][10]["dealer"] == 2
    assert tiebreak["dealer"] == 3 and tiebreak["first_player"] == 0
    assert game["current_round"] == 12 and game["finished"] is False
    assert all(r["kind"] == "round" for r in game["rounds"][:11])


def test_the_tiebreak_takes_null_for_seats_not_in_it(client, new_game):
    code, _ = tied_game(client, new_game)
    client.post(f"/api/games/{code}/tiebreak")
    wrong = put_round(client, code, 12, [{"went_out": True}, {"points": 4}, {"points": 8}, None])
    assert wrong.status_code == 422
    assert "Ben is not in the tie-break round" in wrong.json()["detail"]
    two_out = put_round(client, code, 12, [{"went_out": True}, None, {"went_out": True}, None])
    assert two_out.status_code == 422
    ann_missing = put_round(client, code, 12, [None, None, {"went_out": True}, None])
    assert ann_missing.status_code == 422
    assert "Ann plays the tie-break round" in ann_missing.json()["detail"]
    saved = put_round(client, code, 12, [{"points": 8}, None, {"went_out": True}, None])
    assert saved.status_code == 200, saved.text
    game = saved.json()
    assert game["rounds"][11]["scores"] == [8, None, 0, None]
    assert game["totals"] == [0, 143, 0, 209]  # tie-break points do not count in totals
    assert game["finished"] is True and game["winners"] == [2]
    assert game["can_tiebreak"] is False


def test_a_second_tie_offers_another_tiebreak_among_those_still_tied(client, new_game):
    code, _ = tied_game(client, new_game, players=("Ann", "Ben", "Cy"))
    client.post(f"/api/games/{code}/tiebreak")
    again = put_round(client, code, 12, [{"went_out": True}, None, {"cards": []}]).json()
    assert again["winners"] == [0, 2] and again["can_tiebreak"] is True
    second = client.post(f"/api/games/{code}/tiebreak").json()
    assert second["rounds"][12]["kind"] == "tiebreak"
    assert second["rounds"][12]["players_in"] == [0, 2]
    assert second["rounds"][12]["dealer"] == (second["rounds"][11]["dealer"] + 1) % 3


@pytest.mark.parametrize("stage", ["unfinished", "one winner"])
def test_a_tiebreak_without_a_shared_win_is_409(client, new_game, stage):
    code = new_game()["code"]
    if stage == "one winner":
        play_rounds(client, code, range(1, 12), 3)
    response = client.post(f"/api/games/{code}/tiebreak")
    assert response.status_code == 409
    assert response.json()["detail"]


def test_a_tiebreak_pending_is_409_too(client, new_game):
    code, _ = tied_game(client, new_game)
    assert client.post(f"/api/games/{code}/tiebreak").status_code == 201
    assert client.post(f"/api/games/{code}/tiebreak").status_code == 409


# --- players coming and going -----------------------------------------------------------


def test_a_player_joins_at_a_seat_from_the_next_round(client, new_game):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    play_rounds(client, code, [1, 2, 3], 3, points=[0, 13, 20])
    response = client.post(f"/api/games/{code}/players", json={"name": "Eve", "seat": 2})
    assert response.status_code == 201, response.text
    game = response.json()
    assert game["players"] == ["Ann", "Ben", "Eve", "Cy"]
    assert [r["scores"] for r in game["rounds"][:3]] == [[0, 13, None, 20]] * 3
    assert game["rounds"][0]["players_in"] == [0, 1, 3]
    assert game["rounds"][3]["players_in"] == [0, 1, 2, 3]
    # Round 4 was Ann's deal (first dealer 0); it stays hers, then moves left round the table.
    assert [r["dealer"] for r in game["rounds"][3:8]] == [0, 1, 2, 3, 0]
    assert game["rounds"][3]["first_player"] == 1
    assert game["totals"] == [0, 39, 0, 60]
    assert game["seats"][2] == {
        "name": "Eve", "start_points": 0, "joined_round": 4, "left_round": None,
    }  # fmt: skip
    assert game["current_round"] == 4


@pytest.mark.parametrize(
    ("start", "points"), [("zero", 0), ("highest", 60), ("average", 33), (42, 42)]
)
def test_a_late_arrival_starts_with_the_points_chosen(client, new_game, start, points):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    play_rounds(client, code, [1, 2, 3], 3, points=[0, 13, 20])  # totals 0, 39, 60
    game = client.post(f"/api/games/{code}/players", json={"name": "Eve", "start": start}).json()
    assert game["players"][-1] == "Eve"
    assert game["totals"][-1] == points
    assert game["seats"][-1]["start_points"] == points


def test_joining_makes_the_next_round_save_the_new_seat(client, new_game):
    code = new_game(["Ann", "Ben"])["code"]
    play_rounds(client, code, [1], 2)
    client.post(f"/api/games/{code}/players", json={"name": "Eve", "seat": 0})
    missing = put_round(client, code, 2, [None, {"went_out": True}, {"points": 7}])
    assert missing.status_code == 422 and "Eve plays round 2" in missing.json()["detail"]
    saved = put_round(client, code, 2, [{"points": 7}, {"went_out": True}, {"points": 7}])
    assert saved.status_code == 200
    assert saved.json()["rounds"][0]["scores"] == [None, 0, 13]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"name": "ann"}, "Two players are called"),
        ({"name": "  "}, "needs a name"),
        ({"name": "Eve", "seat": 9}, "Seat 9"),
        ({"name": "Eve", "seat": -1}, "Seat -1"),
        ({"name": "Eve", "start": -3}, "zero, highest, average"),
        ({"name": "Eve", "start": "lowest"}, "start"),
        ({"seat": 1}, "name"),
    ],
)
def test_bad_joins_are_refused_in_words(client, new_game, body, message):
    game = new_game(["Ann", "Ben", "Cy"])
    response = client.post(f"/api/games/{game['code']}/players", json=body)
    assert response.status_code == 422, response.text
    assert message in response.json()["detail"]
    assert client.get(f"/api/games/{game['code']}").json()["players"] == ["Ann", "Ben", "Cy"]


def test_at_most_fourteen_players(client, new_game):
    code = new_game([f"P{i}" for i in range(14)])["code"]
    response = client.post(f"/api/games/{code}/players", json={"name": "Eve"})
    assert response.status_code == 422 and "14" in response.json()["detail"]


def test_a_player_leaves_from_the_next_round(client, new_game):
    code = new_game(["Ann", "Ben", "Cy", "Dee"])["code"]
    play_rounds(client, code, [1, 2], 4, points=[0, 13, 16, 19])
    response = client.delete(f"/api/games/{code}/players/2")
    assert response.status_code == 200, response.text
    game = response.json()
    assert game["seats"][2]["left_round"] == 3
    assert game["rounds"][1]["players_in"] == [0, 1, 2, 3]
    assert game["rounds"][2]["players_in"] == [0, 1, 3]
    # Cy was to deal round 3 (first dealer 0): the next player still in, Dee, deals instead.
    assert [r["dealer"] for r in game["rounds"][2:6]] == [3, 0, 1, 3]
    assert game["totals"][2] == 32  # the total stays on the sheet
    saved = put_round(client, code, 3, [{"went_out": True}, {"points": 30}, None, {"points": 40}])
    assert saved.status_code == 200, saved.text
    state = saved.json()
    assert state["rounds"][2]["scores"] == [0, 30, None, 40]
    assert state["leaders"] == [0]
    refused = put_round(
        client, code, 4, [{"went_out": True}, {"points": 4}, {"points": 4}, {"points": 4}]
    )
    assert refused.status_code == 422 and "Cy is not in round 4" in refused.json()["detail"]


def test_a_player_who_left_is_never_a_leader_or_winner(client, new_game):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    play_rounds(client, code, [1], 3, out=2, points=[13, 16, 0])
    client.delete(f"/api/games/{code}/players/2")
    game = client.get(f"/api/games/{code}").json()
    assert game["leaders"] == [0]
    for number in range(2, 12):
        game = put_round(client, code, number, [{"went_out": True}, {"points": 7}, None]).json()
    assert game["finished"] and game["winners"] == [0]
    assert game["totals"][2] == 0


def test_the_last_but_one_player_cannot_leave(client, new_game):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    assert client.delete(f"/api/games/{code}/players/0").status_code == 200
    response = client.delete(f"/api/games/{code}/players/1")
    assert response.status_code == 422
    assert "at least 2 players" in response.json()["detail"]


def test_leaving_twice_or_a_seat_that_is_not_there(client, new_game):
    code = new_game(["Ann", "Ben", "Cy", "Dee"])["code"]
    client.delete(f"/api/games/{code}/players/1")
    assert client.delete(f"/api/games/{code}/players/1").status_code == 409
    assert client.delete(f"/api/games/{code}/players/7").status_code == 404
    assert client.delete(f"/api/games/{code}/players/x").status_code == 422


def test_nobody_joins_or_leaves_a_finished_game(client, new_game):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    play_rounds(client, code, [1], 3)
    client.post(f"/api/games/{code}/finish")
    assert client.post(f"/api/games/{code}/players", json={"name": "Eve"}).status_code == 409
    assert client.delete(f"/api/games/{code}/players/1").status_code == 409


def test_deck_limits_follow_the_players_in_each_round(client, new_game):
    players = [f"P{i}" for i in range(8)]
    code = new_game(players)["code"]
    three_jokers = {"cards": ["JOKER"] * 3, "confirmed": True}  # a book, kept all the same
    seven_jokers = [{"went_out": True}, three_jokers, three_jokers]
    seven_jokers += [{"cards": ["JOKER"]}] + [{"cards": []}] * 4
    assert put_round(client, code, 1, seven_jokers).status_code == 200  # two games combined
    client.delete(f"/api/games/{code}/players/7")
    seven = seven_jokers[:7]
    refused = put_round(client, code, 2, [*seven, None])
    assert refused.status_code == 422 and "jokers" in refused.json()["detail"]


# --- round orders -----------------------------------------------------------------------


def test_kings_first(new_game):
    game = new_game(order="down")
    assert game["order"] == "down"
    assert [r["cards_dealt"] for r in game["rounds"]] == list(range(13, 2, -1))
    assert game["rounds"][0]["wild_rank"] == "K"


def test_a_shuffled_order_is_fixed_when_the_game_starts(client, new_game):
    game = new_game(order="shuffled")
    dealt = [r["cards_dealt"] for r in game["rounds"]]
    assert sorted(dealt) == list(range(3, 14))
    assert all(
        r["wild_rank"] == {11: "J", 12: "Q", 13: "K"}.get(r["cards_dealt"], str(r["cards_dealt"]))
        for r in game["rounds"]
    )
    again = client.get(f"/api/games/{game['code']}").json()
    assert [r["cards_dealt"] for r in again["rounds"]] == dealt


def test_an_unknown_order_is_422(client):
    response = client.post("/api/games", json={"players": ["Ann", "Ben"], "order": "sideways"})
    assert response.status_code == 422 and "order" in response.json()["detail"]


def test_round_one_of_kings_first_is_checked_at_thirteen_cards(client, new_game):
    code = new_game(order="down")["code"]
    # With 3 cards dealt both would be refused; with 13, 120 is the most a kept hand costs
    # (thirteen naturals: a hand that laid cards down keeps no wild).
    response = put_round(client, code, 1, [{"went_out": True}, {"points": 3}, {"points": 120}])
    assert response.status_code == 200, response.text


# --- only points a deal could give --------------------------------------------------------


# Round 1 deals 3 cards, threes wild: a player who did not go out keeps all 3, holding no
# book or run. The cheapest such hand costs 13 (two fours and a five), the dearest 75 (a
# joker, a king and a queen), and nothing costs 46 to 58 (45 is a three, a king and a queen;
# 59 a joker, a four and a five). Three fours (12), a joker and two fours (58), a joker and
# two kings (76) up to three jokers (150) are books: kept only if tapped and confirmed.
KEPT_IN_ROUND_ONE = "In round 1 a player keeps 0 or 3 cards; {} points cannot be left."
TOO_MANY_IN_ROUND_ONE = "{} is too many: in round 1 the cards a player keeps cost at most 75."
HELD_IN_ROUND_ONE = (
    "In round 1, only cards that hold a book or a run, or a wild card kept after laying "
    "down, leave {} points. If Ben kept such cards, tap them, then confirm."
)


@pytest.mark.parametrize(
    ("points", "status", "message"),
    [
        (4, 422, KEPT_IN_ROUND_ONE),
        (12, 422, HELD_IN_ROUND_ONE),
        (13, 200, None),
        (57, 422, KEPT_IN_ROUND_ONE),
        (58, 422, HELD_IN_ROUND_ONE),
        (59, 200, None),
        (75, 200, None),
        (76, 422, HELD_IN_ROUND_ONE),
        (150, 422, HELD_IN_ROUND_ONE),
        (151, 422, TOO_MANY_IN_ROUND_ONE),
    ],
)
def test_round_one_typed_points(client, new_game, points, status, message):
    code = new_game()["code"]
    response = put_round(client, code, 1, [{"went_out": True}, {"points": points}, {"points": 13}])
    assert response.status_code == status, response.text
    if status == 422:
        assert message.format(points) in response.json()["detail"]


# --- the hand checker follows the round --------------------------------------------------


def solve(client, **body):
    return client.post("/api/hands/solve", json=body)


def test_the_hand_checker_takes_exactly_the_cards_dealt(client):
    ok = solve(client, cards=["7H", "7S", "7C", "KD"], cards_dealt=4)
    assert ok.status_code == 200 and ok.json()["points"] == 13
    drawn = solve(client, cards=["7H", "7S", "7C", "KD", "9H"], cards_dealt=4, discard=True)
    assert drawn.status_code == 200 and drawn.json()["discard"] in ("KD", "9H")


@pytest.mark.parametrize(
    ("cards", "discard"),
    [
        (["7H", "7S", "7C"], False),
        (["7H", "7S", "7C", "KD", "9H"], False),
        (["7H", "7S", "7C", "KD"], True),
    ],
)
def test_the_hand_checker_refuses_other_counts(client, cards, discard):
    response = solve(client, cards=cards, cards_dealt=4, discard=discard)
    assert response.status_code == 422
    assert "4 cards were dealt" in response.json()["detail"]


@pytest.mark.parametrize("cards_dealt", [2, 14, "many"])
def test_cards_dealt_runs_from_3_to_13(client, cards_dealt):
    assert solve(client, cards=["7H"], cards_dealt=cards_dealt).status_code == 422


def test_the_wild_rank_follows_the_cards_dealt(client):
    # Five cards dealt: fives are wild, so the five of stars fills the run.
    response = solve(client, cards=["9H", "10H", "5R", "3S", "3C"], cards_dealt=5)
    assert response.json()["points"] == 6
    mismatch = solve(client, cards=["9H", "10H", "5R", "3S", "3C"], cards_dealt=5, wild_rank="K")
    assert mismatch.status_code == 422 and "matches the cards dealt" in mismatch.json()["detail"]
    assert solve(client, cards=["9H"]).status_code == 422


def test_ending_the_game_during_a_tiebreak_shares_the_win(client, new_game):
    code, _ = tied_game(client, new_game)
    client.post(f"/api/games/{code}/tiebreak")
    game = client.post(f"/api/games/{code}/finish").json()
    assert game["finished"] is True and game["winners"] == [0, 2]
    assert [r["kind"] for r in game["rounds"]] == ["round"] * 11
    assert game["can_tiebreak"] is True
