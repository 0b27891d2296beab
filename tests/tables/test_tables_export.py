"""Export and import keep every kind of game whole: solitaire, tie-breaks, players joining
and leaving, the order of rounds. A table's games come back the same in another table."""

import csv
import io

from tests.tables_helpers import new_table, play, save_round, table_game, table_of_every_kind

# What a game's answer holds that belongs to its copy, not to the game played.
OWN_TO_THE_COPY = {"code", "watch_code", "version", "can_edit"}


def _games_by_players(client, table):
    listed = client.get(f"/api/tables/{table['code']}", params={"games": "all"}).json()["games"]
    games = {}
    for entry in listed:
        game = client.get(f"/api/games/{entry['code']}").json()
        games[tuple(game["players"])] = game
    assert len(games) == len(listed)
    return games


def _as_played(game):
    return {key: value for key, value in game.items() if key not in OWN_TO_THE_COPY}


def test_every_kind_of_game_comes_back_the_same_in_another_table(client):
    table = table_of_every_kind(client)
    before = _games_by_players(client, table)
    assert len(before) == 5
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    assert exported["format"] == 1

    other = new_table(client, "Cousins")
    imported = client.post(f"/api/tables/{other['code']}/import", json=exported)
    assert imported.status_code == 200, imported.text
    assert imported.json()["imported"] == 5
    after = _games_by_players(client, other)
    assert set(after) == set(before)
    for players, game in before.items():
        assert _as_played(after[players]) == _as_played(game), players

    # What a player checks, spelled out.
    solitaire = after[("Ann",)]
    assert solitaire["mode"] == "solitaire" and solitaire["finished"] is True
    assert [r["scores"] for r in solitaire["rounds"]][:5] == [[0], [13], None, None, [9]]
    assert solitaire["rounds"][1]["leftover"] == ["KD"]
    assert after[("Ann", "Ben", "Cy", "Dee")]["order"] == "down"
    won_in_tiebreak = after[("Ann", "Ben", "Cy")]
    assert won_in_tiebreak["winners"] == [2] and won_in_tiebreak["totals"] == [0, 220, 0]
    assert won_in_tiebreak["rounds"][11]["kind"] == "tiebreak"
    assert won_in_tiebreak["rounds"][11]["players_in"] == [0, 2]
    waiting = after[("Ben", "Dee")]
    assert waiting["finished"] is False and waiting["current_round"] == 12
    comings = after[("Ann", "Eve", "Ben", "Cy", "Dee")]
    assert comings["seats"][1] == {
        "name": "Eve", "start_points": 42, "joined_round": 4, "left_round": None,
    }  # fmt: skip
    assert comings["seats"][0]["left_round"] == 6
    assert comings["rounds"][6]["players_in"] == [1, 2, 3, 4]
    assert comings["finished"] is True and comings["winners"] == [2]

    # The stats of the new table are those of the old one.
    def stats(code):
        people = client.get(f"/api/tables/{code}").json()["people"]
        return {p["name"]: p["stats"] for p in people}

    assert stats(other["code"]) == stats(table["code"])

    again = client.post(f"/api/tables/{other['code']}/import", json=exported)
    assert again.status_code == 200 and again.json()["imported"] == 0
    assert _games_by_players(client, other).keys() == before.keys()


def test_a_game_keeps_playing_after_it_comes_back(client):
    table = table_of_every_kind(client)
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    other = new_table(client, "Cousins")
    client.post(f"/api/tables/{other['code']}/import", json=exported)
    waiting = _games_by_players(client, other)[("Ben", "Dee")]
    code = next(
        g["code"]
        for g in client.get(f"/api/tables/{other['code']}").json()["games"]
        if g["players"] == ["Ben", "Dee"]
    )
    assert waiting["rounds"][11]["players_in"] == [0, 1]
    state = save_round(client, code, 12, [{"went_out": True}, {"points": 30}])
    assert state["finished"] is True and state["winners"] == [0]


