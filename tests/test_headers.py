"""Every kind of answer keeps the browser from sniffing, framing or leaking game links, and
the games cookie stays out of reach of scripts and other sites."""

import pytest

# Headers and cookie flags do not depend on the database: SQLite only (tests/databases.py).
pytestmark = pytest.mark.one_database

FRAGMENT = {"HX-Request": "true", "HX-Request-Type": "partial"}

KINDS = {
    "page": lambda c, g: c.get("/"),
    "game page": lambda c, g: c.get(f"/g/{g['code']}"),
    "fragment": lambda c, g: c.get(f"/g/{g['code']}", headers=FRAGMENT),
    "form fragment with errors": lambda c, g: c.post(
        "/games", data={"name_0": "Ann", "action": "create"}, headers=FRAGMENT
    ),
    "redirect": lambda c, g: c.post(f"/g/{g['code']}/finish", follow_redirects=False),
    "json": lambda c, g: c.get(f"/api/games/{g['code']}"),
    "json error": lambda c, g: c.get("/api/games/nosuchgame"),
    "json validation error": lambda c, g: c.post("/api/games", content=b"{"),
    "openapi": lambda c, g: c.get("/openapi.json"),
    "static": lambda c, g: c.get("/static/app.css"),
    "static missing": lambda c, g: c.get("/static/nothing.js"),
    "error page": lambda c, g: c.get("/g/nosuchgame"),
    "forbidden page": lambda c, g: c.post(f"/g/{g['watch_code']}/finish"),
    "health": lambda c, g: c.get("/healthz"),
}


@pytest.fixture
def game(client, new_game):
    game = new_game()
    results = [{"went_out": True}, {"points": 5}, {"points": 4}]
    assert client.put(f"/api/games/{game['code']}/rounds/1", json={"results": results}).is_success
    return game


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_answer_carries_the_security_headers(client, game, kind):
    response = KINDS[kind](client, game)
    assert response.status_code < 500
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy


def cookie_flags(response):
    header = response.headers["set-cookie"]
    return header, {part.strip().split("=")[0].lower() for part in header.split(";")}


@pytest.mark.parametrize("path", ["/g/{code}", "/g/{watch_code}"])
def test_the_games_cookie_is_http_only_and_same_site(client, game, path):
    response = client.get(path.format(**game), headers=FRAGMENT)
    header, flags = cookie_flags(response)
    assert header.startswith("crownkeeper_games=")
    assert "httponly" in flags
    assert "samesite=lax" in header.lower()
    assert "path=/" in header.lower()


def test_the_cookie_keeps_its_flags_when_a_replaced_link_is_forgotten(client, game):
    client.get(f"/g/{game['code']}")
    response = client.post(f"/g/{game['code']}/scorekeeper-code", follow_redirects=False)
    header, flags = cookie_flags(response)
    assert game["code"] not in header
    assert "httponly" in flags and "samesite=lax" in header.lower()
