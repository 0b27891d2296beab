"""The pages for solitaire, the tie-break, players coming and going and round orders, all
working without JavaScript."""

import re

import pytest

from tests.conftest import went_out_first
from tests.html import elements, visible_text

# What a page draws does not depend on the database: SQLite only (tests/databases.py).
pytestmark = pytest.mark.one_database


def create_by_form(client, names, **fields):
    data = {f"name_{i}": name for i, name in enumerate(names)}
    data.update(first_dealer="0", action="create", **fields)
    return client.post("/games", data=data, follow_redirects=False)


def code_of(response):
    assert response.status_code == 303, response.text
    return response.headers["location"].rsplit("/", 1)[-1]


def radio_labels(html, name):
    return [e["value"] for e in elements(html, "input", type="radio", name=name)]


# --- the new-game form ------------------------------------------------------------------


def test_the_form_offers_solitaire_and_three_orders_marked_as_house_rules(client):
    page = client.get("/").text
    text = visible_text(page)
    assert "Solitaire (1 player)" in text
    assert radio_labels(page, "mode") == ["game", "solitaire"]
    assert radio_labels(page, "order") == ["up", "down", "shuffled"]
    assert "3 cards first, up to 13 (the rulebook)" in text
    assert "Kings first: 13 cards first, down to 3 (house rule)" in text
    assert "(house rule)" in text.split("Shuffled")[1]


def test_solitaire_from_the_form(client):
    code = code_of(create_by_form(client, ["Sol"], mode="solitaire"))
    text = visible_text(client.get(f"/g/{code}").text)
    assert "Solitaire · Sol" in text
    assert "0 of 11 piles saved" in text
    for number, plural in [(1, "Threes"), (6, "Eights"), (11, "Kings")]:
        assert f"Pile {number} {number + 2} cards · {plural} wild not saved" in text


def test_a_solitaire_game_ended_early_says_how_many_piles_it_had(client, new_game):
    code = new_game(["Sol"])["code"]
    client.put(f"/api/games/{code}/rounds/1", json={"results": [{"points": 14}]})
    client.put(f"/api/games/{code}/rounds/2", json={"results": [{"went_out": True}]})
    assert client.post(f"/api/games/{code}/finish").status_code == 200
    text = visible_text(client.get(f"/g/{code}").text)
    assert "Solitaire ended after 2 of 11 piles" in text and "all 11 piles" not in text
    assert "Not this time: 14 points left" in text


def test_one_name_for_a_game_is_refused_and_solitaire_takes_the_first_name(client):
    one = create_by_form(client, ["Ann"], mode="game")
    assert one.status_code == 422
    assert "for one player, choose Solitaire" in visible_text(one.text)
    # Solitaire shows the first name field only: what the others still hold is left out.
    two = create_by_form(client, ["Ann", "Ben"], mode="solitaire")
    assert two.status_code == 303
    game = client.get(f"/api/games/{code_of(two)}").json()
    assert game["mode"] == "solitaire" and game["players"] == ["Ann"]
    nobody = create_by_form(client, ["", "Ben"], mode="solitaire")
    assert nobody.status_code == 422
    assert elements(nobody.text, "input", name="mode", value="solitaire")[0].get("checked") == ""


def test_kings_first_from_the_form(client):
    code = code_of(create_by_form(client, ["Ann", "Ben"], order="down"))
    text = visible_text(client.get(f"/g/{code}").text)
    assert "Round 1 of 11" in text and "13 cards each" in text and "Kings are wild" in text


# --- solitaire piles --------------------------------------------------------------------


def solitaire(client):
    return client.post("/api/games", json={"players": ["Sol"]}).json()["code"]


def test_a_pile_shows_its_best_layout_without_javascript(client):
    code = solitaire(client)
    page = client.get(f"/g/{code}/piles/2", params={"cards": "7H,7S,7C", "add": "KD"})
    assert page.status_code == 200
    text = visible_text(page.text)
    assert "Pile 2" in text and "Fours are wild" in text
    assert "Best layout leaves 13 points." in text
    assert elements(page.text, "input", name="cards")[0]["value"] == "7H,7S,7C,KD"
    wild = {
        e["aria-label"] for e in elements(page.text, "button", name="add") if "wild" in e["class"]
    }
    assert "4 Four of hearts" in wild and "5 Five of hearts" not in wild


def test_a_pile_says_how_many_cards_to_tap(client):
    code = solitaire(client)
    text = visible_text(client.get(f"/g/{code}/piles/5", params={"cards": "7H"}).text)
    assert "Tap 6 more cards: the hand holds 7." in text


def test_i_just_drew_says_which_card_to_discard_at_the_piles_wild_rank(client):
    code = solitaire(client)
    # Pile 3 (fives wild) plus the card just drawn: the five of stars fills the run.
    params = {"cards": "7H,8H,5R,JOKER,9C,KD", "discard": "1"}
    text = visible_text(client.get(f"/g/{code}/piles/3", params=params).text)
    assert "Discarding the King of diamonds leaves the fewest points: 9." in text
    assert "Save pile 3" not in text  # a pile is saved as it lies, not with a drawn card


