"""Every kind of answer keeps the browser from sniffing, framing or leaking game links, and
the games cookie stays out of reach of scripts and other sites."""

import logging

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import test_settings
from tests.html import visible_text

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
    results = [{"went_out": True}, {"points": 13}, {"points": 14}]
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


def broken_rules_page(monkeypatch):
    """A bug on the rules page: it fails while answering."""

    def fail(**_):
        raise RuntimeError("a bug in the rules page")

    monkeypatch.setattr("app.web.pages.plan_rounds", fail)


def test_an_unexpected_error_on_a_page_says_so_in_words(client, monkeypatch):
    broken_rules_page(monkeypatch)
    response = client.get("/rules")
    assert response.status_code == 500
    assert response.headers["content-type"].startswith("text/html")
    assert "Something went wrong on the server; try again." in visible_text(response.text)
    assert "a bug in the rules page" not in response.text


def test_when_the_error_page_fails_too_the_answer_is_plain_and_logged(client, monkeypatch, caplog):
    broken_rules_page(monkeypatch)

    def error_page_fails(*_, **__):
        raise RuntimeError("the error page is broken")

    monkeypatch.setattr("app.web.errors.error_page", error_page_fails)
    with caplog.at_level(logging.ERROR, logger="crownkeeper"):
        response = client.get("/rules")
    assert response.status_code == 500
    assert response.json() == {"detail": "Something went wrong on the server."}
    assert "Error page failed" in [record.getMessage() for record in caplog.records]


def test_behind_a_sub_path_the_cookies_stay_on_that_path(database_url):
    with TestClient(create_app(test_settings(database_url)), root_path="/ck") as proxied:
        game = proxied.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
        table = proxied.post("/api/tables", json={"name": "The Smiths"}).json()
        game_page = proxied.get(f"/g/{game['code']}")
        table_page = proxied.get(f"/t/{table['code']}")
    assert "path=/ck" in game_page.headers["set-cookie"].lower()
    assert "path=/ck" in table_page.headers["set-cookie"].lower()
