"""Deleted games go for good once they can no longer be restored (30 days): at start and
then daily, every row of theirs, the table's copy included; younger deletes stay."""

import asyncio
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import text

from app import housekeeping
from app.db import make_engine
from app.games import purge_deleted
from app.main import create_app
from tests.aio import run_scenario
from tests.tables_helpers import new_table, play, table_game

ROWS_OF_A_GAME = {
    "seat": "game_id",
    "game_round": "game_id",
    "table_game": "game_id",
    "person_game": "game_id",
    "replaced_code": "game_id",
}


def rows_left(engine, game_id):
    with engine.connect() as db:
        counts = {
            table: db.execute(
                text(f"SELECT count(*) FROM {table} WHERE {column} = :g"), {"g": game_id}
            ).scalar_one()
            for table, column in ROWS_OF_A_GAME.items()
        }
        counts["game"] = db.execute(
            text("SELECT count(*) FROM game WHERE id = :g"), {"g": game_id}
        ).scalar_one()
        counts["seat_score"] = db.execute(
            text(
                "SELECT count(*) FROM seat_score WHERE round_id IN "
                "(SELECT id FROM game_round WHERE game_id = :g)"
            ),
            {"g": game_id},
        ).scalar_one()
    return counts


def test_games_deleted_over_30_days_ago_are_purged_at_start(settings):
    engine = make_engine(settings.database_url)
    try:
        with TestClient(create_app(settings)) as client:
            table = new_table(client)
            old = table_game(client, table, ["Ann", "Ben"])
            recent = table_game(client, table, ["Ann", "Cy"])
            kept = table_game(client, table, ["Ben", "Cy"])
            for game in (old, recent, kept):
                play(client, game, [[0, 13], [7, 0]])
            for game in (old, recent):
                assert client.delete(f"/api/games/{game['code']}").status_code == 200
            stats_before = client.get(f"/api/tables/{table['code']}").json()["people"]
        now = datetime.now(UTC)
        with engine.begin() as db:
            for game, days in ((old, 31), (recent, 29)):
                db.execute(
                    text("UPDATE game SET deleted_at = :at WHERE code = :code"),
                    {"at": now - timedelta(days=days), "code": game["code"]},
                )
            old_id, recent_id = (
                db.execute(
                    text("SELECT id FROM game WHERE code = :c"), {"c": g["code"]}
                ).scalar_one()
                for g in (old, recent)
            )

        with TestClient(create_app(settings)) as client:
            assert set(rows_left(engine, old_id).values()) == {0}
            assert rows_left(engine, recent_id)["game"] == 1
            assert rows_left(engine, recent_id)["seat_score"] == 4
            # The purged game was already out of every sum: nobody's stats moved.
            assert client.get(f"/api/tables/{table['code']}").json()["people"] == stats_before
            assert client.post(f"/api/games/{old['code']}/restore").status_code == 404
            assert client.post(f"/api/games/{recent['code']}/restore").status_code == 200
            table_now = client.get(f"/api/tables/{table['code']}").json()
            assert table_now["game_count"] == 2  # the restored one and the one never deleted
    finally:
        engine.dispose()


def test_the_daily_purge_runs_again_and_again(monkeypatch):
    calls = []
    monkeypatch.setattr(housekeeping, "purge_once", lambda sessions: calls.append(sessions) or 0)

    async def run_a_while():
        task = asyncio.create_task(housekeeping.purge_daily("sessions", every=0.01))
        await asyncio.sleep(0.1)
        task.cancel()

    run_scenario(run_a_while)
    assert len(calls) >= 3 and set(calls) == {"sessions"}


def test_purging_nothing_changes_nothing(settings):
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
        with client.app.state.sessions() as session:
            assert purge_deleted(session) == 0
        assert client.get(f"/api/games/{game['code']}").status_code == 200
