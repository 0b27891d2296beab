"""The HTML pages: what a player sees, and that every form works without JavaScript."""

import re

import pytest

from tests.conftest import round_form
from tests.html import elements, parse, visible_text

# What a page draws does not depend on the database: SQLite only (tests/databases.py).
pytestmark = pytest.mark.one_database

FRAGMENT = {"HX-Request": "true", "HX-Request-Type": "partial"}


def names_on_form(html):
    return [e["value"] for e in elements(html, "input") if e.get("name", "").startswith("name_")]


def create_by_form(client, names, first_dealer=0):
    data = {f"name_{i}": name for i, name in enumerate(names)}
    data["first_dealer"] = str(first_dealer)
    data["action"] = "create"
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    return response.headers["location"].rsplit("/", 1)[-1]


def test_home_offers_a_new_game(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "New game" in visible_text(response.text)
    assert len(elements(response.text, "input", name="name_0")) == 1


def test_new_game_form_creates_a_game_and_the_page_shows_the_round(client):
    code = create_by_form(client, ["Ann", "Ben", "Cy", "Dee"], first_dealer=3)
    page = client.get(f"/g/{code}")
    text = visible_text(page.text)
    assert "Round 1 of 11" in text
    assert "3 cards each" in text
    assert "Threes are wild" in text
    assert "Dee deals · Ann plays first" in text
    assert re.findall(r"<th scope=\"col\">([^<]*)</th>", page.text)[1:5] == [
        "Ann",
        "Ben",
        "Cy",
        "Dee",
    ]


def test_new_game_form_moves_adds_and_removes_seats_without_javascript(client):
    data = {"name_0": "Ann", "name_1": "Ben", "name_2": "Cy", "first_dealer": "1"}
    moved = client.post("/games", data={**data, "action": "up:1"})
    assert moved.status_code == 200
    assert names_on_form(moved.text) == ["Ben", "Ann", "Cy"]
    dealer = [
        e["value"] for e in elements(moved.text, "input", name="first_dealer") if "checked" in e
    ]
    assert dealer == ["0"]  # Ben still deals first
    added = client.post("/games", data={**data, "action": "add"})
    assert names_on_form(added.text) == ["Ann", "Ben", "Cy", ""]
    removed = client.post("/games", data={**data, "action": "remove:0"})
    assert names_on_form(removed.text) == ["Ben", "Cy"]


@pytest.mark.parametrize(
    ("names", "message"),
    [(["Ann"], "2 to 14 players"), (["Ann", "ANN"], "Two players are called ANN")],
)
def test_new_game_mistakes_keep_the_names(client, names, message):
    data = {f"name_{i}": name for i, name in enumerate(names)} | {"action": "create"}
    response = client.post("/games", data=data)
    assert response.status_code == 422
    assert message in visible_text(response.text)
    assert names_on_form(response.text) == names


def test_eight_players_are_two_games_combined(client):
    code = create_by_form(client, [f"P{i}" for i in range(8)])
    assert "two games combined" in visible_text(client.get(f"/g/{code}").text)


def test_the_picker_marks_the_wild_rank_and_names_every_card(client, new_game):
    game = new_game()
    page = client.get(f"/g/{game['code']}").text
    keys = elements(page, "button", name="add")
    seat_zero = [k for k in keys if k["value"].startswith("0:")]
    # Each key's name holds the label it shows and the card's name ("Q Queen"): voice control
    # ("tap Q") and screen readers ("Queen") both find it.
    assert [k["aria-label"] for k in seat_zero] == [
        "3 Three",
        "4 Four",
        "5 Five",
        "6 Six",
        "7 Seven",
        "8 Eight",
        "9 Nine",
        "10 Ten",
        "J Jack",
        "Q Queen",
        "K King",
        "Joker",
    ]
    wild = [k for k in seat_zero if "wild" in k["class"].split()]
    named = [(k["aria-label"], k["data-points"]) for k in wild]
    assert named == [("3 Three", "20"), ("Joker", "50")]
    assert len(elements(page, "input", type="radio", name="went_out")) == 3


def test_taps_without_javascript_add_and_remove_chips(client, new_game):
    code = new_game()["code"]
    url = f"/g/{code}/rounds/1"
    tapped = client.post(url, data=round_form(3, cards_1="Q,7", add="1:JOKER"))
    assert tapped.status_code == 200
    assert elements(tapped.text, "input", name="cards_1")[0]["value"] == "Q,7,JOKER"
    chips = elements(tapped.text, "button", name="remove")
    names = [c["aria-label"] for c in chips]
    assert names == ["remove Queen, Q", "remove Seven, 7", "remove Joker"]
    removed = client.post(url, data=round_form(3, cards_1="Q,7,JOKER", remove="1:0"))
    assert elements(removed.text, "input", name="cards_1")[0]["value"] == "7,JOKER"
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] is None