def test_a_document_from_before_the_new_fields_still_imports(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben", "Cy"])
    play(client, game, [[0, 13, 17], [3, 0, 8]])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    old = {**exported, "games": []}
    for document in exported["games"]:
        kept = {k: v for k, v in document.items() if k not in {"mode", "order", "seats"}}
        kept["rounds"] = [
            {k: v for k, v in r.items() if k not in {"kind", "first_player", "players_in"}}
            for r in document["rounds"]
        ]
        old["games"].append(kept)
    other = new_table(client, "Cousins")
    response = client.post(f"/api/tables/{other['code']}/import", json=old)
    assert response.status_code == 200 and response.json()["imported"] == 1
    [copy] = _games_by_players(client, other).values()
    original = client.get(f"/api/games/{game['code']}").json()
    assert _as_played(copy) == _as_played(original)


def test_a_document_that_cannot_be_so_is_422_and_changes_nothing(client):
    table = table_of_every_kind(client)
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    by_players = {tuple(g["players"]): g for g in exported["games"]}
    tiebreak = by_players[("Ann", "Ben", "Cy")]
    solitaire = by_players[("Ann",)]
    comings = by_players[("Ann", "Eve", "Ben", "Cy", "Dee")]

    def changed_round(game, number, **fields):
        rounds = [dict(r) for r in game["rounds"]]
        rounds[number - 1].update(fields)
        return {**game, "id": "changed", "rounds": rounds}

    refusals = [
        ({**exported, "format": 2}, "newer"),
        ({"format": 1, "games": [{**solitaire, "mode": "tabletop"}]}, "malformed"),
        ({"format": 1, "games": [{**solitaire, "id": "s", "mode": "game"}]}, "Game 1"),
        ({"format": 1, "games": [{**tiebreak, "id": "t", "mode": "solitaire"}]}, "Solitaire"),
        ({"format": 1, "games": [changed_round(tiebreak, 5, kind="tiebreak")]}, "tie-break"),
        ({"format": 1, "games": [changed_round(tiebreak, 12, players_in=[0, 9])]}, "seats"),
        ({"format": 1, "games": [changed_round(tiebreak, 12, players_in=[0, 1])]}, "Game 1"),
        ({"format": 1, "games": [changed_round(comings, 2, first_player=7)]}, "seat"),
        ({"format": 1, "games": [{**comings, "id": "c", "seats": comings["seats"][:2]}]}, "seats"),
        (
            {
                "format": 1,
                "games": [
                    {**comings, "id": "c", "seats": [{**comings["seats"][0], "start_points": -1}]}
                ],
            },
            "malformed",
        ),
    ]
    other = new_table(client, "Cousins")
    for document, reason in refusals:
        response = client.post(f"/api/tables/{other['code']}/import", json=document)
        assert response.status_code == 422, (reason, response.text)
        assert reason in response.json()["detail"], response.json()["detail"]
    after = client.get(f"/api/tables/{other['code']}").json()
    assert after["games"] == [] and after["people"] == []


def _sheet(client, table, players):
    code = next(
        g["code"]
        for g in client.get(f"/api/tables/{table['code']}").json()["games"]
        if g["players"] == players
    )
    response = client.get(f"/g/{code}/sheet.csv")
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.text)))


def test_the_sheet_reads_right_for_every_kind_of_game(client):
    table = table_of_every_kind(client)

    comings = _sheet(client, table, ["Ann", "Eve", "Ben", "Cy", "Dee"])
    assert comings[0] == [
        "Round",
        "Cards dealt",
        "Wild",
        "Dealer",
        "Ann",
        "Eve",
        "Ben",
        "Cy",
        "Dee",
    ]
    # Eve's 42 points to start are on the sheet, so every column adds up to its total.
    assert comings[1] == ["Joined with", "", "", "", "", "42", "", "", ""]
    assert comings[2][4:] == ["0", "", "13", "20", "20"]  # Eve was not in round 1
    assert comings[7][:1] + comings[7][4:] == ["6", "", "10", "0", "20", "20"]  # Ann has left
    assert comings[8][4:] == ["", "", "", "", ""]  # not played: the game ended early
    total = comings[-1]
    assert total == ["Total", "", "", "", "0", "72", "53", "120", "120"]
    for column in range(4, 9):
        assert sum(int(row[column] or 0) for row in comings[1:-1]) == int(total[column])

    tiebreak = _sheet(client, table, ["Ann", "Ben", "Cy"])
    assert [row[0] for row in tiebreak[1:12]] == [str(n) for n in range(1, 12)]
    # The totals are the eleven rounds'; the tie-break comes after and never adds to them.
    assert tiebreak[12] == ["Total", "", "", "", "0", "220", "0"]
    assert tiebreak[13] == ["Tie-break", "6", "6", "Ann", "40", "", "0"]
    assert len(tiebreak) == 14

    solitaire = _sheet(client, table, ["Ann"])
    assert [row[4] for row in solitaire[1:12]] == ["0", "13", "", "", "9", "", "", "", "", "", "0"]
    assert solitaire[12] == ["Total", "", "", "", "22"]


