"""Several worker processes (WORKERS) on PostgreSQL behave as one server; SQLite refuses them."""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.config import SettingsError
from app.main import create_app
from tests.conftest import test_settings, went_out_first
from tests.live.test_stream import Viewer

ROOT = Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(database_url, workers, port, log):
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "WORKERS": str(workers),
        "HOST": "127.0.0.1",
        "PORT": str(port),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "app"],
        cwd=ROOT,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def test_sqlite_with_more_than_one_worker_is_refused_at_start(tmp_path):
    with open(tmp_path / "server.log", "wb") as log:
        server = serve(f"sqlite:///{tmp_path}/games.db", 2, free_port(), log)
        server.wait(timeout=60)
    errors = (tmp_path / "server.log").read_text()
    assert server.returncode != 0
    assert "WORKERS=2 needs PostgreSQL" in errors
    assert "SQLite" in errors and "postgresql+psycopg://" in errors
    assert not (tmp_path / "games.db").exists()
    with pytest.raises(SettingsError, match="needs PostgreSQL"):
        create_app(test_settings(f"sqlite:///{tmp_path}/games.db", workers=3))


class TwoWorkers:
    """`python -m app` with WORKERS=2, and which worker holds each connection."""

    def __init__(self, database_url, log_path):
        self.log_path = log_path
        self.viewers = []
        for _attempt in range(3):
            # A free port now may be taken before the server binds it: then try another.
            self.port = free_port()
            with open(log_path, "wb") as log:
                self.process = serve(database_url, 2, self.port, log)
            if self._started():
                return
            if "address already in use" not in log_path.read_text().lower():
                break
        raise RuntimeError(f"the server did not start: {log_path.read_text()}")

    def _started(self):
        deadline = time.monotonic() + 120
        while len(self.workers()) < 2 or not self.healthy():
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                return False
            time.sleep(0.1)
        return True

    def healthy(self):
        connection = self.connect()
        try:
            return self.request(connection, "GET", "/healthz")[0] == 200
        except OSError:
            return False
        finally:
            connection.close()

    def workers(self):
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        pids = [int(pid) for pid in children.read_text().split()] if children.exists() else []
        return [pid for pid in pids if "spawn_main" in cmdline(pid)]

    def connect(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)

    @staticmethod
    def request(connection, method, path, body=None):
        payload = None if body is None else json.dumps(body)
        headers = {"content-type": "application/json"}
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")

    def worker_of(self, connection):
        """The pid of the worker that accepted connection (its socket is in that one's fds)."""
        client_port = connection.sock.getsockname()[1]
        inode = None
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].split(":")[1], 16)
            remote_port = int(fields[2].split(":")[1], 16)
            if (local_port, remote_port) == (self.port, client_port):
                inode = fields[9]
        for pid in self.workers():
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    if os.readlink(fd) == f"socket:[{inode}]":
                        return pid
                except OSError:
                    continue
        raise AssertionError("no worker holds this connection")

    def connection_on(self, *, other_than):
        """A new connection (already used once) accepted by a worker other than other_than."""
        for _ in range(60):
            connection = self.connect()
            self.request(connection, "GET", "/healthz")
            if self.worker_of(connection) != other_than:
                return connection
            connection.close()
        raise AssertionError("every connection went to the same worker")

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture(scope="module")
def two_workers(postgres_server, tmp_path_factory):
    """One server for this module's tests (starting two workers takes a while)."""
    name, url = postgres_server.create_database()
    server = TwoWorkers(url, tmp_path_factory.mktemp("workers") / "server.log")
    yield server
    server.stop()
    postgres_server.drop_database(name)


@pytest.mark.postgresql
def test_a_watcher_on_one_worker_sees_a_save_made_through_the_other(two_workers):
    keeper = two_workers.connect()
    status, game = two_workers.request(keeper, "POST", "/api/games", {"players": ["Ann", "Ben"]})
    assert status == 201
    viewer = Viewer(two_workers, game["watch_code"])
    assert viewer.next_event()["id"] == "1"
    watched_on = two_workers.worker_of(viewer.connection)
    saver = two_workers.connection_on(other_than=watched_on)
    assert two_workers.worker_of(saver) != watched_on
    for number in (1, 2):
        path = f"/api/games/{game['code']}/rounds/{number}"
        # 20 is a total every round can leave (5 + 7 + 8, or one wild card).
        results = went_out_first(2, points=[20, 20])
        status, _ = two_workers.request(saver, "PUT", path, {"results": results})
        assert status == 200
        event = viewer.next_event()
        assert event["id"] == str(number + 1)
        assert game["code"] not in "".join(event["data"])
    for connection in (viewer, keeper, saver):
        connection.close()


@pytest.mark.postgresql
def test_simultaneous_saves_of_one_round_through_two_workers_give_one_200_and_one_409(
    two_workers,
):
    first = two_workers.connect()
    second = two_workers.connection_on(other_than=None)
    _, game = two_workers.request(first, "POST", "/api/games", {"players": ["Ann", "Ben", "Cy"]})
    if two_workers.worker_of(first) == two_workers.worker_of(second):
        second.close()
        second = two_workers.connection_on(other_than=two_workers.worker_of(first))
    for number in (1, 2, 3):
        version = game["version"]
        path = f"/api/games/{game['code']}/rounds/{number}"
        start = threading.Barrier(2)
        answers = {}

        def save(name, connection, out, path=path, version=version, start=start, answers=answers):
            # 20 is a total every round can leave (5 + 7 + 8, or one wild card).
            body = {"results": went_out_first(3, out=out, points=[20] * 3), "version": version}
            start.wait()
            answers[name] = two_workers.request(connection, "PUT", path, body)

        racers = [
            threading.Thread(target=save, args=("first", first, 0)),
            threading.Thread(target=save, args=("second", second, 1)),
        ]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(timeout=20)
        statuses = sorted(status for status, _ in answers.values())
        assert statuses == [200, 409], answers
        winner = next(body for status, body in answers.values() if status == 200)
        loser = next(body for status, body in answers.values() if status == 409)
        assert loser["game"]["version"] == winner["version"] == version + 1
        game = winner
    _, final = two_workers.request(first, "GET", f"/api/games/{game['code']}")
    assert final["version"] == 4 and final["rounds"][2]["scores"] is not None
    first.close()
    second.close()


def test_the_postgres_compose_file_runs_several_workers_on_postgresql():
    compose = (ROOT / "compose.postgres.yaml").read_text()
    assert "image: postgres:" in compose and "build: ." in compose
    assert (
        "DATABASE_URL: postgresql+psycopg://crownkeeper:${POSTGRES_PASSWORD}@postgres/" in compose
    )
    workers = int(compose.split("WORKERS:")[1].split()[0])
    assert workers > 1
    assert "condition: service_healthy" in compose  # migrations wait for the database
    assert "${POSTGRES_PASSWORD:?" in compose  # no password written into the file
