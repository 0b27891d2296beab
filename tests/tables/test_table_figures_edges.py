"""Edges of a table's figures that a slip in the code would change quietly: a shared win,
a correction after the game finished, a corrected result in the records, and games rated in
the order they finished (not the order they were made)."""

from datetime import UTC, datetime

import pytest
from openskill.models import PlackettLuce
from sqlmodel import Session, select

from app.models import Game
from tests.tables.test_seasons_api import finish_on
from tests.tables_helpers import new_table, person, play, table_game


def correct(client, code, number, results):
    """Correct a saved round the way the pages do: naming the version it was based on."""
    version = client.get(f"/api/games/{code}").json()["version"]
    response = client.put(
        f"/api/games/{code}/rounds/{number}", json={"results": results, "version": version}
    )
    assert response.status_code == 200, response.text
    return response.json()


def finished_at(client, code):
    with Session(client.app.state.engine) as session:
        when = session.exec(select(Game.finished_at).where(Game.code == code)).one()
    return None if when is None else when.replace(tzinfo=when.tzinfo or UTC)


def test_a_shared_win_counts_for_each_winner(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben", "Cy"])
    state = play(client, game, [[0, 20, 30], [20, 0, 30]])
    assert state["totals"] == [20, 20, 60]
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, ben, cy = (person(answer, name) for name in ("Ann", "Ben", "Cy"))
    assert (ann["stats"]["wins"], ben["stats"]["wins"], cy["stats"]["wins"]) == (1, 1, 0)
    assert ann["stats"]["win_rate"] == ben["stats"]["win_rate"] == 1
    assert ann["stats"]["current_win_streak"] == ben["stats"]["current_win_streak"] == 1
    assert cy["stats"]["current_win_streak"] == 0
    streak = answer["records"]["longest_win_streak"]
    assert sorted(holder["person"]["name"] for holder in streak) == ["Ann", "Ben"]
    # Sharing first place: one rating for both, as openskill gives two equal ranks.
    model = PlackettLuce()
    rated = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 1, 3])
    assert ann["rating"]["ordinal"] == pytest.approx(rated[0][0].ordinal())
    assert ben["rating"]["ordinal"] == pytest.approx(rated[1][0].ordinal())
    assert cy["rating"]["ordinal"] == pytest.approx(rated[2][0].ordinal())
    assert ann["rating"]["ordinal"] > cy["rating"]["ordinal"]


def test_a_correction_after_the_finish_keeps_the_game_in_its_season(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben"])
    play(client, game, [[0, 20], [30, 0]])
    finished = datetime(2025, 12, 31, 22, 0, tzinfo=UTC)
    finish_on(client, game["code"], finished)
    after = correct(client, game["code"], 2, [{"points": 3}, {"went_out": True}])
    assert after["totals"] == [3, 20]
    assert finished_at(client, game["code"]) == finished
    url = f"/api/tables/{table['code']}"
    old = client.get(url, params={"year": 2025}).json()
    assert person(old, "Ann")["stats"]["wins"] == 1  # the correction made Ann the winner
    assert person(old, "Ann")["stats"]["games"] == 1
    assert client.get(url).json()["years"] == [2025]
    new = client.get(url, params={"year": 2026}).json()
    assert all(p["stats"]["games"] == 0 for p in new["people"])


def test_a_correction_before_the_finish_does_not_finish_the_game(client, new_game):
    game = new_game(["Ann", "Ben"])
    play(client, game, [[0, 20], [30, 0]], finish=False)
    after = correct(client, game["code"], 1, [{"went_out": True}, {"points": 25}])
    assert finished_at(client, game["code"]) is None
    assert after["finished"] is False
    assert after["current_round"] == 3


def test_a_corrected_result_leaves_the_records(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben"])
    play(client, game, [[0, 20], [0, 30], [0, 60]], finish=False)
    correct(client, game["code"], 3, [{"went_out": True}, {"points": 25}])
    assert client.post(f"/api/games/{game['code']}/finish").status_code == 200
    answer = client.get(f"/api/tables/{table['code']}").json()
    highest = answer["records"]["highest_round"]
    assert [(h["person"]["name"], h["figure"], h["round"]) for h in highest] == [("Ben", 30, 2)]
    assert person(answer, "Ben")["stats"]["average_round"] == pytest.approx(25)


def openskill_in_order(*games):
    model = PlackettLuce()
    ratings = {}
    for ranked in games:
        teams = [[ratings.get(name, model.rating())] for name, _ in ranked]
        rated = model.rate(teams, ranks=[rank for _, rank in ranked])
        for (name, _), (rating,) in zip(ranked, rated, strict=True):
            ratings[name] = rating
    return {name: r.ordinal() for name, r in ratings.items()}


def test_games_are_rated_in_the_order_they_finished(client):
    table = new_table(client)
    made_first = table_game(client, table, ["Ann", "Ben", "Cy"])
    made_second = table_game(client, table, ["Ann", "Ben"])
    play(client, made_first, [[0, 20, 30]])  # Ann, Ben, Cy
    play(client, made_second, [[20, 0]])  # Ben, Ann
    # The game made second finished first.
    finish_on(client, made_second["code"], datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    finish_on(client, made_first["code"], datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
    first = [("Ann", 1), ("Ben", 2), ("Cy", 3)]
    second = [("Ben", 1), ("Ann", 2)]
    by_finish = openskill_in_order(second, first)
    by_making = openskill_in_order(first, second)
    assert by_finish["Ann"] != pytest.approx(by_making["Ann"], abs=1e-6)  # order matters here
    answer = client.get(f"/api/tables/{table['code']}").json()
    ratings = {p["name"]: p["rating"]["ordinal"] for p in answer["people"]}
    assert ratings == pytest.approx(by_finish)
