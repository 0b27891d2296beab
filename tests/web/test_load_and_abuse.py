"""Load and abuse: the create rate limit, cross-site posts, capped streams, a busy database,
security headers on every answer, HEAD, and what is sent to caches and cookies."""

import sqlite3
import threading
import time

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.aio import run_scenario
from tests.conftest import test_settings, went_out_first
from tests.html import visible_text
from tests.server import LiveServer

PLAYERS = {"players": ["Ann", "Ben", "Cy"]}


def make_client(tmp_path, **settings):
    app = create_app(test_settings(f"sqlite:///{tmp_path}/db.db", **settings))
    return TestClient(app)


# --- creating games: CREATE_RATE_LIMIT ---


def test_creating_games_is_limited_per_address(tmp_path):
    with make_client(tmp_path, create_rate_limit="3/minute") as client:
        for _ in range(3):
            assert client.post("/api/games", json=PLAYERS).status_code == 201
        refused = client.post("/api/games", json=PLAYERS)
        assert refused.status_code == 429
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert "Too many new games" in refused.json()["detail"]
        # The form counts against the same limit, and keeps the names typed.
        form = client.post("/games", data={"name_0": "Ann", "name_1": "Ben", "first_dealer": "0"})
        assert form.status_code == 429
        assert int(form.headers["retry-after"]) > 0
        assert "Too many new games" in visible_text(form.text)
        assert 'value="Ann"' in form.text


def test_creating_tables_is_limited_per_address_with_games(tmp_path):
    with make_client(tmp_path, create_rate_limit="3/minute") as client:
        assert client.post("/api/games", json=PLAYERS).status_code == 201
        for _ in range(2):
            assert client.post("/api/tables", json={"name": "The Smiths"}).status_code == 201
        refused = client.post("/api/tables", json={"name": "The Smiths"})
        assert refused.status_code == 429
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert "Too many new tables" in refused.json()["detail"]
        # Games and tables share the one count.
        assert client.post("/api/games", json=PLAYERS).status_code == 429


def test_the_home_page_table_form_says_why_and_keeps_the_name(tmp_path):
    with make_client(tmp_path, create_rate_limit="1/minute") as client:
        assert client.post("/tables", data={"table_name": "Cousins"}).status_code == 200
        form = client.post("/tables", data={"table_name": "The Smiths"})
        assert form.status_code == 429
        assert int(form.headers["retry-after"]) > 0
        text = visible_text(form.text)
        assert "Too many new tables" in text and "Try again in" in text
        assert 'value="The Smiths"' in form.text
        # The home page around it is whole: this browser's table is still listed.
        assert "Cousins" in text and "Start a table" in text


def test_a_refused_table_name_is_kept_on_the_home_page(tmp_path):
    with make_client(tmp_path) as client:
        form = client.post("/tables", data={"table_name": "x" * 61})
        assert form.status_code == 422
        assert 'value="' + "x" * 61 + '"' in form.text
        assert "Start a table" in visible_text(form.text)


def test_games_started_on_a_table_page_and_rematches_count(tmp_path):
    with make_client(tmp_path, create_rate_limit="3/minute") as client:
        table = client.post("/api/tables", json={"name": "The Smiths"}).json()
        fields = {"name_0": "Ann", "name_1": "Ben", "first_dealer": "0", "action": "create"}
        started = client.post(f"/t/{table['code']}/games", data=fields, follow_redirects=False)
        assert started.status_code == 303
        code = started.headers["location"].rsplit("/", 1)[-1]
        client.put(
            f"/api/games/{code}/rounds/1", json={"results": went_out_first(2, points=[0, 20])}
        )
        assert client.post(f"/api/games/{code}/finish").status_code == 200
        assert client.post(f"/api/games/{code}/rematch").status_code == 201
        # The limit is reached: asking again for the same rematch is not a new game.
        assert client.post(f"/api/games/{code}/rematch").status_code == 200
        refused = client.post(f"/t/{table['code']}/games", data=fields)
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
        assert "Too many new games" in visible_text(refused.text)
        assert 'value="Ann"' in refused.text and 'value="Ben"' in refused.text
        assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 2


def test_a_rematch_beyond_the_limit_is_429(tmp_path):
    with make_client(tmp_path, create_rate_limit="1/minute") as client:
        code = client.post("/api/games", json=PLAYERS).json()["code"]
        client.put(
            f"/api/games/{code}/rounds/1", json={"results": went_out_first(3, points=[0, 20, 20])}
        )
        assert client.post(f"/api/games/{code}/finish").status_code == 200
        refused = client.post(f"/api/games/{code}/rematch")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
        page = client.post(f"/g/{code}/rematch")
        assert page.status_code == 429 and "Too many new games" in visible_text(page.text)


