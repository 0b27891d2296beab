"""Migrations keep every saved game, and the app will not run on a newer database."""

import json
import threading

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from app.db import make_engine
from app.games import create_game, load_game
from app.main import create_app
from app.migrate import DatabaseTooNew, alembic_config, downgrade_to, upgrade_to_head
from tests.conftest import test_settings
from tests.databases import wired_session
from tests.tables_helpers import new_table, person, play, table_game

FIRST_REVISION = "0001"


def test_a_game_saved_at_the_first_revision_survives_every_upgrade(database_url):
    engine = make_engine(database_url)
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
            [(0, True, None), (64, False, "5R,9H,JOKER"), (17, False, None)]
        ):
            db.execute(
                text(
                    "INSERT INTO seat_score (round_id, position, points, went_out, cards, "
                    "saved_at) VALUES (1, :p, :pts, :o, :c, '2026-01-01 20:10:00')"
                ),
                {"p": position, "pts": points, "o": out, "c": cards},
            )
    upgrade_to_head(engine)
    with wired_session(engine) as session:
        state = load_game(session, code="oldgamecode")
    assert state.players == ("Ann", "Ben", "Cy")
    assert state.totals == [0, 64, 17]
    assert state.rounds[0].went_out == 0
    assert [c.code for c in state.rounds[0].entries[1].cards] == ["5R", "9H", "JOKER"]
    assert state.current_round.number == 2
    assert state.rounds[1].dealer == 2
    assert len(state.watch_code) >= 22 and state.watch_code != "oldgamecode"
    # The round plans are written down as the game was played: everyone in every round,
    # the dealer's left-hand neighbour first, the rulebook's order.
    assert state.mode == "game" and state.order == "up"
    assert [r.kind for r in state.rounds] == ["round"] * 11
    assert [r.cards_dealt for r in state.rounds] == list(range(3, 14))
    assert [r.dealer for r in state.rounds] == [n % 3 for n in range(1, 12)]
    assert [r.first_player for r in state.rounds] == [(n + 1) % 3 for n in range(1, 12)]
    assert all(r.players_in == (0, 1, 2) for r in state.rounds)
    assert [(p.start_points, p.joined_round, p.left_round) for p in state.seats] == [
        (0, None, None)
    ] * 3
    assert state.rounds[0].scores == [0, 64, 17]
    assert state.rounds[0].layout is None
    assert state.leaders == [0] and not state.finished and state.version == 2
    engine.dispose()


def test_an_upgraded_game_plays_on(database_url):
    url = database_url
    engine = make_engine(url)
    upgrade_to_head(engine, revision="0002")
    with engine.begin() as db:
        db.execute(
            text(
                "INSERT INTO game (id, code, watch_code, first_dealer, created_at, version) "
                "VALUES (1, 'oldgamecode', 'oldwatchcode', 0, '2026-01-01 20:00:00', 1)"
            )
        )
        for position, name in enumerate(["Ann", "Ben"]):
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
                {"n": number, "c": number + 2, "d": (number - 1) % 2},
            )
    engine.dispose()
    with TestClient(create_app(test_settings(url))) as client:
        saved = client.put(
            "/api/games/oldgamecode/rounds/1",
            json={"results": [{"went_out": True}, {"points": 20}]},
        )
        assert saved.status_code == 200, saved.text
        game = client.post("/api/games/oldgamecode/players", json={"name": "Cy"}).json()
        assert game["players"] == ["Ann", "Ben", "Cy"]
        assert game["rounds"][1]["dealer"] == 1
        assert game["rounds"][1]["players_in"] == [0, 1, 2]
        assert game["rounds"][0]["scores"] == [0, 20, None]


def test_head_is_a_single_revision():
    assert len(ScriptDirectory.from_config(alembic_config()).get_heads()) == 1


def test_the_app_refuses_a_database_from_a_newer_version(database_url):
    url = database_url
    engine = make_engine(url)
    upgrade_to_head(engine)
    with engine.begin() as db:
        db.execute(text("UPDATE alembic_version SET version_num = 'from_the_future'"))
    with pytest.raises(DatabaseTooNew, match="newer version"):
        upgrade_to_head(engine)
    with pytest.raises(DatabaseTooNew), TestClient(create_app(test_settings(url))):
        pass
    engine.dispose()


def test_start_creates_the_tables(database_url):
    with TestClient(create_app(test_settings(database_url))) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
    engine = make_engine(database_url)
    tables = set(inspect(engine).get_table_names())
    assert {"game", "seat", "game_round", "seat_score", "alembic_version"} <= tables
    if engine.dialect.name == "sqlite":
        with engine.connect() as db:
            assert db.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert db.execute(text("PRAGMA foreign_keys")).scalar() == 1
    engine.dispose()


