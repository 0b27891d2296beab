"""Tables that cannot take the server down: imports bounded by IMPORT_MAX_GAMES and
TABLE_MAX_PEOPLE (checked first, refused in words, nothing changed) and counted against the
create limit; no 500 from dates, nesting, ids or names an attacker sends."""

import json
import time
from datetime import datetime

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import test_settings
from tests.tables_helpers import new_table, person, play, table_game


def recorded_game(number, players, *, created_at="2026-05-01T19:00:00+00:00", rounds=1):
    """An export's game: players, and `rounds` rounds the first seat went out of."""
    return {
        "format": 1,
        "id": f"game-{number}",
        "players": players,
        "first_dealer": 0,
        "created_at": created_at,
        "finished_at": created_at,
        "rounds": [
            {
                "number": n,
                "cards_dealt": n + 2,
                "wild_rank": str(n + 2) if n + 2 <= 10 else "JQK"[n - 9],
                "dealer": (n - 1) % len(players),
                "results": [{"points": 0, "went_out": True}]
                + [{"points": 20} for _ in players[1:]],
            }
            for n in range(1, rounds + 1)
        ],
    }


def document(games):
    return {"format": 1, "games": games}


def import_into(client, table, body):
    raw = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post(
        f"/api/tables/{table['code']}/import",
        content=raw,
        headers={"content-type": "application/json"},
    )


def table_state(client, table):
    answer = client.get(f"/api/tables/{table['code']}").json()
    return answer["game_count"], sorted(p["name"] for p in answer["people"])


@pytest.fixture
def limited(settings, tmp_path):
    chosen = test_settings(
        settings.database_url, import_max_games=5, table_max_people=6, create_rate_limit="off"
    )
    with TestClient(create_app(chosen)) as client:
        yield client


def test_an_import_over_the_game_limit_is_413_at_once_and_changes_nothing(limited):
    table = new_table(limited)
    before = table_state(limited, table)
    started = time.monotonic()
    refused = import_into(
        limited, table, document([recorded_game(n, ["A", "B"]) for n in range(6)])
    )
    assert time.monotonic() - started < 1
    assert refused.status_code == 413
    assert "6 games" in refused.json()["detail"] and "IMPORT_MAX_GAMES" in refused.json()["detail"]
    assert table_state(limited, table) == before
    within = import_into(limited, table, document([recorded_game(n, ["A", "B"]) for n in range(5)]))
    assert within.status_code == 200 and within.json()["imported"] == 5


def test_an_import_over_the_people_limit_is_422_and_changes_nothing(limited):
    table = new_table(limited)
    table_game(limited, table, ["Ann", "Ben", "Cy"])
    before = table_state(limited, table)
    games = [recorded_game(1, ["ann", "Dee", "Eve"]), recorded_game(2, ["Fay", "Gus"])]
    refused = import_into(limited, table, document(games))
    assert refused.status_code == 422
    detail = refused.json()["detail"]
    assert "7 people" in detail and "at most 6" in detail and "TABLE_MAX_PEOPLE" in detail
    assert table_state(limited, table) == before
    # "ann" is Ann: six people in all is within the limit.
    assert import_into(limited, table, document(games[:1])).status_code == 200
    assert table_state(limited, table)[1] == ["Ann", "Ben", "Cy", "Dee", "Eve"]