def test_saving_a_round_redirects_to_the_updated_sheet(client, new_game):
    code = new_game()["code"]
    response = client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="0", cards_1="Q,7,JOKER", points_2="17", save="1"),
        follow_redirects=False,
    )
    assert response.status_code == 303
    page = client.get(f"/g/{code}")
    assert client.get(f"/api/games/{code}").json()["totals"] == [0, 69, 17]
    text = visible_text(page.text)
    assert "Round 2 of 11" in text and "Fours are wild" in text
    assert "Ben deals · Cy plays first" in text


def test_htmx_save_returns_only_the_game_region(client, new_game):
    code = new_game()["code"]
    response = client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="1", points_0="15", points_2="16", save="1"),
        headers={"HX-Request": "true", "HX-Request-Type": "partial"},
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="game"')
    assert "<html" not in response.text
    assert "HX-Request" in response.headers["vary"]
    assert "Round 2: Fours wild" in response.text  # the tab title follows the round


def test_a_mistake_keeps_every_tap_and_says_what_to_fix(client, new_game):
    code = new_game()["code"]
    response = client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, cards_0="Q", cards_1="4,5,6,7", points_2="1", save="1"),
        headers={"HX-Request": "true", "HX-Request-Type": "partial"},
    )
    assert response.status_code == 422
    text = visible_text(response.text)
    assert "Choose the player who went out first." in text
    assert "Ben has 4 cards, but only 3 were dealt this round." in text
    assert "No card is worth 1 or 2 points" in text
    kept = [elements(response.text, "input", name=f"cards_{seat}")[0]["value"] for seat in range(3)]
    assert kept == ["Q", "4,5,6,7", ""]
    assert elements(response.text, "input", name="points_2")[0]["value"] == "1"


def test_typed_garbage_is_a_message_not_a_500(client, new_game):
    code = new_game()["code"]
    response = client.post(
        f"/g/{code}/rounds/1", data=round_form(3, went_out="0", points_1="lots", save="1")
    )
    assert response.status_code == 422
    assert "'lots' is not a number of points." in visible_text(response.text)


def test_correcting_a_saved_round(client, new_game):
    code = new_game()["code"]
    client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="0", points_1="15", points_2="16", save="1"),
    )
    page = client.get(f"/g/{code}/rounds/1")
    assert page.status_code == 200
    radios = elements(page.text, "input", name="went_out")
    assert [r["value"] for r in radios if "checked" in r] == ["0"]
    # The correction form says which version of the game it was filled in on.
    (version,) = elements(page.text, "input", name="version")
    client.post(
        f"/g/{code}/rounds/1",
        data=round_form(
            3, went_out="1", points_0="19", points_2="16", save="1", version=version["value"]
        ),
    )
    assert client.get(f"/api/games/{code}").json()["totals"] == [19, 0, 16]


def test_finish_early_shows_the_winner(client, new_game):
    code = new_game()["code"]
    client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="2", points_0="19", points_1="19", save="1"),
    )
    client.post(f"/g/{code}/finish")
    text = visible_text(client.get(f"/g/{code}").text)
    assert "Cy wins" in text
    assert "Enter round" not in text


def test_tied_winners_share_the_win(client, new_game):
    code = new_game()["code"]
    client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="2", points_0="19", points_1="0", save="1"),
    )
    client.post(f"/g/{code}/finish")
    assert "Ben & Cy share the win" in visible_text(client.get(f"/g/{code}").text)


def test_home_remembers_games_this_browser_opened(client, new_game):
    code = new_game(["Zed", "Yan"])["code"]
    assert "Zed, Yan" not in visible_text(client.get("/").text)
    client.get(f"/g/{code}")
    assert "Zed, Yan" in visible_text(client.get("/").text)