def test_both_windows_of_the_default_rule_count(tmp_path):
    with make_client(tmp_path, create_rate_limit="5/minute;6/day") as client:
        statuses = [client.post("/api/games", json=PLAYERS).status_code for _ in range(6)]
        assert statuses == [201] * 5 + [429]


def test_the_default_limit_is_20_a_minute():
    assert Settings.model_fields["create_rate_limit"].default == "20/minute;200/day"


def test_the_rate_limit_can_be_turned_off(tmp_path):
    with make_client(tmp_path, create_rate_limit="off") as client:
        assert all(client.post("/api/games", json=PLAYERS).status_code == 201 for _ in range(25))


def test_seat_buttons_on_the_form_are_not_counted(tmp_path):
    with make_client(tmp_path, create_rate_limit="1/minute") as client:
        for _ in range(5):
            fields = {"name_0": "Ann", "name_1": "Ben", "action": "add"}
            assert client.post("/games", data=fields).status_code == 200
        assert client.post("/api/games", json=PLAYERS).status_code == 201


def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_count(tmp_path):
    with make_client(tmp_path, create_rate_limit="2/minute", forwarded_allow_ips="*") as client:
        for address in ("203.0.113.7", "203.0.113.8"):
            headers = {"X-Forwarded-For": address}
            statuses = [
                client.post("/api/games", json=PLAYERS, headers=headers).status_code
                for _ in range(3)
            ]
            assert statuses == [201, 201, 429], address


def test_forwarded_addresses_from_an_untrusted_client_are_ignored(tmp_path):
    with make_client(tmp_path, create_rate_limit="2/minute") as client:
        statuses = [
            client.post(
                "/api/games", json=PLAYERS, headers={"X-Forwarded-For": f"198.51.100.{i}"}
            ).status_code
            for i in range(3)
        ]
        assert statuses == [201, 201, 429]


# --- posts from other sites ---

CROSS_SITE = [
    {"Origin": "https://evil.example"},
    {"Origin": "http://testserver.evil.example"},
    {"Origin": "https://testserver"},  # same host, other scheme
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
]


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_a_new_game_posted_from_another_site_is_refused(client, headers):
    fields = {"name_0": "Ann", "name_1": "Ben", "first_dealer": "0"}
    response = client.post("/games", data=fields, headers=headers)
    assert response.status_code == 403
    assert "another web site" in visible_text(response.text)
    with client.app.state.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM game").scalar() == 0


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_changes_from_another_site_change_nothing(client, new_game, headers):
    game = new_game()
    code = game["code"]
    fields = {"version": str(game["version"]), "went_out": "0", "points_1": "13", "points_2": "20"}
    assert client.post(f"/g/{code}/rounds/1", data=fields, headers=headers).status_code == 403
    assert client.post(f"/g/{code}/scorekeeper-code", headers=headers).status_code == 403
    put = client.put(
        f"/api/games/{code}/rounds/1",
        json={"results": went_out_first(3, points=[0, 20, 20])},
        headers=headers,
    )
    assert put.status_code == 403
    after = client.get(f"/api/games/{code}").json()
    assert after["version"] == game["version"]


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_players_tiebreaks_and_piles_from_another_site_change_nothing(client, new_game, headers):
    game = new_game()
    code = game["code"]
    refused = [
        client.post(f"/api/games/{code}/players", json={"name": "Eve"}, headers=headers),
        client.delete(f"/api/games/{code}/players/2", headers=headers),
        client.post(f"/api/games/{code}/tiebreak", headers=headers),
        client.post(f"/g/{code}/players", data={"name": "Eve"}, headers=headers),
        client.post(f"/g/{code}/players/2/leave", headers=headers),
        client.post(f"/g/{code}/tiebreak", headers=headers),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    after = client.get(f"/api/games/{code}").json()
    assert after["version"] == game["version"]
    assert after["players"] == ["Ann", "Ben", "Cy"]
    solitaire = new_game(players=["Ann"])
    pile = client.post(f"/g/{solitaire['code']}/piles/1", data={"points": "20"}, headers=headers)
    assert pile.status_code == 403
    assert "another web site" in visible_text(pile.text)
    assert client.get(f"/api/games/{solitaire['code']}").json()["version"] == solitaire["version"]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Origin": "http://testserver"},
        {"Origin": "http://testserver:80"},
        {"Sec-Fetch-Site": "same-origin"},
        {"Origin": "null", "Sec-Fetch-Site": "same-origin"},  # Referrer-Policy no-referrer
        {"Sec-Fetch-Site": "none"},
    ],
)
def test_own_pages_and_scripts_are_unaffected(client, headers):
    fields = {"name_0": "Ann", "name_1": "Ben", "first_dealer": "0"}
    assert (
        client.post("/games", data=fields, headers=headers, follow_redirects=False).status_code
        == 303
    )
    assert client.post("/api/games", json=PLAYERS, headers=headers).status_code == 201