def test_a_new_game_at_a_full_table_is_refused_in_words(limited):
    table = new_table(limited)
    table_game(limited, table, ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"])
    body = {"players": ["Ann", "Gus"], "table": table["code"]}
    refused = limited.post("/api/games", json=body)
    assert refused.status_code == 422 and "TABLE_MAX_PEOPLE" in refused.json()["detail"]
    assert limited.post("/api/games", json={**body, "players": ["Ann", "Ben"]}).status_code == 201


def test_imports_count_against_the_create_limit(settings):
    chosen = test_settings(settings.database_url, create_rate_limit="3/minute")
    with TestClient(create_app(chosen)) as client:
        table = new_table(client)  # one
        assert (
            import_into(client, table, document([recorded_game(1, ["A", "B"])])).status_code == 200
        )
        assert (
            import_into(client, table, document([recorded_game(2, ["A", "B"])])).status_code == 200
        )
        refused = import_into(client, table, document([recorded_game(3, ["A", "B"])]))
        assert refused.status_code == 429 and refused.headers["retry-after"]


def test_an_import_is_written_whole_with_stats_as_if_played(client):
    table = new_table(client)
    games = [recorded_game(n, ["Ann", "Ben", "Cy", "Dee"], rounds=11) for n in range(30)]
    answer = import_into(client, table, document(games))
    assert answer.status_code == 200 and answer.json()["imported"] == 30
    listed = client.get(f"/api/tables/{table['code']}?games=all").json()
    assert listed["game_count"] == 30
    ann, ben = person(listed, "Ann")["stats"], person(listed, "Ben")["stats"]
    assert (ann["games"], ann["wins"], ann["best_total"]) == (30, 30, 0)
    assert (ben["games"], ben["wins"], ben["best_total"], ben["rounds"]) == (30, 0, 220, 330)
    assert person(listed, "Ann")["versus"][str(person(listed, "Ben")["id"])] == {
        "games": 30,
        "lower": 30,
        "higher": 0,
    }
    game = client.get(f"/api/games/{listed['games'][0]['code']}").json()
    assert game["finished"] and game["totals"] == [0, 220, 220, 220] and game["winners"] == [0]


def test_dates_without_a_time_zone_are_utc_and_impossible_dates_are_422(client):
    table = new_table(client)
    naive = recorded_game(1, ["Ann", "Ben"], created_at="2026-05-01T19:00:00")
    assert import_into(client, table, document([naive])).status_code == 200
    code = client.get(f"/api/tables/{table['code']}").json()["games"][0]["code"]
    exported = client.get(f"/api/games/{code}/export").json()
    assert datetime.fromisoformat(exported["created_at"]).utcoffset().total_seconds() == 0
    assert datetime.fromisoformat(exported["created_at"]).hour == 19
    for when in ("9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"):
        edge = recorded_game(2, ["Ann", "Ben"], created_at=when)
        refused = import_into(client, table, document([edge]))
        assert refused.status_code == 422, when
        assert "dates Crownkeeper keeps" in refused.json()["detail"]


def test_json_nested_too_deep_is_422_not_a_crash(client):
    table = new_table(client)
    for raw in ("[" * 100_000, '{"format": 1, "games": ' + "[" * 50 + "]" * 50 + "}"):
        refused = import_into(client, table, raw)
        assert refused.status_code == 422
        assert "nests deeper" in refused.json()["detail"]
    # Brackets inside strings are text, not nesting.
    game = recorded_game(1, ["[[[[[[[[[[[[[[[[[[[[", "Ben"])
    assert import_into(client, table, document([game])).status_code == 200


def test_control_characters_in_an_imported_id_are_422(client):
    table = new_table(client)
    game = recorded_game(1, ["Ann", "Ben"])
    game["id"] = "abc\x00def"
    refused = import_into(client, table, document([game]))
    assert refused.status_code == 422 and "control" in refused.json()["detail"]


@pytest.mark.parametrize("person_id", [2**63, 2**64 + 5, 10**30])
def test_person_ids_beyond_64_bits_are_404_everywhere(client, person_id):
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    ann = person(client.get(f"/api/tables/{table['code']}").json(), "Ann")
    url = f"/api/tables/{table['code']}/people"
    assert client.patch(f"{url}/{person_id}", json={"name": "X"}).status_code == 404
    assert client.post(f"{url}/{person_id}/merge", json={"into": ann["id"]}).status_code == 404
    assert client.post(f"{url}/{ann['id']}/merge", json={"into": person_id}).status_code == 404
    page = f"/t/{table['code']}/people"
    assert client.post(f"{page}/{person_id}", data={"name": "X"}).status_code == 404
    assert client.post(f"{page}/{ann['id']}", data={"into": str(person_id)}).status_code == 404
    assert client.post(f"{page}/{ann['id']}", data={"into": "²"}).status_code == 404


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("The\u202e Smiths", "The Smiths"),
        ("Smiths\x00\x07\x1b[31m", "Smiths[31m"),
        ("  The   Smiths ", "The Smiths"),
    ],
)
def test_table_names_are_cleaned_like_player_names(client, sent, kept):
    made = client.post("/api/tables", json={"name": sent})
    assert made.status_code == 201 and made.json()["name"] == kept
    page = client.get(f"/t/{made.json()['code']}")
    assert sent not in page.text and "\x00" not in page.text and "\u202e" not in page.text