def test_names_are_escaped(client, new_game):
    code = new_game(["<b>Ann</b>", "Ben"])["code"]
    page = client.get(f"/g/{code}").text
    assert "<b>Ann</b>" not in page
    assert "&lt;b&gt;Ann&lt;/b&gt;" in page


@pytest.mark.parametrize(
    "path", ["/g/nosuchgame", "/g/nosuchgame/rounds/1", "/g/{code}/rounds/12", "/nowhere"]
)
def test_unknown_pages_are_a_friendly_404(client, new_game, path):
    response = client.get(path.format(code=new_game()["code"]))
    assert response.status_code == 404
    text = visible_text(response.text)
    assert "Go to the start page" in text
    assert "Not found" in text
    what = {"/nowhere": "There is no page at /nowhere.", "/g/{code}/rounds/12": "no round 12"}
    assert what.get(path, "No game has the code nosuchgame") in text


def test_rules_page_has_the_chart_and_the_scores(client):
    text = visible_text(client.get("/rules").text)
    assert "Wild card chart" in text
    assert re.search(r"11 13 Kings", text)
    assert "Joker 50" in text


def test_pages_keep_links_private_and_scripts_out_of_line(client):
    response = client.get("/")
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert "unsafe-inline" not in response.headers["content-security-policy"]


def posted_back(html):
    """The fields a browser would send when this form is submitted again as it stands."""
    fields = {}
    for tag, attrs in parse(html).elements:
        name = attrs.get("name")
        if tag != "input" or not name or attrs.get("type") == "submit":
            continue
        if attrs.get("type") in ("radio", "checkbox") and "checked" not in attrs:
            continue
        fields[name] = attrs.get("value", "")
    return fields


def test_after_someone_else_saved_the_refused_form_can_still_save_on_the_second_try(
    client, new_game
):
    game = new_game()
    code = game["code"]
    # Another phone saves round 1 while this one is still typing.
    other = client.put(
        f"/api/games/{code}/rounds/1",
        json={"results": [{"went_out": True}, {"points": 15}, {"points": 14}]},
    )
    assert other.status_code == 200
    mine = round_form(3, went_out="1", points_0="19", points_2="18", version=str(game["version"]))
    del mine["from"]
    refused = client.post(f"/g/{code}/rounds/1", data=mine, headers=FRAGMENT)
    assert refused.status_code == 409
    assert "Another phone saved round 1" in visible_text(refused.text)
    again = posted_back(refused.text)
    assert again["points_0"] == "19" and again["points_2"] == "18" and again["went_out"] == "1"
    (replace,) = elements(refused.text, "button", name="replace")
    again["replace"] = replace["value"]  # "Replace it with mine"
    saved = client.post(f"/g/{code}/rounds/1", data=again, follow_redirects=False)
    assert saved.status_code == 303
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [19, 0, 18]


def test_a_chip_that_is_not_a_card_is_read_out_as_typed(client, new_game):
    # A hand-made post can add a code that is not a card: its chip still says what it holds.
    url = f"/g/{new_game()['code']}/rounds/1"
    tapped = client.post(url, data=round_form(3, cards_1="Q", add="1:ZZ"))
    chips = [c["aria-label"] for c in elements(tapped.text, "button", name="remove")]
    assert chips == ["remove Queen, Q", "remove ZZ, ZZ"]


def chip_texts(html):
    return [
        visible_text(chip) for chip in re.findall(r'<button[^>]*name="remove".*?</button>', html)
    ]


def test_chips_show_the_rank_and_suit_symbol_or_joker(client, new_game):
    url = f"/g/{new_game()['code']}/rounds/1"
    tapped = client.post(url, data=round_form(3, cards_1="Q", add="1:JOKER"))
    assert chip_texts(tapped.text) == ["Q", "Joker"]
    hand = client.get("/hand", params={"cards_dealt": "3", "cards": "QH,7S,JOKER"})
    assert chip_texts(hand.text) == ["Q♥", "7♠", "Joker"]


def test_removing_the_first_dealers_seat_hands_the_deal_to_the_first_seat(client):
    data = {"name_0": "Ann", "name_1": "Ben", "name_2": "Cy", "first_dealer": "2"}
    removed = client.post("/games", data={**data, "action": "remove:2"})
    assert names_on_form(removed.text) == ["Ann", "Ben"]
    dealer = [
        e["value"] for e in elements(removed.text, "input", name="first_dealer") if "checked" in e
    ]
    assert dealer == ["0"]


