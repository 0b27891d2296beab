"""The round loop without JavaScript: every form posts to a page, an empty seat is not a
silent 0, a save says so, and a second phone never overwrites a round by accident."""

import re

import pytest
from starlette.routing import Route

from tests.conftest import round_form
from tests.html import elements, visible_text

HX = {"HX-Request": "true", "HX-Request-Type": "partial"}


def test_every_route_has_its_own_name(app):
    names = [route.name for route in app.routes if isinstance(route, Route)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def every_page(client, new_game):
    """The pages a player can open, in the states that show every form."""
    game = new_game(["Ann", "Ben", "Cy"])
    code, watch = game["code"], game["watch_code"]
    paths = ["/", "/hand", "/rules", f"/g/{code}", f"/g/{watch}", f"/g/{code}/rounds/1"]
    saved = round_form(3, went_out="0", points_1="15", points_2="16", version="1")
    assert client.post(f"/g/{code}/rounds/1", data=saved).status_code == 200
    paths += [f"/g/{code}", f"/g/{watch}", f"/g/{code}/rounds/1", "/g/nosuchgame"]
    for path in paths:
        yield path, client.get(path).text
    stale = client.post(
        f"/g/{code}/rounds/1", data=round_form(3, went_out="1", zero_0="1", zero_2="1", version="1")
    )
    assert stale.status_code == 409
    yield "a conflict", stale.text
    client.post(f"/g/{code}/finish")
    yield "finished", client.get(f"/g/{code}").text


def test_every_form_on_every_page_posts_to_a_page_not_the_api(client, new_game):
    seen = 0
    for path, html in every_page(client, new_game):
        for form in elements(html, "form"):
            seen += 1
            for attribute in ("action", "hx-post", "hx-put", "hx-get"):
                target = form.get(attribute, "")
                assert not re.match(r"(https?://[^/]+)?/api(/|$)", target), (path, form)
            assert form.get("action"), (path, form)
    assert seen >= 10


def test_end_the_game_now_lands_on_the_finished_page(client, new_game):
    code = new_game()["code"]
    client.post(
        f"/g/{code}/rounds/1", data=round_form(3, went_out="2", points_0="19", points_1="14")
    )
    page = client.get(f"/g/{code}").text
    (end_form,) = [f for f in elements(page, "form") if f["action"].endswith("/finish")]
    response = client.post(end_form["action"])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    text = visible_text(response.text)
    assert "Cy wins" in text and "Game over after 1 of 11 rounds" in text


def test_the_round_entry_is_open_without_a_tap(client, new_game):
    page = client.get(f"/g/{new_game()['code']}").text
    assert "Enter round 1" in visible_text(page)
    assert elements(page, "details", **{"class": "enter"}) == []
    assert len(elements(page, "button", name="save")) == 1


def test_an_empty_seat_is_refused_at_save_time(client, new_game):
    code = new_game()["code"]
    response = client.post(
        f"/g/{code}/rounds/1", data=round_form(3, went_out="0", cards_1="Q"), headers=HX
    )
    assert response.status_code == 422
    assert "Did Cy go out too? Tap Went out or add Cy's cards." in visible_text(response.text)
    assert elements(response.text, "input", name="cards_1")[0]["value"] == "Q"
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] is None


def test_laid_everything_down_saves_a_zero(client, new_game):
    code = new_game()["code"]
    page = client.get(f"/g/{code}").text
    assert elements(page, "input", type="checkbox", name="zero_2")[0]["aria-label"] == (
        "Cy laid everything down: 0"
    )
    assert "Laid everything down: 0" in visible_text(page)
    client.post(f"/g/{code}/rounds/1", data=round_form(3, went_out="0", cards_1="Q", zero_2="1"))
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [0, 12, 0]
    # Correcting it later keeps the mark, so the round saves again as it was.
    correction = client.get(f"/g/{code}/rounds/1").text
    assert "checked" in elements(correction, "input", name="zero_2")[0]


def test_the_api_still_takes_an_empty_hand(client, new_game):
    code = new_game()["code"]
    results = [{"went_out": True}, {"cards": ["Q"]}, {"cards": []}]
    response = client.put(f"/api/games/{code}/rounds/1", json={"results": results})
    assert response.status_code == 200
    assert response.json()["rounds"][0]["scores"] == [0, 12, 0]


def test_a_save_without_javascript_says_it_saved(client, new_game):
    code = new_game()["code"]
    response = client.post(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="0", points_1="15", points_2="16"),
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"].endswith(f"/g/{code}?saved=1")
    page = client.get(response.headers["location"]).text
    (note,) = elements(page, "p", id="saved-note")
    assert note["role"] == "status"
    assert "Round 1 saved" in visible_text(page)
    assert "Round 1 saved" not in visible_text(client.get(f"/g/{code}").text)