@pytest.mark.parametrize("blank", ["\u3164", "\u115f\u1160", "\u200b\u200d", "   "])
def test_a_table_name_that_shows_nothing_is_refused(client, blank):
    refused = client.post("/api/tables", json={"name": blank})
    assert refused.status_code == 422
    form = client.post("/tables", data={"table_name": blank})
    assert form.status_code == 422


def test_the_tables_cookie_is_secure_over_https_through_a_trusted_proxy(settings):
    chosen = test_settings(settings.database_url, forwarded_allow_ips="*")
    with TestClient(create_app(chosen)) as client:
        table = new_table(client)
        https = client.get(f"/t/{table['code']}", headers={"X-Forwarded-Proto": "https"})
        cookie = https.headers["set-cookie"]
        assert "crownkeeper_tables=" in cookie
        assert "Secure" in cookie and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
        plain = client.get(f"/t/{table['code']}").headers["set-cookie"]
        assert "secure" not in plain.lower() and "HttpOnly" in plain


def test_a_finished_game_at_a_table_still_plays_back_after_import(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13], [3, 0]])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    other = new_table(client, "Cousins")
    assert import_into(client, other, exported).json()["imported"] == 1


def test_a_code_holding_a_nul_is_nobodys(client):
    for path in ("/api/games/abc%00def", "/g/abc%00def", "/api/tables/abc%00def", "/t/abc%00def"):
        assert client.get(path).status_code == 404, path


def test_a_renamed_person_cannot_join_the_game_they_are_in_under_their_old_name(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Bob"])
    bob = person(client.get(f"/api/tables/{table['code']}").json(), "Bob")
    client.patch(f"/api/tables/{table['code']}/people/{bob['id']}", json={"name": "Robert"})
    joined = client.post(f"/api/games/{game['code']}/players", json={"name": "Robert"})
    assert joined.status_code == 422
    assert "already plays in this game (as Bob)" in joined.json()["detail"]
    assert len(client.get(f"/api/games/{game['code']}").json()["players"]) == 2
    page = client.post(
        f"/g/{game['code']}/players", data={"name": "Robert", "seat": "", "start": "zero"}
    )
    assert page.status_code == 422 and "already plays in this game" in page.text


def test_two_imports_of_one_document_at_once_add_its_games_once(settings):
    import threading

    from sqlmodel import Session

    from app.imports import import_document

    with TestClient(create_app(settings)) as client:
        table = new_table(client)
        raw = json.dumps(document([recorded_game(n, ["Ann", "Ben"]) for n in range(40)])).encode()
        added = []

        def run():
            with Session(client.app.state.engine) as session:
                added.append(import_document(session, raw, table_code=table["code"]).added)

        both = [threading.Thread(target=run) for _ in range(2)]
        for thread in both:
            thread.start()
        for thread in both:
            thread.join()
        assert sorted(added) == [0, 40]
        assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 40


def test_a_failed_change_lets_go_of_the_write_lock_at_once(client):
    from sqlmodel import Session

    from app.games import GameNotFound, ReadOnlyLink, open_game

    game = client.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
    engine = client.app.state.engine
    with Session(engine) as failing, Session(engine) as next_one:
        for code, error in (("nope", GameNotFound), (game["watch_code"], ReadOnlyLink)):
            with pytest.raises(error):
                open_game(failing, code=code)
            assert not failing.in_transaction()
            # The next change opens at once, though the failed session is still open.
            opened = open_game(next_one, code=game["code"])
            assert opened.state().players == ("Ann", "Ben")
            next_one.rollback()


def test_a_newcomer_mid_game_counts_against_the_tables_people_limit(limited):
    table = new_table(limited)
    game = table_game(limited, table, ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"])
    refused = limited.post(f"/api/games/{game['code']}/players", json={"name": "Gus"})
    assert refused.status_code == 422 and "TABLE_MAX_PEOPLE" in refused.json()["detail"]
    page = limited.post(f"/g/{game['code']}/players", data={"name": "Gus", "start": "zero"})
    assert page.status_code == 422 and "TABLE_MAX_PEOPLE" in page.text
    assert len(limited.get(f"/api/games/{game['code']}").json()["players"]) == 6
    # Off the table, a game seats a newcomer as before.
    plain = limited.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
    assert (
        limited.post(f"/api/games/{plain['code']}/players", json={"name": "Gus"}).status_code == 201
    )
