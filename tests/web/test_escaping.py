"""Hostile names and hostile input never become markup: every page, every htmx fragment,
every error page and every live update is parsed as a browser would, looking for any tag
or attribute a player's text could have smuggled in."""

from urllib.parse import quote

import pytest
from starlette.requests import Request

from app.games import load_game
from app.web.rendering import live_update
from tests.html import parse, visible_text

# What is escaped does not depend on the database: SQLite only (tests/databases.py).
pytestmark = pytest.mark.one_database

# Each tries another way out: a tag in text, out of a double- or single-quoted attribute.
HOSTILE_NAMES = ["<x-evil>Ann", '"><x-evil a=1>', "' x-evil='1", '" x-evil="1']
HOSTILE_INPUT = '"><x-evil>'
FRAGMENT = {"HX-Request": "true", "HX-Request-Type": "partial"}


def smuggled(html):
    """Tags and attributes that came from hostile text rather than from the templates."""
    found = []
    for tag, attrs in parse(html).elements:
        if "evil" in tag:
            found.append(f"<{tag}>")
        found.extend(f"{tag}[{name}]" for name in attrs if "evil" in name or name == "a")
    return found


@pytest.fixture
def game(client, new_game):
    """A game between hostile names with round 1 saved, so every name shows on the sheet."""
    game = new_game(HOSTILE_NAMES)
    results = [{"went_out": True}, {"points": 13}, {"points": 14}, {"cards": ["KH"]}]
    saved = client.put(f"/api/games/{game['code']}/rounds/1", json={"results": results})
    assert saved.status_code == 200
    return saved.json() | {"watch_code": game["watch_code"]}


def round_post(seat_count, **fields):
    data = {"version": "", **{f"cards_{s}": "" for s in range(seat_count)}}
    data.update({f"points_{s}": "" for s in range(seat_count)})
    return data | fields


def bad_round(client, game, *, fragment, **fields):
    code = game["code"]
    return client.post(
        f"/g/{code}/rounds/2",
        data=round_post(4, went_out="0", **fields),
        headers=FRAGMENT if fragment else {},
    )


def game_live_update(client, game, *, watch):
    """The live update an open page receives after a change, as the stream sends it."""
    app = client.app
    with app.state.sessions() as session:
        state = load_game(session, code=game["watch_code"] if watch else game["code"])
    scope = {"type": "http", "app": app, "root_path": "", "headers": [], "path": "/"}
    scope |= {"method": "GET", "query_string": b"", "scheme": "http", "server": ("t", 80)}
    return live_update(Request(scope), state)


def finished(client, game):
    client.post(f"/g/{game['code']}/finish")
    return client.get(f"/g/{game['watch_code']}").text


def new_game_error(client, names, *, fragment):
    data = {f"name_{i}": name for i, name in enumerate(names)} | {"action": "create"}
    return client.post("/games", data=data, headers=FRAGMENT if fragment else {})


CASES = {
    "home with remembered games": lambda c, g: (
        c.get(f"/g/{g['code']}"),
        c.get(f"/g/{g['watch_code']}"),
        c.get("/"),
    )[-1],
    "game page": lambda c, g: c.get(f"/g/{g['code']}"),
    "game fragment": lambda c, g: c.get(f"/g/{g['code']}", headers=FRAGMENT),
    "watch page": lambda c, g: c.get(f"/g/{g['watch_code']}"),
    "finished game": finished,
    "round page": lambda c, g: c.get(f"/g/{g['code']}/rounds/2"),
    "round correction page": lambda c, g: c.get(f"/g/{g['code']}/rounds/1"),
    "round errors, typed points": lambda c, g: bad_round(
        c, g, fragment=False, points_1=HOSTILE_INPUT
    ),
    "round errors, cards fragment": lambda c, g: bad_round(
        c, g, fragment=True, cards_1=HOSTILE_INPUT
    ),
    "round errors on the game page": lambda c, g: bad_round(
        c, g, fragment=True, **{"from": "game", "cards_2": HOSTILE_INPUT, "points_3": "x<y"}
    ),
    "round stale version": lambda c, g: bad_round(c, g, fragment=True, version="1", points_1="7"),
    "round tap": lambda c, g: bad_round(c, g, fragment=True, add=f"1:{HOSTILE_INPUT}"),
    "new game, same names": lambda c, g: new_game_error(c, [HOSTILE_NAMES[0]] * 2, fragment=False),
    "new game, long name fragment": lambda c, g: new_game_error(
        c, ["<x-evil>" * 5, "Ben"], fragment=True
    ),
    "new game, quote name": lambda c, g: new_game_error(c, HOSTILE_NAMES[1:2] * 2, fragment=True),
    "new game, seat moved": lambda c, g: c.post(
        "/games", data={"name_0": HOSTILE_NAMES[1], "name_1": HOSTILE_NAMES[2], "action": "up:1"}
    ),
    "hand checker error": lambda c, g: c.get(f"/hand?cards={quote(HOSTILE_INPUT)}"),
    "hand checker error fragment": lambda c, g: c.get(
        f"/hand?cards=5H,{quote(HOSTILE_INPUT)}", headers=FRAGMENT
    ),
    "hand checker picker": lambda c, g: c.get(
        f"/hand?part=picker&add={quote(HOSTILE_INPUT)}", headers=FRAGMENT
    ),
    "hand checker bad round": lambda c, g: c.get(f"/hand?round={quote(HOSTILE_INPUT)}"),
    "error: unknown game": lambda c, g: c.get(f"/g/{quote(HOSTILE_INPUT)}"),
    "error: unknown page": lambda c, g: c.get(f"/{quote(HOSTILE_INPUT)}"),
    "error: bad round number": lambda c, g: c.get(f"/g/{g['code']}/rounds/{quote(HOSTILE_INPUT)}"),
    "error: watch link writes": lambda c, g: c.post(f"/g/{g['watch_code']}/finish"),
    "error: finish refused": lambda c, g: c.post(
        f"/g/{c.post('/api/games', json={'players': HOSTILE_NAMES[:2]}).json()['code']}/finish"
    ),
    "live update for the scorekeeper": lambda c, g: game_live_update(c, g, watch=False),
    "live update for watchers": lambda c, g: game_live_update(c, g, watch=True),
}
# Where the names themselves are on the page, they must read exactly as typed.
SHOWS_NAMES = {
    "game page",
    "game fragment",
    "watch page",
    "finished game",
    "round page",
    "live update for the scorekeeper",
    "live update for watchers",
}


@pytest.mark.parametrize("case", CASES)
def test_nothing_a_player_typed_becomes_markup(client, game, case):
    answer = CASES[case](client, game)
    html = answer if isinstance(answer, str) else answer.text
    if not isinstance(answer, str):
        assert answer.status_code < 500, answer.text
        assert answer.headers["content-type"].startswith("text/html")
    assert smuggled(html) == []
    if case in SHOWS_NAMES:
        text = visible_text(html)
        for name in HOSTILE_NAMES:
            assert name in text
