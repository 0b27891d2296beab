"""On the home screen: the manifest and the service worker as the server serves them, under
ROOT_PATH too, the icons drawn from the crown by their script, and a round sent twice (its
first answer lost to a Wi-Fi drop) saved once."""

import json
import re
import struct

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web import installable
from scripts import draw_icons
from tests.conftest import test_settings, went_out_first
from tests.html import elements

pytestmark = pytest.mark.one_database


def test_the_manifest_names_the_app_and_its_icons(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/manifest+json"
    manifest = json.loads(response.text)
    assert manifest["name"] == "Crownkeeper" and manifest["short_name"]
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == manifest["scope"] == "./"  # the app's root, as served
    css = (installable.STATIC_DIR / "app.css").read_text()
    light_page = re.search(r"--bg: (#[0-9a-f]{6})", css)[1]  # the first :root, light mode
    assert manifest["background_color"] == manifest["theme_color"] == light_page
    sizes = {(icon["sizes"], icon.get("purpose", "any")) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} == sizes
    for icon in manifest["icons"]:
        png = client.get("/" + icon["src"])
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        width, height = struct.unpack(">II", png.content[16:24])
        assert f"{width}x{height}" == icon["sizes"]


def test_every_page_links_the_manifest_the_touch_icon_and_both_theme_colours(client, new_game):
    game = new_game()
    for path in ("/", "/rules", "/hand", f"/g/{game['code']}", f"/g/{game['watch_code']}"):
        page = client.get(path).text
        assert [link["href"] for link in elements(page, "link", rel="manifest")] == [
            "/manifest.webmanifest"
        ], path
        touch = elements(page, "link", rel="apple-touch-icon")[0]["href"]
        assert struct.unpack(">II", client.get(touch).content[16:24]) == (180, 180)
        colours = {
            meta["media"]: meta["content"] for meta in elements(page, "meta", name="theme-color")
        }
        assert colours == {
            "(prefers-color-scheme: light)": "#fbf8f1",
            "(prefers-color-scheme: dark)": "#141418",
        }


def test_under_a_root_path_the_manifest_and_worker_sit_at_the_apps_root(database_url):
    with TestClient(create_app(test_settings(database_url)), root_path="/ck") as proxied:
        game = proxied.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
        page = proxied.get(f"/g/{game['code']}").text
        assert elements(page, "link", rel="manifest")[0]["href"] == "/ck/manifest.webmanifest"
        assert proxied.get("/manifest.webmanifest").status_code == 200
        assert proxied.get("/sw.js").status_code == 200


def test_the_worker_is_never_cached_and_keeps_this_builds_static_files(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["content-type"].startswith("text/javascript")
    config = json.loads(response.text.split("var CONFIG = ", 1)[1].split(";\n", 1)[0])
    assert config["version"] == installable.build_version()
    assert {"app.css", "app.js", "kept-rounds.js", "icons/icon-192.png"} <= set(config["static"])
    assert all(client.get("/static/" + path).status_code == 200 for path in config["static"])
    # What it must never keep: the API and the live streams are left to the network.
    assert "/api/" not in response.text and "events" not in response.text


def test_an_upgrade_changes_the_worker(monkeypatch, tmp_path, client):
    before = client.get("/sw.js").text
    static = tmp_path / "static"
    static.mkdir()
    for path in installable.static_files():
        (static / path).parent.mkdir(parents=True, exist_ok=True)
        (static / path).write_bytes((installable.STATIC_DIR / path).read_bytes())
    (static / "app.css").write_text("/* the next build */")
    monkeypatch.setattr(installable, "STATIC_DIR", static)
    installable.static_files.cache_clear()
    installable.build_version.cache_clear()
    try:
        assert client.get("/sw.js").text != before
    finally:
        installable.static_files.cache_clear()
        installable.build_version.cache_clear()


def test_the_icons_are_what_the_script_draws_from_the_crown():
    for name, size, share in draw_icons.ICONS:
        committed = (draw_icons.OUT / name).read_bytes()
        assert committed == draw_icons.draw(size, share), name
    # The crown is gold on the dark background: both colours are in every icon.
    shapes, fill, view = draw_icons.read_crown(draw_icons.SOURCE.read_text())
    assert fill == (0xD4, 0xA0, 0x17) and view == 32 and len(shapes) == 2


def test_a_round_sent_twice_is_saved_once(client, new_game):
    """A save whose answer was lost is sent again with the same version: the server sees the
    very round it saved and answers with the game, changing nothing."""
    game = new_game()
    code, version = game["code"], game["version"]
    body = {"results": went_out_first(3, points=[0, 13, 20]), "version": version}
    first = client.put(f"/api/games/{code}/rounds/1", json=body)
    assert first.status_code == 200
    again = client.put(f"/api/games/{code}/rounds/1", json=body)
    assert again.status_code == 200
    assert again.json()["version"] == first.json()["version"] == version + 1
    assert again.json()["totals"] == [0, 13, 20]
    other = dict(body, results=went_out_first(3, points=[0, 20, 13]))
    assert client.put(f"/api/games/{code}/rounds/1", json=other).status_code == 409
    assert client.get(f"/api/games/{code}").json()["totals"] == [0, 13, 20]


def test_a_game_page_gone_is_answered_404_or_410_so_the_phone_lets_its_copy_go(client, new_game):
    """The worker lets a kept copy go on 404 or 410 (templates/sw.js)."""
    replaced, deleted = new_game(), new_game()
    assert client.post(f"/api/games/{replaced['code']}/scorekeeper-code").status_code == 200
    assert client.get(f"/g/{replaced['code']}").status_code == 410
    assert client.delete(f"/api/games/{deleted['code']}").status_code == 200
    assert client.get(f"/g/{deleted['code']}").status_code == 404
    assert client.get(f"/g/{deleted['watch_code']}").status_code == 404
    assert client.get("/g/no-such-game").status_code == 404


def test_every_game_page_offers_to_forget_it_on_this_phone(client, new_game):
    game = new_game()
    fields = {"name_0": "Sol", "first_dealer": "0", "action": "create", "mode": "solitaire"}
    solitaire = client.post("/games", data=fields, follow_redirects=False).headers["location"]
    for code in (game["code"], game["watch_code"], solitaire.rsplit("/", 1)[-1]):
        page = client.get(f"/g/{code}").text
        assert elements(page, "a", href=f"/g/{code}/forget"), code


def test_forgetting_asks_first_then_takes_the_game_off_this_phones_list(client, new_game):
    kept, forgotten = new_game(), new_game()
    client.get(f"/g/{kept['code']}")
    client.get(f"/g/{forgotten['code']}")
    assert client.cookies["crownkeeper_games"] == f"{forgotten['code']}.{kept['code']}"

    asking = client.get(f"/g/{forgotten['code']}/forget")
    assert asking.status_code == 200
    (form,) = elements(asking.text, "form", action=f"/g/{forgotten['code']}/forget")
    assert form["method"] == "post" and form["data-code"] == forgotten["code"]
    assert form["data-page"] == f"/g/{forgotten['code']}"
    assert elements(asking.text, "a", href=f"/g/{forgotten['code']}")  # keep it
    assert client.cookies["crownkeeper_games"] == f"{forgotten['code']}.{kept['code']}"

    done = client.post(f"/g/{forgotten['code']}/forget", follow_redirects=False)
    assert done.status_code == 303
    assert done.headers["location"].endswith(f"/g/{forgotten['code']}/forget?forgotten=1")
    assert client.cookies["crownkeeper_games"] == kept["code"]
    said = client.get(done.headers["location"])
    assert "Forgotten on this phone" in said.text and not elements(said.text, "form")
    home = client.get("/").text
    assert kept["code"] in home and forgotten["code"] not in home