def test_the_script_saves_with_put_and_gets_the_game_region(client, new_game):
    code = new_game()["code"]
    response = client.put(
        f"/g/{code}/rounds/1",
        data=round_form(3, went_out="0", points_1="15", points_2="16"),
        headers=HX,
    )
    assert response.status_code == 200
    assert elements(response.text, "div", id="game")[0]["data-saved"] == "1"


@pytest.mark.parametrize("via", ["game", "round"])
def test_a_stale_save_never_overwrites_until_replace_is_chosen(client, new_game, via):
    code = new_game()["code"]
    version = str(client.get(f"/api/games/{code}").json()["version"])
    other = round_form(3, went_out="0", points_1="15", points_2="16", version=version)
    assert client.post(f"/g/{code}/rounds/1", data=other).status_code == 200
    mine = round_form(3, went_out="1", points_0="17", cards_2="K", version=version, **{"from": via})
    conflict = client.post(f"/g/{code}/rounds/1", data=mine)
    assert conflict.status_code == 409
    text = visible_text(conflict.text)
    assert "Another phone saved round 1 while you were entering it." in text
    assert re.search(r"Player Saved Yours Ann went out 17 Ben 15 went out Cy 16 13", text)
    assert elements(conflict.text, "button", name="keep")[0]
    (replace,) = elements(conflict.text, "button", name="replace")
    assert "Replace it with mine" in visible_text(conflict.text)
    # The hidden version is still the one the entries were made against: Save again is refused.
    (kept_version,) = elements(conflict.text, "input", name="version")
    assert kept_version["value"] == version
    assert client.post(f"/g/{code}/rounds/1", data=mine).status_code == 409
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [0, 15, 16]
    replaced = client.post(f"/g/{code}/rounds/1", data={**mine, "replace": replace["value"]})
    assert replaced.status_code == 200
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [17, 0, 13]


def test_keep_the_saved_round_leaves_it_alone(client, new_game):
    code = new_game()["code"]
    other = round_form(3, went_out="0", points_1="15", points_2="16", version="1")
    client.post(f"/g/{code}/rounds/1", data=other)
    mine = round_form(3, went_out="1", points_0="17", points_2="18", version="1")
    response = client.post(f"/g/{code}/rounds/1", data={**mine, "keep": "1"}, headers=HX)
    assert response.status_code == 200
    assert "Enter round 2" in visible_text(response.text)
    assert client.get(f"/api/games/{code}").json()["rounds"][0]["scores"] == [0, 15, 16]


def test_a_refused_save_puts_the_focus_on_the_seat_its_message_names(client, new_game):
    """Without JavaScript too: the first seat with a message is focused (and so scrolled to)
    as the page loads."""
    code = new_game()["code"]
    response = client.post(f"/g/{code}/rounds/1", data=round_form(3, went_out="0", cards_1="Q"))
    assert response.status_code == 422
    focused = [seat for seat in elements(response.text, "fieldset") if "autofocus" in seat]
    assert [(seat["data-seat"], seat["tabindex"]) for seat in focused] == [("2", "-1")]
    blank = client.get(f"/g/{code}").text
    assert not any("autofocus" in seat for seat in elements(blank, "fieldset"))


def test_the_page_a_leaving_lands_on_offers_to_undo_it_until_the_next_save(client, new_game):
    code = new_game(players=("Ann", "Ben", "Cy", "Dee"))["code"]
    left = client.post(f"/g/{code}/players/3/leave", follow_redirects=True)
    assert str(left.url).endswith(f"/g/{code}")
    assert "Dee left. Undo" in visible_text(left.text)
    (undo,) = elements(left.text, "form", **{"class": "left-note"})
    assert undo["action"] == f"/g/{code}/players/3/return"
    assert elements(left.text, "button", name="back", value="game")
    # Undo lands back on the game, Dee seated for round 1 again.
    back = client.post(undo["action"], data={"back": "game"}, follow_redirects=False)
    assert back.status_code == 303 and back.headers["location"].endswith(f"/g/{code}")
    page = client.get(f"/g/{code}").text
    assert "Dee left." not in visible_text(page)
    assert elements(page, "input", name="went_out", value="3")

    client.post(f"/g/{code}/players/3/leave")
    assert "Dee left. Undo" in visible_text(client.get(f"/g/{code}").text)
    watcher = client.get(f"/g/{client.get(f'/api/games/{code}').json()['watch_code']}").text
    assert "Dee left." not in visible_text(watcher)  # only the scorekeeper can undo it
    client.post(f"/g/{code}/rounds/1", data=round_form(4, went_out="0", cards_1="Q", cards_2="K"))
    assert "Dee left." not in visible_text(client.get(f"/g/{code}").text)