def test_behind_a_proxy_the_forwarded_host_is_the_origin(tmp_path):
    with make_client(tmp_path, forwarded_allow_ips="*") as client:
        headers = {
            "Origin": "https://scores.example.org",
            "X-Forwarded-Proto": "https",
            "X-Forwarded-Host": "scores.example.org",
        }
        assert client.post("/api/games", json=PLAYERS, headers=headers).status_code == 201


# --- streams ---


@pytest.fixture
def capped_server(tmp_path):
    running = LiveServer(
        f"sqlite:///{tmp_path}/stream.db", streams_per_game=2, streams_total=3
    ).start()
    yield running
    running.stop()


def open_stream(server, code):
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", f"/g/{code}/events", headers={"HX-Request": "true"})
    response = connection.getresponse()
    if response.status == 200:
        response.readline()  # the first event is on its way: the stream is open
    return connection, response


def api(server, method, path, body=None):
    import http.client
    import json

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(
        method,
        path,
        body=json.dumps(body) if body else None,
        headers={"content-type": "application/json"},
    )
    response = connection.getresponse()
    data = json.loads(response.read() or b"null")
    connection.close()
    return response.status, data


def test_streams_are_capped_per_game_and_in_all(capped_server):
    _, game = api(capped_server, "POST", "/api/games", PLAYERS)
    _, other = api(capped_server, "POST", "/api/games", PLAYERS)
    first = [open_stream(capped_server, game["watch_code"]) for _ in range(2)]
    assert [r.status for _, r in first] == [200, 200]
    connection, refused = open_stream(capped_server, game["code"])
    assert refused.status == 503
    assert refused.getheader("Retry-After") == "15"
    assert "15 s" in refused.read().decode()
    connection.close()
    third = open_stream(capped_server, other["watch_code"])
    assert third[1].status == 200
    connection, over_total = open_stream(capped_server, other["watch_code"])
    assert over_total.status == 503
    connection.close()
    # A closed stream frees its place.
    first[0][0].close()
    deadline = time.monotonic() + 5
    while True:
        connection, again = open_stream(capped_server, game["watch_code"])
        connection.close()
        if again.status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert again.status == 200
    for connection, _ in [first[1], third]:
        connection.close()


def test_a_page_without_a_stream_can_poll_the_live_regions(client, new_game):
    game = new_game()
    client.put(
        f"/api/games/{game['code']}/rounds/1",
        json={"results": went_out_first(3, points=[0, 20, 20])},
    )
    page = client.get(f"/g/{game['watch_code']}")
    assert f'data-poll="/g/{game["watch_code"]}/live"' in page.text
    live = client.get(f"/g/{game['watch_code']}/live")
    assert live.status_code == 200
    assert live.headers["cache-control"] == "no-store"
    assert '<hx-partial hx-target="#totals">' in live.text
    assert game["code"] not in live.text
    assert client.get("/g/nosuchgame/live").status_code == 404


def test_stream_caps_are_settings():
    assert (
        Settings.model_fields["streams_per_game"].default,
        Settings.model_fields["streams_total"].default,
    ) == (100, 2000)


# --- a busy database ---


