"""A page the server has no room to stream to refreshes its totals every 15 s, and says so."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_play import expect_total
from tests.browsers import PHONE, LiveServer

pytestmark = pytest.mark.browser
BUSY = "Busy: totals refresh every 15 s"


@pytest.fixture
def full_server(tmp_path):
    server = LiveServer(f"sqlite:///{tmp_path}/full.db", streams_per_game=0).start()
    yield server
    server.stop()


def test_a_page_turned_away_from_its_stream_polls_the_totals(browser, full_server):
    api = browser.new_context().request
    game = api.post(full_server.url + "/api/games", data={"players": ["Ann", "Ben", "Cy"]}).json()
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(5000)
    page.clock.install()
    page.goto(f"{full_server.url}/g/{game['watch_code']}")
    expect(page.locator("#live").get_by_role("status")).to_have_text(BUSY)

    saved = api.put(
        f"{full_server.url}/api/games/{game['code']}/rounds/1",
        # round 1 keeps 0 or 3 cards: 13 at least
        data={"results": [{"went_out": True}, {"points": 13}, {"points": 30}]},
    )
    assert saved.ok
    page.clock.run_for(10_000)
    expect_total(page, "Ben", 0)
    page.clock.run_for(6_000)
    expect_total(page, "Ben", 13)
    expect_total(page, "Cy", 30)
    expect(page.locator("#live").get_by_role("status")).to_have_text(BUSY)
    context.close()
