"""What a server keeps of a table's figures is kept against the table's version: every
change to the table moves it on, a game that finishes after the others is added to the
kept seasons, and whatever was kept, the answer is the one worked out afresh."""

import pytest
from sqlmodel import Session, select

from app.models import PlayTable, TableVersion
from app.tables import seasons
from tests.tables_helpers import new_table, play, table_game

ROUNDS = [[0, 25, 40], [7, 0, 12], [12, 7, 0]] + [[0, 13, 30]] * 8


def version_of(client, table):
    with Session(client.app.state.engine) as session:
        return session.exec(
            select(TableVersion.version)
            .join(PlayTable, PlayTable.id == TableVersion.table_id)
            .where(PlayTable.code == table["code"])
        ).one()


def answers(client, table):
    code = table["code"]
    return [
        client.get(f"/api/tables/{code}").json(),
        client.get(f"/api/tables/{code}?year=2026").json(),
        client.get(f"/api/tables/{code}?from=2026-01-01").json(),
    ]


def afresh(client, table):
    """The answers with nothing kept: worked out from the database alone."""
    seasons._tables.clear()
    return answers(client, table)


@pytest.fixture
def played(client):
    table = new_table(client)
    for players in (["Ann", "Ben", "Cy"], ["Ben", "Cy", "Dee"], ["Ann", "Cy", "Dee"]):
        play(client, table_game(client, table, players), ROUNDS)
    return table


def test_a_game_finished_after_the_others_is_added_to_what_was_kept(client, played):
    kept = answers(client, played)  # every season worked out and kept
    game = table_game(client, played, ["Dee", "Ann", "Ben"])
    play(client, game, [[25, 0, 13], *ROUNDS[1:]])
    now = answers(client, played)
    assert now == afresh(client, played)
    assert now != kept
    assert now[0]["records"] == afresh(client, played)[0]["records"]


@pytest.mark.parametrize("change", ["correct", "delete", "rename", "merge"])
def test_every_change_moves_the_version_on_and_the_figures_with_it(client, played, change):
    code = played["code"]
    answers(client, played)
    before = version_of(client, played)
    first = client.get(f"/api/tables/{code}?games=all").json()["games"][-1]["code"]
    people = {p["name"]: p["id"] for p in client.get(f"/api/tables/{code}").json()["people"]}
    if change == "correct":
        game = client.get(f"/api/games/{first}").json()
        saved = client.put(
            f"/api/games/{first}/rounds/1",
            json={
                "results": [{"points": 25}, {"went_out": True}, {"points": 40}],
                "version": game["version"],
            },
        )
        assert saved.status_code == 200, saved.text
    elif change == "delete":
        assert client.delete(f"/api/games/{first}").status_code == 200
    elif change == "rename":
        renamed = client.patch(f"/api/tables/{code}/people/{people['Ann']}", json={"name": "Anna"})
        assert renamed.status_code == 200
    else:
        merged = client.post(
            f"/api/tables/{code}/people/{people['Dee']}/merge", json={"into": people["Ben"]}
        )
        # Ben and Dee played the second game together: refused, nothing changes.
        assert merged.status_code in (200, 409, 422)
        if merged.status_code != 200:
            assert version_of(client, played) == before
            return
    assert version_of(client, played) > before
    assert answers(client, played) == afresh(client, played)


def figures(answer):
    """An answer without its list of games and its order of people (a game still going is
    listed and counted, and its people come first)."""
    kept = {key: value for key, value in answer.items() if key not in ("games", "game_count")}
    kept["people"] = sorted(answer["people"], key=lambda person: person["id"])
    return kept


def test_a_round_saved_to_a_game_still_going_changes_no_figure(client, played):
    kept = [figures(answer) for answer in answers(client, played)]
    game = table_game(client, played, ["Ann", "Ben", "Cy"])
    play(client, game, ROUNDS[:2], finish=False)
    now = [figures(answer) for answer in answers(client, played)]
    assert now == kept == [figures(answer) for answer in afresh(client, played)]


def test_games_finished_one_after_another_all_reach_a_season_not_asked_for_between(client, played):
    answers(client, played)  # all time, a year and a from-to season kept
    code = played["code"]
    for players in (["Dee", "Ann", "Ben"], ["Cy", "Ben", "Ann"]):
        play(client, table_game(client, played, players), [[25, 0, 13], *ROUNDS[1:]])
        client.get(f"/api/tables/{code}")  # all time asked for, the other seasons not
    now = answers(client, played)
    assert now == afresh(client, played)
    assert sum(p["stats"]["games"] for p in now[1]["people"]) == 5 * 3
