"""The hand checker over the API and as a page that works without JavaScript."""

import pytest

from tests.html import elements, visible_text


def solve(client, cards, wild_rank, discard=False):
    return client.post(
        "/api/hands/solve", json={"cards": cards, "wild_rank": wild_rank, "discard": discard}
    )


def test_solve_lays_out_books_and_runs(client):
    response = solve(client, ["7H", "8H", "9H", "QS", "QD", "JOKER", "4C"], "K")
    assert response.status_code == 200
    body = response.json()
    assert body["points"] == 4
    assert body["leftover"] == ["4C"]
    assert body["discard"] is None
    kinds = sorted(group["kind"] for group in body["groups"])
    assert kinds == ["book", "run"]
    book = next(g for g in body["groups"] if g["kind"] == "book")
    assert sorted(book["cards"]) == ["JOKER", "QD", "QS"]
    assert book["stands_for"][book["cards"].index("JOKER")] == "Q"


def test_solve_with_discard_says_whether_the_hand_goes_out(client):
    out = solve(client, ["5R", "9H", "JOKER", "KD"], "5", discard=True).json()
    assert out["points"] == 0 and out["discard"] == "KD"
    stuck = solve(client, ["3C", "9H", "KD", "QS"], "5", discard=True).json()
    assert stuck["points"] > 0 and stuck["discard"] is not None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"cards": ["QX"], "wild_rank": "7"}, "not a card"),
        ({"cards": ["Q"], "wild_rank": "7"}, "needs a suit"),
        ({"cards": ["QH", "QH", "QH"], "wild_rank": "7"}, "decks hold only 2"),
        ({"cards": ["3H"] * 15, "wild_rank": "7"}, "14"),
        ({"cards": ["3H"], "wild_rank": "A"}, "not a rank"),
        ({"cards": "3H", "wild_rank": "7"}, "cards"),
        ({"wild_rank": "7"}, "cards"),
    ],
)
def test_bad_hands_are_422_in_words(client, body, message):
    response = client.post("/api/hands/solve", json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]


def test_the_page_checks_a_hand_without_javascript(client):
    params = {"cards_dealt": "3", "cards": "9H,JH,JOKER,KD", "discard": "1"}
    page = client.get("/hand", params=params)
    assert page.status_code == 200
    text = visible_text(page.text)
    assert "This hand goes out: discard the King of diamonds." in text
    faces = [e["aria-label"] for e in elements(page.text, "span", role="img")]
    assert "Joker as Ten of hearts" in faces


def test_the_page_says_how_many_cards_to_tap(client):
    empty = visible_text(client.get("/hand", params={"cards_dealt": "5"}).text)
    assert "Tap the 5 cards in the hand." in empty
    drawn = client.get("/hand", params={"cards_dealt": "5", "discard": "1", "cards": "9H,JH"})
    assert "Tap 4 more cards: the hand holds 6." in visible_text(drawn.text)
    assert "Best layout" not in visible_text(drawn.text)
    too_many = client.get("/hand", params={"cards_dealt": "3", "cards": "9H,JH,QH,KH"})
    assert too_many.status_code == 422
    assert "4 cards is too many: 3 were dealt. Remove 1." in visible_text(too_many.text)
    assert elements(too_many.text, "input", name="cards")[0]["value"] == "9H,JH,QH,KH"


def test_the_round_picker_sends_the_cards_dealt(client):
    page = client.get("/hand", params={"cards_dealt": "12"}).text
    [select] = elements(page, "select")
    assert select["name"] == "cards_dealt"
    chosen = [o for o in elements(page, "option") if "selected" in o]
    assert chosen == [{"value": "12", "data-wild": "Q", "selected": ""}]


def test_the_page_adds_and_removes_cards_without_javascript(client):
    added = client.get("/hand", params={"round": "1", "cards": "QH,QS", "add": "JOKER"})
    assert elements(added.text, "input", name="cards")[0]["value"] == "QH,QS,JOKER"
    assert "Everything fits: 0 points." in visible_text(added.text)
    removed = client.get("/hand", params={"round": "1", "cards": "QH,QS,JOKER", "remove": "2"})
    assert elements(removed.text, "input", name="cards")[0]["value"] == "QH,QS"
    assert "Tap 1 more card" in visible_text(removed.text)
    swapped = client.get("/hand", params={"round": "1", "cards": "QH,QS", "add": "7C"})
    assert "Best layout leaves 31 points." in visible_text(swapped.text)


def test_the_wild_rank_follows_the_round(client):
    page = client.get("/hand", params={"round": "9"})
    wild = [
        e["aria-label"] for e in elements(page.text, "button", name="add") if "wild" in e["class"]
    ]
    # Each name starts with the label the key shows, so "tap J" works by voice.
    assert wild == [
        "J Jack of stars",
        "J Jack of hearts",
        "J Jack of clubs",
        "J Jack of spades",
        "J Jack of diamonds",
        "Joker",
    ]


def test_a_group_of_only_wilds_is_explained(client):
    text = visible_text(client.get("/hand", params={"round": "1", "cards": "JOKER,3H,3S"}).text)
    assert "Everything fits" in text
    assert "a group made only of wild cards counts" in text


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"cards": "QX"}, "not a card"),
        ({"round": "12"}, "round from 1 to 11"),
        ({"cards": "Q"}, "needs a suit"),
    ],
)
def test_bad_hand_pages_keep_the_cards_and_say_why(client, params, message):
    page = client.get("/hand", params=params)
    assert page.status_code == 422
    assert message in visible_text(page.text)
    if "cards" in params:
        assert elements(page.text, "input", name="cards")[0]["value"] == params["cards"]


def test_the_game_page_links_to_the_checker(client, new_game):
    page = client.get(f"/g/{new_game()['code']}").text
    assert "/hand?cards_dealt=3" in [a.get("href") for a in elements(page, "a")]


def test_two_games_combined_allow_four_of_a_card(client):
    hand = ["QH", "QH", "QH", "5C"]
    assert solve(client, hand, "7").status_code == 422
    combined = client.post("/api/hands/solve", json={"cards": hand, "wild_rank": "7", "games": 2})
    assert combined.json()["points"] == 5
    page = client.get("/hand", params={"cards": ",".join(hand), "cards_dealt": "4", "games": "2"})
    assert "Best layout leaves 5 points." in visible_text(page.text)


@pytest.mark.parametrize("ticked", ["1", "on", "true"])
def test_i_just_drew_counts_however_the_checkbox_is_sent(client, ticked):
    # "on" is what a checkbox without a value sends, "true" what a hand-made link says.
    params = {"cards_dealt": "3", "cards": "9H,JH,JOKER,KD", "discard": ticked}
    text = visible_text(client.get("/hand", params=params).text)
    assert "This hand goes out: discard the King of diamonds." in text


def test_one_game_holds_two_of_each_card_and_two_games_four(client):
    three = client.get("/hand", params={"cards_dealt": "3", "cards": "QH,QH,QH"})
    assert three.status_code == 422
    assert "decks hold only 2" in visible_text(three.text)
    five = ["QH"] * 5
    combined = client.get(
        "/hand", params={"cards_dealt": "5", "cards": ",".join(five), "games": "2"}
    )
    assert combined.status_code == 422
    assert "decks hold only 4" in visible_text(combined.text)
