"""The event stream behind live pages, against a real server on 127.0.0.1."""

import asyncio
import http.client
import json
import re
import threading
import time
from dataclasses import replace
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session
from starlette.requests import Request

from app.db import make_engine
from app.games import GameNotFound, find_game, load_game
from app.live import LiveUpdates
from app.main import create_app
from app.web import stream
from app.web.stream import StreamCounts
from tests.aio import run_scenario
from tests.conftest import test_settings, went_out_first
from tests.databases import wired_session
from tests.server import LiveServer


@pytest.fixture
def server(database_url):
    running = LiveServer(database_url).start()
    running.viewers = []
    yield running
    for viewer in running.viewers:  # closed even when a test failed half-way
        viewer.close()
    running.stop()


def call(server, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    payload = None if body is None else json.dumps(body)
    connection.request(method, path, body=payload, headers={"content-type": "application/json"})
    response = connection.getresponse()
    answer = (response.status, json.loads(response.read() or b"null"))
    connection.close()
    return answer


class Viewer:
    """One open page's event stream, read event by event."""

    def __init__(self, server, code):
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        self.connection.request("GET", f"/g/{code}/events", headers={"HX-Request": "true"})
        self.response = self.connection.getresponse()
        server.viewers.append(self)

    def next_event(self):
        """The next event; AssertionError if the stream ends first (never waits forever)."""
        event = {"data": []}
        while True:
            raw = self.response.readline()
            assert raw, "the stream ended"
            line = raw.decode().rstrip("\r\n")
            if not line:
                if event["data"] or "id" in event:
                    return event
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "data":
                event["data"].append(value)
            else:
                event[field] = value

    def close(self):
        self.connection.close()


def test_an_update_arrives_after_a_save(server):
    status, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben", "Cy"]})
    assert status == 201
    viewer = Viewer(server, game["watch_code"])
    assert viewer.response.status == 200
    assert viewer.response.getheader("content-type").startswith("text/event-stream")
    first = viewer.next_event()
    assert first["id"] == str(game["version"])
    assert "Threes are wild" in "".join(first["data"])
    assert game["code"] not in "".join(first["data"])
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/1",
        {"results": went_out_first(3, points=[0, 13, 14])},
    )
    update = viewer.next_event()
    data = "".join(update["data"])
    assert update["id"] == str(game["version"] + 1)
    assert "Fours are wild" in data
    assert '<hx-partial hx-target="#totals">' in data
    assert game["code"] not in data
    viewer.close()


def test_the_scorekeeper_stream_gets_correction_links(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    viewer = Viewer(server, game["code"])
    viewer.next_event()
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/1",
        {"results": went_out_first(2, points=[0, 13])},
    )
    assert "Correct round 1" in "".join(viewer.next_event()["data"])
    viewer.close()


def test_finishing_is_sent_too(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/1",
        {"results": went_out_first(2, points=[0, 13])},
    )
    viewer = Viewer(server, game["watch_code"])
    viewer.next_event()
    call(server, "POST", f"/api/games/{game['code']}/finish")
    assert re.search(r"Ann\s+wins", "".join(viewer.next_event()["data"]))
    viewer.close()


def test_unknown_code_is_404(server):
    viewer = Viewer(server, "nosuchgame")
    assert viewer.response.status == 404
    viewer.close()


