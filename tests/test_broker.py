"""The in-process fan-out: each page has its own bounded line, and a slow one is dropped."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

from app.live.memory import QUEUE_SIZE, Broker


def run(scenario):
    """Run an async scenario on its own loop (the browser tests keep one busy in this thread)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, scenario()).result(timeout=10)


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
