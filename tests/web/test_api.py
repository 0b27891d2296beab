"""The JSON API, every endpoint and every bad input the issue names."""

import pytest

from tests.conftest import went_out_first


def put_round(client, code, number, results, **extra):
    return client.put(f"/api/games/{code}/rounds/{number}", json={"results": results, **extra})


def test_create_game_returns_the_state_with_an_unguessable_code(client, new_game):
    game = new_game(["Ann", "Ben", "Cy"])
    assert len(game["code"]) >= 22  # 16 random bytes, URL-safe base64
    assert game["code"].replace("-", "").replace("_", "").isalnum()
    assert game["players"] == ["Ann", "Ben", "Cy"]
    assert game["current_round"] == 1
    assert game["leaders"] == [0, 1, 2]
    assert game["finished"] is False and game["winners"] == []
    assert game["totals"] == [0, 0, 0]
    first = game["rounds"][0]
    assert first == {
        "number": 1,
        "kind": "round",
        "cards_dealt": 3,
        "wild_rank": "3",
        "dealer": 0,
        "first_player": 1,
        "players_in": [0, 1, 2],
        "went_out": None,
        "scores": None,
        "cards": None,
        "groups": None,
        "leftover": None,
    }
    assert [r["wild_rank"] for r in game["rounds"]][-3:] == ["J", "Q", "K"]
    assert new_game()["code"] != game["code"]


def test_first_dealer_sets_the_rotation(new_game):
    game = new_game(["Ann", "Ben", "Cy", "Dee"], first_dealer=2)
    assert [r["dealer"] for r in game["rounds"]][:5] == [2, 3, 0, 1, 2]
    assert [r["first_player"] for r in game["rounds"]][:5] == [3, 0, 1, 2, 3]


def test_read_game(client, new_game):
    game = new_game()
    response = client.get(f"/api/games/{game['code']}")
    assert response.status_code == 200
    assert response.json()["players"] == ["Ann", "Ben", "Cy"]


def test_unknown_code_is_404(client):
    for response in (
        client.get("/api/games/nosuchgame"),
        put_round(client, "nosuchgame", 1, went_out_first(3)),
        client.post("/api/games/nosuchgame/finish"),
    ):
        assert response.status_code == 404
        assert "No game has the code nosuchgame." in response.json()["detail"]


def test_save_a_round_from_cards_went_out_and_points(client, new_game):
    game = new_game()
    response = put_round(
        client,
        game["code"],
        1,
        [{"went_out": True}, {"cards": ["5R", "9h", "joker"]}, {"points": 17}],
    )
    assert response.status_code == 200, response.text
    state = response.json()
    assert state["rounds"][0]["scores"] == [0, 64, 17]  # threes are wild in round 1, not fives
    assert state["rounds"][0]["went_out"] == 0
    assert state["rounds"][0]["cards"] == [None, ["5R", "9H", "JOKER"], None]
    assert state["totals"] == [0, 64, 17]
    assert state["leaders"] == [0]
    assert state["current_round"] == 2
    assert state["version"] == game["version"] + 1


def test_the_rulebook_example_costs_79_in_round_three(client, new_game):
    code = new_game()["code"]
    for number in (1, 2):
        results = went_out_first(3, points=[0, 20, 20])
        assert put_round(client, code, number, results).status_code == 200
    # Two wilds and a nine make a book, so the example's cards are confirmed as kept.
    example = {"cards": ["5R", "9H", "JOKER"], "confirmed": True}
    state = put_round(client, code, 3, [{"went_out": True}, example, {"cards": []}]).json()
    assert state["rounds"][2]["scores"] == [0, 79, 0]


