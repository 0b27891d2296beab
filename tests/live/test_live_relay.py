"""Live updates across processes (PostgreSQL LISTEN/NOTIFY): one relay per process, here
two in one test process, each with its own broker as two workers would have."""

import asyncio
import json
import threading

import psycopg
import pytest
from sqlalchemy import text

from app.db import make_engine
from app.games import create_game, load_for_live_pages, replace_keeper_code, save_round
from app.live.memory import Broker
from app.live.notice import encode
from app.live.postgres import CHANNEL, PostgresRelay
from app.migrate import upgrade_to_head
from app.rules.scoring import SeatResult
from tests.aio import run_scenario
from tests.databases import wired_session

pytestmark = pytest.mark.parametrize("database_engine", ["postgresql"], indirect=True)

WENT_OUT = [SeatResult(went_out=True), SeatResult(points=17)]  # round 1 keeps 3 cards: 13+


@pytest.fixture
def engine(database_url):
    engine = make_engine(database_url)
    upgrade_to_head(engine)
    yield engine
    engine.dispose()


def relay_for(engine, **options):
    def load_state(watch_code):
        with wired_session(engine) as session:
            return load_for_live_pages(session, watch_code=watch_code)

    options.setdefault("load_state", load_state)
    return PostgresRelay(engine, Broker(), **options)


def new_game(engine):
    with wired_session(engine) as session:
        return create_game(session, players=["Ann", "Ben"])


def save(engine, game, number):
    with wired_session(engine) as session:
        return save_round(session, code=game.code, number=number, results=WENT_OUT)


async def started(relay):
    await relay.start()
    await asyncio.wait_for(relay.listening.wait(), 10)
    return relay


def test_a_save_in_another_process_reaches_every_page_here_read_once_then_carried(engine):
    game, unwatched = new_game(engine), new_game(engine)

    async def scenario():
        here = await started(relay_for(engine))
        there = relay_for(engine)  # the other process: it only sends
        pages = [here.broker.subscribe(game.watch_code) for _ in range(5)]
        for number in (1, 2, 3):
            state = await asyncio.to_thread(save, engine, game, number)
            await asyncio.to_thread(there.publish, game.watch_code, state)
            for page in pages:
                shown = await asyncio.wait_for(page.next_state(), 10)
                assert shown.version == state.version == number + 1
                assert shown.rounds[number - 1].scores == [0, 17]
                assert shown.totals == [0, 17 * number] and shown.code == game.code
        # Five pages, three changes: the first read once (this process had not seen the
        # game, so it did not know its scorekeeper code), the next two carried by the notice.
        assert (here.loads, here.carried) == (1, 2)
        other = await asyncio.to_thread(save, engine, unwatched, 1)
        await asyncio.to_thread(there.publish, unwatched.watch_code, other)
        await asyncio.sleep(0.5)
        assert (here.loads, here.carried) == (1, 2)  # nobody here follows that game
        await here.stop()

    run_scenario(scenario)


def test_the_notice_holds_the_state_and_no_code_that_can_edit(engine, database_url):
    game = new_game(engine)
    conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        state = save(engine, game, 1)
        relay_for(engine).publish(game.watch_code, state)
        notices = list(listener.notifies(timeout=10, stop_after=1))
    assert len(notices) == 1 and notices[0].channel == CHANNEL
    notice = json.loads(notices[0].payload)
    assert (notice["topic"], notice["version"]) == (game.watch_code, 2)
    assert [seat[0] for seat in notice["state"]["seats"]] == ["Ann", "Ben"]
    assert game.code not in notices[0].payload


def test_a_worker_that_read_the_game_shows_new_totals_without_reading_it_again(engine):
    game = new_game(engine)

    async def scenario():
        here = await started(relay_for(engine, load_state=None))  # reading would fail
        there = relay_for(engine)
        page = here.broker.subscribe(game.watch_code)
        here.broker.remember(game)  # read here when the page opened, as a stream does
        for number in (1, 2):
            state = await asyncio.to_thread(save, engine, game, number)
            await asyncio.to_thread(there.publish, game.watch_code, state)
            shown = await asyncio.wait_for(page.next_state(), 10)
            assert shown == state and shown.totals == [0, 17 * number]
        assert (here.loads, here.carried) == (0, 2)
        # Kept for pages opening later: no read for them either.
        assert here.broker.latest(game.watch_code).totals == [0, 34]
        await here.stop()

    run_scenario(scenario)


