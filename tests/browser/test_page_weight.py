"""The game page stays light for a cheap phone on a slow home network, and loads nothing
from anywhere but the server: its first load, as it comes over the wire, within the budget."""

import pytest

from bench.page_weight import LIMIT_BYTES, game_page_weight, save_rounds
from tests.browsers import PHONE

pytestmark = pytest.mark.browser


def test_game_page_with_everything_it_loads_is_within_the_budget(phone, live_server):
    names = [f"Player {i}" for i in range(1, 8)]
    code = phone.request.post(live_server.url + "/api/games", data={"players": names}).json()[
        "code"
    ]
    save_rounds(phone.request, live_server.url, code)
    weights, outside = game_page_weight(phone, f"{live_server.url}/g/{code}")
    loaded = {url.rsplit("/", 1)[-1]: encoding for url, _, _, _, encoding in weights}
    assert {"htmx-4.0.1.min.js", "app.css", "app.js"} <= set(loaded)
    assert {loaded[name] for name in ("htmx-4.0.1.min.js", "app.css", "app.js")} == {"br"}
    total = sum(wire for _, _, _, wire, _ in weights)
    assert total < LIMIT_BYTES, weights
    assert outside == []


def test_in_german_the_longest_words_the_first_load_is_within_the_budget_too(browser, live_server):
    context = browser.new_context(viewport=PHONE, locale="de-DE")
    page = context.new_page()
    names = [f"Player {i}" for i in range(1, 8)]
    code = page.request.post(live_server.url + "/api/games", data={"players": names}).json()["code"]
    save_rounds(page.request, live_server.url, code)
    weights, outside = game_page_weight(page, f"{live_server.url}/g/{code}")
    assert page.locator("html").get_attribute("lang") == "de"
    assert sum(wire for _, _, _, wire, _ in weights) < LIMIT_BYTES, weights
    assert outside == []
    context.close()
