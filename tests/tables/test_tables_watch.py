"""A table's watch link: it shows every game and stat, changes nothing, and never reveals
a scorekeeper code (the table's or any game's)."""

import pytest

from tests.html import elements, visible_text
from tests.live.test_stream import Viewer, call
from tests.server import LiveServer
from tests.tables_helpers import new_table, person, play, table_game

API_WRITES = [
    ("post", "/api/games", "game"),
    ("patch", "/api/tables/{code}/people/{ann}", {"name": "Nana"}),
    ("patch", "/api/tables/{code}/people/{ann}", "not json"),
    ("post", "/api/tables/{code}/people/{ben}/merge", {"into": 0}),
    ("post", "/api/tables/{code}/import", {"format": 1, "games": []}),
    ("post", "/api/tables/{code}/import", "not json"),
]
PAGE_WRITES = [
    ("/t/{code}/games", {"name_0": "Ann", "name_1": "Ben", "action": "create"}),
    ("/t/{code}/games", {"pick": "Ann"}),
    ("/t/{code}/people/{ann}", {"name": "Nana"}),
    ("/t/{code}/people/{ben}", {"into": "{ann}"}),
]


@pytest.fixture
def server(tmp_path):
    running = LiveServer(f"sqlite:///{tmp_path}/stream.db").start()
    running.viewers = []
    yield running
    for viewer in running.viewers:
        viewer.close()
    running.stop()


@pytest.fixture
def smiths(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben", "Cy"])
    play(client, game, [[0, 13, 20]])
    answer = client.get(f"/api/tables/{table['code']}").json()
    ids = {p["name"]: p["id"] for p in answer["people"]}
    return table, game, ids


@pytest.mark.parametrize(("method", "path", "body"), API_WRITES)
def test_every_api_write_with_the_table_watch_code_is_403(client, smiths, method, path, body):
    table, _, ids = smiths
    before = client.get(f"/api/tables/{table['code']}").json()
    url = path.format(code=table["watch_code"], ann=ids["Ann"], ben=ids["Ben"])
    if body == "game":
        response = client.post(url, json={"players": ["Ann", "Zed"], "table": table["watch_code"]})
    elif body == "not json":
        response = client.request(
            method.upper(), url, content=b"{", headers={"content-type": "application/json"}
        )
    else:
        response = client.request(method.upper(), url, json=body)
    assert response.status_code == 403
    assert "watch link" in response.json()["detail"]
    assert client.get(f"/api/tables/{table['code']}").json() == before


@pytest.mark.parametrize(("path", "data"), PAGE_WRITES)
def test_every_page_write_with_the_table_watch_code_is_403(client, smiths, path, data):
    table, _, ids = smiths
    url = path.format(code=table["watch_code"], ann=ids["Ann"], ben=ids["Ben"])
    data = {k: v.format(ann=ids["Ann"]) for k, v in data.items()}
    before = client.get(f"/api/tables/{table['code']}").json()
    response = client.post(url, data=data, follow_redirects=False)
    assert response.status_code == 403
    assert "watch link" in visible_text(response.text)
    assert client.get(f"/api/tables/{table['code']}").json() == before


def test_no_scorekeeper_code_in_the_watch_answer_or_page(client, smiths):
    table, game, _ = smiths
    secrets = [table["code"], game["code"]]
    for url in (
        f"/api/tables/{table['watch_code']}",
        f"/t/{table['watch_code']}",
        f"/api/tables/{table['watch_code']}/export",
    ):
        response = client.get(url)
        assert response.status_code == 200
        assert not any(secret in response.text for secret in secrets), url
        assert not any(secret in v for v in response.headers.values() for secret in secrets)
    watched = client.get(f"/api/tables/{table['watch_code']}").json()
    assert watched["games"][0]["code"] == game["watch_code"]
    page = client.get(f"/t/{table['watch_code']}").text
    assert f"/g/{game['watch_code']}" in [a.get("href") for a in elements(page, "a")]
    assert not elements(page, "form")
    assert "New game" not in visible_text(page)


def test_a_watcher_of_the_old_game_is_told_of_the_rematch(server):
    _, table = call(server, "POST", "/api/tables", {"name": "The Smiths"})
    _, game = call(
        server, "POST", "/api/games", {"players": ["Ann", "Ben"], "table": table["code"]}
    )
    results = [{"went_out": True}, {"points": 13}]
    call(server, "PUT", f"/api/games/{game['code']}/rounds/1", {"results": results})
    call(server, "POST", f"/api/games/{game['code']}/finish")
    viewer = Viewer(server, game["watch_code"])
    viewer.next_event()
    status, rematch = call(server, "POST", f"/api/games/{game['code']}/rematch")
    assert status == 201
    data = "".join(viewer.next_event()["data"])
    assert f"/g/{rematch['watch_code']}" in data and "Watch the rematch" in data
    assert rematch["code"] not in data and game["code"] not in data
    viewer.close()


def test_the_watch_link_of_a_table_game_stays_read_only(client, smiths):
    table, game, _ = smiths
    assert client.post(f"/api/games/{game['watch_code']}/rematch").status_code == 403
    assert client.post(f"/g/{game['watch_code']}/rematch").status_code == 403
    assert client.post(f"/g/{game['watch_code']}/delete").status_code == 403
    assert client.delete(f"/api/games/{game['watch_code']}").status_code == 403
    stats = person(client.get(f"/api/tables/{table['watch_code']}").json(), "Ann")["stats"]
    assert stats["games"] == 1
