"""Backups that restore: a consistent copy while four threads save rounds, the backup and
restore commands, and the daily backups in BACKUP_DIR."""

import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import lock
from app.backup import NotCrownkeeper, check_copy, daily_backup, write_backup
from app.db import make_engine
from app.games import create_game, save_round
from app.main import create_app
from app.migrate import upgrade_to_head
from app.rules.scoring import SeatResult
from tests.conftest import test_settings
from tests.databases import wired_session

ROOT = Path(__file__).resolve().parents[2]


def results(seat_count=3):
    # Points a leftover hand can reach in every round (20 and 21 are; 10 is not in round 1).
    return [SeatResult(went_out=True)] + [SeatResult(points=20 + s) for s in range(seat_count - 1)]


def saved_rounds(database: Path) -> set[tuple[str, int]]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT DISTINCT game.code, game_round.number FROM seat_score "
            "JOIN game_round ON game_round.id = seat_score.round_id "
            "JOIN game ON game.id = game_round.game_id "
            "WHERE seat_score.replaced_at IS NULL ORDER BY game.code, game_round.number"
        ).fetchall()
    return {(code, number) for code, number in rows}


def test_a_backup_taken_during_saves_holds_every_acknowledged_round(tmp_path):
    database = tmp_path / "crownkeeper.db"
    engine = make_engine(f"sqlite:///{database}")
    upgrade_to_head(engine)
    with wired_session(engine) as session:
        codes = [create_game(session, players=["Ann", "Ben", "Cy"]).code for _ in range(4)]
    acknowledged: list[tuple[str, int]] = []
    guard = threading.Lock()

    def writer(code: str) -> None:
        for number in range(1, 12):
            with wired_session(engine) as session:
                save_round(session, code=code, number=number, results=results())
            with guard:
                acknowledged.append((code, number))

    threads = [threading.Thread(target=writer, args=(code,)) for code in codes]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 8 and time.monotonic() < deadline:
        time.sleep(0.005)
    with guard:
        before = set(acknowledged)
    copy = write_backup(database, tmp_path / "backups" / "during.db")
    still_saving = any(thread.is_alive() for thread in threads)
    for thread in threads:
        thread.join()
    engine.dispose()
    assert len(before) >= 8
    assert before <= saved_rounds(copy)
    with sqlite3.connect(copy) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    check_copy(copy)
    # The live database went on to get every round; the copy is a snapshot of a moment.
    assert len(saved_rounds(database)) == 44
    assert still_saving or len(saved_rounds(copy)) == 44


