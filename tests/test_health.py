"""/healthz never waits on the write lock: while another connection holds SQLite's write
lock and saves queue behind it, the health check answers at once; the saves still get 503
with Retry-After once the busy timeout runs out."""

import http.client
import json
import sqlite3
import threading
import time

import pytest

from tests.server import LiveServer

pytestmark = pytest.mark.one_database


def call(port, method, path, body=None, timeout=30):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        payload = None if body is None else json.dumps(body)
        connection.request(method, path, body=payload, headers={"content-type": "application/json"})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_health_answers_at_once_while_the_write_lock_is_held(
    migrated_database_url, database_engine
):
    if database_engine != "sqlite":
        pytest.skip("the write lock that stalls a whole database is SQLite's")
    server = LiveServer(migrated_database_url, busy_timeout_ms=1500).start()
    try:
        _, _, body = call(server.port, "POST", "/api/games", {"players": ["Ann", "Ben"]})
        code = json.loads(body)["code"]
        holder = sqlite3.connect(migrated_database_url.removeprefix("sqlite:///"))
        holder.isolation_level = None
        holder.execute("BEGIN IMMEDIATE")
        saves = []

        def save():
            results = [{"went_out": True}, {"points": 12}]
            saves.append(
                call(server.port, "PUT", f"/api/games/{code}/rounds/1", {"results": results})
            )

        # More saves than the app keeps connections: every one waits for the lock.
        waiting = [threading.Thread(target=save) for _ in range(24)]
        for thread in waiting:
            thread.start()
        time.sleep(0.3)
        took = []
        for _ in range(3):
            started = time.monotonic()
            status, _, answer = call(server.port, "GET", "/healthz")
            took.append(time.monotonic() - started)
            assert status == 200 and json.loads(answer) == {"status": "ok"}
        assert max(took) < 0.5, took
        for thread in waiting:
            thread.join()
        holder.execute("ROLLBACK")
        holder.close()
        assert {status for status, _, _ in saves} == {503}
        assert all(headers.get("retry-after") for _, headers, _ in saves)
    finally:
        server.stop()
