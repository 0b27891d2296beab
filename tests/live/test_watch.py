"""Watch links: they show everything, change nothing, and never reveal the scorekeeper's code."""

import pytest

from app.main import create_app
from app.web.rendering import qr_svg
from tests.conftest import test_settings, went_out_first
from tests.html import elements, visible_text

ROUND = {"results": went_out_first(3, points=[0, 13, 13])}

# Every route that changes a game, with a body that would otherwise be fine or broken.
API_WRITES = [
    ("put", "/api/games/{code}/rounds/1", ROUND),
    ("put", "/api/games/{code}/rounds/1", {"results": "nonsense"}),
    ("put", "/api/games/{code}/rounds/99", None),
    ("post", "/api/games/{code}/finish", None),
    ("post", "/api/games/{code}/finish", {"anything": 1}),
    ("post", "/api/games/{code}/scorekeeper-code", None),
    ("post", "/api/games/{code}/tiebreak", None),
    ("post", "/api/games/{code}/players", {"name": "Eve", "seat": 1, "start": "average"}),
    ("post", "/api/games/{code}/players", {"name": 7, "start": "nonsense"}),
    ("delete", "/api/games/{code}/players/1", None),
    ("delete", "/api/games/{code}/players/x", None),
]
PAGE_WRITES = [
    ("post", "/g/{code}/rounds/1", {"went_out": "0", "save": "1"}),
    ("post", "/g/{code}/rounds/1", {"add": "0:Q"}),
    ("post", "/g/{code}/finish", {}),
    ("post", "/g/{code}/scorekeeper-code", {}),
    ("get", "/g/{code}/rounds/1", None),
    ("post", "/g/{code}/tiebreak", {}),
    ("get", "/g/{code}/players", None),
    ("post", "/g/{code}/players", {"name": "Eve", "start": "zero"}),
    ("post", "/g/{code}/players/1/leave", {}),
    ("post", "/g/{code}/piles/1", {"closed": "1"}),
]


def test_scorekeeper_answers_carry_the_watch_code(client, new_game):
    game = new_game()
    assert game["can_edit"] is True
    assert len(game["watch_code"]) >= 22 and game["watch_code"] != game["code"]
    again = client.get(f"/api/games/{game['code']}").json()
    assert again["watch_code"] == game["watch_code"]
    saved = client.put(f"/api/games/{game['code']}/rounds/1", json=ROUND).json()
    assert saved["watch_code"] == game["watch_code"]


def test_the_watch_code_reads_the_game_without_the_scorekeeper_code(client, new_game):
    game = new_game()
    client.put(f"/api/games/{game['code']}/rounds/1", json=ROUND)
    response = client.get(f"/api/games/{game['watch_code']}")
    assert response.status_code == 200
    watched = response.json()
    assert watched["can_edit"] is False
    assert "watch_code" not in watched
    assert watched["totals"] == [0, 13, 13]
    assert game["code"] not in response.text


@pytest.mark.parametrize(("method", "path", "body"), API_WRITES)
def test_every_api_write_with_the_watch_code_is_403(client, new_game, method, path, body):
    game = new_game()
    url = path.format(code=game["watch_code"])
    response = client.request(method.upper(), url, json=body)
    assert response.status_code == 403
    assert "watch link" in response.json()["detail"]
    after = client.get(f"/api/games/{game['code']}").json()
    assert after["version"] == game["version"] and after["finished"] is False


