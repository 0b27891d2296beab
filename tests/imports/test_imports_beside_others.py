"""An import beside everything else: other games are saved while it is written (it holds
the write lock a batch at a time, never for the whole import), the table sees all of it or
none of it, a refused import leaves no game behind, and imports racing each other or a
merge are decided: never a 5xx, never a table past TABLE_MAX_PEOPLE."""

import json
import threading
import time

import pytest
from fastapi.testclient import TestClient
from sqlmodel import func, select

from app import imports
from app.main import create_app
from app.models import Game, Person
from tests.conftest import test_settings
from tests.tables.test_tables_import_limits import document, import_into, recorded_game
from tests.tables_helpers import new_table, table_game


def game_rows(client):
    """Every game row in the database, hidden ones included."""
    with client.app.state.sessions() as session:
        return session.exec(select(func.count()).select_from(Game)).one()


def people_at(client, table):
    answer = client.get(f"/api/tables/{table['code']}").json()
    return sorted(p["name"] for p in answer["people"])


@pytest.fixture
def paused_import(monkeypatch):
    """An import that stops after its first batch is written, until let go: paused is set
    while it waits (between two transactions), go lets it carry on."""
    paused, go = threading.Event(), threading.Event()
    batches = imports._batches

    def pausing(games_in, known):
        for number, batch in enumerate(batches(games_in, known)):
            if number == 1:
                paused.set()
                assert go.wait(30)
            yield batch

    monkeypatch.setattr(imports, "IMPORT_BATCH", 5)
    monkeypatch.setattr(imports, "_batches", pausing)
    return paused, go


def test_a_round_is_saved_to_another_game_while_an_import_is_written(client, paused_import):
    paused, go = paused_import
    table = new_table(client)
    other = client.post("/api/games", json={"players": ["Zoe", "Yan"]}).json()
    body = document([recorded_game(n, ["Ann", "Ben", "Cy"]) for n in range(20)])
    answer = {}
    importing = threading.Thread(
        target=lambda: answer.update(response=import_into(client, table, body))
    )
    importing.start()
    try:
        assert paused.wait(30)
        started = time.monotonic()
        saved = client.put(
            f"/api/games/{other['code']}/rounds/1",
            json={"results": [{"went_out": True}, {"points": 20}]},
        )
        assert saved.status_code == 200, saved.text
        assert time.monotonic() - started < 1
        # Half written, the import is not at the table yet: no game, no person.
        state = client.get(f"/api/tables/{table['code']}").json()
        assert state["game_count"] == 0 and state["people"] == []
    finally:
        go.set()
        importing.join(60)
    assert answer["response"].status_code == 200, answer["response"].text
    assert answer["response"].json()["imported"] == 20
    assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 20


def test_a_refused_import_leaves_no_game_behind(client, monkeypatch):
    monkeypatch.setattr(imports, "IMPORT_BATCH", 5)
    table = new_table(client)
    before = game_rows(client)
    games = [recorded_game(n, ["Ann", "Ben"]) for n in range(30)]
    games[23]["rounds"][0]["cards_dealt"] = 99  # game 24 cannot stand: four batches written
    refused = import_into(client, table, document(games))
    assert refused.status_code == 422
    assert "Game 24 of the document" in refused.json()["detail"]
    assert game_rows(client) == before
    assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 0
    assert people_at(client, table) == []


@pytest.fixture
def small_table_limit(settings):
    chosen = test_settings(settings.database_url, table_max_people=10, create_rate_limit="off")
    with TestClient(create_app(chosen)) as client:
        yield client


def test_imports_at_once_never_take_a_table_past_its_people(small_table_limit):
    client = small_table_limit
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    bodies = [
        json.dumps(
            document(
                [
                    recorded_game(f"{batch}-{n}", [f"New {batch}{n}", f"Other {batch}{n}"])
                    for n in range(4)
                ]
            )
        )
        for batch in "xyz"
    ]
    start = threading.Barrier(len(bodies))
    statuses = []

    def send(body):
        start.wait()
        statuses.append(import_into(client, table, body))

    senders = [threading.Thread(target=send, args=(body,)) for body in bodies]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(60)
    codes = sorted(response.status_code for response in statuses)
    # Each brings 8 new people to a table of 2 with room for 10: one fits, the others are
    # refused in words.
    assert codes == [200, 422, 422], [r.text for r in statuses]
    for refused in (r for r in statuses if r.status_code == 422):
        assert "TABLE_MAX_PEOPLE" in refused.json()["detail"]
    assert len(people_at(client, table)) == 10
    assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 1 + 4
    with client.app.state.sessions() as session:
        assert session.exec(select(func.count()).select_from(Game)).one() == 1 + 4
        assert session.exec(select(func.count()).select_from(Person)).one() == 10


def test_a_merge_beside_an_import_and_an_import_beside_merges(client, paused_import):
    paused, go = paused_import
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    table_game(client, table, ["Anne", "Cy"])
    ids = {p["name"]: p["id"] for p in client.get(f"/api/tables/{table['code']}").json()["people"]}
    body = document([recorded_game(n, ["Anne", "Ben", "Dee"]) for n in range(12)])
    answer = {}
    importing = threading.Thread(
        target=lambda: answer.update(response=import_into(client, table, body))
    )
    importing.start()
    try:
        assert paused.wait(30)
        merged = client.post(
            f"/api/tables/{table['code']}/people/{ids['Anne']}/merge", json={"into": ids["Ann"]}
        )
        assert merged.status_code == 200, merged.text
    finally:
        go.set()
        importing.join(60)
    assert answer["response"].status_code == 200, answer["response"].text
    # Anne was merged into Ann before the import's games came in: "Anne" is a new person.
    assert people_at(client, table) == ["Ann", "Anne", "Ben", "Cy", "Dee"]
    assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 2 + 12


def test_imports_and_merges_fired_together_never_fail(client):
    table = new_table(client)
    for n in range(4):
        table_game(client, table, [f"P{n}", f"Q{n}"])
    ids = {p["name"]: p["id"] for p in client.get(f"/api/tables/{table['code']}").json()["people"]}
    bodies = [
        json.dumps(document([recorded_game(f"{k}-{n}", [f"P{n}", "Newcomer"]) for n in range(4)]))
        for k in range(2)
    ]
    start = threading.Barrier(4)
    answers = []

    def send(label, action):
        start.wait()
        answers.append((label, action()))

    actions = [
        lambda: import_into(client, table, bodies[0]),
        lambda: import_into(client, table, bodies[1]),
        lambda: client.post(
            f"/api/tables/{table['code']}/people/{ids['Q0']}/merge", json={"into": ids["Q1"]}
        ),
        lambda: client.post(
            f"/api/tables/{table['code']}/people/{ids['Q1']}/merge", json={"into": ids["Q0"]}
        ),
    ]
    labels = ["import", "import", "merge", "merge"]
    threads = [
        threading.Thread(target=send, args=(label, action))
        for label, action in zip(labels, actions, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(answer.status_code < 500 for _, answer in answers), [a.text for _, a in answers]
    assert [a.status_code for label, a in answers if label == "import"] == [200, 200]
    merges = sorted(a.status_code for label, a in answers if label == "merge")
    # Q0 into Q1 and Q1 into Q0: one is made, the other finds its person merged away.
    assert merges[0] == 200 and 400 <= merges[1] < 500
    names = people_at(client, table)
    assert len(names) == len(set(names))
    assert "Newcomer" in names
    assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 4 + 8