def wait_for(condition, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_disconnected_viewer_is_cleaned_up(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    viewers = [Viewer(server, game["watch_code"]) for _ in range(3)]
    for viewer in viewers:
        viewer.next_event()
    assert wait_for(lambda: server.app.state.live.broker.count(game["watch_code"]) == 3)
    viewers[0].close()
    assert wait_for(lambda: server.app.state.live.broker.count(game["watch_code"]) == 2)
    for viewer in viewers[1:]:
        viewer.close()
    assert wait_for(lambda: server.app.state.live.broker.count(game["watch_code"]) == 0)


def test_a_replaced_scorekeeper_link_stops_streaming(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    viewer = Viewer(server, game["code"])
    viewer.next_event()
    _, fresh = call(server, "POST", f"/api/games/{game['code']}/scorekeeper-code")
    # The page hears that its link was replaced, then the stream ends; the new code never shows.
    told = "".join(viewer.next_event()["data"])
    assert "This scorekeeper link was replaced" in told
    assert f"/g/{game['watch_code']}" in told
    rest = viewer.response.read()
    assert fresh["code"] not in told + rest.decode()
    viewer.close()
    again = Viewer(server, game["code"])
    assert again.response.status == 410
    again.close()


def test_the_watchers_stream_never_carries_the_scorekeeper_code(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/1",
        {"results": went_out_first(2, points=[0, 13])},
    )
    keeper = Viewer(server, game["code"])
    assert game["code"] in "".join(keeper.next_event()["data"])  # the keeper's view, first
    watcher = Viewer(server, game["watch_code"])
    first = "".join(watcher.next_event()["data"])
    assert game["code"] not in first and "Correct round" not in first
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/2",
        {"results": went_out_first(2, points=[0, 7])},
    )
    assert "Correct round 2" in "".join(keeper.next_event()["data"])
    update = "".join(watcher.next_event()["data"])
    assert "Fives are wild" in update
    assert game["code"] not in update and "Correct round" not in update
    keeper.close()
    watcher.close()


def test_a_save_in_one_game_never_reaches_another_games_stream(server):
    _, ours = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    _, theirs = call(server, "POST", "/api/games", {"players": ["Xavier", "Yolanda"]})
    watcher = Viewer(server, ours["watch_code"])
    watcher.next_event()
    for number in (1, 2):
        path = f"/api/games/{theirs['code']}/rounds/{number}"
        call(server, "PUT", path, {"results": went_out_first(2, points=[0, 33])})
    call(
        server,
        "PUT",
        f"/api/games/{ours['code']}/rounds/1",
        {"results": went_out_first(2, points=[0, 13])},
    )
    update = watcher.next_event()
    data = "".join(update["data"])
    assert update["id"] == str(ours["version"] + 1)
    assert "Ann" in data and "Xavier" not in data and "33" not in data
    watcher.close()


def test_live_updates_arrive_in_order_and_an_older_state_is_never_shown(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    watcher = Viewer(server, game["watch_code"])
    assert watcher.next_event()["id"] == "1"
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/1",
        {"results": went_out_first(2, points=[0, 13])},
    )
    assert watcher.next_event()["id"] == "2"
    # A publish that comes late (a slower save from before) carries an older state.
    engine = make_engine(server.settings.database_url)
    with Session(engine) as session:
        older = load_game(session, code=game["code"])
    engine.dispose()
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/2",
        {"results": went_out_first(2, points=[0, 7])},
    )
    server.app.state.live.publish(game["watch_code"], replace(older, version=1))
    server.app.state.live.publish(game["watch_code"], replace(older, version=2))
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/3",
        {"results": went_out_first(2, points=[0, 7])},
    )
    ids = [watcher.next_event()["id"], watcher.next_event()["id"]]
    assert ids == ["3", "4"]
    watcher.close()