def test_a_player_who_sat_down_before_the_first_round_comes_back_too(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben", "Cy"], first_dealer=2)
    joined = client.post(f"/api/games/{game['code']}/players", json={"name": "Dee"})
    assert joined.status_code == 201, joined.text
    people = client.get(f"/api/tables/{table['code']}").json()["people"]
    assert sorted(p["name"] for p in people) == ["Ann", "Ben", "Cy", "Dee"]
    play(client, joined.json(), [[0, 13, 17, 20]])

    exported = client.get(f"/api/tables/{table['code']}/export").json()
    [document] = exported["games"]
    assert document["seats"][3]["joined_round"] == 1
    # Cy deals first, so Dee (on Cy's left) plays first, then each seat in turn.
    assert [r["first_player"] for r in document["rounds"][:3]] == [3, 0, 1]
    other = new_table(client, "Cousins")
    imported = client.post(f"/api/tables/{other['code']}/import", json=exported)
    assert imported.status_code == 200, imported.text
    [copy] = _games_by_players(client, other).values()
    assert copy["players"] == ["Ann", "Ben", "Cy", "Dee"] and copy["totals"] == [0, 13, 17, 20]


def test_a_solitaire_game_comes_back_counting_up_whatever_the_document_says(client):
    table = new_table(client)
    solitaire = table_game(client, table, ["Ann"])
    play(client, solitaire, [[0]])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    exported["games"][0]["order"] = "down"
    other = new_table(client, "Cousins")
    assert client.post(f"/api/tables/{other['code']}/import", json=exported).status_code == 200
    [copy] = _games_by_players(client, other).values()
    assert copy["mode"] == "solitaire" and copy["order"] == "up"


def test_rounds_out_of_sequence_are_refused_in_words(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben"])
    play(client, game, [[0, 13], [10, 0]])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    exported["games"][0]["rounds"][1]["number"] = 3
    other = new_table(client, "Cousins")
    refused = client.post(f"/api/tables/{other['code']}/import", json=exported)
    assert refused.status_code == 422
    assert refused.json()["detail"] == (
        "Game 1 of the document: The rounds must be numbered 1, 2, 3… in order."
    )


def test_a_table_export_with_a_stray_rounds_field_is_still_read_as_a_table(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    play(client, table_game(client, table, ["Cy", "Dee"]), [[17, 0]])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    other = new_table(client, "Cousins")
    imported = client.post(f"/api/tables/{other['code']}/import", json={**exported, "rounds": []})
    assert imported.status_code == 200, imported.text
    assert imported.json()["imported"] == 2


def test_a_recorded_game_comes_back_as_played_even_where_a_hand_broke_the_rules(client):
    # An export from before kept hands were checked this closely: typed 100 in round 3 (two
    # jokers kept beside a book) and three jokers kept in round 1. The game was played so.
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben", "Cy"])
    play(client, game, [[0, 13, 17], [3, 0, 8], [0, 96, 20]])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    [document] = exported["games"]
    rounds = [dict(r) for r in document["rounds"]]
    out = {"points": 0, "went_out": True}
    rounds[0]["results"] = [out, {"points": 150, "cards": ["JOKER"] * 3}, {"points": 17}]
    rounds[2]["results"] = [out, {"points": 100}, {"points": 20}]
    old = {**exported, "games": [{**document, "id": "before", "rounds": rounds}]}
    other = new_table(client, "Cousins")
    response = client.post(f"/api/tables/{other['code']}/import", json=old)
    assert response.status_code == 200, response.text
    [copy] = _games_by_players(client, other).values()
    assert [r["scores"] for r in copy["rounds"][:3]] == [[0, 150, 17], [3, 0, 8], [0, 100, 20]]
