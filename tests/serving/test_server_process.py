"""The real server process (`python -m app`): one owner of the database, a clear refusal of a
file that is not Crownkeeper's, flat memory under huge bodies, and saves that survive kill -9."""

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from app.migrate import alembic_config

ROOT = Path(__file__).resolve().parents[2]
HEAD_REVISION = ScriptDirectory.from_config(alembic_config()).get_current_head()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`python -m app` on 127.0.0.1, as a user would start it."""

    def __init__(self, database: Path, **env: str) -> None:
        self.database = database
        self.env = env
        self._launch()

    def _launch(self) -> None:
        # A free port now may be taken before the server binds it: wait_healthy then starts
        # it again on another.
        self.port = free_port()
        environment = dict(os.environ)
        environment.update(
            DATABASE_URL=f"sqlite:///{self.database}",
            HOST="127.0.0.1",
            PORT=str(self.port),
            CREATE_RATE_LIMIT="off",
            **self.env,
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def wait_healthy(self, timeout: float = 60, tries: int = 3) -> "Server":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self.process.stdout.read()
                self.process.stdout.close()
                if "address already in use" in output.lower() and tries > 1:
                    self._launch()
                    return self.wait_healthy(deadline - time.monotonic(), tries - 1)
                raise AssertionError(f"server ended: {output}")
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError("server did not become healthy")

    def call(self, method, path, body=None, timeout=10):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            payload = None if body is None else json.dumps(body)
            connection.request(method, path, payload, {"content-type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        """Wait for the process to end by itself: its exit code and output."""
        output, _ = self.process.communicate(timeout=timeout)
        return self.process.returncode, output

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        if self.process.stdout:
            self.process.stdout.close()

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")


@pytest.fixture
def servers():
    started: list[Server] = []
    yield started
    for server in started:
        server.kill()


def start(servers, database, **env) -> Server:
    server = Server(database, **env)
    servers.append(server)
    return server


def results(seat_count=3, out=0):
    # 21 and 22 (and on): totals a leftover hand can reach in every round.
    return [{"went_out": True} if s == out else {"points": 20 + s} for s in range(seat_count)]


def test_a_second_server_on_the_same_database_refuses_to_start(tmp_path, servers):
    database = tmp_path / "crownkeeper.db"
    first = start(servers, database).wait_healthy()
    status, game = first.call("POST", "/api/games", {"players": ["Ann", "Ben", "Cy"]})
    assert status == 201
    before = database.stat().st_mtime_ns
    second = start(servers, database)
    code, output = second.finish()
    assert code == 3
    assert "Another Crownkeeper" in output
    assert f"process {first.process.pid}" in output
    assert str(first.port) in output
    assert "Traceback" not in output
    assert database.stat().st_mtime_ns == before
    # The first one still serves; once it is killed (-9), the lock goes with it.
    assert first.call("GET", f"/api/games/{game['code']}")[0] == 200
    first.kill()
    third = start(servers, database).wait_healthy()
    assert third.call("GET", f"/api/games/{game['code']}")[1]["players"] == ["Ann", "Ben", "Cy"]


def write_foreign_database(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute("INSERT INTO notes (text) VALUES ('shopping')")


def write_mismatched_stamp(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        connection.execute(f"INSERT INTO alembic_version VALUES ('{HEAD_REVISION}')")
        connection.execute("CREATE TABLE game (id INTEGER PRIMARY KEY, code TEXT)")


def write_text(path: Path) -> None:
    path.write_text("these are my holiday notes, not a database\n" * 20)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (write_text, "is not a database file"),
        (write_foreign_database, "some other program"),
        (write_mismatched_stamp, "version stamp"),
    ],
)
def test_a_file_that_is_not_a_crownkeeper_database_is_refused_in_words(
    tmp_path, servers, make, words
):
    database = tmp_path / "crownkeeper.db"
    make(database)
    before = database.read_bytes()
    code, output = start(servers, database).finish()
    assert code == 3
    assert words in output
    assert "Traceback" not in output
    assert len(output.strip().splitlines()) == 1, output
    assert database.read_bytes() == before


def test_four_huge_bodies_leave_memory_flat_and_other_requests_fast(tmp_path, servers):
    server = start(servers, tmp_path / "crownkeeper.db").wait_healthy()
    _, game = server.call("POST", "/api/games", {"players": ["Ann", "Ben", "Cy"]})
    for _ in range(3):
        server.call("GET", f"/api/games/{game['code']}")
    before = server.rss_kb()
    size = 20 * 1024 * 1024
    statuses: list[int | str] = []

    def send_big(chunked: bool) -> None:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
        try:
            head = "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            head += (
                "Transfer-Encoding: chunked\r\n\r\n"
                if chunked
                else f"Content-Length: {size}\r\n\r\n"
            )
            sock.sendall(head.encode())
            block = b"[" * 65536
            sent = 0
            while sent < size:
                sock.sendall(b"10000\r\n" + block + b"\r\n" if chunked else block)
                sent += len(block)
        except OSError:
            pass  # refused mid-body: the server closed the connection, as it should
        try:
            statuses.append(int(sock.recv(4096).split(b" ")[1]))
        except (OSError, IndexError, ValueError) as error:
            statuses.append(repr(error))
        finally:
            sock.close()

    senders = [threading.Thread(target=send_big, args=(i % 2 == 1,)) for i in range(4)]
    for sender in senders:
        sender.start()
    slowest = 0.0
    while any(sender.is_alive() for sender in senders):
        began = time.monotonic()
        assert server.call("GET", f"/api/games/{game['code']}")[0] == 200
        slowest = max(slowest, time.monotonic() - began)
        time.sleep(0.05)
    for sender in senders:
        sender.join()
    grown_mb = (server.rss_kb() - before) / 1024
    assert grown_mb < 20, f"RSS grew by {grown_mb:.1f} MB"
    assert slowest < 1.0, f"a GET took {slowest:.2f} s during the big bodies"
    assert statuses.count(413) >= 2, statuses
    assert server.call("GET", "/healthz")[0] == 200


def test_every_acknowledged_round_survives_kill_9_during_saves(tmp_path, servers):
    database = tmp_path / "crownkeeper.db"
    server = start(servers, database).wait_healthy()
    games = [
        server.call("POST", "/api/games", {"players": ["Ann", "Ben", "Cy"]})[1] for _ in range(4)
    ]
    acknowledged: dict[str, int] = {game["code"]: 0 for game in games}

    def save_rounds(code: str) -> None:
        for number in range(1, 12):
            try:
                status, _ = server.call(
                    "PUT", f"/api/games/{code}/rounds/{number}", {"results": results()}
                )
            except OSError:
                return
            if status != 200:
                return
            acknowledged[code] = number

    writers = [threading.Thread(target=save_rounds, args=(g["code"],)) for g in games]
    for writer in writers:
        writer.start()
    deadline = time.monotonic() + 10
    while sum(acknowledged.values()) < 8 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()
    for writer in writers:
        writer.join()
    assert sum(acknowledged.values()) >= 8
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    again = start(servers, database).wait_healthy()
    for code, saved in acknowledged.items():
        rounds = again.call("GET", f"/api/games/{code}")[1]["rounds"]
        kept = sum(r["scores"] is not None for r in rounds)
        assert kept >= saved, f"{code}: {saved} acknowledged, {kept} kept"
        if saved:
            assert rounds[0]["scores"] == [0, 21, 22]