def test_a_broken_body_with_the_watch_code_is_still_403(client, new_game):
    game = new_game()
    response = client.put(
        f"/api/games/{game['watch_code']}/rounds/1",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 403
    assert "watch link" in response.json()["detail"]


@pytest.mark.parametrize(("method", "path", "data"), PAGE_WRITES)
def test_every_page_write_with_the_watch_code_is_403(client, new_game, method, path, data):
    game = new_game()
    url = path.format(code=game["watch_code"])
    response = client.request(method.upper(), url, data=data, follow_redirects=False)
    assert response.status_code == 403
    assert "watch link" in visible_text(response.text)
    assert client.get(f"/api/games/{game['code']}").json()["version"] == game["version"]


def test_the_watch_page_has_no_edit_controls_and_no_scorekeeper_code(client, new_game):
    game = new_game()
    client.put(f"/api/games/{game['code']}/rounds/1", json=ROUND)
    response = client.get(f"/g/{game['watch_code']}")
    assert response.status_code == 200
    assert game["code"] not in response.text
    assert all(game["code"] not in value for value in response.headers.values())
    text = visible_text(response.text)
    assert "Fours are wild" in text and "You are watching" in text
    assert "Enter round" not in text and "End the game" not in text
    assert not elements(response.text, "form")
    assert not [a for a in elements(response.text, "a") if "/rounds/" in a.get("href", "")]


def test_the_share_panel_shows_the_watch_link_as_a_qr_code(client, new_game):
    game = new_game()
    page = client.get(f"/g/{game['code']}").text
    watch_link = elements(page, "input", id="watch-link")[0]["value"]
    assert watch_link == f"http://testserver/g/{game['watch_code']}"
    # The watch link, and the scorekeeper link behind a step: images fetched when shown.
    codes = [img["src"] for img in elements(page, "img", **{"class": "qr"})]
    assert codes == [f"/g/{game['watch_code']}/qr.svg", f"/g/{game['code']}/qr.svg"]
    drawn = client.get(codes[0])
    assert drawn.status_code == 200 and drawn.headers["content-type"] == "image/svg+xml"
    assert drawn.text.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in drawn.text
    assert drawn.text == qr_svg(watch_link)  # the link itself, as the share panel shows it
    assert drawn.text != client.get(codes[1]).text  # each draws its own link
    assert client.get("/g/nosuchgame/qr.svg").status_code == 404
    watch_page = client.get(f"/g/{game['watch_code']}").text
    watch_codes = [img["src"] for img in elements(watch_page, "img", **{"class": "qr"})]
    assert watch_codes == [f"/g/{game['watch_code']}/qr.svg"]
    assert not elements(watch_page, "input", id="keeper-link")


def test_replacing_the_scorekeeper_code_retires_the_old_one(client, new_game):
    game = new_game()
    response = client.post(f"/api/games/{game['code']}/scorekeeper-code")
    assert response.status_code == 200
    fresh = response.json()
    assert fresh["code"] != game["code"] and fresh["can_edit"] is True
    assert fresh["watch_code"] == game["watch_code"]
    # Gone for good: 410, as on the pages, saying so and naming no new code.
    replaced = client.get(f"/api/games/{game['code']}")
    assert replaced.status_code == 410
    assert replaced.json()["detail"].startswith("This scorekeeper link was replaced")
    assert fresh["code"] not in replaced.text
    assert client.put(f"/api/games/{game['code']}/rounds/1", json=ROUND).status_code == 410
    assert client.put(f"/api/games/{fresh['code']}/rounds/1", json=ROUND).status_code == 200


def test_replacing_from_the_page_moves_the_phone_to_the_new_link(client, new_game):
    game = new_game()
    response = client.post(f"/g/{game['code']}/scorekeeper-code", follow_redirects=False)
    assert response.status_code == 303
    new_code = response.headers["location"].rsplit("/", 1)[-1]
    assert new_code not in (game["code"], game["watch_code"])
    assert client.get(f"/g/{new_code}").status_code == 200


def test_a_replaced_scorekeeper_link_says_so_and_points_to_the_watch_link(client, new_game):
    game = new_game()
    fresh = client.post(f"/api/games/{game['code']}/scorekeeper-code").json()
    for path in [f"/g/{game['code']}", f"/g/{game['code']}/rounds/1"]:
        response = client.get(path)
        assert response.status_code == 410
        text = visible_text(response.text)
        assert "This scorekeeper link was replaced" in text
        assert "No game has this code" not in text
        links = {a["href"] for a in elements(response.text, "a")}
        assert f"/g/{game['watch_code']}" in links
        assert f"/g/{fresh['code']}" not in response.text
    saved = client.post(f"/g/{game['code']}/rounds/1", data={"went_out": "0", "save": "1"})
    assert saved.status_code == 410
    # The old code is kept only as a hash.
    from sqlalchemy import text as sql

    with client.app.state.engine.connect() as db:
        kept = db.execute(sql("SELECT code_hash FROM replaced_code")).scalars().all()
    assert len(kept) == 1 and game["code"] not in kept[0]


def test_a_code_that_never_existed_is_still_404(client):
    response = client.get("/g/neverexisted")
    assert response.status_code == 404
    text = visible_text(response.text)
    assert "No game has the code neverexisted" in text
    assert "Go to the start page" in text


def test_share_panel_never_offers_a_loopback_address(database_url, monkeypatch):
    from fastapi.testclient import TestClient

    from app import addresses

    monkeypatch.setattr(addresses, "lan_address", lambda: "192.168.1.20")
    app = create_app(test_settings(database_url))
    for base in ["http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"]:
        with TestClient(app, base_url=base) as local:
            game = local.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
            page = local.get(f"/g/{game['code']}").text
            watch_link = elements(page, "input", id="watch-link")[0]["value"]
            assert watch_link == f"http://192.168.1.20:8000/g/{game['watch_code']}"
            keeper_link = elements(page, "input", id="keeper-link")[0]["value"]
            assert keeper_link == f"http://192.168.1.20:8000/g/{game['code']}"


def test_public_url_is_the_address_shared(database_url):
    from fastapi.testclient import TestClient

    settings = test_settings(database_url, public_url="http://cards.home:8080/")
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8000") as local:
        game = local.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
        page = local.get(f"/g/{game['code']}").text
    watch_link = elements(page, "input", id="watch-link")[0]["value"]
    assert watch_link == f"http://cards.home:8080/g/{game['watch_code']}"


def test_links_follow_the_proxy_scheme_host_and_sub_path(database_url):
    from fastapi.testclient import TestClient

    settings = test_settings(database_url, forwarded_allow_ips="*")
    with TestClient(create_app(settings), root_path="/ck") as proxied:
        game = proxied.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
        page = proxied.get(
            f"/g/{game['code']}",
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "cards.example.org"},
        ).text
    link = elements(page, "input", id="watch-link")[0]["value"]
    assert link == f"https://cards.example.org/ck/g/{game['watch_code']}"
    assert "/ck/static/app.css" in page


def test_forwarded_headers_from_untrusted_clients_are_ignored(client, new_game):
    game = new_game()
    page = client.get(
        f"/g/{game['code']}",
        headers={"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"},
    ).text
    assert elements(page, "input", id="watch-link")[0]["value"].startswith("http://testserver/")