def games_at_first_revision(engine, count):
    """count games written the way revision 0001 stored them, each with its own round 1."""
    with engine.begin() as db:
        for game_id in range(1, count + 1):
            db.execute(
                text(
                    "INSERT INTO game (id, code, first_dealer, created_at, version) "
                    "VALUES (:id, :code, 0, '2026-01-01 20:00:00', 2)"
                ),
                {"id": game_id, "code": f"keeper-code-{game_id}"},
            )
            for position, name in enumerate(["Ann", "Ben"]):
                db.execute(
                    text("INSERT INTO seat (game_id, position, name) VALUES (:g, :p, :n)"),
                    {"g": game_id, "p": position, "n": f"{name}{game_id}"},
                )
            for number in range(1, 12):
                db.execute(
                    text(
                        "INSERT INTO game_round (game_id, number, cards_dealt, wild_rank, "
                        "dealer) VALUES (:g, :n, :c, :c, :d)"
                    ),
                    {"g": game_id, "n": number, "c": number + 2, "d": (number - 1) % 2},
                )
            round_id = db.execute(
                text("SELECT id FROM game_round WHERE game_id = :g AND number = 1"), {"g": game_id}
            ).scalar()
            for position, points in enumerate([0, 10 * game_id]):
                db.execute(
                    text(
                        "INSERT INTO seat_score (round_id, position, points, went_out, "
                        "saved_at) VALUES (:r, :p, :pts, :o, '2026-01-01 20:10:00')"
                    ),
                    {"r": round_id, "p": position, "pts": points, "o": position == 0},
                )


def test_several_games_keep_their_own_codes_and_rounds_through_the_upgrade(database_url):
    engine = make_engine(database_url)
    upgrade_to_head(engine, revision=FIRST_REVISION)
    games_at_first_revision(engine, 4)
    upgrade_to_head(engine)
    watch_codes = set()
    with wired_session(engine) as session:
        for game_id in range(1, 5):
            state = load_game(session, code=f"keeper-code-{game_id}")
            assert state.players == (f"Ann{game_id}", f"Ben{game_id}")
            assert state.totals == [0, 10 * game_id]
            assert state.current_round.number == 2
            assert len(state.watch_code) >= 22
            watched = load_game(session, code=state.watch_code)
            assert watched.players == state.players and not watched.can_edit
            watch_codes.add(state.watch_code)
    assert len(watch_codes) == 4, "every game needs its own watch code"
    engine.dispose()


TABLE_TABLES = {
    "play_table",
    "person",
    "merged_person",
    "table_game",
    "table_version",
    "person_game",
}
OTHER_TABLES = {"create_count"}  # the create limit


def columns(engine, table):
    return {column["name"] for column in inspect(engine).get_columns(table)}


def tables(engine):
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def test_downgrades_really_undo_and_upgrading_again_works(database_url):
    engine = make_engine(database_url)
    upgrade_to_head(engine, revision=FIRST_REVISION)
    games_at_first_revision(engine, 2)
    upgrade_to_head(engine)
    assert "watch_code" in columns(engine, "game")

    downgrade_to(engine, FIRST_REVISION)
    assert "watch_code" not in columns(engine, "game")
    with engine.connect() as db:
        assert db.execute(text("SELECT count(*) FROM seat_score")).scalar() == 4
    upgrade_to_head(engine)
    with wired_session(engine) as session:
        state = load_game(session, code="keeper-code-2")
        assert state.totals == [0, 20]
        assert load_game(session, code=state.watch_code).players == ("Ann2", "Ben2")

    downgrade_to(engine, "base")
    assert tables(engine) == set()
    upgrade_to_head(engine)
    assert (
        tables(engine)
        == {"game", "seat", "game_round", "seat_score", "replaced_code"}
        | TABLE_TABLES
        | OTHER_TABLES
    )
    with wired_session(engine) as session:
        fresh = create_game(session, players=["Ann", "Ben"])
        assert load_game(session, code=fresh.watch_code).players == ("Ann", "Ben")
    downgrade_to(engine, "0002")  # replaced codes go; the games stay
    assert "replaced_code" not in tables(engine)
    upgrade_to_head(engine)
    with wired_session(engine) as session:
        assert load_game(session, code=fresh.code).players == ("Ann", "Ben")
    engine.dispose()