def test_a_notice_for_a_game_whose_scorekeeper_code_was_replaced_is_read_once(engine):
    game = new_game(engine)

    async def scenario():
        here = await started(relay_for(engine))
        there = relay_for(engine)
        page = here.broker.subscribe(game.watch_code)
        here.broker.remember(game)
        replaced = await asyncio.to_thread(replace_code, engine, game)
        await asyncio.to_thread(there.publish, game.watch_code, replaced)
        # The notice's hash is not of the code known here: the state it carries is not used.
        shown = await asyncio.wait_for(page.next_state(), 10)
        assert shown.version == 2 and shown.code == replaced.code != game.code
        assert (here.loads, here.carried) == (1, 0)
        await here.stop()

    run_scenario(scenario)


def replace_code(engine, game):
    with wired_session(engine) as session:
        return replace_keeper_code(session, code=game.code)


def test_the_sender_shows_its_own_save_at_once_and_skips_its_own_notice(engine):
    game = new_game(engine)

    async def scenario():
        here = await started(relay_for(engine))
        page = here.broker.subscribe(game.watch_code)
        state = await asyncio.to_thread(save, engine, game, 1)
        await asyncio.to_thread(here.publish, game.watch_code, state)
        assert (await asyncio.wait_for(page.next_state(), 5)).version == 2
        await asyncio.sleep(0.5)  # its own notice comes back meanwhile
        assert here.loads == 0 and not page.states
        await here.stop()

    run_scenario(scenario)


def test_the_sender_skips_its_own_notice_with_or_without_pages_and_keeps_nothing(engine):
    game = new_game(engine)

    async def scenario():
        here = await started(relay_for(engine))
        page = here.broker.subscribe(game.watch_code)
        state = await asyncio.to_thread(save, engine, game, 1)
        await asyncio.to_thread(here.publish, game.watch_code, state)
        shown = await asyncio.wait_for(page.next_state(), 10)  # at once, from the save
        assert shown == state
        here._on_notice(encode(state))  # its own notice, come back (the real one too)
        await asyncio.sleep(0.5)
        # Neither is shown again, read or taken from the notice.
        assert (here.loads, here.carried) == (0, 0) and not page.states
        here.broker.unsubscribe(page)
        newer = await asyncio.to_thread(save, engine, game, 2)
        await asyncio.to_thread(here.publish, game.watch_code, newer)
        await asyncio.sleep(0.5)
        # Nobody here follows the game: nothing is kept of it once its notice is back.
        assert game.watch_code not in here._shown
        await here.stop()

    run_scenario(scenario)


def test_after_reconnecting_the_pages_get_what_was_saved_meanwhile(engine):
    game = new_game(engine)

    async def scenario():
        here = await started(relay_for(engine, retry_delay=1.5))
        page = here.broker.subscribe(game.watch_code)
        await asyncio.to_thread(cut_listeners, engine)
        while here.listening.is_set():
            await asyncio.sleep(0.02)
        # Saved while nobody listens, and no notice sent: only catching up can show it.
        state = await asyncio.to_thread(save, engine, game, 1)
        shown = await asyncio.wait_for(page.next_state(), 15)
        assert shown.version == state.version == 2
        assert here.connections == 2
        await here.stop()

    run_scenario(scenario)


def cut_listeners(engine):
    """End the listening connections of this database, as a database restart would."""
    with engine.connect() as connection:
        cut = connection.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN%'"
            )
        ).all()
        connection.commit()
    assert cut == [(True,)]


