"""What the game page sends for offline play (app/web/pages.py, templates/ahead.html): the
rounds after the current one rendered once by the same templates as the page, and the
version and fresh round in headers, so no script reads them out of the page's text."""

from tests.conftest import round_form
from tests.html import elements, parse, visible_text

HTMX = {"HX-Request": "true", "HX-Request-Type": "partial"}


def between(html, start, end="</section>"):
    """The piece of html from the first `start` to the `end` after it."""
    at = html.index(start)
    return html[at : html.index(end, at) + len(end)]


def status_and_entry(html):
    return between(html, '<section class="status"') + between(html, '<section class="enter"')


def shown(html):
    """What a person sees and every control with its attributes, but the version the form
    is based on (and the draft named after it), which the kept round before it gives."""
    kept = []
    for tag, attrs in parse(html).elements:
        attrs = {k: v for k, v in attrs.items() if k != "data-draft"}
        if attrs.get("name") == "version":
            attrs["value"] = ""
        kept.append((tag, attrs))
    return visible_text(html), kept


def save(client, code, number, **fields):
    fields = {"went_out": "0", "zero_1": "1", "zero_2": "1", "save": "1", **fields}
    return client.put(f"/g/{code}/rounds/{number}", data=round_form(3, **fields), headers=HTMX)


def templates_of(html):
    return [int(t["data-round"]) for t in elements(html, "template")]


def test_each_round_ahead_is_the_page_as_it_shows_that_round(client, new_game):
    code = new_game()["code"]
    assert save(client, code, 1).status_code == 200
    ahead = client.get(f"/g/{code}/ahead")
    assert ahead.status_code == 200 and ahead.headers["cache-control"] == "no-store"
    assert templates_of(ahead.text) == list(range(3, 12))
    round_3 = between(ahead.text, '<template data-round="3">', "</template>")
    assert "<title>Round 3: Fives wild · Crownkeeper</title>" in round_3

    assert save(client, code, 2).status_code == 200
    page = client.get(f"/g/{code}").text
    assert shown(status_and_entry(round_3)) == shown(status_and_entry(page))
    (version,) = elements(round_3, "input", name="version")
    assert version["value"] == ""


def test_the_last_round_ahead_has_its_wild_rank_dealer_and_card_values(client, new_game):
    code = new_game()["code"]
    round_11 = between(
        client.get(f"/g/{code}/ahead").text, '<template data-round="11">', "</template>"
    )
    text = visible_text(round_11)
    assert "Round 11 of 11" in text and "13 cards each" in text and "Kings are wild" in text
    assert "Ben deals · Cy plays first" in text  # the deal moves on a seat a round
    assert "Enter round 11" in text and "Save round 11" in text
    (form,) = elements(round_11, "form", **{"class": "entry"})
    assert form["action"] == f"/g/{code}/rounds/11" and form["data-cards-dealt"] == "13"
    keys = {
        k["data-code"]: int(k["data-points"])
        for k in elements(round_11, "button", name="add")
        if k["value"].startswith("0:")
    }
    assert keys["K"] == 20 and keys["Q"] == 12 and keys["3"] == 3 and keys["JOKER"] == 50


def test_no_rounds_ahead_for_a_watcher_or_after_the_last(client, new_game):
    game = new_game()
    assert client.get(f"/g/{game['watch_code']}/ahead").status_code == 403
    for number in range(1, 11):
        assert save(client, game["code"], number).status_code == 200
    assert templates_of(client.get(f"/g/{game['code']}/ahead").text) == []


def test_the_page_says_its_version_fresh_round_and_rounds_ahead_in_headers(client, new_game):
    game = new_game()
    code, version = game["code"], game["version"]
    page = client.get(f"/g/{code}")
    assert page.headers["x-game-version"] == str(version)
    assert page.headers["x-fresh-round"] == "1"
    assert page.headers["x-rounds-ahead"] == f"/g/{code}/ahead"
    watching = client.get(f"/g/{game['watch_code']}")
    assert watching.headers["x-game-version"] == str(version)
    assert "x-rounds-ahead" not in watching.headers

    saved = save(client, code, 1, version=str(version))
    assert saved.headers["x-game-version"] == str(version + 1)
    assert saved.headers["x-fresh-round"] == "2"
    refused = save(client, code, 2, went_out="")
    assert refused.status_code == 422 and "x-fresh-round" not in refused.headers


def test_the_wild_card_chart_carries_no_plan_for_scripts(client, new_game):
    page = client.get(f"/g/{new_game()['code']}").text
    assert not [row for row in elements(page, "tr") if "data-deal" in row]