def test_a_database_busy_past_the_timeout_answers_503(tmp_path):
    with make_client(tmp_path, busy_timeout_ms=50) as client:
        game = client.post("/api/games", json=PLAYERS).json()
        holder = sqlite3.connect(tmp_path / "db.db", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            put = client.put(
                f"/api/games/{game['code']}/rounds/1",
                json={"results": went_out_first(3, points=[0, 20, 20])},
            )
            form = client.post(
                f"/g/{game['code']}/rounds/1",
                data={"version": "1", "went_out": "0", "points_1": "13", "points_2": "20"},
            )
            created = client.post("/api/games", json=PLAYERS)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        for response in (put, form, created):
            assert response.status_code == 503
            assert response.headers["retry-after"]
            assert "The score keeper is busy; try again" in response.text
            assert "content-security-policy" in response.headers
        # Once the lock is gone the same save goes through.
        again = client.put(
            f"/api/games/{game['code']}/rounds/1",
            json={"results": went_out_first(3, points=[0, 20, 20])},
        )
        assert again.status_code == 200


# --- every answer carries the security headers ---


def test_an_unexpected_error_is_a_500_with_the_security_headers(tmp_path):
    app = create_app(test_settings(f"sqlite:///{tmp_path}/db.db"))

    @app.get("/api/boom")
    def boom() -> None:
        raise RuntimeError("boom")

    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/boom")
    assert response.status_code == 500
    assert "boom" not in response.text
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        ("GET", "/api/games/none", {}, 404),
        ("GET", "/no/such/page", {}, 404),
        ("POST", "/api/games", {"json": {"players": []}}, 422),
        ("POST", "/api/games", {"content": b"x" * (65 * 1024)}, 413),
        ("POST", "/games", {"headers": {"Origin": "https://evil.example"}}, 403),
        ("DELETE", "/api/games", {}, 405),
    ],
)
def test_error_answers_carry_the_security_headers(client, method, path, kwargs, status):
    response = client.request(method, path, **kwargs)
    assert response.status_code == status
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "content-security-policy" in response.headers


# --- HEAD wherever GET ---


def test_head_works_wherever_get_does(client, new_game):
    game = new_game()
    for path in (
        "/",
        "/healthz",
        f"/g/{game['code']}",
        f"/api/games/{game['code']}",
        "/rules",
        "/hand",
        "/static/app.css",
        f"/g/{game['watch_code']}/live",
    ):
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path
    assert client.head("/api/games/none").status_code == 404


def test_head_on_a_live_stream_ends_at_once(client, new_game):
    game = new_game()
    done = threading.Event()
    result = {}

    def ask():
        result["response"] = client.head(f"/g/{game['code']}/events")
        done.set()

    threading.Thread(target=ask, daemon=True).start()
    assert done.wait(10), "HEAD on the stream did not end"
    assert result["response"].status_code == 200
    assert result["response"].headers["content-type"].startswith("text/event-stream")


# --- caches and cookies ---


def test_json_with_a_scorekeeper_code_is_never_cached(client, new_game):
    game = new_game()
    code = game["code"]
    created = client.post("/api/games", json=PLAYERS)
    replaced = client.post(f"/api/games/{code}/scorekeeper-code")
    read = client.get(f"/api/games/{replaced.json()['code']}")
    for response in (created, replaced, read):
        assert response.headers["cache-control"] == "no-store"
    assert "no-store" not in client.get("/static/app.css").headers.get("cache-control", "")


def test_cookies_are_secure_over_https_only(tmp_path, new_game):
    with make_client(tmp_path, forwarded_allow_ips="*") as client:
        code = client.post("/api/games", json=PLAYERS).json()["code"]
        plain = client.get(f"/g/{code}")
        assert "secure" not in plain.headers["set-cookie"].lower()
        https = client.get(f"/g/{code}", headers={"X-Forwarded-Proto": "https"})
        assert "secure" in https.headers["set-cookie"].lower()


def test_live_pages_start_a_few_at_a_time_and_other_requests_go_straight_through():
    import asyncio

    from app.guards import StreamStartGate

    started: list[str] = []
    first_message_sent = {}

    async def app(scope, receive, send):
        started.append(scope["path"])
        if scope["path"].endswith("/events"):
            await first_message_sent[scope["path"]].wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"data: x\n\n", "more_body": True})

    async def noop(message):
        return None

    async def receive():
        return {"type": "http.request", "body": b""}

    async def scenario():
        gate = StreamStartGate(app, at_once=1)
        paths = ["/g/a/events", "/g/b/events"]
        for path in paths:
            first_message_sent[path] = asyncio.Event()
        streams = [
            asyncio.create_task(gate({"type": "http", "path": p}, receive, noop)) for p in paths
        ]
        await asyncio.sleep(0.05)
        assert started == ["/g/a/events"]  # the second page waits its turn
        await gate({"type": "http", "path": "/api/games/x"}, receive, noop)
        assert started == ["/g/a/events", "/api/games/x"]  # the table's request did not wait
        first_message_sent["/g/a/events"].set()
        await asyncio.sleep(0.05)
        assert started[-1] == "/g/b/events"  # the first page's message let the next one start
        first_message_sent["/g/b/events"].set()
        await asyncio.gather(*streams)

    run_scenario(scenario)