def test_a_save_made_while_the_last_one_loads_still_reaches_the_pages(engine):
    game = new_game(engine)
    first_read = threading.Event()
    carry_on = threading.Event()

    def slow_first_load(watch_code):
        with wired_session(engine) as session:
            state = load_for_live_pages(session, watch_code=watch_code)
        if not first_read.is_set():
            first_read.set()
            carry_on.wait(10)  # the next save lands while this older state is on its way
        return state

    async def scenario():
        here = await started(PostgresRelay(engine, Broker(), load_state=slow_first_load))
        there = relay_for(engine)
        page = here.broker.subscribe(game.watch_code)
        state = await asyncio.to_thread(save, engine, game, 1)
        await asyncio.to_thread(there.publish, game.watch_code, state)
        await asyncio.to_thread(first_read.wait, 10)
        newer = await asyncio.to_thread(save, engine, game, 2)
        await asyncio.to_thread(there.publish, game.watch_code, newer)
        await asyncio.sleep(0.3)  # the notice of the second save arrives during the load
        carry_on.set()
        assert (await asyncio.wait_for(page.next_state(), 10)).version == 2
        assert (await asyncio.wait_for(page.next_state(), 10)).version == newer.version == 3
        assert here.loads == 2
        await asyncio.sleep(0.1)
        # Nothing is kept for a game once its changes are shown: a long-running server
        # follows thousands of games.
        assert not here._wanted and not here._loading
        await here.stop()

    run_scenario(scenario)


def test_a_game_that_cannot_be_loaded_is_logged_in_words_and_the_relay_goes_on(engine, caplog):
    game = new_game(engine)
    loads = []

    def failing_first_load(watch_code):
        loads.append(watch_code)
        if len(loads) == 1:
            raise RuntimeError("the database went away")
        with wired_session(engine) as session:
            return load_for_live_pages(session, watch_code=watch_code)

    async def scenario():
        here = await started(PostgresRelay(engine, Broker(), load_state=failing_first_load))
        there = relay_for(engine)
        page = here.broker.subscribe(game.watch_code)
        for number in (1, 2):
            state = await asyncio.to_thread(save, engine, game, number)
            await asyncio.to_thread(there.publish, game.watch_code, state)
            await asyncio.sleep(0.5)
        assert (await asyncio.wait_for(page.next_state(), 10)).version == 3
        await here.stop()

    with caplog.at_level("ERROR", logger="app.live.postgres"):
        run_scenario(scenario)
    assert [record.getMessage() for record in caplog.records] == [
        "Live updates: could not load a game to relay"
    ]


def test_stopping_returns_only_once_the_relay_has_let_go_of_its_work(engine):
    """A server shutting down stops the relay, then disposes of the database engine: by then
    the listener (and any load) must be over, not still closing its connection."""
    game = new_game(engine)

    async def scenario():
        relay = await started(relay_for(engine))
        relay.broker.subscribe(game.watch_code)
        relay._want(game.watch_code, version=None)  # a load under way, as after a reconnect
        work = [relay._listener, *relay._loading.values()]
        await relay.stop()
        return [task.done() for task in work]

    assert run_scenario(scenario) == [True, True]


def test_a_database_that_stays_away_is_tried_again_less_and_less_often(engine, caplog):
    """Three connection attempts fail in a row (the database is still restarting): the relay
    waits twice as long after each, says so in the log, and listens once it can."""
    refusals = []

    class Restarting(PostgresRelay):
        def _conninfo(self):
            if len(refusals) < 3:
                refusals.append(True)
                return super()._conninfo().replace(engine.url.database, "still_restarting")
            return super()._conninfo()

    async def scenario():
        relay = Restarting(engine, Broker(), load_state=lambda code: None, retry_delay=0.1)
        await relay.start()
        await asyncio.wait_for(relay.listening.wait(), 10)
        connections = relay.connections
        await relay.stop()
        return connections

    with caplog.at_level("WARNING", logger="app.live.postgres"):
        assert run_scenario(scenario) == 1
    waits = [r.getMessage().rsplit("retrying in ", 1)[1] for r in caplog.records]
    assert waits == ["0.1 s", "0.2 s", "0.4 s"]
