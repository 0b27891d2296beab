"""A person's own answer (GET /api/tables/{code}/people/{id}): their whole head to head,
while the table's answer keeps each person's to those they played most, so it stays small
however many people a table has."""

from tests.tables_helpers import new_table, person, play, table_game

NAMES = [f"P{index:02d}" for index in range(13)]


def test_a_persons_answer_has_their_whole_head_to_head(client):
    table = new_table(client)
    # Ann plays each of thirteen others once; P00 twice.
    for name in ["P00", *NAMES]:
        game = table_game(client, table, ["Ann", name])
        play(client, game, [[0, 20]])
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann = person(answer, "Ann")
    assert len(ann["versus"]) == 10  # the table's answer: the ten played most
    p00 = str(person(answer, "P00")["id"])
    assert ann["versus"][p00] == {"games": 2, "lower": 2, "higher": 0}

    own = client.get(f"/api/tables/{table['code']}/people/{ann['id']}")
    assert own.status_code == 200
    body = own.json()
    assert body["person"]["name"] == "Ann"
    assert body["person"]["stats"]["games"] == 14 and body["person"]["stats"]["wins"] == 14
    assert len(body["person"]["versus"]) == 13
    assert body["person"]["versus"][p00] == {"games": 2, "lower": 2, "higher": 0}
    assert body["period"]["label"] == "All time"
    assert body["watch_code"] == table["watch_code"]

    watched = client.get(f"/api/tables/{table['watch_code']}/people/{ann['id']}").json()
    assert watched["person"]["versus"] == body["person"]["versus"]
    assert table["code"] not in str(watched)


def test_a_persons_answer_follows_the_season_and_refuses_what_it_cannot_read(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben"])
    play(client, game, [[0, 20]])
    ann = person(client.get(f"/api/tables/{table['code']}").json(), "Ann")
    url = f"/api/tables/{table['code']}/people/{ann['id']}"
    empty = client.get(url, params={"year": 1999}).json()
    assert empty["person"]["stats"]["games"] == 0 and empty["person"]["versus"] == {}
    bad = client.get(url, params={"year": "soon"})
    assert bad.status_code == 422 and "year" in bad.json()["detail"].lower()
    missing = client.get(f"/api/tables/{table['code']}/people/999999")
    assert missing.status_code == 404
    assert client.get(f"/api/tables/nope/people/{ann['id']}").status_code == 404


def test_the_table_answer_counts_every_record_holder(client):
    table = new_table(client)
    for _ in range(3):
        game = table_game(client, table, ["Ann", "Ben"])
        play(client, game, [[0, 20]])
    answer = client.get(f"/api/tables/{table['code']}").json()
    assert answer["record_holders"]["highest_round"] == 3
    assert len(answer["records"]["highest_round"]) == 3