def test_two_games_can_never_share_a_code(database_url):
    engine = make_engine(database_url)
    upgrade_to_head(engine)
    insert = text(
        "INSERT INTO game (code, watch_code, uid, first_dealer, created_at, version) "
        "VALUES (:code, :watch, :uid, 0, '2026-01-01 20:00:00', 1)"
    )
    with engine.begin() as db:
        db.execute(insert, {"code": "same-code", "watch": "watch-1", "uid": "uid-1"})
    for clash in (
        {"code": "same-code", "watch": "watch-2", "uid": "uid-2"},
        {"code": "other", "watch": "watch-1", "uid": "uid-3"},
    ):
        with pytest.raises(IntegrityError), engine.begin() as db:
            db.execute(insert, clash)
    engine.dispose()


def test_the_models_and_the_migrations_describe_the_same_schema(database_url):
    engine = make_engine(database_url)
    upgrade_to_head(engine)
    with engine.connect() as db:
        context = MigrationContext.configure(db, opts={"compare_type": True})
        differences = compare_metadata(context, SQLModel.metadata)
    engine.dispose()
    assert differences == []


def test_tables_migration_keeps_every_game_and_gives_each_a_stable_id(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path}/before-tables.db")
    upgrade_to_head(engine, revision=FIRST_REVISION)
    with engine.begin() as db:
        for game_id, code in ((1, "firstgame"), (2, "secondgame")):
            db.execute(
                text(
                    "INSERT INTO game (id, code, first_dealer, created_at, finished_at, version) "
                    "VALUES (:id, :code, 0, '2026-01-01 20:00:00', :done, 3)"
                ),
                {
                    "id": game_id,
                    "code": code,
                    "done": "2026-01-01 21:00:00" if game_id == 1 else None,
                },
            )
            for position, name in enumerate(["Ann", "Ben"]):
                db.execute(
                    text("INSERT INTO seat (game_id, position, name) VALUES (:g, :p, :n)"),
                    {"g": game_id, "p": position, "n": name},
                )
            for number in range(1, 12):
                db.execute(
                    text(
                        "INSERT INTO game_round (game_id, number, cards_dealt, wild_rank, dealer) "
                        "VALUES (:g, :n, :c, :c, :d)"
                    ),
                    {"g": game_id, "n": number, "c": number + 2, "d": (number - 1) % 2},
                )
        round_ids = [row[0] for row in db.execute(text("SELECT id FROM game_round ORDER BY id"))]
        for round_id in round_ids[:2]:
            for position, points in enumerate([0, 12]):
                db.execute(
                    text(
                        "INSERT INTO seat_score (round_id, position, points, went_out, saved_at) "
                        "VALUES (:r, :p, :pts, :o, '2026-01-01 20:10:00')"
                    ),
                    {"r": round_id, "p": position, "pts": points, "o": position == 0},
                )
    upgrade_to_head(engine)
    with wired_session(engine) as session:
        first = load_game(session, code="firstgame")
        second = load_game(session, code="secondgame")
    assert first.finished and first.totals == [0, 24] and first.rounds_saved == 2
    assert first.version == 3 and first.winners == [0]
    assert not second.finished and second.current_round.number == 1
    assert len(first.uid) >= 16 and first.uid != second.uid
    assert not first.deleted and first.rematch_code is None
    with engine.connect() as db:
        tables = {row[0] for row in db.execute(text("SELECT name FROM sqlite_master"))}
    assert {"play_table", "person", "table_game", "person_game"} <= tables
    engine.dispose()


