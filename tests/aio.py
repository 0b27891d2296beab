"""Running an async scenario from a plain test."""

import asyncio
import threading


def run_scenario(scenario, timeout=30.0):
    """Run scenario() to its end on a loop of its own, in a thread of its own, and return
    what it returns (or raise what it raised). Not on the test's thread: a browser test's
    Playwright, still open in the same process, counts there as a running event loop."""
    outcome = {}

    def target():
        try:
            outcome["value"] = asyncio.run(asyncio.wait_for(scenario(), timeout))
        except BaseException as error:  # handed to the test's thread below
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout + 5)
    assert not thread.is_alive(), f"the scenario did not end within {timeout} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
