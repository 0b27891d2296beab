"""Seasons over the API, on both engines: a year or from-to, the years with finished games,
streaks, records and ratings over the games that finished then, following deletes,
restores and merges."""

from datetime import UTC, datetime

import pytest
from openskill.models import PlackettLuce
from sqlmodel import Session, select

from app.models import Game
from tests.tables_helpers import new_table, person, play, table_game


def finish_on(client, code, when):
    """Say a finished game finished at `when` (UTC), as if played then."""
    with Session(client.app.state.engine) as session:
        game = session.exec(select(Game).where(Game.code == code)).one()
        game.finished_at = when
        game.version += 1  # as every change to a game does
        session.add(game)
        session.commit()


@pytest.fixture
def two_years(client):
    """Ann wins on 31 December 2025 (a full game); Ben wins on 1 January 2026 and on
    2 January 2026 (ended early)."""
    table = new_table(client)
    new_years_eve = table_game(client, table, ["Ann", "Ben", "Cy"])
    play(client, new_years_eve, [[0, 20, 30]] * 10 + [[0, 13, 70]])
    finish_on(client, new_years_eve["code"], datetime(2025, 12, 31, 23, 30, tzinfo=UTC))
    new_year = table_game(client, table, ["Ann", "Ben", "Cy"])
    play(client, new_year, [[30, 0, 20], [22, 0, 40]])
    finish_on(client, new_year["code"], datetime(2026, 1, 1, 0, 15, tzinfo=UTC))
    second = table_game(client, table, ["Ann", "Ben"])
    play(client, second, [[20, 0]])
    finish_on(client, second["code"], datetime(2026, 1, 2, 12, 0, tzinfo=UTC))
    return table, new_years_eve, new_year, second


def test_a_game_finished_on_31_december_and_one_on_1_january_fall_in_their_years(client, two_years):
    table, eve, new_year, _ = two_years
    url = f"/api/tables/{table['code']}"
    everything = client.get(url).json()
    assert everything["years"] == [2026, 2025]
    assert everything["period"] == {"label": "All time", "year": None, "from": None, "to": None}
    old = client.get(url, params={"year": 2025}).json()
    assert old["period"] == {
        "label": "2025",
        "year": 2025,
        "from": "2025-01-01",
        "to": "2025-12-31",
    }
    assert person(old, "Ann")["stats"]["games"] == 1 and person(old, "Ann")["stats"]["wins"] == 1
    assert person(old, "Ben")["stats"]["wins"] == 0
    assert old["years"] == [2026, 2025]  # every year, whichever is chosen
    new = client.get(url, params={"year": "2026"}).json()
    assert person(new, "Ben")["stats"]["games"] == 2 and person(new, "Ben")["stats"]["wins"] == 2
    assert person(new, "Ann")["stats"]["wins"] == 0
    assert person(new, "Ann")["versus"][str(person(new, "Ben")["id"])] == {
        "games": 2,
        "lower": 0,
        "higher": 2,
    }
    # from and to, both inclusive: New Year's Day alone.
    day = client.get(url, params={"from": "2026-01-01", "to": "2026-01-01"}).json()
    assert day["period"]["from"] == day["period"]["to"] == "2026-01-01"
    assert person(day, "Ben")["stats"]["games"] == 1
    # Records hold the game's watch code and date.
    lowest = old["records"]["lowest_total"]
    assert lowest == [
        {
            "person": {"id": person(old, "Ann")["id"], "name": "Ann"},
            "figure": 0,
            "watch_code": eve["watch_code"],
            "date": "2025-12-31",
        }
    ]
    assert new["records"]["lowest_total"] == []  # no full 11-round game in 2026
    highest_round = everything["records"]["highest_round"]
    assert [(h["person"]["name"], h["figure"], h["round"]) for h in highest_round] == [
        ("Cy", 70, 11)
    ]
    assert [h["watch_code"] for h in new["records"]["highest_round"]] == [new_year["watch_code"]]


def test_streaks_run_in_the_order_games_finished(client, two_years):
    table, *_ = two_years
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, ben = person(answer, "Ann")["stats"], person(answer, "Ben")["stats"]
    assert (ann["longest_win_streak"], ann["current_win_streak"]) == (1, 0)
    assert (ben["longest_win_streak"], ben["current_win_streak"]) == (2, 2)
    streak = answer["records"]["longest_win_streak"]
    assert [(h["person"]["name"], h["figure"], h["date"]) for h in streak] == [
        ("Ben", 2, "2026-01-02")
    ]


def openskill_over(*games):
    model = PlackettLuce()
    ratings = {}
    for ranked in games:
        teams = [[ratings.get(name, model.rating())] for name, _ in ranked]
        rated = model.rate(teams, ranks=[rank for _, rank in ranked])
        for (name, _), (rating,) in zip(ranked, rated, strict=True):
            ratings[name] = rating
    return {name: r.ordinal() for name, r in ratings.items()}


