"""A table's export is written a game at a time from games read in batches: the document is
exactly what reading each game on its own (games.load_game) and writing the whole at once
gave, down to the bytes, and it imports back."""

import json

import pytest
from fastapi.responses import JSONResponse
from sqlmodel import Session, col, select

from app import exports, games, tables
from app.models import PlayTable, TableGame
from tests.tables_helpers import (
    game_at,
    new_table,
    save_round,
    table_of_every_kind,
    went_out_first,
)


def _one_game_at_a_time(app, table_code, name):
    """The table's document as it used to be made: each game read on its own."""
    with Session(app.state.engine) as session:
        codes = session.exec(
            select(TableGame.code)
            .join(PlayTable, col(PlayTable.id) == col(TableGame.table_id))
            .where(PlayTable.code == table_code, col(TableGame.deleted).is_(False))
            .order_by(col(TableGame.created_at), col(TableGame.id))
        ).all()
        states = [games.load_game(session, code=c) for c in codes]
        people = tables.seated_people(session, game_ids=[state.game_id for state in states])
        documents = [exports.game_document(state, people[state.game_id]) for state in states]
    return {"format": exports.FORMAT, "name": name, "games": documents}


def _table_of_every_change(client):
    """table_of_every_kind (ended early, solitaire, won in a tie-break, waiting for its
    tie-break, a player joining and one leaving) and: a game ended early then decided by a
    tie-break, rounds saved then corrected, a game deleted, one deleted then restored, one
    under way."""
    table = table_of_every_kind(client)

    early_tie = game_at(client, table, ["Fay", "Gus", "Hal"])
    save_round(client, early_tie, 1, went_out_first(3, [0, 20, 0]))
    save_round(client, early_tie, 2, went_out_first(3, [0, 10, 0]))
    assert client.post(f"/api/games/{early_tie}/finish").status_code == 200
    assert client.post(f"/api/games/{early_tie}/tiebreak").status_code == 201
    decided = save_round(client, early_tie, 12, [{"went_out": True}, None, {"points": 25}])
    assert decided["finished"] is True and decided["winners"] == [0]

    corrected = game_at(client, table, ["Ivy", "Jo"])
    first = save_round(client, corrected, 1, went_out_first(2, [0, 13]))
    save_round(client, corrected, 2, went_out_first(2, [10, 0]))
    fixed = client.put(
        f"/api/games/{corrected}/rounds/1",
        json={"results": went_out_first(2, [17, 0]), "version": first["version"] + 1},
    )
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["totals"] == [27, 0]

    deleted = game_at(client, table, ["Kit", "Lu"])
    save_round(client, deleted, 1, went_out_first(2, [0, 13]))
    assert client.delete(f"/api/games/{deleted}").status_code == 200

    restored = game_at(client, table, ["Max", "Ned", "Oz"])
    save_round(client, restored, 1, went_out_first(3, [0, 13, 16]))
    assert client.delete(f"/api/games/{restored}").status_code == 200
    assert client.post(f"/api/games/{restored}/restore").status_code == 200

    under_way = game_at(client, table, ["Pat", "Quin"], order="down")
    save_round(client, under_way, 1, went_out_first(2, [0, 40]))
    return table


@pytest.mark.parametrize("batch", [3, exports.EXPORT_BATCH])
def test_the_streamed_export_is_what_one_game_at_a_time_gave(client, app, monkeypatch, batch):
    monkeypatch.setattr(exports, "EXPORT_BATCH", batch)  # several batches, or one
    table = _table_of_every_change(client)
    response = client.get(f"/api/tables/{table['code']}/export")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    expected = _one_game_at_a_time(app, table["code"], table["name"])
    assert json.loads(response.content) == expected
    assert response.content == JSONResponse(expected).body  # the same bytes, too

    players = [tuple(document["players"]) for document in expected["games"]]
    assert ("Kit", "Lu") not in players  # deleted: absent
    assert len(players) == 9 and players[-2:] == [("Max", "Ned", "Oz"), ("Pat", "Quin")]
    by_players = dict(zip(players, expected["games"], strict=True))
    assert by_players[("Ivy", "Jo")]["rounds"][0]["results"] == [
        {"points": 17, "went_out": False, "cards": None},
        {"points": 0, "went_out": True, "cards": None},
    ]
    early_tie = by_players[("Fay", "Gus", "Hal")]
    assert early_tie["rounds"][11]["players_in"] == [0, 2]
    assert early_tie["finished_at"] is not None


def test_the_streamed_export_imports_back_whole(client):
    table = _table_of_every_change(client)
    exported = client.get(f"/api/tables/{table['code']}/export", params={"download": 1})
    assert exported.status_code == 200
    disposition = exported.headers["content-disposition"]
    assert disposition.startswith('attachment; filename="crownkeeper-the-smiths-')
    count = len(json.loads(exported.content)["games"])
    assert count == 9

    other = new_table(client, "Cousins")
    imported = client.post(
        f"/api/tables/{other['code']}/import",
        content=exported.content,
        headers={"content-type": "application/json"},
    )
    assert imported.status_code == 200, imported.text
    assert imported.json()["imported"] == count
    again = client.get(f"/api/tables/{other['code']}/export").json()
    assert len(again["games"]) == count
    ids = ("id",)

    def as_played(document):
        return [{k: v for k, v in g.items() if k not in ids} for g in document["games"]]

    # The same games again, in the same order (ids aside: the copy has its own).
    assert as_played(again) == as_played(json.loads(exported.content))


def test_an_unknown_table_is_404_and_an_empty_one_exports_no_games(client):
    assert client.get("/api/tables/nothing-here/export").status_code == 404
    table = new_table(client, "Nobody yet")
    response = client.get(f"/api/tables/{table['watch_code']}/export")
    assert response.status_code == 200
    assert response.json() == {"format": 1, "name": "Nobody yet", "games": []}
