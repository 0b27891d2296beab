"""The table pages and a game's look back, without JavaScript: forms post and redirect."""

import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.tables import start_game
from tests.conftest import test_settings
from tests.html import elements, visible_text
from tests.tables_helpers import new_table, person, play, table_game

# What a page draws does not depend on the database: SQLite only (tests/databases.py).
pytestmark = pytest.mark.one_database


def start_table_by_form(client, name="The Smiths"):
    response = client.post("/tables", data={"table_name": name}, follow_redirects=False)
    assert response.status_code == 303
    return response.headers["location"].rsplit("/", 1)[-1]


def test_home_starts_a_table_and_remembers_it(client):
    assert "A table for the people you play with" in visible_text(client.get("/").text)
    code = start_table_by_form(client)
    page = client.get(f"/t/{code}")
    assert page.status_code == 200
    assert "The Smiths" in visible_text(page.text) and "No games yet." in visible_text(page.text)
    home = client.get("/").text
    assert "Your tables" in visible_text(home)
    assert f"/t/{code}" in [a.get("href") for a in elements(home, "a")]
    empty = client.post("/tables", data={"table_name": "  "})
    assert empty.status_code == 422 and "name" in visible_text(empty.text)


def test_people_are_tappable_names_most_recent_first(client):
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben", "Cy"])
    table_game(client, table, ["Dee", "Ben"])
    page = client.get(f"/t/{table['code']}").text
    picks = [b for b in elements(page, "button") if b.get("name") == "pick"]
    assert [b["value"] for b in picks] == ["Dee", "Ben", "Ann", "Cy"]
    # Tap Ben then Ann: they take the first empty seats, in that order.
    form = {f"name_{i}": "" for i in range(4)} | {"first_dealer": "0"}
    tapped = client.post(f"/t/{table['code']}/games", data={**form, "pick": "Ben"})
    assert tapped.status_code == 200
    names = [
        e["value"] for e in elements(tapped.text, "input") if e.get("name", "").startswith("name_")
    ]
    assert names == ["Ben", "", "", ""]
    pressed = [b for b in elements(tapped.text, "button") if b.get("aria-pressed") == "true"]
    assert [b["value"] for b in pressed] == ["Ben"]
    form = {"name_0": "Ben", "name_1": "ann", "name_2": "", "first_dealer": "1", "action": "create"}
    created = client.post(f"/t/{table['code']}/games", data=form, follow_redirects=False)
    assert created.status_code == 303
    game_code = created.headers["location"].rsplit("/", 1)[-1]
    game = client.get(f"/api/games/{game_code}").json()
    assert game["players"] == ["Ben", "ann"] and game["first_dealer"] == 1
    answer = client.get(f"/api/tables/{table['code']}").json()
    assert len(answer["people"]) == 4 and answer["games"][0]["code"] == game_code


def test_a_bad_new_game_keeps_what_was_typed(client):
    table = new_table(client)
    form = {"name_0": "Ann", "name_1": "ANN", "first_dealer": "0", "action": "create"}
    response = client.post(f"/t/{table['code']}/games", data=form)
    assert response.status_code == 422
    assert "Two players are called" in visible_text(response.text)
    names = [
        e["value"]
        for e in elements(response.text, "input")
        if e.get("name", "").startswith("name_")
    ]
    assert names == ["Ann", "ANN"]


def test_the_table_page_lists_games_newest_first_and_shows_stats(client):
    table = new_table(client)
    first = table_game(client, table, ["Ann", "Ben"])
    play(client, first, [[0, 13], [3, 0]])
    second = table_game(client, table, ["Ann", "Ben"])
    page = client.get(f"/t/{table['code']}").text
    listed = page.split('id="games-heading"', 1)[1].split("</section>", 1)[0]
    links = [a["href"] for a in elements(listed, "a") if a.get("href", "").startswith("/g/")]
    assert links == [f"/g/{second['code']}", f"/g/{first['code']}"]
    text = visible_text(page)
    assert "in progress, 0 of 11 rounds" in text
    assert "finished after 2 rounds: Ann wins" in text
    assert re.search(r"Ann 1 game · 1 win · 100%", text)
    assert "Win rate 100%" in text and "Went out 1 (50%)" in text and "Per round 1.5" in text
    assert "Ann against each" in text