def test_ratings_start_afresh_each_season_and_follow_deletes_and_restores(client, two_years):
    table, eve, _, second = two_years
    url = f"/api/tables/{table['code']}"
    everything = client.get(url).json()
    expected = openskill_over(
        [("Ann", 1), ("Ben", 2), ("Cy", 3)],  # 0, 213, 370
        [("Ann", 2), ("Ben", 1), ("Cy", 3)],  # 52, 0, 60
        [("Ann", 2), ("Ben", 1)],  # 20, 0
    )
    assert {p["name"]: p["rating"]["ordinal"] for p in everything["people"]} == pytest.approx(
        expected
    )
    new = client.get(url, params={"year": 2026}).json()
    assert {p["name"]: p["rating"]["ordinal"] for p in new["people"]} == pytest.approx(
        openskill_over([("Ann", 2), ("Ben", 1), ("Cy", 3)], [("Ann", 2), ("Ben", 1)])
    )
    assert client.delete(f"/api/games/{second['code']}").status_code == 200
    deleted = client.get(url).json()
    assert person(deleted, "Ben")["stats"]["current_win_streak"] == 1
    assert {p["name"]: p["rating"]["ordinal"] for p in deleted["people"]} == pytest.approx(
        openskill_over([("Ann", 1), ("Ben", 2), ("Cy", 3)], [("Ann", 2), ("Ben", 1), ("Cy", 3)])
    )
    assert client.post(f"/api/games/{second['code']}/restore").status_code == 200
    restored = client.get(url).json()
    assert restored["people"] == everything["people"]


def test_a_merge_moves_streaks_records_and_ratings(client, two_years):
    table, *_ = two_years
    url = f"/api/tables/{table['code']}"
    alone = table_game(client, table, ["Dee", "Ann"])  # Dee: Cy under another name
    play(client, alone, [[0, 75]])
    before = client.get(url).json()
    dee, cy = person(before, "Dee"), person(before, "Cy")
    assert [h["person"]["name"] for h in before["records"]["highest_round"]] == ["Ann"]
    assert cy["stats"]["longest_win_streak"] == 0
    merged = client.post(f"{url}/people/{dee['id']}/merge", json={"into": cy["id"]})
    assert merged.status_code == 200, merged.text
    after = client.get(url).json()
    assert "Dee" not in [p["name"] for p in after["people"]]
    cy = person(after, "Cy")
    assert (cy["stats"]["longest_win_streak"], cy["stats"]["current_win_streak"]) == (1, 1)
    assert cy["rating"]["mu"] > person(before, "Cy")["rating"]["mu"]  # a win more
    renamed = client.patch(f"{url}/people/{cy['id']}", json={"name": "Cyrus"})
    assert renamed.status_code == 200
    again = client.get(url).json()
    # Cy's 370 on New Year's Eve is the highest game: the record follows the new name.
    assert [h["person"] for h in again["records"]["highest_total"]] == [
        {"id": cy["id"], "name": "Cyrus"}
    ]
    assert person(again, "Cyrus")["rating"] == cy["rating"]  # the rating stays the person's


def test_an_import_brings_its_games_into_the_season(client, two_years):
    table, eve, *_ = two_years
    url = f"/api/tables/{table['code']}"
    before = client.get(url, params={"year": 2026}).json()
    document = client.get(f"/api/games/{eve['code']}/export").json()
    document.update(id="from-another-phone", finished_at="2026-03-01T20:00:00+00:00")
    document["players"] = ["Ann", "Ben", "Zoe"]
    imported = client.post(f"{url}/import", json={"format": 1, "games": [document]})
    assert imported.status_code == 200, imported.text
    after = client.get(url, params={"year": 2026}).json()
    zoe = person(after, "Zoe")
    assert zoe["rating"] is not None and zoe["stats"]["games"] == 1
    assert person(after, "Ann")["rating"] != person(before, "Ann")["rating"]
    assert person(after, "Ann")["stats"]["current_win_streak"] == 1


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"year": "25"}, "four digits"),
        ({"year": "2026", "from": "2026-01-01"}, "not both"),
        ({"from": "2026-02-30"}, "from must be a date"),
        ({"from": "2026-03-01", "to": "2026-02-01"}, "comes after"),
    ],
)
def test_a_season_that_cannot_be_read_is_422_in_words(client, params, message):
    table = new_table(client)
    answer = client.get(f"/api/tables/{table['code']}", params=params)
    assert answer.status_code == 422
    assert message in answer.json()["detail"]


def test_the_watch_code_gets_the_same_season_and_no_scorekeeper_code(client, two_years):
    table, eve, new_year, second = two_years
    watched = client.get(f"/api/tables/{table['watch_code']}", params={"year": 2026})
    text = watched.text
    assert watched.status_code == 200
    for game in (eve, new_year, second):
        assert game["code"] not in text
    assert table["code"] not in text