def run_app(*arguments: str, database: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", **env}
    return subprocess.run(
        [sys.executable, "-m", "app", *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_backup_and_restore_bring_a_game_back_exactly(tmp_path):
    database = tmp_path / "data" / "crownkeeper.db"
    app = create_app(test_settings(f"sqlite:///{database}"))
    with TestClient(app) as client:
        game = client.post("/api/games", json={"players": ["Ann", "Ben", "Cy"]}).json()
        code = game["code"]
        for number in (1, 2, 3):
            # Two wilds kept after laying down in round 3: kept all the same.
            held = {"cards": ["5H", "JOKER"], "confirmed": True}
            rounds = [{"went_out": True}, held, {"points": 20 + number}]
            client.put(f"/api/games/{code}/rounds/{number}", json={"results": rounds})
        kept = client.get(f"/api/games/{code}").json()

        # The backup command, while the app has the database open.
        made = run_app("backup", database=database)
        assert made.returncode == 0, made.stderr
        assert made.stdout.startswith("Backup written to ")
        copy = Path(made.stdout.removeprefix("Backup written to ").strip())
        assert copy.parent == database.parent / "backups" and copy.is_file()

        # Later the game changes (and goes wrong).
        client.put(
            f"/api/games/{code}/rounds/1",
            json={"results": [{"points": 40}, {"went_out": True}, {"points": 40}]},
        )
        client.post(f"/api/games/{code}/finish")
    app.state.engine.dispose()

    # While a server holds the database, restore refuses and changes nothing.
    held = lock.acquire(database.resolve(), port=8000)
    try:
        refused = run_app("restore", str(copy), database=database)
    finally:
        lock.release(held)
    assert refused.returncode == 3
    assert "Not restored" in refused.stderr and "Another Crownkeeper" in refused.stderr

    restored = run_app("restore", str(copy), database=database)
    assert restored.returncode == 0, restored.stderr
    set_aside = list(database.parent.glob("crownkeeper.db.replaced-*"))
    assert len(set_aside) == 1
    assert str(set_aside[0]) in restored.stdout
    with TestClient(create_app(test_settings(f"sqlite:///{database}"))) as client:
        assert client.get(f"/api/games/{code}").json() == kept
    # The replaced file is whole: it still has the later change.
    with sqlite3.connect(set_aside[0]) as connection:
        assert connection.execute("SELECT finished_at FROM game").fetchone()[0] is not None


def test_backup_to_a_path_given(tmp_path):
    database = tmp_path / "crownkeeper.db"
    with TestClient(create_app(test_settings(f"sqlite:///{database}"))) as client:
        client.post("/api/games", json={"players": ["Ann", "Ben"]})
    made = run_app("backup", str(tmp_path / "copies" / "mine.db"), database=database)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == f"Backup written to {tmp_path / 'copies' / 'mine.db'}"
    check_copy(tmp_path / "copies" / "mine.db")


def test_restore_refuses_a_copy_that_is_not_a_sound_crownkeeper_database(tmp_path):
    database = tmp_path / "crownkeeper.db"
    with TestClient(create_app(test_settings(f"sqlite:///{database}"))):
        pass
    before = database.read_bytes()
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(before[:4096] + b"\x00garbage" * 1000)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    for bad in (damaged, other):
        with pytest.raises(NotCrownkeeper):
            check_copy(bad)
    refused = run_app("restore", str(other), database=database)
    assert refused.returncode == 3
    assert "some other program" in refused.stderr
    assert database.read_bytes() == before


def test_daily_backups_keep_the_newest(tmp_path):
    database = tmp_path / "crownkeeper.db"
    engine = make_engine(f"sqlite:///{database}")
    upgrade_to_head(engine)
    engine.dispose()
    folder = tmp_path / "backups"
    folder.mkdir()
    for day in range(1, 21):
        (folder / f"crownkeeper-2026-10-{day:02d}.db").write_bytes(b"old")
    (folder / "notes.txt").write_text("not a backup")
    daily_backup(database, folder, keep=14, today="2026-11-30")
    daily_backup(database, folder, keep=14, today="2026-11-30")  # once a day, not twice
    kept = sorted(p.name for p in folder.iterdir())
    assert len(kept) == 15 and "notes.txt" in kept
    assert kept[-2] == "crownkeeper-2026-11-30.db"
    assert kept[0] == "crownkeeper-2026-10-08.db"
    check_copy(folder / "crownkeeper-2026-11-30.db")


def test_the_server_writes_a_daily_backup_into_backup_dir(tmp_path):
    folder = tmp_path / "backups"
    settings = test_settings(
        f"sqlite:///{tmp_path}/crownkeeper.db", backup_dir=str(folder), backup_keep=3
    )
    with TestClient(create_app(settings)):
        deadline = time.monotonic() + 20
        while not list(folder.glob("crownkeeper-*.db")) and time.monotonic() < deadline:
            time.sleep(0.05)
    written = list(folder.glob("crownkeeper-*.db"))
    assert len(written) == 1
    check_copy(written[0])


def test_backups_on_postgresql_point_to_its_own_tools(capsys):
    from app.commands import run_command
    from tests.conftest import test_settings

    settings = test_settings("postgresql+psycopg://keeper@127.0.0.1/crownkeeper")
    assert run_command(["backup"], settings) == 2
    assert "pg_dump" in capsys.readouterr().err
