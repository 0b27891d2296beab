"""The rating as a family reads it, through the API and the pages: the figure everyone starts
at 1000 on, "new (N games)" under five rated games, who left rated behind who stayed, every
round that holds the round record, the season's own game count, and the table's list in
order of rating, wins or win rate."""

import re
from datetime import UTC, datetime

import pytest
from openskill.models import PlackettLuce

from tests.html import elements, visible_text
from tests.tables.test_seasons_api import finish_on
from tests.tables_helpers import new_table, person, play, save_round, table_game

pytestmark = pytest.mark.one_database


def openskill_over(*games):
    model = PlackettLuce()
    ratings = {}
    for ranked in games:
        teams = [[ratings.get(name, model.rating())] for name, _ in ranked]
        for (name, _), (rating,) in zip(
            ranked, model.rate(teams, ranks=[rank for _, rank in ranked]), strict=True
        ):
            ratings[name] = rating
    return ratings


def names_listed(page):
    return re.findall(r'<span class="person-name">([^<]+)</span>', page)


@pytest.fixture
def family(client):
    """2025: Ann wins two games of two against Ben. 2026: Ann, Ben, Cy and Dee sit down; Dee
    leaves before the first round, Cy (the lowest total) after two; Ann wins, Ben scoring 50
    in rounds 3 and 5. Then Ben and Ann play once more and Ben wins."""
    table = new_table(client)
    for day in (1, 2):
        old = table_game(client, table, ["Ann", "Ben"])
        play(client, old, [[0, 30]])
        finish_on(client, old["code"], datetime(2025, 3, day, 20, 0, tzinfo=UTC))
    game = table_game(client, table, ["Ann", "Ben", "Cy", "Dee"])
    code = game["code"]
    assert client.delete(f"/api/games/{code}/players/3").status_code == 200  # Dee
    # (Ann, Ben, Cy) a round, None for who is not in it; 0 went out.
    rounds = [(0, 20, 15), (9, 0, 5), (0, 50, None), (40, 0, None), (0, 50, None), (45, 0, None)]
    for number, points in enumerate(rounds, start=1):
        if number == 3:
            assert client.delete(f"/api/games/{code}/players/2").status_code == 200  # Cy, at 20
        results = [
            None if p is None else {"went_out": True} if p == 0 else {"points": p} for p in points
        ]
        save_round(client, code, number, [*results, None])
    assert client.post(f"/api/games/{code}/finish").status_code == 200
    finish_on(client, code, datetime(2026, 2, 1, 20, 0, tzinfo=UTC))
    last = table_game(client, table, ["Ann", "Ben"])
    play(client, last, [[30, 0]])
    finish_on(client, last["code"], datetime(2026, 2, 2, 20, 0, tzinfo=UTC))
    return table, code


def test_who_left_after_a_round_is_rated_last_and_who_left_before_is_not_in_it(client, family):
    table, _ = family
    answer = client.get(f"/api/tables/{table['code']}", params={"year": 2026}).json()
    expected = openskill_over(
        [("Ann", 1), ("Ben", 2), ("Cy", 3)],  # Ann 94, Ben 120, Cy 20 but gone
        [("Ben", 1), ("Ann", 2)],
    )
    for name, rating in expected.items():
        found = person(answer, name)["rating"]
        assert (found["mu"], found["sigma"], found["ordinal"]) == pytest.approx(
            (rating.mu, rating.sigma, rating.ordinal())
        ), name
        assert found["figure"] == max(100, round(rating.ordinal(alpha=20, target=1000)))
    cy, dee = person(answer, "Cy"), person(answer, "Dee")
    assert cy["rating"]["figure"] < 1000  # last, though the lowest total
    assert cy["stats"]["games"] == 1 and cy["stats"]["wins"] == 0
    assert (cy["stats"]["longest_win_streak"], cy["stats"]["current_win_streak"]) == (0, 0)
    assert dee["rating"] is None and dee["stats"]["games"] == 0


def test_the_figure_with_its_rated_games_and_the_new_mark_in_the_api(client, family):
    table, _ = family
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann = person(answer, "Ann")["rating"]
    assert set(ann) == {"mu", "sigma", "ordinal", "figure", "rated_games", "new"}
    assert (ann["rated_games"], ann["new"]) == (4, True)
    assert person(answer, "Cy")["rating"]["rated_games"] == 1
    one = client.get(f"/api/tables/{table['code']}/people/{person(answer, 'Ann')['id']}").json()
    assert one["person"]["rating"] == ann


def test_every_round_of_the_round_record_and_the_seasons_own_game_count(client, family):
    table, code = family
    url = f"/api/tables/{table['code']}"
    answer = client.get(url).json()
    holders = answer["records"]["highest_round"]
    watch = client.get(f"/api/games/{code}").json()["watch_code"]
    assert [(h["person"]["name"], h["figure"], h["round"], h["watch_code"]) for h in holders] == [
        ("Ben", 50, 3, watch),
        ("Ben", 50, 5, watch),
    ]
    assert answer["record_holders"]["highest_round"] == 2
    assert answer["game_count"] == 4 and answer["season_game_count"] == 4
    season = client.get(url, params={"year": 2025}).json()
    assert season["game_count"] == 4 and season["season_game_count"] == 2
    page = visible_text(client.get(f"/t/{table['code']}").text)
    assert "Ben 50 (round 3)" in page and "Ben 50 (round 5)" in page


