"""A table matches its people's names by the rule games use (names.folded): "Ann", "Ａｎｎ"
and "Аnn" (a Cyrillic А) are one person at a table, as they are one name in a game."""

import pytest

from tests.html import elements, visible_text
from tests.tables_helpers import new_table, person, play, table_game

CYRILLIC_ANN = "\u0410nn"
SPELLINGS = ["Ann", "Ａｎｎ", CYRILLIC_ANN]


def people(client, table):
    return client.get(f"/api/tables/{table['code']}").json()["people"]


def test_the_three_spellings_are_one_person_with_three_games(client):
    table = new_table(client)
    for spelling in SPELLINGS:
        play(client, table_game(client, table, [spelling, "Ben"]), [[0, 13]])
    (ann,) = [p for p in people(client, table) if p["name"] != "Ben"]
    assert ann["name"] == "Ann"
    assert (ann["stats"]["games"], ann["stats"]["wins"]) == (3, 3)
    assert len(people(client, table)) == 2


def test_a_player_joining_mid_game_is_matched_by_the_same_rule(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    game = table_game(client, table, ["Ben", "Cy"])
    joined = client.post(f"/api/games/{game['code']}/players", json={"name": "Ａｎｎ"})
    assert joined.status_code == 201, joined.text
    play(client, game, [[0, 13, 20]])
    names = sorted(p["name"] for p in people(client, table))
    assert names == ["Ann", "Ben", "Cy"]
    assert person({"people": people(client, table)}, "Ann")["stats"]["games"] == 2


def test_a_rename_is_matched_by_the_same_rule(client):
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    ann = person({"people": people(client, table)}, "Ann")
    ben = person({"people": people(client, table)}, "Ben")
    taken = client.patch(
        f"/api/tables/{table['code']}/people/{ben['id']}", json={"name": CYRILLIC_ANN}
    )
    assert taken.status_code == 422
    assert "Ann is already at this table" in taken.json()["detail"]
    # Another spelling of one's own name is a rename, not a clash.
    respelt = client.patch(
        f"/api/tables/{table['code']}/people/{ann['id']}", json={"name": "ＡＮＮ"}
    )
    assert respelt.status_code == 200, respelt.text
    assert sorted(p["name"] for p in respelt.json()["people"]) == ["Ben", "ＡＮＮ"]


def test_a_merge_by_name_finds_the_person_by_the_same_rule(client):
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    table_game(client, table, ["Anne", "Ben"])
    anne = person({"people": people(client, table)}, "Anne")
    merged = client.post(
        f"/t/{table['code']}/people/{anne['id']}",
        data={"name": "Anne", "into_name": f" {CYRILLIC_ANN.lower()} ", "action": "merge"},
        follow_redirects=False,
    )
    assert merged.status_code == 303
    assert sorted(p["name"] for p in people(client, table)) == ["Ann", "Ben"]


def test_the_longest_folded_name_fits_at_a_table(client):
    # NFKC makes 18 letters of this one (15 once its spaces go): 30 of them are 450.
    name = "\ufdfa" * 30
    table = new_table(client)
    table_game(client, table, [name, "Ben"])
    assert {p["name"] for p in people(client, table)} == {name, "Ben"}


@pytest.mark.one_database
def test_a_tapped_person_is_the_seat_spelled_another_way(client):
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    form = {"name_0": "Ａｎｎ", "name_1": "", "first_dealer": "0"}
    page = client.post(f"/t/{table['code']}/games", data=form).text
    pressed = [b["value"] for b in elements(page, "button") if b.get("aria-pressed") == "true"]
    assert pressed == ["Ann"]
    # Tapping Ann again takes the seat spelled Ａｎｎ away.
    tapped = client.post(f"/t/{table['code']}/games", data={**form, "pick": "Ann"}).text
    names = [e["value"] for e in elements(tapped, "input") if e.get("name", "").startswith("name_")]
    assert names == ["", ""]


def test_a_merged_persons_page_leads_to_the_person_kept(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    play(client, table_game(client, table, ["Anne", "Ben"]), [[0, 13]])
    ann = person({"people": people(client, table)}, "Ann")
    anne = person({"people": people(client, table)}, "Anne")
    code = table["code"]
    merge = client.post(f"/api/tables/{code}/people/{anne['id']}/merge", json={"into": ann["id"]})
    assert merge.status_code == 200, merge.text
    page = client.get(f"/t/{code}/people/{anne['id']}?year=2026", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"].endswith(f"/t/{code}/people/{ann['id']}?year=2026")
    kept = client.get(f"/t/{code}/people/{anne['id']}")
    assert kept.status_code == 200 and "Games (2)" in visible_text(kept.text)
    asked = client.get(f"/api/tables/{code}/people/{anne['id']}")
    assert asked.status_code == 409
    assert asked.json()["into"] == ann["id"]
    assert "Anne was merged and is one person with Ann now" in asked.json()["detail"]
    # Merged again, into someone else: the page leads to whoever holds the games now.
    table_game(client, table, ["Zed", "Ben"])
    zed = person({"people": people(client, table)}, "Zed")
    client.post(f"/api/tables/{code}/people/{ann['id']}/merge", json={"into": zed["id"]})
    again = client.get(f"/t/{code}/people/{anne['id']}", follow_redirects=False)
    assert again.headers["location"].endswith(f"/t/{code}/people/{zed['id']}")
    assert client.get(f"/t/{code}/people/999999").status_code == 404
