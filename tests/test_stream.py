"""The event stream behind live pages, against a real server on 127.0.0.1."""

import http.client
import json
import re
import time

import pytest

from app import live
from tests.conftest import went_out_first
from tests.server import LiveServer


@pytest.fixture
def server(tmp_path):
    running = LiveServer(f"sqlite:///{tmp_path}/stream.db").start()
    yield running
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
    call(server, "PUT", f"/api/games/{game['code']}/rounds/1", {"results": went_out_first(3)})
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
    call(server, "PUT", f"/api/games/{game['code']}/rounds/1", {"results": went_out_first(2)})
    assert "Correct round 1" in "".join(viewer.next_event()["data"])
    viewer.close()


def test_finishing_is_sent_too(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    call(server, "PUT", f"/api/games/{game['code']}/rounds/1", {"results": went_out_first(2)})
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
    assert wait_for(lambda: live.broker.count(game["watch_code"]) == 3)
    viewers[0].close()
    assert wait_for(lambda: live.broker.count(game["watch_code"]) == 2)
    for viewer in viewers[1:]:
        viewer.close()
    assert wait_for(lambda: live.broker.count(game["watch_code"]) == 0)


def test_a_replaced_scorekeeper_link_stops_streaming(server):
    _, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    viewer = Viewer(server, game["code"])
    viewer.next_event()
    _, fresh = call(server, "POST", f"/api/games/{game['code']}/scorekeeper-code")
    assert viewer.response.read() == b""  # the stream ends without showing the new code
    assert fresh["code"] != game["code"]
    viewer.close()
