"""Safeguards that hold however the server is started: `python -m app`, `uvicorn
app.main:app`, `uvicorn --factory app.main:create_app`, `fastapi run app/main.py`, uvicorn
or gunicorn with several workers. Each takes the SQLite lock, refuses a second worker process
on SQLite and brings the database up to date in the app's lifespan; a second server on the
same file stops at once naming the first, and `restore` refuses while any of them runs.

Real servers on 127.0.0.1, each in a process of its own, started the way an operator would.
"""

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient

from app import lock
from app.backup import write_backup
from app.main import create_app
from app.serve import CANNOT_START
from tests.aio import run_scenario
from tests.conftest import test_settings

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def python_m_app(port: int) -> list[str]:
    return [sys.executable, "-m", "app"]  # HOST and PORT come from the environment


def uvicorn_app(port: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", "app.main:app", *bind(port)]


def uvicorn_factory(port: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", "--factory", "app.main:create_app", *bind(port)]


def fastapi_run(port: int) -> list[str]:
    return [sys.executable, "-m", "fastapi", "run", "app/main.py", *bind(port)]


def bind(port: int) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(port)]


WAYS = {
    "python -m app": python_m_app,
    "uvicorn app.main:app": uvicorn_app,
    "uvicorn --factory": uvicorn_factory,
    "fastapi run": fastapi_run,
}


class Started:
    """One server process started a given way, its output in a file."""

    def __init__(self, way, database_url: str, log: Path, *extra: str, **env: str) -> None:
        self.way = way
        self.extra = extra
        self.log = log
        self.environment = {
            **os.environ,
            "DATABASE_URL": database_url,
            "HOST": "127.0.0.1",
            "CREATE_RATE_LIMIT": "off",
            **env,
        }
        self._launch()

    def _launch(self) -> None:
        # A free port now may be taken before the server binds it: wait_healthy then starts
        # it again on another.
        self.port = free_port()
        self.environment["PORT"] = str(self.port)
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [*self.way(self.port), *self.extra],
                cwd=ROOT,
                env=self.environment,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_healthy(self, tries: int = 3) -> "Started":
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "address already in use" in self.output().lower() and tries > 1:
                    self._launch()
                    return self.wait_healthy(tries - 1)
                raise AssertionError(f"the server ended:\n{self.output()}")
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"the server did not become healthy:\n{self.output()}")

    def call(self, method: str, path: str, body: object = None) -> tuple[int, object]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            payload = None if body is None else json.dumps(body)
            connection.request(method, path, payload, {"content-type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()

    def finish(self, timeout: float = START_TIMEOUT) -> tuple[int, str]:
        """Wait for the process to end by itself: its exit code and output."""
        code = self.process.wait(timeout=timeout)
        return code, self.output()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def started(tmp_path) -> Iterator[list[Started]]:
    servers: list[Started] = []
    yield servers
    for server in servers:
        server.stop()


def start(started, way, database_url, name, *extra, **env) -> Started:
    server = Started(way, database_url, started_log(database_url, name), *extra, **env)
    started.append(server)
    return server


def started_log(database_url: str, name: str) -> Path:
    return Path(database_url.removeprefix("sqlite:///")).parent / f"{name}.log"


def app_command(*arguments: str, database: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "DATABASE_URL": f"sqlite:///{database}"}
    return subprocess.run(
        [sys.executable, "-m", "app", *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


# Each way starts the first server once; the second tries both kinds of refusal: the one
# `python -m app` says before it starts uvicorn, and the lifespan's (through another way).
SECOND_IN_LIFESPAN = {
    "python -m app": "uvicorn app.main:app",
    "uvicorn app.main:app": "uvicorn --factory",
    "uvicorn --factory": "fastapi run",
    "fastapi run": "uvicorn app.main:app",
}


@pytest.mark.parametrize("first_way", list(WAYS))
def test_a_second_server_on_the_file_stops_at_once_naming_the_first_and_restore_refuses(
    tmp_path, started, first_way
):
    database = tmp_path / "crownkeeper.db"
    url = f"sqlite:///{database}"
    first = start(started, WAYS[first_way], url, "first").wait_healthy()
    status, game = first.call("POST", "/api/games", {"players": ["Ann", "Ben", "Cy"]})
    assert status == 201
    assert lock.holder(database) is not None, "the server holds no lock on its database"
    before = database.stat().st_mtime_ns

    for second_way in ("python -m app", SECOND_IN_LIFESPAN[first_way]):
        second = start(started, WAYS[second_way], url, f"second-{second_way}")
        code, output = second.finish()
        assert code == CANNOT_START, output
        said = [line for line in output.splitlines() if "Crownkeeper cannot start" in line]
        assert len(said) == 1, output
        assert "Another Crownkeeper" in said[0]
        assert f"process {first.process.pid} on" in said[0], said[0]
        assert str(first.port) in said[0], said[0]  # its address, or the command that bound it
        assert "Traceback" not in output
    assert database.stat().st_mtime_ns == before

    write_backup(database, tmp_path / "copy.db")  # as `python -m app backup` does
    refused = app_command("restore", str(tmp_path / "copy.db"), database=database)
    assert refused.returncode == CANNOT_START
    assert "Not restored" in refused.stderr
    assert f"process {first.process.pid}" in refused.stderr

    # The first one still serves; once it has stopped, the lock is free again.
    assert first.call("GET", f"/api/games/{game['code']}")[0] == 200  # type: ignore[index]
    first.stop()
    assert lock.holder(database) is None


@pytest.mark.parametrize("first_way", list(WAYS))
def test_a_server_that_made_its_database_refuses_a_second_through_a_hard_link(
    tmp_path, started, first_way
):
    """The first start makes the file and holds it at once: a hard link made while it serves
    leads nowhere, the second server stops naming the first, and every game is in the file."""
    database = tmp_path / "home" / "crownkeeper.db"
    database.parent.mkdir()
    first = start(started, WAYS[first_way], f"sqlite:///{database}", "first").wait_healthy()
    other = tmp_path / "elsewhere" / "family.db"
    other.parent.mkdir()
    os.link(database, other)

    for second_way in ("python -m app", SECOND_IN_LIFESPAN[first_way]):
        second = start(started, WAYS[second_way], f"sqlite:///{other}", f"second-{second_way}")
        code, output = second.finish()
        assert code == CANNOT_START, output
        said = [line for line in output.splitlines() if "Crownkeeper cannot start" in line]
        assert len(said) == 1, output
        assert "reached by another path" in said[0]
        assert f"Another Crownkeeper (process {first.process.pid} on" in said[0], said[0]
        assert str(first.port) in said[0], said[0]
        assert "Traceback" not in output

    made = [first.call("POST", "/api/games", {"players": ["Ann", "Ben"]}) for _ in range(3)]
    assert [status for status, _ in made] == [201] * 3
    first.stop()
    with closing(sqlite3.connect(other)) as connection:
        (games,) = connection.execute("SELECT count(*) FROM game").fetchone()
    assert games == 3


def test_uvicorn_with_two_workers_on_sqlite_stops_saying_sqlite_serves_one_process(
    tmp_path, started
):
    """Each worker runs the lifespan: the second finds the lock held by the first, a worker
    of the same server, and says so; uvicorn then stops the whole server (so does
    WEB_CONCURRENCY=2, which uvicorn and gunicorn read as their worker count)."""
    url = f"sqlite:///{tmp_path}/crownkeeper.db"
    server = start(started, uvicorn_app, url, "workers", "--workers", "2")
    _, output = server.finish()
    said = [line for line in output.splitlines() if "Crownkeeper cannot start" in line]
    assert len(said) == 1, output
    assert "SQLite serves one process" in said[0]
    assert "WORKERS=1" in said[0] and "postgresql+psycopg://" in said[0]
    assert "Traceback" not in output
    assert lock.holder(tmp_path / "crownkeeper.db") is None  # every worker has stopped


def test_gunicorn_with_uvicorn_workers_takes_the_same_safeguards(tmp_path, started):
    """gunicorn is no dependency of Crownkeeper: run where it is installed (with
    uvicorn-worker), skipped elsewhere; uvicorn's own workers are tested above."""
    pytest.importorskip("gunicorn", reason="gunicorn is not installed (not a dependency)")
    pytest.importorskip("uvicorn_worker", reason="uvicorn-worker is not installed")
    database = tmp_path / "crownkeeper.db"
    url = f"sqlite:///{database}"

    def gunicorn(workers: int):
        def command(port: int) -> list[str]:
            return [
                *[sys.executable, "-m", "gunicorn", "-k", "uvicorn_worker.UvicornWorker"],
                *["-w", str(workers), "-b", f"127.0.0.1:{port}", "app.main:app"],
            ]

        return command

    code, output = start(started, gunicorn(2), url, "two").finish()
    assert code == CANNOT_START and "SQLite serves one process" in output, output
    assert lock.holder(database) is None

    first = start(started, uvicorn_app, url, "first").wait_healthy()
    code, output = start(started, gunicorn(1), url, "one").finish()
    assert code == CANNOT_START, output
    assert f"Another Crownkeeper (process {first.process.pid} on" in output


@pytest.mark.postgresql
def test_uvicorn_workers_on_a_new_postgresql_database_migrate_in_turn_and_serve(
    postgres_server, tmp_path, started
):
    name, url = postgres_server.create_database()
    try:
        server = Started(uvicorn_app, url, tmp_path / "workers.log", "--workers", "2")
        started.append(server)
        server.wait_healthy()
        deadline = time.monotonic() + START_TIMEOUT
        while server.output().count("Application startup complete") < 2:
            assert server.process.poll() is None, server.output()
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        status, game = server.call("POST", "/api/games", {"players": ["Ann", "Ben"]})
        assert status == 201, game
        assert "Traceback" not in server.output()
        server.stop()
    finally:
        postgres_server.drop_database(name)


def test_importing_app_main_starts_nothing_and_app_is_built_on_first_use(tmp_path):
    folder = tmp_path / "not-yet"
    script = (
        "import sys, app.main as main\n"
        "assert 'app' not in vars(main) and 'app' in dir(main)\n"
        f"assert not __import__('os').path.exists({str(folder)!r})\n"
        "from app.main import app\n"
        "from fastapi import FastAPI\n"
        "assert isinstance(app, FastAPI) and main.app is app\n"
        "print('built')\n"
    )
    environment = {**os.environ, "DATABASE_URL": f"sqlite:///{folder}/crownkeeper.db"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "built"
    # Built, not started: no database and no lock until a server's lifespan runs.
    assert not (folder / "crownkeeper.db").exists()
    assert not (folder / "crownkeeper.db.lock").exists()


def test_apps_of_one_process_share_its_lock_and_give_it_back(tmp_path):
    database = tmp_path / "crownkeeper.db"
    settings = test_settings(f"sqlite:///{database}")
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        assert one.get("/healthz").status_code == two.get("/healthz").status_code == 200
        assert lock.holder(database) is not None
    assert lock.holder(database) is None


def test_a_refused_start_is_one_line_in_the_lifespan_failure(tmp_path):
    database = tmp_path / "crownkeeper.db"
    held = lock.acquire(database.resolve(), listen="127.0.0.1", port=8123)
    try:
        app = create_app(test_settings(f"sqlite:///{database}"))
        with pytest.raises(lock.DatabaseInUse), TestClient(app):
            pass
        sent = run_scenario(lambda: run_lifespan(app))
    finally:
        lock.release(held)
    assert sent[0]["type"] == "lifespan.startup.failed"
    message = sent[0]["message"]
    assert message.startswith("Crownkeeper cannot start: Another Crownkeeper (process ")
    assert "serving on 127.0.0.1:8123" in message
    assert "\n" not in message and "Traceback" not in message
    assert not database.exists()


async def run_lifespan(app) -> list[dict]:
    """Start app's lifespan as a server does; the messages the app sent back."""
    sent: list[dict] = []
    asked = False

    async def receive() -> dict:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "lifespan.startup"}
        await anyio.sleep_forever()
        raise AssertionError("not reached")

    async def send(message: dict) -> None:
        sent.append(message)

    with pytest.raises(lock.DatabaseInUse):
        await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)
    return sent


def test_the_lock_file_names_the_start_command_without_its_passwords(monkeypatch):
    from app.serve import _command

    monkeypatch.setattr(
        sys,
        "argv",
        ["/srv/.venv/bin/uvicorn", "app.main:app", "--ssl-keyfile-password", "hunter2"]
        + ["--port", "8000", "--token=abc"],
    )
    assert _command() == "uvicorn app.main:app --ssl-keyfile-password ... --port 8000 --token=..."
    monkeypatch.setattr(sys, "argv", ["/srv/lib/gunicorn/__main__.py", "-w", "1"])
    assert _command() == "python -m gunicorn -w 1"
