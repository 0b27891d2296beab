"""A watcher's live page on this worker follows saves made by another worker (PostgreSQL):
the app's own relay hears the other worker's notice and reads the game to send it on.
Here the other worker is a relay and a database connection of its own in the test."""

import pytest

from app.db import make_engine
from app.games import save_round
from app.live import LiveUpdates
from app.live.notice import LIMIT_BYTES
from app.live.postgres import PostgresRelay
from app.rules.scoring import SeatResult
from tests.databases import wired_session
from tests.live.test_stream import Viewer, call, wait_for
from tests.server import LiveServer

pytestmark = pytest.mark.parametrize("database_engine", ["postgresql"], indirect=True)


def other_worker_saves(database_url, code, number, *, limit=LIMIT_BYTES):
    """Save a round the way another worker process does: its own engine, and its own relay
    that tells the other processes (this process's pages hear only through the notice),
    with notices of at most limit bytes."""
    engine = make_engine(database_url)
    try:
        other = LiveUpdates()
        other.relay = PostgresRelay(engine, other.broker, load_state=lambda _: None, limit=limit)
        with wired_session(engine, publish=other.publish_change) as session:
            save_round(
                session,
                code=code,
                number=number,
                results=[SeatResult(went_out=True), SeatResult(points=17)],  # round 1: 13 at least
            )
    finally:
        engine.dispose()


def next_version(viewer, after):
    """The next event newer than version after (a repeat may come first, never an older
    state after a newer one)."""
    event = viewer.next_event()
    while int(event["id"]) <= after:
        event = viewer.next_event()
    return event


@pytest.mark.parametrize("limit", [LIMIT_BYTES, 200], ids=["carried", "too-big-for-a-notice"])
def test_a_watcher_here_sees_saves_made_on_another_worker(database_url, limit):
    server = LiveServer(database_url).start()
    server.viewers = []
    try:
        relay = server.app.state.live.relay
        assert wait_for(relay.listening.is_set, 10)
        status, game = call(server, "POST", "/api/games", {"players": ["Ann", "Ben"]})
        assert status == 201
        viewer = Viewer(server, game["watch_code"])
        assert viewer.next_event()["id"] == "1"  # read here: this worker knows the game now
        for number in (1, 2):
            other_worker_saves(database_url, game["code"], number, limit=limit)
            event = next_version(viewer, number)
            assert event["id"] == str(number + 1)
            shown = "".join(event["data"])
            assert f"{17 * number}</" in shown and game["code"] not in shown
        # The state came with each notice: nothing read here. A notice too big for
        # PostgreSQL went as the game and its version: one read a save.
        expected = (0, 2) if limit == LIMIT_BYTES else (2, 0)
        assert (relay.loads, relay.carried) == expected
    finally:
        for viewer in server.viewers:
            viewer.close()
        server.stop()
