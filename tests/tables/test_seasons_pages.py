"""The table page's season chooser and records, and the page of each person, with either
table code (the watch version shows no control and no scorekeeper code)."""

import re
from datetime import UTC, datetime

import pytest

from tests.html import elements, visible_text
from tests.tables.test_seasons_api import finish_on
from tests.tables_helpers import new_table, person, play, table_game

pytestmark = pytest.mark.one_database


@pytest.fixture
def seasons_table(client):
    table = new_table(client)
    old = table_game(client, table, ["Ann", "Ben"])
    play(client, old, [[0, 20]] * 10 + [[0, 13]])
    finish_on(client, old["code"], datetime(2025, 12, 31, 22, 0, tzinfo=UTC))
    new = table_game(client, table, ["Ann", "Ben", "Cy"])
    play(client, new, [[30, 0, 20]])
    finish_on(client, new["code"], datetime(2026, 1, 1, 9, 0, tzinfo=UTC))
    return table, old, new


def test_the_season_chooser_keeps_its_choice_in_the_address(client, seasons_table):
    table, old, new = seasons_table
    page = client.get(f"/t/{table['code']}").text
    chooser = [
        a for a in elements(page, "a") if a.get("href", "").startswith(f"/t/{table['code']}")
    ]
    choices = {a["href"]: a.get("aria-current") for a in chooser}
    assert choices[f"/t/{table['code']}"] == "page"
    assert f"/t/{table['code']}?year=2026" in choices and f"/t/{table['code']}?year=2025" in choices
    chosen = client.get(f"/t/{table['code']}?year=2025").text
    current = [a for a in elements(chosen, "a") if a.get("aria-current") == "page"]
    assert [a["href"] for a in current] == [f"/t/{table['code']}?year=2025"]
    text = visible_text(chosen)
    assert "Stats · 2025" in text and "Records · 2025" in text
    assert "Lowest game Ann 0" in text
    # The person links keep the season.
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann = person(answer, "Ann")
    assert f"/t/{table['code']}/people/{ann['id']}?year=2025" in [
        a["href"] for a in elements(chosen, "a")
    ]
    assert client.get(f"/t/{table['code']}?year=25").status_code == 422


def test_people_are_in_order_of_rating_with_what_it_means(client, seasons_table):
    table, *_ = seasons_table
    page = client.get(f"/t/{table['code']}").text
    answer = client.get(f"/api/tables/{table['code']}").json()
    by_rating = sorted(answer["people"], key=lambda p: -p["rating"]["ordinal"])
    assert len(elements(page, "span", class_="person-name")) == 3
    listed = re.findall(r'<span class="person-name">([^<]+)</span>', page)
    assert listed == [p["name"] for p in by_rating]
    assert "Rating: everyone starts at 1000" in visible_text(page)


def test_the_person_page_with_either_code(client, seasons_table):
    table, old, new = seasons_table
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann = person(answer, "Ann")
    keeper = client.get(f"/t/{table['code']}/people/{ann['id']}")
    assert keeper.status_code == 200
    text = visible_text(keeper.text)
    assert "Ann" in text and "Rating" in text and "Head to head" in text
    assert "Lowest game: 0" in text  # a record Ann holds
    games = [a["href"] for a in elements(keeper.text, "a") if a["href"].startswith("/g/")]
    assert games.index(f"/g/{new['code']}") < games.index(f"/g/{old['code']}")  # newest first
    chart = elements(keeper.text, "img", class_="rating-chart")[0]["src"]
    drawn = client.get(chart)
    assert drawn.status_code == 200 and drawn.headers["content-type"] == "image/svg+xml"
    assert "<title>Ann's rating, game by game</title>" in drawn.text

    watched = client.get(f"/t/{table['watch_code']}/people/{ann['id']}")
    assert watched.status_code == 200
    assert table["code"] not in watched.text
    assert old["code"] not in watched.text and new["code"] not in watched.text
    assert not elements(watched.text, "form") and not elements(watched.text, "input")
    assert f"/g/{new['watch_code']}" in [a["href"] for a in elements(watched.text, "a")]

    only_2025 = visible_text(client.get(f"/t/{table['code']}/people/{ann['id']}?year=2025").text)
    assert "Rating · 2025" in only_2025
    assert client.get(f"/t/{table['code']}/people/999999").status_code == 404
    assert client.get(f"/t/{table['code']}/people/{ann['id']}?from=x").status_code == 422
