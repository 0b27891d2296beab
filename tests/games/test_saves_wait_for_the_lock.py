"""Two saves of the same version never both get through, on either database: the second
waits for the first (BEGIN IMMEDIATE on SQLite, SELECT ... FOR UPDATE on PostgreSQL), then
finds the version changed."""

import threading

import pytest
from sqlmodel import func, select

from app.db import begin_write, locked, make_engine
from app.games import StaleVersion, create_game, load_game, save_round
from app.migrate import upgrade_to_head
from app.models import Game, SeatScore
from app.rules.scoring import SeatResult
from tests.databases import wired_session

WENT_OUT = [SeatResult(went_out=True), SeatResult(points=17), SeatResult(points=19)]


@pytest.fixture
def engine(database_url):
    engine = make_engine(database_url)
    upgrade_to_head(engine)
    yield engine
    engine.dispose()


def test_a_save_waits_for_the_lock_and_then_sees_the_newer_version(engine):
    with wired_session(engine) as session:
        game = create_game(session, players=["Ann", "Ben", "Cy"])
    holder = wired_session(engine)
    begin_write(holder)
    held = holder.exec(locked(select(Game).where(Game.code == game.code))).one()
    outcome = {}

    def second_save():
        with wired_session(engine) as session:
            try:
                save_round(session, code=game.code, number=1, results=WENT_OUT, version=1)
                outcome["second"] = "saved"
            except StaleVersion:
                outcome["second"] = "stale"

    racer = threading.Thread(target=second_save)
    racer.start()
    racer.join(timeout=0.5)
    assert racer.is_alive(), "the second save did not wait for the lock"
    # The first writer changes the game while it holds the lock, then commits.
    held.version += 1
    holder.add(held)
    holder.commit()
    holder.close()
    racer.join(timeout=10)
    assert outcome == {"second": "stale"}
    with wired_session(engine) as session:
        after = load_game(session, code=game.code)
    assert after.version == 2
    assert after.rounds[0].scores is None


def test_racing_saves_from_many_threads_give_exactly_one_success(engine):
    with wired_session(engine) as session:
        game = create_game(session, players=["Ann", "Ben", "Cy"])
    start = threading.Barrier(4)
    results = []

    def save(seat):
        start.wait()
        with wired_session(engine) as session:
            # Four different rounds: the same version lets one through.
            outcome = [SeatResult(points=20 + seat)] * 3
            outcome[seat % 3] = SeatResult(went_out=True)
            try:
                save_round(session, code=game.code, number=1, results=outcome, version=1)
                results.append("saved")
            except StaleVersion:
                results.append("stale")

    threads = [threading.Thread(target=save, args=(seat,)) for seat in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(results) == ["saved", "stale", "stale", "stale"]
    with wired_session(engine) as session:
        assert load_game(session, code=game.code).version == 2


def test_the_same_round_sent_from_many_threads_is_saved_once(engine):
    """A phone that sends a round again (its answer lost) races itself: every send hears the
    round is saved, and it is saved once."""
    with wired_session(engine) as session:
        game = create_game(session, players=["Ann", "Ben", "Cy"])
    start = threading.Barrier(4)
    versions = []
    outcome = [SeatResult(went_out=True), SeatResult(points=13), SeatResult(points=20)]

    def save():
        start.wait()
        with wired_session(engine) as session:
            state = save_round(session, code=game.code, number=1, results=outcome, version=1)
            versions.append(state.version)

    threads = [threading.Thread(target=save) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert versions == [2, 2, 2, 2]
    with wired_session(engine) as session:
        state = load_game(session, code=game.code)
        assert state.version == 2 and state.totals == [0, 13, 20]
        saved = session.exec(select(func.count()).select_from(SeatScore)).one()
        assert saved == 3  # one row a seat: nothing saved twice, nothing replaced