def test_correcting_a_round_moves_totals_and_leader(client, new_game):
    code = new_game()["code"]
    put_round(client, code, 1, went_out_first(3, points=[0, 13, 20]))
    version = put_round(client, code, 2, went_out_first(3, out=1, points=[30, 0, 5])).json()[
        "version"
    ]
    correction = went_out_first(3, out=2, points=[40, 13, 0])
    state = put_round(client, code, 1, correction, version=version).json()
    assert state["totals"] == [70, 13, 5]
    assert state["leaders"] == [2]
    assert state["rounds"][0]["went_out"] == 2


def test_a_round_cannot_be_saved_before_the_one_before_it(client, new_game):
    code = new_game()["code"]
    response = put_round(client, code, 3, went_out_first(3))
    assert response.status_code == 409
    assert "Save round 1 first" in response.json()["detail"]


@pytest.mark.parametrize("number", [0, 12, 99])
def test_round_numbers_outside_the_game_are_404(client, new_game, number):
    response = put_round(client, new_game()["code"], number, went_out_first(3))
    assert response.status_code == 404
    assert "no round" in response.json()["detail"]


def test_stale_version_is_refused_with_the_current_game(client, new_game):
    game = new_game()
    code = game["code"]
    first = put_round(
        client, code, 1, went_out_first(3, points=[0, 20, 20]), version=game["version"]
    )
    assert first.status_code == 200
    second = put_round(
        client, code, 1, went_out_first(3, out=1, points=[20, 0, 20]), version=game["version"]
    )
    assert second.status_code == 409
    body = second.json()
    assert "changed this game" in body["detail"]
    assert body["game"]["rounds"][0]["went_out"] == 0
    assert body["game"]["version"] == first.json()["version"]


def test_finishing_early_picks_the_winner_and_stops_new_rounds(client, new_game):
    code = new_game()["code"]
    put_round(client, code, 1, went_out_first(3, points=[0, 13, 20]))
    response = client.post(f"/api/games/{code}/finish")
    assert response.status_code == 200
    state = response.json()
    assert state["finished"] is True
    assert state["current_round"] is None
    assert state["winners"] == [0]
    refused = put_round(client, code, 2, went_out_first(3, points=[0, 20, 20]))
    assert refused.status_code == 409
    assert "over" in refused.json()["detail"]
    correction = went_out_first(3, out=1, points=[13, 0, 20])
    corrected = put_round(client, code, 1, correction, version=state["version"]).json()
    assert corrected["winners"] == [1]


def test_round_eleven_ends_the_game_and_ties_share_the_win(client, new_game):
    code = new_game()["code"]
    for number in range(1, 12):
        state = put_round(
            client, code, number, went_out_first(3, out=number % 2, points=[0, 0, 20])
        )
        assert state.status_code == 200
    final = state.json()
    assert final["finished"] is True and final["current_round"] is None
    assert final["totals"] == [0, 0, 220]
    assert final["winners"] == [0, 1]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": [f"P{i}" for i in range(15)]}, "2 to 14 players"),
        ({"players": ["Ann", "ann "]}, "Two players are called"),
        ({"players": ["Ann", "  "]}, "needs a name"),
        ({"players": ["Ann", "B" * 31]}, "at most 30"),
        ({"players": ["Ann", "Ben"], "first_dealer": 2}, "first dealer"),
        ({"players": ["Ann", "Ben"], "first_dealer": -1}, "first dealer"),
        ({"players": "Ann, Ben"}, "players"),
        ({"players": ["Ann", 7]}, "players"),
        ({}, "players"),
    ],
)
def test_bad_new_games_are_refused_in_words(client, body, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]