def test_rename_and_merge_by_form(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    play(client, table_game(client, table, ["Anne", "Ben"]), [[0, 13]])
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, anne = person(answer, "Ann"), person(answer, "Anne")
    merged = client.post(
        f"/t/{table['code']}/people/{anne['id']}",
        data={"into": str(ann["id"])},
        follow_redirects=False,
    )
    assert merged.status_code == 303
    renamed = client.post(
        f"/t/{table['code']}/people/{ann['id']}", data={"name": "Annie"}, follow_redirects=True
    )
    assert renamed.status_code == 200
    text = visible_text(renamed.text)
    assert "Annie 2 games · 2 wins" in text and "Anne" not in text
    refused = client.post(f"/t/{table['code']}/people/{ann['id']}", data={"name": "ben"})
    assert refused.status_code == 422 and "already at this table" in visible_text(refused.text)
    missing = client.post(f"/t/{table['code']}/people/999", data={"name": "X"})
    assert missing.status_code == 404


def test_the_chart_shows_from_the_second_round(client, new_game):
    game = new_game(["Ann", "Ben"])
    play(client, game, [[0, 13]], finish=False)
    assert not elements(client.get(f"/g/{game['code']}").text, "a", class_="totals-chart-link")
    play(client, game, [[0, 13], [3, 0]], finish=False)
    for code in (game["code"], game["watch_code"]):
        # The page keeps the chart's box and links to it; htmx asks for it once in view.
        page = client.get(f"/g/{code}").text
        (link,) = elements(page, "a", class_="totals-chart-link")
        assert link["href"].startswith(f"/g/{code}/chart.svg")
        assert link["hx-get"].startswith(f"/g/{code}/chart") and "intersect" in link["hx-trigger"]
        (box,) = elements(page, "svg", class_="totals-chart")
        assert "running total" in box["aria-label"] and box["viewbox"] == "0 0 360 228"
        figure = client.get(link["hx-get"], headers={"HX-Request": "true"})
        (image,) = elements(figure.text, "img", class_="totals-chart")
        assert image["src"].startswith(f"/g/{code}/chart.svg") and "running total" in image["alt"]
        assert (image["width"], image["height"]) == ("360", "228")  # the box's shape
        assert client.get(image["src"]).headers["content-type"].startswith("image/svg+xml")
        plain = client.get(f"/g/{code}/chart", follow_redirects=False)
        assert plain.status_code == 303 and "/chart.svg" in plain.headers["location"]
    assert client.get("/g/nosuchgame/chart", headers={"HX-Request": "true"}).status_code == 404


def test_the_finished_page_offers_rematch_share_and_the_chart(client):
    table = new_table(client)
    game = play(client, table_game(client, table, ["Ben", "Ann", "Cy"]), [[13, 0, 14], [3, 0, 9]])
    page = client.get(f"/g/{game['code']}").text
    assert elements(page, "a", class_="totals-chart-link")
    assert (
        elements(page, "input", id="result-text")[0]["value"] == "Ann wins with 0 · Ben 16 · Cy 23"
    )
    share = [b for b in elements(page, "button") if "data-text" in b]
    assert share[0]["data-text"] == "Ann wins with 0 · Ben 16 · Cy 23"
    assert "Rematch" in visible_text(page)
    response = client.post(f"/g/{game['code']}/rematch", follow_redirects=False)
    assert response.status_code == 303
    new_code = response.headers["location"].rsplit("/", 1)[-1]
    new_game = client.get(f"/api/games/{new_code}").json()
    assert new_game["players"] == ["Ben", "Ann", "Cy"] and new_game["first_dealer"] == 1
    old_page = visible_text(client.get(f"/g/{game['code']}").text)
    assert "A rematch has started" in old_page and "Go to the rematch" in old_page
    watch = client.get(f"/g/{game['watch_code']}").text
    assert f"/g/{new_game['watch_code']}" in [a.get("href") for a in elements(watch, "a")]
    assert new_code not in watch


def test_delete_by_form_then_undo(client):
    table = new_table(client)
    game = play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    page = client.get(f"/g/{game['code']}").text
    assert "Delete this game" in visible_text(page)
    deleted = client.post(f"/g/{game['code']}/delete", follow_redirects=True)
    assert deleted.status_code == 200
    assert "Game deleted" in visible_text(deleted.text)
    assert client.get(f"/g/{game['code']}").status_code == 404
    listed = client.get(f"/t/{table['code']}").text
    games_list = listed[
        listed.index('aria-labelledby="games-heading"') : listed.index('id="people"')
    ]
    assert f"/g/{game['code']}" not in games_list
    assert f"/g/{game['code']}/deleted" in listed  # under "Recently deleted", to restore
    undo = [f for f in elements(deleted.text, "form")][-1]["action"]
    restored = client.post(undo, follow_redirects=True)
    assert restored.status_code == 200 and "Ann wins" in visible_text(restored.text)
    assert f"/g/{game['code']}" in client.get(f"/t/{table['code']}").text


def test_a_game_without_a_table_has_no_table_parts(client, new_game):
    game = new_game(["Ann", "Ben"])
    page = client.get(f"/g/{game['code']}")
    assert page.status_code == 200
    assert "Threes are wild" in visible_text(page.text)
    assert client.get("/api/tables/" + game["code"]).status_code == 404


def test_home_remembers_every_table_opened_newest_first(client):
    first, second = new_table(client, "The Smiths")["code"], new_table(client, "Book club")["code"]
    client.get(f"/t/{first}")
    client.get(f"/t/{second}")
    client.get(f"/t/{first}")  # opened again: back to the top, not listed twice
    home = client.get("/").text
    tables = [a["href"] for a in elements(home, "a") if a.get("href", "").startswith("/t/")]
    assert tables == [f"/t/{first}", f"/t/{second}"]


def test_the_share_panel_gives_the_watch_and_scorekeeper_links(client):
    table = new_table(client)
    page = client.get(f"/t/{table['code']}").text
    [watch] = elements(page, "input", **{"aria-label": "Table watch link"})
    [keeper] = elements(page, "input", **{"aria-label": "Table scorekeeper link"})
    assert watch["value"] == f"http://testserver/t/{table['watch_code']}"
    assert keeper["value"] == f"http://testserver/t/{table['code']}"
    assert client.get(watch["value"]).status_code == 200


def test_a_long_table_shows_the_newest_games_and_a_link_to_all(client):
    table = new_table(client)
    with client.app.state.sessions() as session:
        for _ in range(31):
            start_game(session, table_code=table["code"], players=["Ann", "Ben"])
    page = client.get(f"/t/{table['code']}").text
    shown = [a for a in elements(page, "a") if a.get("href", "").startswith("/g/")]
    assert len(shown) == 30
    assert "Show all 31 games" in visible_text(page)
    everything = client.get(f"/t/{table['code']}", params={"all": "1"}).text
    assert len([a for a in elements(everything, "a") if a.get("href", "").startswith("/g/")]) == 31


def test_merge_by_choosing_a_name_on_the_persons_one_form(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    play(client, table_game(client, table, ["Anne", "Ben"]), [[0, 13]])
    listed = client.get(f"/api/tables/{table['code']}").json()
    anne, ben = person(listed, "Anne"), person(listed, "Ben")
    page = client.get(f"/t/{table['code']}").text
    # One form a person, one list of names for the whole page.
    assert len(elements(page, "datalist")) == 1 and not elements(page, "select")
    forms = [f for f in elements(page, "form") if "/people/" in (f.get("action") or "")]
    assert len(forms) == 3
    merged = client.post(
        f"/t/{table['code']}/people/{anne['id']}",
        data={"name": "Anne", "into_name": "  ann ", "action": "merge"},
        follow_redirects=True,
    )
    text = visible_text(merged.text)
    assert "Ann 2 games · 2 wins" in text and "Anne" not in text
    nobody = client.post(
        f"/t/{table['code']}/people/{ben['id']}",
        data={"name": "Ben", "into_name": "Zed", "action": "merge"},
    )
    assert nobody.status_code == 422 and "Nobody called Zed" in visible_text(nobody.text)


def test_the_table_page_grows_in_step_with_its_people(settings):
    client = TestClient(create_app(test_settings(settings.database_url, create_rate_limit="off")))

    def page(people):
        table = new_table(client, f"Table of {people}")
        names = [f"P{n:03d}" for n in range(people)]
        for start in range(0, people, 4):
            four = [names[(start + i) % people] for i in range(4)]
            play(client, table_game(client, table, four), [[0, 13, 20, 30]])
        return client.get(f"/t/{table['code']}").text

    sizes = {}
    with client:
        for people in (12, 24, 48):
            text = page(people)
            # Each name is offered once for merging, not once for every other person.
            assert len(elements(text, "option")) == people
            sizes[people] = len(text.encode())
    # Twice the people (and games) add about twice as much: in step, not by the square.
    assert sizes[48] - sizes[24] < 2.6 * (sizes[24] - sizes[12])


def test_a_table_of_many_people_lists_the_highest_rated_and_all_on_asking(client, monkeypatch):
    from app.web import table_pages

    monkeypatch.setattr(table_pages, "PEOPLE_SHOWN", 2)
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben", "Cy"]), [[0, 25, 40]])
    page = client.get(f"/t/{table['code']}")
    listed = re.findall(r'<span class="person-name">([^<]*)</span>', page.text)
    assert listed == ["Ann", "Ben"]  # Ann won, Ben came second
    assert "Show all 3 people" in visible_text(page.text)
    assert any(a["href"].endswith("?people=all#people") for a in elements(page.text, "a"))
    everyone = client.get(f"/t/{table['code']}?people=all")
    listed = re.findall(r'<span class="person-name">([^<]*)</span>', everyone.text)
    assert listed == ["Ann", "Ben", "Cy"]
    assert "Show all 3 people" not in visible_text(everyone.text)