@pytest.mark.parametrize("database_engine", ["postgresql"], indirect=True)
def test_workers_starting_together_migrate_once(database_url):
    engines = [make_engine(database_url) for _ in range(3)]
    start = threading.Barrier(len(engines))
    failures = []

    def upgrade(engine):
        start.wait()
        try:
            upgrade_to_head(engine)
        except Exception as error:
            failures.append(error)

    threads = [threading.Thread(target=upgrade, args=(engine,)) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    with engines[0].connect() as db:
        assert db.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    for engine in engines:
        engine.dispose()


def test_the_seats_of_table_games_come_back_on_a_downgrade(client, settings):
    table = client.post("/api/tables", json={"name": "The Smiths"}).json()
    body = {"players": ["Ann", "Ben"], "table": table["code"]}
    game = client.post("/api/games", json=body).json()
    results = [{"went_out": True}, {"points": 17}]
    client.put(f"/api/games/{game['code']}/rounds/1", json={"results": results})
    people = {
        p["name"]: p["id"] for p in client.get(f"/api/tables/{table['code']}").json()["people"]
    }
    engine = make_engine(settings.database_url)
    try:
        downgrade_to(engine, "0007")
        with engine.connect() as db:
            seats = db.execute(text("SELECT seats FROM table_game")).scalar_one()
        assert json.loads(seats) == [[people["Ann"], 0, 0], [people["Ben"], 17, 0]]
        upgrade_to_head(engine)
        assert "seats" not in columns(engine, "table_game")
    finally:
        engine.dispose()


def test_the_stored_sums_go_and_the_figures_come_from_the_history(settings):
    with TestClient(create_app(settings)) as client:
        table = client.post("/api/tables", json={"name": "The Smiths"}).json()
        game = client.post("/api/games", json={"players": ["Ann", "Ben"], "table": table["code"]})
        code = game.json()["code"]
        client.put(
            f"/api/games/{code}/rounds/1",
            json={"results": [{"went_out": True}, {"points": 17}]},
        )
        client.post(f"/api/games/{code}/finish")
    engine = make_engine(settings.database_url)
    try:
        downgrade_to(engine, "0011")
        with engine.connect() as db:
            # Going back: the sums again, every table listed to be summed on the next start.
            assert db.execute(text("SELECT count(*) FROM stale_sums")).scalar_one() == 1
            assert db.execute(text("SELECT count(*) FROM person_sums")).scalar_one() == 0
        upgrade_to_head(engine)
        assert not {"person_sums", "pair_sums", "stale_sums"} & set(
            inspect(engine).get_table_names()
        )
    finally:
        engine.dispose()
    with TestClient(create_app(settings)) as client:
        people = client.get(f"/api/tables/{table['code']}").json()["people"]
        assert {p["name"]: (p["stats"]["games"], p["stats"]["wins"]) for p in people} == {
            "Ann": (1, 1),
            "Ben": (1, 0),
        }


CYRILLIC_ANN = "\u0410nn"
CYRILLIC_BOB = "B\u043eb"  # a Cyrillic small o


def test_people_one_name_by_the_games_rule_are_joined_or_renamed_apart(settings):
    """At 0012 a table matched names casefolded: "Ann" and "Аnn" were two people. Those
    who never played together become one; those who did stay two, one renamed."""
    with TestClient(create_app(settings)) as client:
        table = new_table(client)
        play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
        play(client, table_game(client, table, ["Zed", "Cy"]), [[0, 20]])  # Zed: Аnn
        play(client, table_game(client, table, ["Bob", "Yve"]), [[0, 17]])  # Yve: Bоb
        before = {
            p["name"]: p["id"] for p in client.get(f"/api/tables/{table['code']}").json()["people"]
        }
    engine = make_engine(settings.database_url)
    try:
        downgrade_to(engine, "0012")
        with engine.begin() as db:
            for was, now in (("Zed", CYRILLIC_ANN), ("Yve", CYRILLIC_BOB)):
                respell = {"was": was, "now": now, "key": now.casefold()}
                db.execute(
                    text("UPDATE person SET name = :now, folded_name = :key WHERE name = :was"),
                    respell,
                )
                db.execute(text("UPDATE seat SET name = :now WHERE name = :was"), respell)
            version = db.execute(text("SELECT version FROM table_version")).scalar_one()
        upgrade_to_head(engine)
        with engine.connect() as db:
            assert db.execute(text("SELECT version FROM table_version")).scalar_one() > version
    finally:
        engine.dispose()
    code = table["code"]
    with TestClient(create_app(settings)) as client:
        people = client.get(f"/api/tables/{code}").json()["people"]
        games = {p["name"]: (p["id"], p["stats"]["games"], p["stats"]["wins"]) for p in people}
        assert games == {
            "Ann": (before["Ann"], 2, 2),
            "Ben": (before["Ben"], 1, 0),
            "Cy": (before["Cy"], 1, 0),
            "Bob": (before["Bob"], 1, 1),
            f"{CYRILLIC_BOB} 2": (before["Yve"], 1, 0),
        }
        ann = person({"people": people}, "Ann")
        assert ann["rating"] is not None and set(ann["versus"]) == {
            str(before["Ben"]),
            str(before["Cy"]),
        }
        merged = client.get(f"/t/{code}/people/{before['Zed']}", follow_redirects=False)
        assert merged.status_code == 303
        assert merged.headers["location"].endswith(f"/t/{code}/people/{before['Ann']}")
        # A new person is a new id: the page merged away stays the way to Ann.
        table_game(client, table, [CYRILLIC_ANN.upper(), "Dee"])
        assert len(client.get(f"/api/tables/{code}").json()["people"]) == 6
        again = client.get(f"/t/{code}/people/{before['Zed']}", follow_redirects=False)
        assert again.headers["location"].endswith(f"/t/{code}/people/{before['Ann']}")
    engine = make_engine(settings.database_url)
    try:
        downgrade_to(engine, "0012")
        with engine.connect() as db:
            keys = dict(db.execute(text("SELECT name, folded_name FROM person")).all())
        assert keys == {name: name.casefold() for name in keys}  # the rule before
        assert len(keys) == 6
        upgrade_to_head(engine)
    finally:
        engine.dispose()
