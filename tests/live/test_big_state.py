"""A game too big for one notice (fourteen players with the longest names, keeping their
cards) still reaches every open page with every save. On PostgreSQL the pages are on a second
server (another worker or host, with its own live updates) and the saves go through the
first: each notice carries only the game and its version, and the second reads the game."""

import json

import pytest

from app.db import make_engine
from app.games import load_for_live_pages
from app.live.notice import encode
from app.rules.cards import RANK_CODES, SUITS
from tests.databases import wired_session
from tests.live.test_stream import Viewer, call, wait_for
from tests.server import LiveServer

PLAYERS = [f"{letter} Featherstonehaugh-Marjoribank"[:30] for letter in "ABCDEFGHIJKLMN"]
# Two decks at fourteen players: no card more than twice at the table.
DECK = [rank + suit for rank in RANK_CODES.values() for suit in SUITS] * 2


def round_results(number):
    """Seat 0 out first, every other seat keeping up to eight cards of its own."""
    count = min(number + 2, 8)
    kept = [DECK[seat * count : (seat + 1) * count] for seat in range(len(PLAYERS) - 1)]
    return [{"went_out": True}] + [{"cards": cards, "confirmed": True} for cards in kept]


def next_version(viewer, after):
    event = viewer.next_event()
    while int(event["id"]) <= after:
        event = viewer.next_event()
    return event


@pytest.fixture
def servers(database_url):
    """The server saves go through, and the one the pages are open on (the same one on
    SQLite, where one process serves every page)."""
    first = LiveServer(database_url).start()
    started = [first]
    try:
        if database_url.startswith("postgresql"):
            started.append(LiveServer(database_url).start())
        for server in started:
            server.viewers = []
            relay = server.app.state.live.relay
            assert relay is None or wait_for(relay.listening.is_set, 10)
        yield started[0], started[-1]
    finally:
        for server in started:
            for viewer in server.viewers:
                viewer.close()
            server.stop()


def test_a_state_too_big_for_one_notice_reaches_every_page(servers, database_url):
    saving, showing = servers
    status, game = call(saving, "POST", "/api/games", {"players": PLAYERS})
    assert status == 201
    pages = [Viewer(showing, game["watch_code"]) for _ in range(3)]
    pages.append(Viewer(showing, game["code"]))  # the scorekeeper's own page, elsewhere
    for page in pages:
        assert page.next_event()["id"] == "1"
    relay = showing.app.state.live.relay
    for number in range(1, 12):
        loads = None if relay is None else relay.loads
        status, saved = call(
            saving,
            "PUT",
            f"/api/games/{game['code']}/rounds/{number}",
            {"results": round_results(number)},
        )
        assert status == 200, saved
        for page in pages:
            event = next_version(page, number)
            assert event["id"] == str(number + 1)
            shown = "".join(event["data"])
            assert PLAYERS[13] in shown and str(saved["totals"][13]) in shown
    # The last save was too big for PostgreSQL's notice, so it went without its state...
    engine = make_engine(database_url)
    with wired_session(engine) as session:
        state = load_for_live_pages(session, watch_code=game["watch_code"])
    engine.dispose()
    assert json.loads(encode(state)) == {"topic": game["watch_code"], "version": 12}
    if relay is not None:
        # ...and the server showing the pages read it once, for all four pages.
        assert relay.loads == loads + 1
        # Every save reached it one way or the other: carried when it fitted, else read.
        assert relay.carried + relay.loads == 11 and relay.carried >= 1
