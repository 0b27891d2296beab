"""A watcher's live page on this worker follows saves made by another worker (PostgreSQL):
the app's own relay hears the other worker's notice and reads the game to send it on.
Here the other worker is a relay and a database connection of its own in the test."""

import pytest

from app.db import make_engine
from app.games import save_round
from app.live import publish_change
from app.live.memory import Broker
from app.live.postgres import PostgresRelay
from app.rules.scoring import SeatResult
from tests.databases import wired_session
from tests.live.test_stream import Viewer, call
from tests.server import LiveServer

pytestmark = pytest.mark.parametrize("database_engine", ["postgresql"], indirect=True)


def other_worker_saves(database_url, code, number, monkeypatch):
    """Save a round the way another worker process does: its own engine, and its own relay
    that tells the other processes (this process's pages hear only through the notice)."""
    engine = make_engine(database_url)
    try:
        other = PostgresRelay(engine, Broker(), load_state=lambda _: None)
        with (
            monkeypatch.context() as patched,
            wired_session(engine, publish=publish_change) as session,
        ):
            patched.setattr("app.live.publish", other.publish)
            save_round(
                session,
                code=code,
                number=number,
                results=[SeatResult(went_out=True), SeatResult(points=17)],  # round 1: 13 at least
            )
    finally:
        engine.dispose()


def test_a_watcher_here_sees_a_save_made_on_another_worker(database_url, monkeypatch):
    server = LiveServer(database_url).start()
    server.viewers = []
    try:
        status, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
        assert status == 201
        viewer = Viewer(server, game["watch_code"])
        assert viewer.next_event()["id"] == "1"
        other_worker_saves(database_url, game["code"], 1, monkeypatch)
        # The notice, or the relay's catch-up if it began listening only now: both read the
        # game here. (A repeat of version 1 may come first; an old state never after.)
        event = viewer.next_event()
        if event["id"] == "1":
            event = viewer.next_event()
        assert event["id"] == "2"
        shown = "".join(event["data"])
        assert "Ben" in shown and game["code"] not in shown
    finally:
        for viewer in server.viewers:
            viewer.close()
        server.stop()