def order_links(page):
    """The order links as (words, address, aria-current)."""
    nav = re.search(
        r'<nav class="seasons" aria-label="Order of the people">(.*?)</nav>', page, re.S
    )
    assert nav, "the order links are on the page"
    return [
        (words, href.replace("&amp;", "&"), current or None)
        for href, current, words in re.findall(
            r'<a href="([^"]+)"(?: aria-current="([^"]+)")?>([^<]+)</a>', nav.group(1)
        )
    ]


@pytest.fixture
def orders(client):
    """Fay beats Gus in her only game; Ann wins one of three against Ben and Cy, Ben two."""
    table = new_table(client)
    play(client, table_game(client, table, ["Fay", "Gus"]), [[0, 30]])
    for points in ([0, 20, 30], [13, 0, 30], [13, 0, 30]):
        play(client, table_game(client, table, ["Ann", "Ben", "Cy"]), [points])
    return table


def test_the_list_orders_by_rating_wins_or_win_rate_one_link_each(client, orders):
    base = f"/t/{orders['code']}"
    answer = client.get(f"/api/tables/{orders['code']}").json()
    page = client.get(base).text
    assert order_links(page) == [
        ("Rating", f"{base}#people", "true"),
        ("Wins", f"{base}?order=wins#people", None),
        ("Win rate", f"{base}?order=win_rate#people", None),
    ]
    by_rating = [p["name"] for p in sorted(answer["people"], key=lambda p: -p["rating"]["ordinal"])]
    assert names_listed(page) == by_rating
    # Wins: Ben 2; Fay and Ann 1 each, Fay's 1 of 1 ahead of Ann's 1 of 3; then no wins.
    wins = client.get(base, params={"order": "wins"}).text
    assert names_listed(wins)[:3] == ["Ben", "Fay", "Ann"]
    assert ("Wins", f"{base}?order=wins#people", "true") in order_links(wins)
    # Win rate: Fay 100%, Ben 67%, Ann 33%, then Cy's 0 of 3 before Gus's 0 of 1.
    rate = client.get(base, params={"order": "win_rate"}).text
    assert names_listed(rate) == ["Fay", "Ben", "Ann", "Cy", "Gus"]


def test_the_order_keeps_the_season_and_everyone_and_a_bad_one_is_422(client, family):
    table, _ = family
    base = f"/t/{table['code']}"
    page = client.get(base, params={"year": 2025, "people": "all", "order": "wins"}).text
    assert order_links(page) == [
        ("Rating", f"{base}?year=2025&people=all#people", None),
        ("Wins", f"{base}?year=2025&people=all&order=wins#people", "true"),
        ("Win rate", f"{base}?year=2025&people=all&order=win_rate#people", None),
    ]
    bad = client.get(base, params={"order": "luck"})
    assert bad.status_code == 422
    assert "order must be one of rating, wins, win_rate, not 'luck'" in visible_text(bad.text)
    assert client.get(base, params={"order": ""}).status_code == 200  # empty: the rating


def test_new_players_are_marked_with_their_games_wherever_the_rating_shows(client, orders):
    answer = client.get(f"/api/tables/{orders['code']}").json()
    fay, ben = person(answer, "Fay"), person(answer, "Ben")
    text = visible_text(client.get(f"/t/{orders['code']}").text)
    assert f"Fay 1 game · 1 win · 100% · rating {fay['rating']['figure']}, new (1 game)" in text
    assert f"rating {ben['rating']['figure']}, new (3 games)" in text
    assert "everyone starts at 1000" in text
    rules = [a["href"] for a in elements(client.get(f"/t/{orders['code']}").text, "a")]
    assert "/rules#rating" in rules
    mine = visible_text(client.get(f"/t/{orders['code']}/people/{fay['id']}").text)
    assert f"Rating {fay['rating']['figure']} new (1 game) · everyone starts at 1000" in mine
    ben_page = visible_text(client.get(f"/t/{orders['code']}/people/{ben['id']}").text)
    assert f"Rating {ben['rating']['figure']} new (3 games)" in ben_page
    assert "μ" in mine and "σ" in mine


def test_after_five_rated_games_the_mark_goes(client):
    table = new_table(client)
    for _ in range(5):
        play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 30]])
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann = person(answer, "Ann")["rating"]
    assert (ann["rated_games"], ann["new"]) == (5, False)
    text = visible_text(client.get(f"/t/{table['code']}").text)
    assert f"Ann 5 games · 5 wins · 100% · rating {ann['figure']} Ann's page" in text
    assert "new (" not in text
    chart = client.get(f"/t/{table['code']}/people/{person(answer, 'Ann')['id']}/rating.svg").text
    assert f"From 1000: 5 rated games, now {ann['figure']}" in chart
    mine = visible_text(client.get(f"/t/{table['code']}/people/{person(answer, 'Ann')['id']}").text)
    assert f"Rating {ann['figure']} after 5 rated games · everyone starts at 1000" in mine


def test_the_rules_page_says_how_the_rating_works_and_that_leaving_counts(client):
    text = visible_text(client.get("/rules").text)
    for words in (
        "How the rating works",
        "Everyone starts equal, at 1000",
        "Finishing ahead of a strong player raises your rating more",
        "finishing behind a weaker player lowers it more",
        "finishing second means you beat three players",
        "A new player's figure is held back until a few games show their skill",
        "fewer than 5 rated games",
        "rated as finishing behind everyone who stayed to the end",
        "never below 100",
    ):
        assert words in text, words