def test_names_are_trimmed(new_game):
    assert new_game(["  Ann ", "Ben"])["players"] == ["Ann", "Ben"]


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([{"points": 20}, {"points": 20}, {"points": 20}], "went out first"),
        ([{"went_out": True}, {"went_out": True}, {"points": 20}], "Only one player"),
        (
            [{"went_out": True}, {"cards": ["4", "5", "6", "7"]}, {"points": 20}],
            "only 3 were dealt",
        ),
        ([{"went_out": True}, {"cards": ["2H"]}, {"points": 20}], "not a card"),
        ([{"went_out": True}, {"cards": ["QX"]}, {"points": 20}], "not a card"),
        ([{"went_out": True}, {"points": -5}, {"points": 20}], "negative"),
        ([{"went_out": True}, {"points": 1}, {"points": 20}], "1 or 2"),
        ([{"went_out": True}, {"points": 2}, {"points": 20}], "1 or 2"),
        ([{"went_out": True}, {"points": 76}, {"points": 20}], "tap them, then confirm"),
        ([{"went_out": True}, {"points": 10**30}, {"points": 20}], "at most 75"),
        ([{"went_out": True}, {"points": 20}], "each of the 3 players"),
        ([{"went_out": True}, {"points": 20, "cards": ["Q"]}, {"points": 20}], "one of"),
        ([{"went_out": True}, {"points": "many"}, {"points": 20}], "points"),
        (
            [
                {"went_out": True},
                {"cards": ["JOKER"] * 3, "confirmed": True},
                {"cards": ["JOKER"] * 3, "confirmed": True},
            ],
            None,
        ),
    ],
)
def test_impossible_rounds_are_refused_in_words(client, new_game, results, message):
    code = new_game()["code"]
    response = put_round(client, code, 1, results)
    if message is None:  # six jokers is exactly what one game holds
        assert response.status_code == 200
        return
    assert response.status_code == 422, response.text
    assert message in response.json()["detail"]
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] is None


def test_jokers_across_the_table(client, new_game):
    code = new_game(["Ann", "Ben", "Cy", "Dee"])["code"]
    put_round(client, code, 1, went_out_first(4, points=[0, 20, 20, 20]))
    results = [
        {"went_out": True},
        {"cards": ["JOKER"] * 4, "confirmed": True},
        {"cards": ["joker"] * 3, "confirmed": True},
        {"points": 0},
    ]
    response = put_round(client, code, 2, results)
    assert response.status_code == 422
    assert response.json()["detail"] == "7 jokers across the table, but the decks hold only 6."


def test_two_games_combined_double_every_limit(client, new_game):
    names = [f"P{i}" for i in range(8)]
    code = new_game(names)["code"]
    book = {"cards": ["JOKER", "JOKER", "QH"], "confirmed": True}
    results = [{"went_out": True}] + [book] * 6 + [{"cards": []}]
    response = put_round(client, code, 1, results)
    assert response.status_code == 422
    assert "6 of the Queen of hearts, but the decks hold only 4" in response.json()["detail"]
    results = [{"went_out": True}] + [book] * 4 + [{"cards": []}] * 3
    assert put_round(client, code, 1, results).status_code == 200


def test_rank_limit_counts_every_suit(client, new_game):
    code = new_game(["A", "B", "C", "D", "E"])["code"]
    queens = {"cards": ["Q", "QH", "qs"], "confirmed": True}
    results = [{"went_out": True}] + [queens] * 4
    response = put_round(client, code, 1, results)
    assert response.status_code == 422
    assert "12 Queens across the table" in response.json()["detail"]