def test_the_script_names_a_tapped_joker_as_the_server_does(client, new_game):
    # With JavaScript the chip's name comes from the key's data-name: same words either way.
    url = f"/g/{new_game()['code']}/rounds/1"
    tapped = client.post(url, data=round_form(3, add="1:JOKER"))
    [chip] = elements(tapped.text, "button", name="remove")
    [joker_key] = elements(tapped.text, "button", name="add", value="0:JOKER")
    assert chip["aria-label"] == "remove " + joker_key["data-name"] == "remove Joker"


def test_tapped_cards_that_make_a_book_are_saved_once_confirmed_without_javascript(
    client, new_game
):
    code = new_game()["code"]
    url = f"/g/{code}/rounds/1"
    asked = client.post(
        url,
        data=round_form(3, went_out="0", cards_1="JOKER,JOKER,JOKER", points_2="17", save="1"),
        follow_redirects=False,
    )
    assert asked.status_code == 422
    text = visible_text(asked.text)
    assert "Three jokers make a book: were they laid down? If Ben kept them, confirm." in text
    [confirm] = elements(asked.text, "button", name="confirm")
    assert confirm["value"] == "1"
    assert "Yes, Ben kept these cards: save" in visible_text(asked.text)
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] is None
    # The page keeps every tap; the button sends them with the confirmation, and saves.
    form = {e["name"]: e.get("value", "") for e in elements(asked.text, "input", type="hidden")}
    assert form["cards_1"] == "JOKER,JOKER,JOKER"
    saved = client.post(
        url,
        data=round_form(3, went_out="0", cards_1=form["cards_1"], points_2="17", confirm="1"),
        follow_redirects=False,
    )
    assert saved.status_code == 303
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [0, 150, 17]


def test_a_confirmation_stays_with_its_cards_and_goes_when_they_change(client, new_game):
    code = new_game()["code"]
    url = f"/g/{code}/rounds/1"
    # Ben's cards confirmed, but Cy's still asked about: Ben's confirmation is kept.
    both = round_form(3, went_out="0", cards_1="7,7,7", cards_2="K,K,K", confirm="1")
    asked = client.post(url, data=both)
    assert asked.status_code == 422
    assert [e["value"] for e in elements(asked.text, "button", name="confirm")] == ["2"]
    assert elements(asked.text, "input", name="confirmed_1")[0]["value"] == "1"
    assert "Three Kings make a book" in visible_text(asked.text)
    # A tap without JavaScript changes Ben's cards: his confirmation goes with them.
    tapped = client.post(url, data={**both, "confirmed_1": "1", "add": "1:7"})
    assert not elements(tapped.text, "input", name="confirmed_1")
    # Confirmed both: saved.
    done = client.post(
        url, data={**both, "confirmed_1": "1", "confirm": "2"}, follow_redirects=False
    )
    assert done.status_code == 303
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [0, 21, 39]


def test_a_typed_total_only_a_group_leaves_says_to_tap_the_cards(client, new_game):
    code = new_game()["code"]
    response = client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="0", points_1="150", points_2="13", save="1"),
    )
    assert response.status_code == 422
    assert (
        "In round 1, only cards that hold a book or a run, or a wild card kept after laying "
        "down, leave 150 points. If Ben kept such cards, tap them, then confirm."
    ) in visible_text(response.text)
    assert not elements(response.text, "button", name="confirm")  # typed: nothing to confirm


def test_correcting_a_round_does_not_ask_again_about_cards_confirmed_once(client, new_game):
    code = new_game()["code"]
    url = f"/g/{code}/rounds/1"
    client.post(url, data=round_form(3, went_out="0", cards_1="7,7,7", points_2="13", confirm="1"))
    page = client.get(url).text
    assert elements(page, "input", name="confirmed_1")[0]["value"] == "1"
    version = elements(page, "input", name="version")[0]["value"]
    fixed = client.post(
        url,
        data=round_form(
            3, went_out="0", cards_1="7,7,7", points_2="14", confirmed_1="1", version=version
        ),
        follow_redirects=False,
    )
    assert fixed.status_code == 303
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [0, 21, 14]
