"""The game page stays light for a cheap phone on a slow home network, and loads nothing
from anywhere but the server."""

import pytest

from bench.page_weight import LIMIT_BYTES, game_page_weight

pytestmark = pytest.mark.browser


def test_game_page_with_everything_it_loads_is_under_30_kb(phone, live_server):
    names = [f"Player {i}" for i in range(1, 8)]
    code = phone.request.post(live_server.url + "/api/games", data={"players": names}).json()[
        "code"
    ]
    weights, outside = game_page_weight(phone, f"{live_server.url}/g/{code}")
    loaded = {url.rsplit("/", 1)[-1] for url, _, _ in weights}
    assert {"htmx-4.0.1.min.js", "hx-sse-4.0.1.min.js", "app.css", "app.js"} <= loaded
    total = sum(packed for _, _, packed in weights)
    assert total < LIMIT_BYTES, weights
    assert outside == []