def test_saving_piles_by_form_until_the_game_is_won_or_lost(client):
    code = solitaire(client)
    saved = client.post(f"/g/{code}/piles/2", data={"cards": "7H,7S,7C,KD"}, follow_redirects=False)
    assert saved.status_code == 303
    text = visible_text(client.get(f"/g/{code}").text)
    assert "Pile 2 4 cards · Fours wild 13 points" in text
    for number in [1, *range(3, 12)]:
        client.post(f"/g/{code}/piles/{number}", data={"closed": "1"})
    text = visible_text(client.get(f"/g/{code}").text)
    assert "Not this time: 13 points left" in text
    # A correction sends the version its page was drawn from.
    (version,) = elements(client.get(f"/g/{code}/piles/2").text, "input", name="version")
    client.post(
        f"/g/{code}/piles/2", data={"points": "", "closed": "1", "version": version["value"]}
    )
    assert "Sol wins: every pile closed" in visible_text(client.get(f"/g/{code}").text)


def test_a_pile_with_the_wrong_cards_keeps_them_and_says_why(client):
    code = solitaire(client)
    response = client.post(f"/g/{code}/piles/2", data={"cards": "7H,7S,7C"})
    assert response.status_code == 422
    assert "tap exactly 4, not 3" in visible_text(response.text)
    assert elements(response.text, "input", name="cards")[0]["value"] == "7H,7S,7C"
    typed = client.post(f"/g/{code}/piles/1", data={"points": "58"})
    assert typed.status_code == 422
    assert "In pile 1 a player keeps 0 or 3 cards; 58 points cannot be left." in visible_text(
        typed.text
    )


def test_piles_of_an_ordinary_game_are_404(client, new_game):
    assert client.get(f"/g/{new_game()['code']}/piles/1").status_code == 404


# --- the tie-break ----------------------------------------------------------------------


def tied(client, new_game):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    for number in range(1, 12):
        results = went_out_first(3, points=[0, 13, 0])
        client.put(f"/api/games/{code}/rounds/{number}", json={"results": results})
    return code


def test_a_shared_win_offers_share_or_a_tiebreak(client, new_game):
    code = tied(client, new_game)
    page = client.get(f"/g/{code}").text
    text = visible_text(page)
    assert "Ann & Cy share the win" in text
    assert "Share the win" in [a_text for a_text in re.findall(r">([^<]+)</a>", page)]
    assert "Play a tie-break round" in text
    shared = visible_text(client.get(f"/g/{code}", params={"shared": "1"}).text)
    assert "Ann & Cy share the win" in shared and "Play a tie-break round" not in shared


