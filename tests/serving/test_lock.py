"""One server per database, by the file itself: a second path to the same SQLite file (a
hard link in another folder) finds it taken, and a server's app refuses to start on it."""

import os

import pytest
from fastapi.testclient import TestClient

from app import lock
from app.main import create_app
from tests.conftest import test_settings


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "home" / "crownkeeper.db"
    path.parent.mkdir()
    app = create_app(test_settings(f"sqlite:///{path}"))
    with TestClient(app):
        pass  # the first start makes the database
    app.state.engine.dispose()
    return path


def hard_link(database, tmp_path):
    other = tmp_path / "elsewhere" / "family.db"
    other.parent.mkdir()
    os.link(database, other)
    return other


def test_a_hard_link_to_a_held_database_is_refused(database, tmp_path):
    other = hard_link(database, tmp_path)
    held = lock.acquire(database.resolve(), port=8000)
    try:
        with pytest.raises(lock.DatabaseInUse) as refused:
            lock.acquire(other.resolve(), port=8001)
        assert "another path" in str(refused.value)
        assert f"(process {os.getpid()} on " in str(refused.value)  # the holder, named
        assert "serving on 8000" in str(refused.value)
        assert "Only one server may use a database at a time" in str(refused.value)
    finally:
        lock.release(held)
    # Once the first lets go, the other path may take it.
    lock.release(lock.acquire(other.resolve()))


def test_a_second_server_on_a_hard_link_does_not_start(database, tmp_path):
    other = hard_link(database, tmp_path)
    first = create_app(test_settings(f"sqlite:///{database}"))
    with TestClient(first) as client:
        assert client.get("/healthz").status_code == 200
        second = create_app(test_settings(f"sqlite:///{other}"))
        with pytest.raises(lock.DatabaseInUse, match="reached by another path"), TestClient(second):
            pass
        second.state.engine.dispose()
    first.state.engine.dispose()


def test_the_path_alone_still_guards_a_database_not_yet_made(tmp_path):
    path = tmp_path / "new.db"
    held = lock.acquire(path)
    try:
        with pytest.raises(lock.DatabaseInUse):
            lock.acquire(path)
    finally:
        lock.release(held)
