"""The in-process fan-out: each page has its own bounded line, and a slow one is dropped."""

import asyncio

from app.live.memory import QUEUE_SIZE, Broker
from tests.aio import run_scenario


def run(scenario):
    """Run an async scenario on its own loop and thread; one that waits for a state that
    never comes is cancelled after 10 s and fails (not left waiting for ever)."""
    run_scenario(scenario, timeout=10.0)


def test_slow_subscribers_are_dropped_without_holding_up_the_others():
    async def scenario():
        broker = Broker()
        slow, quick = broker.subscribe("game"), broker.subscribe("game")
        received = []
        for version in range(QUEUE_SIZE + 3):
            broker.publish("game", version)
            await asyncio.sleep(0)
            received.append(await quick.next_state())
        assert received == list(range(QUEUE_SIZE + 3))
        assert await slow.next_state() is None  # dropped: its page reconnects and catches up
        assert broker.count("game") == 1
        broker.unsubscribe(quick)
        assert broker.count("game") == 0

    run(scenario)


def test_publishing_from_another_thread_reaches_the_loop():
    async def scenario():
        broker = Broker()
        subscription = broker.subscribe("game")
        await asyncio.to_thread(broker.publish, "game", "saved")
        assert await asyncio.wait_for(subscription.next_state(), 2) == "saved"

    run(scenario)


def test_the_newest_state_is_kept_for_pages_that_open_later():
    from dataclasses import replace

    from app.games import GameState
    from app.live import Broker

    keeper = GameState(
        code="keeper1",
        watch_code="watch1",
        can_edit=True,
        players=("Ann", "Ben"),
        first_dealer=0,
        rounds=(),
        finished=False,
        version=3,
    )
    broker = Broker()
    broker.remember(keeper)
    broker.remember(replace(keeper, version=2))  # an older read arriving late changes nothing
    assert broker.latest("keeper1").version == 3
    watcher_view = broker.latest("watch1")
    assert watcher_view.code == "watch1" and not watcher_view.can_edit
    # A replaced scorekeeper code is forgotten at once.
    broker.remember(replace(keeper, code="keeper2", version=4))
    assert broker.latest("keeper1") is None
    assert broker.latest("keeper2").version == 4
    assert broker.latest("nobody") is None


def test_a_dropped_page_that_then_closes_its_stream_is_no_error():
    async def scenario():
        broker = Broker()
        slow = broker.subscribe("game")  # the game's only page, and it stops reading
        for version in range(QUEUE_SIZE + 1):
            broker.publish("game", version)
            await asyncio.sleep(0)
        assert await slow.next_state() is None
        assert broker.count("game") == 0
        # Its stream ends and lets go of its place, as every stream does when it ends.
        broker.unsubscribe(slow)
        assert broker.count("game") == 0 and broker.topics() == []

    run(scenario)


def test_a_stream_idle_for_a_while_is_pinged_and_a_busy_one_is_not():
    from app.live.memory import PING, PING_SECONDS

    async def scenario():
        broker = Broker()
        idle, busy = broker.subscribe("game"), broker.subscribe("other")
        idle.sent_at -= PING_SECONDS  # nothing sent for a whole period
        broker.ping_idle()
        assert await asyncio.wait_for(idle.next_state(), 1) == PING
        assert busy.states == []
        broker.ping_idle()  # just sent: not again until another period has passed
        assert idle.states == []

    run(scenario)