def test_the_tiebreak_round_is_played_on_the_game_page(client, new_game):
    code = tied(client, new_game)
    started = client.post(f"/g/{code}/tiebreak", follow_redirects=False)
    assert started.status_code == 303
    page = client.get(f"/g/{code}").text
    text = visible_text(page)
    assert "Tie-break round 6 cards each" in text
    assert "Sixes are wild" in text
    # Round 11 was dealt by Ben (seat 1): Cy deals on, Ann is the first tied player after.
    assert "Cy deals · Ann plays first" in text
    assert "Only Ann and Cy play" in text
    seats = [e["data-seat"] for e in elements(page, "fieldset") if "data-seat" in e]
    assert seats == ["0", "2"]
    data = {"from": "game", "went_out": "2", "points_0": "9", "cards_0": "", "cards_2": ""}
    saved = client.post(f"/g/{code}/rounds/12", data={**data, "save": "1"}, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    page = client.get(f"/g/{code}").text
    text = visible_text(page)
    assert "Cy wins" in text and "the fewest in the tie-break" in text
    # Its row on the sheet: labelled Tie-break, its wild-rank tag showing 6.
    row = r'aria-label="Correct the tie-break round">Tie-break <span[^>]*data-wild="6"'
    assert re.search(row, page)


def test_no_tiebreak_offer_without_a_tie(client, new_game):
    code = new_game(["Ann", "Ben"])["code"]
    client.put(f"/api/games/{code}/rounds/1", json={"results": went_out_first(2, points=[0, 13])})
    client.post(f"/g/{code}/finish")
    assert "Play a tie-break round" not in visible_text(client.get(f"/g/{code}").text)
    refused = client.post(f"/g/{code}/tiebreak")
    assert refused.status_code == 409
    assert "no tie" in visible_text(refused.text)


# --- players coming and going -----------------------------------------------------------


def test_a_player_joins_and_another_leaves_by_form(client, new_game):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    client.put(
        f"/api/games/{code}/rounds/1", json={"results": went_out_first(3, points=[0, 13, 13])}
    )
    page = client.get(f"/g/{code}").text
    players_url = f"/g/{code}/players"
    assert players_url in [a.get("href") for a in elements(page, "a")]
    form = client.get(players_url).text
    assert "Name of the new player" in visible_text(form)
    assert "the highest total so far (13)" in visible_text(form)
    assert "the average total (9)" in visible_text(form)
    joined = client.post(
        f"/g/{code}/players",
        data={"name": "Eve", "seat": "1", "start": "points", "start_points": "42"},
        follow_redirects=False,
    )
    assert joined.status_code == 303, joined.text
    page = client.get(f"/g/{code}").text
    headers = re.findall(r"<th scope=\"col\">(.*?)</th>", page)[1:5]
    assert [visible_text(h) for h in headers] == ["Ann", "Eve joined: 42", "Ben", "Cy"]
    assert "Eve leaves the game" in visible_text(client.get(f"/g/{code}/players").text)
    left = client.post(f"/g/{code}/players/3/leave", follow_redirects=False)
    assert left.status_code == 303
    page = client.get(f"/g/{code}").text
    headers = [visible_text(h) for h in re.findall(r"<th scope=\"col\">(.*?)</th>", page)[1:5]]
    assert headers == ["Ann", "Eve joined: 42", "Ben", "Cy left"]
    assert "Cy leaves the game" not in visible_text(client.get(f"/g/{code}/players").text)
    fieldsets = [e["data-seat"] for e in elements(page, "fieldset") if "data-seat" in e]
    assert fieldsets == ["0", "1", "2"]


def test_a_join_mistake_keeps_what_was_typed(client, new_game):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    response = client.post(f"/g/{code}/players", data={"name": "ann", "start": "zero"})
    assert response.status_code == 422
    assert "Two players are called" in visible_text(response.text)
    assert elements(response.text, "input", name="name")[0]["value"] == "ann"
    bad_points = client.post(
        f"/g/{code}/players", data={"name": "Eve", "start": "points", "start_points": "lots"}
    )
    assert bad_points.status_code == 422
    assert "Type the points" in visible_text(bad_points.text)


def test_the_last_but_one_cannot_leave_by_form(client, new_game):
    code = new_game(["Ann", "Ben"])["code"]
    page = visible_text(client.get(f"/g/{code}/players").text)
    assert "Ann leaves the game" not in page and "nobody can leave now" in page
    response = client.post(f"/g/{code}/players/0/leave")
    assert response.status_code == 422
    assert "at least 2 players" in visible_text(response.text)


# --- the rules page ---------------------------------------------------------------------


def test_the_rules_page_agrees_with_the_rulebook(client):
    page = client.get("/rules").text
    text = visible_text(page)
    for statement in [
        "One box seats 1 to 7 players",
        "up to 14 can play",
        "one more round of 6 cards (sixes wild) for the tied players only",
        "only the top card of either",
        "Your books and runs stay in your hand until you go out",
        "Only as many cards as were dealt go into the groups",
        "the last discard may even be a card that would have fitted",
        "the discard pile is shuffled to make a new one",
        "A wild card you cannot use may be discarded",
        "deals the cards one at a time, clockwise",
        "House habit: the dealer reads the wild rank aloud",
        "House rule: a table in a hurry may stop early",
        "House rule: some tables play the rounds in another order",
        "Crownkeeper's ruling: a group made only of wild cards counts",
        "Each pile's wild rank is its own size",
        "keeps every card dealt or at least three fewer",
        "A player who laid anything down keeps no wild card and no joker either",
        "The rulebook: runs go from 3 up to King and never wrap around",
        "an exact card appears only once in a run",
        "The rulebook: a wild rank card can also play as its own rank",
        "deals eleven piles face up: 3 cards, 4 cards, and so on up to 13",
        "Three jokers make a book: were they laid down?",
    ]:
        assert statement in text, statement
    assert "2 to 7 players" not in text
    assert "at most three fewer" not in text
    # The rulebook's own rules are not marked as the app's rulings.
    rulings = text.split("Crownkeeper's ruling")[1:]
    assert not any(
        ruling.lstrip(": ").startswith(("runs go", "a wild rank card", "the piles are laid"))
        for ruling in rulings
    )
    assert len(elements(page, "table", **{"class": "chart"})) == 1
    assert text.count("Wild card chart") == 1


def test_the_table_may_share_the_win_instead_of_playing_the_tiebreak(client, new_game):
    code = tied(client, new_game)
    client.post(f"/g/{code}/tiebreak")
    assert "Share the win instead" in visible_text(client.get(f"/g/{code}").text)
    client.post(f"/g/{code}/finish")
    text = visible_text(client.get(f"/g/{code}", params={"shared": "1"}).text)
    assert "Ann & Cy share the win" in text and "Tie-break" not in text


def test_htmx_asking_for_a_solitaire_game_gets_only_the_game_region(client):
    code = solitaire(client)
    response = client.get(
        f"/g/{code}", headers={"HX-Request": "true", "HX-Request-Type": "partial"}
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="game" class="game solitaire"')
    assert "<html" not in response.text
