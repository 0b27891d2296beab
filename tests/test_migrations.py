"""Migrations keep every saved game, and the app will not run on a newer database."""

import pytest
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlmodel import Session

from app.db import make_engine
from app.games import load_game
from app.main import create_app
from app.migrate import DatabaseTooNew, alembic_config, upgrade_to_head
from tests.conftest import test_settings

FIRST_REVISION = "0001"


def test_a_game_saved_at_the_first_revision_survives_every_upgrade(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path}/old.db")
    upgrade_to_head(engine, revision=FIRST_REVISION)
    with engine.begin() as db:
        db.execute(
            text(
                "INSERT INTO game (id, code, first_dealer, created_at, version) "
                "VALUES (1, 'oldgamecode', 1, '2026-01-01 20:00:00', 2)"
            )
        )
        for position, name in enumerate(["Ann", "Ben", "Cy"]):
            db.execute(
                text("INSERT INTO seat (game_id, position, name) VALUES (1, :p, :n)"),
                {"p": position, "n": name},
            )
        for number in range(1, 12):
            db.execute(
                text(
                    "INSERT INTO game_round (id, game_id, number, cards_dealt, wild_rank, "
                    "dealer) VALUES (:n, 1, :n, :c, :c, :d)"
                ),
                {"n": number, "c": number + 2, "d": number % 3},
            )
        for position, (points, out, cards) in enumerate(
            [(0, 1, None), (64, 0, "5R,9H,JOKER"), (17, 0, None)]
        ):
            db.execute(
                text(
                    "INSERT INTO seat_score (round_id, position, points, went_out, cards, "
                    "saved_at) VALUES (1, :p, :pts, :o, :c, '2026-01-01 20:10:00')"
                ),
                {"p": position, "pts": points, "o": out, "c": cards},
            )
    upgrade_to_head(engine)
    with Session(engine) as session:
        state = load_game(session, code="oldgamecode")
    assert state.players == ("Ann", "Ben", "Cy")
    assert state.totals == [0, 64, 17]
    assert state.rounds[0].went_out == 0
    assert [c.code for c in state.rounds[0].entries[1].cards] == ["5R", "9H", "JOKER"]
    assert state.current_round.number == 2
    assert state.rounds[1].dealer == 2
    assert len(state.watch_code) >= 22 and state.watch_code != "oldgamecode"
    engine.dispose()


def test_head_is_a_single_revision():
    assert len(ScriptDirectory.from_config(alembic_config()).get_heads()) == 1


def test_the_app_refuses_a_database_from_a_newer_version(tmp_path):
    url = f"sqlite:///{tmp_path}/new.db"
    engine = make_engine(url)
    upgrade_to_head(engine)
    with engine.begin() as db:
        db.execute(text("UPDATE alembic_version SET version_num = 'from_the_future'"))
    with pytest.raises(DatabaseTooNew, match="newer version"):
        upgrade_to_head(engine)
    with pytest.raises(DatabaseTooNew), TestClient(create_app(test_settings(url))):
        pass
    engine.dispose()


def test_start_creates_the_tables(tmp_path):
    url = f"sqlite:///{tmp_path}/fresh.db"
    with TestClient(create_app(test_settings(url))) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
    engine = make_engine(url)
    with engine.connect() as db:
        tables = {row[0] for row in db.execute(text("SELECT name FROM sqlite_master"))}
        assert {"game", "seat", "game_round", "seat_score", "alembic_version"} <= tables
        assert db.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert db.execute(text("PRAGMA foreign_keys")).scalar() == 1
    engine.dispose()