def test_the_stream_answers_with_the_security_headers(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    watcher = Viewer(server, game["watch_code"])
    assert watcher.response.getheader("x-content-type-options") == "nosniff"
    assert watcher.response.getheader("referrer-policy") == "no-referrer"
    assert "frame-ancestors 'none'" in watcher.response.getheader("content-security-policy")
    watcher.close()


def app_request():
    """A request as a stream's, to an app holding only what streams keep on it."""
    app = SimpleNamespace(state=SimpleNamespace(live=LiveUpdates(), stream_reads={}))
    return SimpleNamespace(app=app)


def test_pages_opening_together_share_one_read_of_the_game(tmp_path, monkeypatch):
    import asyncio
    import threading

    from app.games import create_game
    from app.web import stream

    engine = make_engine(f"sqlite:///{tmp_path}/db.db")
    from app.migrate import upgrade_to_head

    upgrade_to_head(engine)
    with wired_session(engine) as session:
        game = create_game(session, players=["Ann", "Ben"])
    reads = []
    read_started = threading.Event()

    def counted_load(request, code):
        reads.append(code)
        read_started.set()
        time.sleep(0.2)  # a slow disk: every page arrives while the first read runs
        with Session(engine) as session:
            return find_game(session, code=code, whole=True)

    monkeypatch.setattr(stream, "load_briefly", counted_load)
    request = app_request()

    async def pages_arriving():
        return await asyncio.gather(
            *(stream.load_for_stream(request, game.watch_code) for _ in range(50))
        )

    states = run_scenario(pages_arriving)
    assert reads == [game.watch_code]
    assert all(state.players == ("Ann", "Ben") and not state.can_edit for state in states)
    # What was read is kept for the pages to come (and for the notices of other processes).
    assert request.app.state.live.broker.keeper_code(game.watch_code) == game.code
    engine.dispose()


def test_a_page_turned_away_from_its_stream_is_told_it_will_poll_instead(migrated_database_url):
    settings = test_settings(migrated_database_url, streams_per_game=0)
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
        refused = client.get(f"/g/{game['watch_code']}/events", headers={"HX-Request": "true"})
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "15"
    assert refused.json()["detail"] == (
        "Too many live pages are open; this page refreshes its totals every 15 s instead."
    )


def test_a_stream_or_poll_for_a_wrong_or_replaced_link_says_what_is_wrong(client, new_game):
    missing = client.get("/g/nosuchgame/events", headers={"HX-Request": "true"})
    assert missing.status_code == 404
    assert missing.json()["detail"].startswith("No game has the code nosuchgame.")
    game = new_game()
    assert client.post(f"/api/games/{game['code']}/scorekeeper-code").status_code == 200
    replaced = client.get(f"/g/{game['code']}/events", headers={"HX-Request": "true"})
    assert replaced.status_code == 410
    assert replaced.json()["detail"].startswith("This scorekeeper link was replaced")
    polled = client.get(f"/g/{game['code']}/live")
    assert polled.status_code == 410
    assert "This scorekeeper link was replaced" in polled.text


def test_a_closed_stream_frees_exactly_its_own_place():
    counts = StreamCounts(per_game=3, total=100)
    assert [counts.try_open("game") for _ in range(4)] == [True, True, True, False]
    counts.close("game")
    assert counts.try_open("game")  # the place just freed
    assert not counts.try_open("game")  # and no other
    for _ in range(3):
        counts.close("game")
    assert [counts.try_open("game") for _ in range(4)] == [True, True, True, False]


def test_streams_read_the_database_on_four_threads_at_most(monkeypatch):
    reading = []
    most = []
    lock = threading.Lock()

    def slow_read(request, code):
        with lock:
            reading.append(code)
            most.append(len(reading))
        time.sleep(0.05)
        with lock:
            reading.remove(code)
        return GameNotFound("No game has this code.")

    monkeypatch.setattr(stream, "load_briefly", slow_read)

    async def pages_of_twelve_games():
        return await asyncio.gather(
            *(stream.load_for_stream(app_request(), f"unknown-{n}") for n in range(12)),
            return_exceptions=True,
        )

    answers = run_scenario(pages_of_twelve_games)
    assert all(isinstance(answer, GameNotFound) for answer in answers)
    # A crowd opening pages queues here; the threads for ordinary requests stay free.
    assert max(most) == 4


def test_a_stream_whose_game_is_gone_leaves_no_error_behind(monkeypatch):
    def no_such_game(request, code):
        raise GameNotFound("No game has this code.")

    monkeypatch.setattr(stream, "load_briefly", no_such_game)

    async def a_page_for_a_missing_game():
        loop = asyncio.get_running_loop()
        reported = []
        loop.set_exception_handler(lambda _, context: reported.append(context["message"]))
        with pytest.raises(GameNotFound):
            await stream.load_for_stream(app_request(), "gone-game")
        for _ in range(3):
            await asyncio.sleep(0)  # the read's own clean-up runs
        return reported

    assert run_scenario(a_page_for_a_missing_game) == []


def test_a_live_update_shared_between_pages_keeps_each_sub_paths_links(client, new_game):
    # One rendering serves every page of a game, but never across addresses: a page opened
    # under a sub-path (behind a proxy) gets links under that path.
    game = new_game()
    saved = client.put(
        f"/api/games/{game['code']}/rounds/1",
        json={"results": went_out_first(3, points=[0, 13, 14])},
    )
    assert saved.status_code == 200
    with client.app.state.sessions() as session:
        state = load_game(session, code=game["code"])

    def update(root_path):
        scope = {"type": "http", "app": client.app, "root_path": root_path, "headers": []}
        scope |= {"path": "/", "method": "GET", "query_string": b"", "scheme": "http"}
        return stream.rendered_once(Request(scope | {"server": ("t", 80)}), state)

    plain, behind = update(""), update("/scores")
    linked = re.compile(r'(?:href|src|hx-get|action)="(/[^"]*)"')
    assert linked.findall(plain) and linked.findall(behind)
    assert not any(link.startswith("/scores/") for link in linked.findall(plain))
    assert all(link.startswith("/scores/") for link in linked.findall(behind))


class ViewerIn(Viewer):
    """An open page whose browser asks for language."""

    def __init__(self, server, code, language):
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        headers = {"HX-Request": "true", "Accept-Language": language}
        self.connection.request("GET", f"/g/{code}/events", headers=headers)
        self.response = self.connection.getresponse()
        server.viewers.append(self)


def test_each_watcher_gets_the_live_update_in_their_own_language(server):
    status, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben", "Cy"]})
    assert status == 201
    viewers = {
        language: ViewerIn(server, game["watch_code"], language)
        for language in ("de", "fr", "es", "nl", "en")
    }
    for viewer in viewers.values():
        viewer.next_event()
    call(
        server,
        "PUT",
        f"/api/games/{game['code']}/rounds/1",
        {"results": went_out_first(3, points=[0, 13, 14])},
    )
    seen = {language: "".join(v.next_event()["data"]) for language, v in viewers.items()}
    assert "Vieren sind wild" in seen["de"]
    assert "quatre sont des frimes" in seen["fr"].lower()
    assert "cuatros son comodines" in seen["es"].lower()
    assert "Vieren zijn wild" in seen["nl"]
    assert "Fours are wild" in seen["en"]
    assert all("Fours are wild" not in seen[code] for code in ("de", "fr", "es", "nl"))
