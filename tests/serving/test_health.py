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


def test_a_form_waiting_for_the_write_lock_never_holds_up_other_pages(
    migrated_database_url, database_engine
):
    if database_engine != "sqlite":
        pytest.skip("the write lock that holds a whole database is SQLite's")
    from sqlmodel import Session

    from app.db import begin_write

    server = LiveServer(migrated_database_url, busy_timeout_ms=3000).start()
    try:
        _, _, body = call(server.port, "POST", "/api/games", {"players": ["Ann", "Ben"]})
        code = json.loads(body)["code"]
        holder = Session(server.app.state.engine)
        begin_write(holder)  # this process's write lock, held by another request
        posted = []

        def post_form():
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            form = "from=game&version=&went_out=0&points_1=13&save=1"
            headers = {"content-type": "application/x-www-form-urlencoded"}
            try:
                connection.request("POST", f"/g/{code}/rounds/1", body=form, headers=headers)
                posted.append(connection.getresponse().status)
            finally:
                connection.close()

        waiting = threading.Thread(target=post_form)
        waiting.start()
        time.sleep(0.3)
        started = time.monotonic()
        status, _, _ = call(server.port, "GET", f"/g/{code}")
        assert status == 200 and time.monotonic() - started < 0.5
        holder.rollback()
        holder.close()
        waiting.join()
        assert posted == [303]
    finally:
        server.stop()
