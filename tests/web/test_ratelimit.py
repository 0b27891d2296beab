"""CREATE_RATE_LIMIT counted in the database: one count per address for every worker, every
host and the next start, one statement per creation, refused creations counted nowhere, an
honest Retry-After, closed windows pruned. (What a refusal looks like on each route is in
tests/web/test_load_and_abuse.py.)"""

import threading
from contextlib import contextmanager
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select
from sqlmodel import Session

from app import ratelimit
from app.db import begin_write, make_engine
from app.main import create_app
from app.models import CreateCount
from app.ratelimit import CreateLimiter, RateLimited, parse_rule
from tests.conftest import test_settings
from tests.serving.test_workers import TwoWorkers

PLAYERS = {"players": ["Ann", "Ben", "Cy"]}
DAY = 86400


class Clock:
    def __init__(self, now=1_800_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def engine(migrated_database_url):
    engine = make_engine(migrated_database_url)
    yield engine
    engine.dispose()


def rows(engine):
    with Session(engine) as session:
        found = session.execute(select(CreateCount)).scalars().all()
        return sorted((row.address, row.window_seconds, row.created) for row in found)


@contextmanager
def another_host(settings):
    """A client of an app that is not started (no lifespan): another host on the same
    database, which on SQLite could not take the file's lock beside the first app."""
    app = create_app(settings)
    try:
        yield TestClient(app)
    finally:
        app.state.engine.dispose()


def create_status(client, **headers):
    return client.post("/api/games", json=PLAYERS, headers=headers).status_code


# --- the rule ---


@pytest.mark.parametrize(
    ("rule", "windows"),
    [
        ("20/minute;200/day", {60: 20, DAY: 200}),
        ("5 per minute, 50 per hour", {60: 5, 3600: 50}),
        ("10/5 minutes|1/Second", {1: 1, 300: 10}),
        ("3/2 days; 7 per year", {2 * DAY: 3, 360 * DAY: 7}),
        ("1/month", {30 * DAY: 1}),
        ("5/minute;3/minute", {60: 3}),
        ("off", {}),
        (" OFF ", {}),
        ("", {}),
    ],
)
def test_the_rule_reads_as_the_limits_library_reads_it(rule, windows):
    assert parse_rule(rule) == windows


@pytest.mark.parametrize("rule", ["20", "20/fortnight", "twenty/minute", "20/minute;", "/minute"])
def test_a_rule_that_does_not_parse_stops_the_app_at_start(rule, tmp_path):
    with pytest.raises(ValueError):
        create_app(test_settings(f"sqlite:///{tmp_path}/db.db", create_rate_limit=rule))


# --- one count for every app on the database ---


def test_two_apps_on_one_database_share_the_count(migrated_database_url):
    settings = test_settings(migrated_database_url, create_rate_limit="3/minute")
    with TestClient(create_app(settings)) as first, another_host(settings) as second:
        assert [create_status(first), create_status(second), create_status(first)] == [201] * 3
        refused = second.post("/api/games", json=PLAYERS)
        assert refused.status_code == 429 and 0 < int(refused.headers["retry-after"]) <= 60
        assert create_status(first) == 429
        assert first.post("/api/tables", json={"name": "The Smiths"}).status_code == 429


def test_a_restart_keeps_the_count(tmp_path):
    settings = test_settings(f"sqlite:///{tmp_path}/db.db", create_rate_limit="2/minute")
    with TestClient(create_app(settings)) as client:
        assert [create_status(client), create_status(client)] == [201, 201]
    with TestClient(create_app(settings)) as restarted:
        refused = restarted.post("/api/games", json=PLAYERS)
        assert refused.status_code == 429 and 0 < int(refused.headers["retry-after"]) <= 60


def test_two_processes_share_the_count(migrated_database_url):
    """Two engines and two limiters, as two workers (or hosts) have."""
    engines = [make_engine(migrated_database_url) for _ in range(2)]
    limiters = [CreateLimiter("3/minute;5/day") for _ in range(2)]
    try:
        for index in (0, 1, 0):
            limiters[index].count(engines[index], "203.0.113.7")
        for index in (1, 0):
            with pytest.raises(RateLimited):
                limiters[index].count(engines[index], "203.0.113.7")
        limiters[1].count(engines[1], "203.0.113.8")
        assert rows(engines[0]) == [
            ("203.0.113.7", 60, 3),
            ("203.0.113.7", DAY, 3),
            ("203.0.113.8", 60, 1),
            ("203.0.113.8", DAY, 1),
        ]
    finally:
        for engine in engines:
            engine.dispose()


def test_each_address_has_its_own_count_across_apps(migrated_database_url):
    settings = test_settings(
        migrated_database_url, create_rate_limit="1/minute", forwarded_allow_ips="*"
    )
    with TestClient(create_app(settings)) as first, another_host(settings) as second:
        assert create_status(first, **{"X-Forwarded-For": "203.0.113.7"}) == 201
        assert create_status(second, **{"X-Forwarded-For": "203.0.113.8"}) == 201
        assert create_status(second, **{"X-Forwarded-For": "203.0.113.7"}) == 429
        assert create_status(first, **{"X-Forwarded-For": "203.0.113.8"}) == 429


@pytest.mark.postgresql
def test_two_workers_on_postgresql_let_through_the_limit_once_not_twice(
    postgres_server, tmp_path, monkeypatch
):
    monkeypatch.setenv("CREATE_RATE_LIMIT", "3/minute")
    name, url = postgres_server.create_database()
    server = TwoWorkers(url, tmp_path / "server.log")
    try:
        first = server.connect()
        server.request(first, "GET", "/healthz")
        second = server.connection_on(other_than=server.worker_of(first))
        statuses = [
            server.request(connection, "POST", "/api/games", PLAYERS)[0]
            for connection in (first, second) * 3
        ]
        assert sorted(statuses) == [201] * 3 + [429] * 3
        assert statuses[:3] == [201] * 3
        for connection in (first, second):
            connection.close()
    finally:
        server.stop()
        postgres_server.drop_database(name)


# --- counting ---


def test_one_creation_is_one_statement(engine):
    limiter = CreateLimiter("20/minute;200/day", clock=Clock())
    limiter.next_prune = float("inf")  # the occasional pruning is counted below
    statements = []

    @event.listens_for(engine, "before_cursor_execute")
    def _count(_connection, _cursor, statement, *_args):
        statements.append(statement)

    for _ in range(3):
        limiter.count(engine, "203.0.113.7")
    counted = [s for s in statements if not s.startswith("BEGIN")]
    assert len(counted) == 3 and all(s.startswith("INSERT INTO create_count") for s in counted)
    # A refusal is the same one statement, rolled back.
    statements.clear()
    with pytest.raises(RateLimited):
        CreateLimiter("3/minute", clock=Clock()).count(engine, "203.0.113.7")
    assert len([s for s in statements if not s.startswith("BEGIN")]) == 1


def test_a_refused_creation_counts_in_no_window(engine):
    clock = Clock()
    limiter = CreateLimiter("2/minute;3/day", clock=clock)
    for _ in range(2):
        limiter.count(engine, "a")
    for _ in range(10):
        with pytest.raises(RateLimited) as refused:
            limiter.count(engine, "a")
        assert refused.value.retry_after == 60
    assert rows(engine) == [("a", 60, 2), ("a", DAY, 2)]
    clock.now += 60
    limiter.count(engine, "a")  # the day still had room for one: the refusals took none
    with pytest.raises(RateLimited) as refused:
        limiter.count(engine, "a")
    assert refused.value.retry_after == DAY - 60
    assert "Too many new games" in str(refused.value) and "24 hours" in str(refused.value)


def test_retry_after_is_when_every_full_window_has_closed(engine):
    clock = Clock()
    limiter = CreateLimiter("1/minute;1/hour", clock=clock)
    limiter.count(engine, "a")
    clock.now += 0.5
    with pytest.raises(RateLimited) as refused:
        limiter.count(engine, "a", "tables")
    # Both windows are full: waiting out the minute alone would not do.
    assert refused.value.retry_after == 3600
    assert "Too many new tables" in str(refused.value)
    clock.now += 3599
    with pytest.raises(RateLimited) as refused:
        limiter.count(engine, "a")
    assert refused.value.retry_after == 1  # half a second, said as a whole one
    clock.now += 0.5
    limiter.count(engine, "a")  # told the truth: on time, it goes through


def test_a_window_opens_at_the_first_creation_after_the_last_one_closed(engine):
    clock = Clock()
    limiter = CreateLimiter("2/minute", clock=clock)
    limiter.count(engine, "a")
    clock.now += 50
    limiter.count(engine, "a")
    with pytest.raises(RateLimited) as refused:
        limiter.count(engine, "a")
    assert refused.value.retry_after == 10
    clock.now += 10
    limiter.count(engine, "a")
    clock.now += 59
    limiter.count(engine, "a")
    with pytest.raises(RateLimited) as refused:
        limiter.count(engine, "a")
    assert refused.value.retry_after == 1
    assert rows(engine) == [("a", 60, 2)]


def test_a_window_of_none_refuses_every_creation(engine):
    with pytest.raises(RateLimited) as refused:
        CreateLimiter("0/hour", clock=Clock()).count(engine, "a")
    assert refused.value.retry_after == 3600
    assert rows(engine) == []


def test_simultaneous_creations_from_one_address_never_get_past_the_limit(engine):
    limiter = CreateLimiter("5/minute;7/day")
    results = []
    start = threading.Barrier(12)

    def create():
        start.wait()
        try:
            limiter.count(engine, "203.0.113.7")
            results.append("created")
        except RateLimited:
            results.append("refused")

    threads = [threading.Thread(target=create) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["created"] * 5 + ["refused"] * 7
    assert rows(engine) == [("203.0.113.7", 60, 5), ("203.0.113.7", DAY, 5)]


def test_a_long_forwarded_address_fits_its_column(engine):
    limiter = CreateLimiter("1/minute", clock=Clock())
    limiter.count(engine, "x" * 500)
    with pytest.raises(RateLimited):
        limiter.count(engine, "x" * 500)


def test_closed_windows_are_pruned_now_and_then(engine):
    clock = Clock()
    limiter = CreateLimiter("20/minute;200/day", clock=clock)
    limiter.count(engine, "gone")
    limiter.count(engine, "stays")
    clock.now += 120
    limiter.count(engine, "stays")
    # The minute windows closed, but pruning waits its turn.
    assert [row[:2] for row in rows(engine)] == [
        ("gone", 60),
        ("gone", DAY),
        ("stays", 60),
        ("stays", DAY),
    ]
    clock.now += ratelimit.PRUNE_EVERY
    limiter.count(engine, "new")
    assert [row[:2] for row in rows(engine)] == [
        ("gone", DAY),
        ("new", 60),
        ("new", DAY),
        ("stays", DAY),
    ]
    clock.now += DAY
    limiter.count(engine, "stays")
    assert rows(engine) == [("stays", 60, 1), ("stays", DAY, 1)]


# --- counting inside a request's own write transaction ---


def a_request(engine, address="203.0.113.7"):
    """What check reads of a request: the client's address and the app's engine."""
    return SimpleNamespace(
        client=SimpleNamespace(host=address),
        app=SimpleNamespace(state=SimpleNamespace(engine=engine)),
    )


def test_a_count_inside_a_write_transaction_is_made_in_it(migrated_database_url):
    # A short busy timeout: counted on a connection of its own, the count would wait for
    # the write lock the session holds (on SQLite) and fail.
    engine = make_engine(migrated_database_url, busy_timeout_ms=200)
    limiter = CreateLimiter("2/minute", clock=Clock())
    request = a_request(engine)
    try:
        with Session(engine) as session:
            begin_write(session)
            limiter.check(request, session=session)
            session.rollback()  # the creation failed: its count goes with it
        assert rows(engine) == []
        with Session(engine) as session:
            begin_write(session)
            limiter.check(request, session=session)
            limiter.check(request, "tables", session=session)
            session.add(CreateCount(address="other", window_seconds=1, created=1, resets_at=0))
            with pytest.raises(RateLimited) as refused:
                limiter.check(request, "tables", session=session)
            assert refused.value.retry_after == 60 and "new tables" in str(refused.value)
            session.commit()  # the refusal undid only its own count
        assert rows(engine) == [("203.0.113.7", 60, 2), ("other", 1, 1)]
        # A session that is not writing is counted beside it, committed at once.
        with Session(engine) as session:
            session.execute(select(CreateCount)).all()
            with pytest.raises(RateLimited):
                limiter.check(request, session=session)
            limiter.check(a_request(engine, "203.0.113.8"), session=session)
        assert ("203.0.113.8", 60, 1) in rows(engine)
    finally:
        engine.dispose()