@pytest.mark.parametrize(
    "raw",
    [b"not json", b"[]", b'{"results": "all"}', b'{"results": [null, 1, "x"]}', b"{}"],
)
def test_malformed_round_bodies_are_422_not_500(client, new_game, raw):
    code = new_game()["code"]
    response = client.put(
        f"/api/games/{code}/rounds/1", content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["detail"]


def test_round_number_must_be_a_number(client, new_game):
    response = put_round(client, new_game()["code"], "three", went_out_first(3))
    assert response.status_code == 422


def test_openapi_schema_is_served_and_no_cdn_docs(client):
    schema = client.get("/openapi.json").json()
    assert "/api/games/{code}/rounds/{number}" in schema["paths"]
    assert client.get("/docs").status_code == 404


def test_a_game_cannot_end_before_a_round_is_saved(client, new_game):
    code = new_game()["code"]
    response = client.post(f"/api/games/{code}/finish")
    assert response.status_code == 409
    assert "Save at least one round" in response.json()["detail"]
    assert client.get(f"/api/games/{code}").json()["finished"] is False


def test_invisible_characters_do_not_make_names_different(client):
    response = client.post("/api/games", json={"players": ["Ann", "An\u200bn"]})
    assert response.status_code == 422
    assert "Two players are called Ann" in response.json()["detail"]
    blank = client.post("/api/games", json={"players": ["Ann", "\u200b\x00"]})
    assert blank.status_code == 422


def test_a_very_long_code_is_simply_not_found(client):
    assert client.get("/api/games/" + "x" * 500).status_code == 404
    assert client.get("/g/" + "x" * 500).status_code == 404


def test_unknown_code_with_a_broken_body_is_404(client):
    response = client.put(
        "/api/games/nosuchgame/rounds/1", content=b"{", headers={"content-type": "application/json"}
    )
    assert response.status_code == 404


def play_to_round(client, code, number):
    for earlier in range(1, number):
        assert put_round(client, code, earlier, went_out_first(3)).status_code == 200


@pytest.mark.parametrize(
    ("number", "most", "refused"),
    [(3, 96, [97, 100]), (5, 113, [84]), (10, 116, [117, 119]), (11, 120, [121, 122])],
)
def test_typed_totals_follow_the_hands_the_rules_leave(client, new_game, number, most, refused):
    code = new_game()["code"]
    play_to_round(client, code, number)
    for points in refused:
        response = put_round(client, code, number, went_out_first(3, points=[0, points, 20]))
        assert response.status_code == 422, points
        assert response.json()["seat_errors"] == {
            "1": f"In round {number}, only cards that hold a book or a run, or a wild card kept "
            f"after laying down, leave {points} points. If Ben kept such cards, tap them, then "
            "confirm."
        }
    beyond = put_round(client, code, number, went_out_first(3, points=[0, 1000, 20]))
    assert beyond.json()["seat_errors"]["1"].endswith(f"cost at most {most}.")
    taken = put_round(client, code, number, went_out_first(3, points=[0, most, 20]))
    assert taken.status_code == 200
    assert taken.json()["rounds"][number - 1]["scores"] == [0, most, 20]


def test_cards_holding_a_group_are_asked_about_then_saved_once_confirmed(client, new_game):
    code = new_game()["code"]
    play_to_round(client, code, 3)  # round 3: five cards, fives wild
    held = {"cards": ["7H", "7S", "7C", "QD", "KD"]}
    laid = {"cards": ["JOKER", "KH"]}  # two kept of five: three were laid down
    asked = put_round(client, code, 3, [{"went_out": True}, held, laid])
    assert asked.status_code == 422
    body = asked.json()
    assert body["seat_errors"] == {
        "1": "Three Sevens make a book: were they laid down? If Ben kept them, confirm.",
        "2": "Cy kept 2 of the 5 cards dealt, so Cy laid cards down, and the joker could have "
        "joined them: was it kept? If Cy kept it, confirm.",
    }
    assert body["to_confirm"] == [1, 2]
    confirmed = [{"went_out": True}, {**held, "confirmed": True}, {**laid, "confirmed": True}]
    saved = put_round(client, code, 3, confirmed)
    assert saved.status_code == 200
    assert saved.json()["rounds"][2]["scores"] == [0, 7 * 3 + 12 + 13, 63]


def test_confirmed_goes_with_cards_only(client, new_game):
    code = new_game()["code"]
    response = put_round(
        client, code, 1, [{"went_out": True}, {"points": 150, "confirmed": True}, {"points": 13}]
    )
    assert response.status_code == 422
    assert "confirmed goes with cards" in response.json()["detail"]
