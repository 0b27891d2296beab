"""On the home screen and through a Wi-Fi drop, in a real Chromium at a phone's size: the
manifest and icons as the browser reads them, the service worker in control after a reload,
rounds kept on the phone while offline and sent by themselves (each once) when the
connection is back, a kept round whose base changed offered the side-by-side choice, and a
watcher told when cut off who catches up."""

import json
import struct

import pytest
from playwright.sync_api import expect

from tests.browser.test_round_at_the_table import tap
from tests.browsers import PHONE

pytestmark = pytest.mark.browser
NAMES = ["Ann", "Ben", "Cy"]
SENT_WITHIN_MS = 20_000


@pytest.fixture
def context(browser, live_server):
    """A phone of its own, with no request routing (routing would bypass the worker); any
    request off the server fails the test."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    outside = []
    context.on(
        "request",
        lambda request: (
            None
            if request.url.startswith((live_server.url, "data:", "blob:"))
            else outside.append(request.url)
        ),
    )
    yield context
    context.close()
    assert outside == [], f"the page asked for things outside the server: {outside}"


@pytest.fixture
def phone(context):
    page = context.new_page()
    page.set_default_timeout(8000)
    return page


def new_game(page, base_url, names=NAMES):
    return page.request.post(base_url + "/api/games", data={"players": names}).json()


def open_controlled(page, url):
    """Open url, wait for the service worker, and reload so it controls the page."""
    page.goto(url)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def png_size(body):
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", body[16:24])


def test_the_browser_reads_the_manifest_and_its_icons(phone, live_server, screenshots):
    game = new_game(phone, live_server.url)
    open_controlled(phone, f"{live_server.url}/g/{game['code']}")
    session = phone.context.new_cdp_session(phone)
    manifest = session.send("Page.getAppManifest")
    assert manifest["url"] == f"{live_server.url}/manifest.webmanifest"
    assert manifest["errors"] == []
    assert manifest["parsed"]["scope"] == f"{live_server.url}/"
    # Chromium's own verdict: nothing stops this app from going on the home screen (but the
    # test's private window, which no manifest can change).
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in errors] in ([], ["in-incognito"])
    data = json.loads(manifest["data"])
    assert data["name"] == "Crownkeeper" and data["display"] == "standalone"
    assert any(icon.get("purpose") == "maskable" for icon in data["icons"])
    for icon in data["icons"]:
        body = phone.request.get(f"{live_server.url}/{icon['src']}").body()
        width, height = png_size(body)
        assert f"{width}x{height}" == icon["sizes"]
    touch = phone.locator("link[rel=apple-touch-icon]").get_attribute("href")
    assert png_size(phone.request.get(live_server.url + touch).body()) == (180, 180)
    phone.goto(f"{live_server.url}/{data['icons'][-1]['src']}")
    phone.screenshot(path=screenshots / "installed-icon.png")


def test_the_worker_controls_the_page_after_a_reload(phone, live_server):
    game = new_game(phone, live_server.url)
    open_controlled(phone, f"{live_server.url}/g/{game['code']}")
    worker = phone.request.get(f"{live_server.url}/sw.js")
    assert worker.headers["cache-control"] == "no-cache"
    assert "javascript" in worker.headers["content-type"]


def saved_rounds(page, base_url, code):
    game = page.request.get(f"{base_url}/api/games/{code}").json()
    return [r for r in game["rounds"] if r.get("scores") is not None], game


@pytest.mark.both_databases
def test_rounds_saved_offline_are_kept_shown_and_sent_once(
    context, phone, live_server, screenshots
):
    game = new_game(phone, live_server.url)
    code = game["code"]
    open_controlled(phone, f"{live_server.url}/g/{code}")
    version = phone.request.get(f"{live_server.url}/api/games/{code}").json()["version"]

    context.set_offline(True)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "King", "Five")
    tap(phone, "Cy", "Four", "Four", "Five")
    phone.get_by_role("button", name="Save round 1").click()
    expect(
        phone.get_by_role("status").filter(
            has_text="Round 1 is kept on this phone and will be sent when the connection is back"
        )
    ).to_be_visible()
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect(phone.get_by_role("heading", name="Fours are wild")).to_be_visible()
    phone.get_by_label("Ben went out").check()
    tap(phone, "Ann", "Five")
    tap(phone, "Cy", "King")
    phone.get_by_role("button", name="Save round 2").click()
    expect(phone.get_by_role("status").filter(has_text="Round 2 is kept")).to_be_visible()
    expect(phone.get_by_role("heading", name="Enter round 3")).to_be_visible()

    phone.reload()
    expect(phone.get_by_text("this is the copy of this page from")).to_be_visible()
    expect(phone.locator("#sheet tr.kept")).to_have_count(2)
    expect(phone.locator("#sheet tr.kept").first).to_contain_text("not sent yet")
    expect(phone.locator("#sheet tfoot")).to_contain_text("(not sent yet)")
    expect(phone.locator("#sheet tfoot td").nth(1)).to_have_text("30")  # Ben: 30, then out
    expect(phone.get_by_role("heading", name="Enter round 3")).to_be_visible()
    phone.screenshot(path=screenshots / "offline-kept-rounds.png", full_page=True)
    assert saved_rounds(phone, live_server.url, code)[0] == []

    context.set_offline(False)
    expect(phone.get_by_role("status").filter(has_text="All rounds sent")).to_be_visible(
        timeout=SENT_WITHIN_MS
    )
    rounds, state = saved_rounds(phone, live_server.url, code)
    assert [r["number"] for r in rounds] == [1, 2]
    assert state["totals"] == [5, 30, 26]
    assert state["version"] == version + 2  # two saves, each once
    expect(phone.locator("#sheet tr.kept")).to_have_count(0)
    expect(phone.get_by_role("heading", name="Enter round 3")).to_be_visible()


@pytest.mark.both_databases
def test_a_kept_round_whose_base_changed_gets_the_choice(
    context, phone, browser, live_server, screenshots
):
    game = new_game(phone, live_server.url)
    code = game["code"]
    open_controlled(phone, f"{live_server.url}/g/{code}")
    context.set_offline(True)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "King", "Five")
    tap(phone, "Cy", "Four", "Four", "Five")
    phone.get_by_role("button", name="Save round 1").click()
    expect(phone.get_by_role("status").filter(has_text="Round 1 is kept")).to_be_visible()

    other = phone.request.put(
        f"{live_server.url}/api/games/{code}/rounds/1",
        data={"results": [{"points": 20}, {"went_out": True}, {"points": 40}]},
    )
    assert other.status == 200

    context.set_offline(False)
    expect(phone.get_by_role("button", name="Keep the saved round")).to_be_visible(
        timeout=SENT_WITHIN_MS
    )
    expect(phone.get_by_role("button", name="Replace it with mine")).to_be_visible()
    phone.screenshot(path=screenshots / "offline-kept-round-conflict.png", full_page=True)
    state = phone.request.get(f"{live_server.url}/api/games/{code}").json()
    assert state["totals"] == [20, 0, 40]  # nothing overwritten
    phone.get_by_role("button", name="Keep the saved round").click()
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    assert phone.evaluate("window.crownkeeperKept.kept().then(r => r.length)") == 0


@pytest.mark.both_databases
def test_a_watcher_cut_off_says_so_and_catches_up(context, phone, live_server, screenshots):
    game = new_game(phone, live_server.url)
    phone.goto(f"{live_server.url}/g/{game['watch_code']}")
    expect(phone.get_by_text("Live", exact=True)).to_be_visible()
    context.set_offline(True)
    offline = phone.get_by_text("Offline since")
    expect(offline).to_be_visible(timeout=10_000)
    expect(offline).to_contain_text("showing round 1")
    phone.screenshot(path=screenshots / "watcher-offline.png")
    saved = phone.request.put(
        f"{live_server.url}/api/games/{game['code']}/rounds/1",
        data={"results": [{"went_out": True}, {"points": 13}, {"points": 20}]},
    )
    assert saved.status == 200
    context.set_offline(False)
    expect(phone.get_by_role("heading", name="Fours are wild")).to_be_visible(timeout=15_000)
    expect(offline).to_be_hidden()


def test_a_kept_round_the_server_refuses_says_why_and_keeps_its_taps(context, phone, live_server):
    game = new_game(phone, live_server.url)
    open_controlled(phone, f"{live_server.url}/g/{game['code']}")
    context.set_offline(True)
    tap(phone, "Ben", "Queen", "King", "Five")  # nobody marked as gone out
    tap(phone, "Cy", "Four", "Four", "Five")
    phone.get_by_role("button", name="Save round 1").click()
    expect(phone.get_by_role("status").filter(has_text="Round 1 is kept")).to_be_visible()
    context.set_offline(False)
    expect(phone.get_by_text("Choose the player who went out first")).to_be_visible(
        timeout=SENT_WITHIN_MS
    )
    expect(phone.get_by_role("heading", name="Enter round 1")).to_be_visible()
    expect(phone.get_by_label("Ben's points")).to_have_text("30")
    expect(phone.get_by_label("Cy's points")).to_have_text("13")
    phone.get_by_label("Ann went out").check()
    phone.get_by_role("button", name="Save round 1").click()
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    state = phone.request.get(f"{live_server.url}/api/games/{game['code']}").json()
    assert state["totals"] == [0, 30, 13]
    assert phone.evaluate("window.crownkeeperKept.kept().then(r => r.length)") == 0


def test_the_round_opened_offline_follows_the_games_order_of_rounds(context, phone, live_server):
    """Kings first: the round after a kept round 1 deals 12 cards, queens wild."""
    game = phone.request.post(
        live_server.url + "/api/games", data={"players": NAMES, "order": "down"}
    ).json()
    open_controlled(phone, f"{live_server.url}/g/{game['code']}")
    expect(phone.get_by_role("heading", name="Kings are wild")).to_be_visible()
    context.set_offline(True)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "Jack", "Five")
    tap(phone, "Cy", "Four", "Four", "Five")
    phone.get_by_role("button", name="Save round 1").click()
    expect(phone.get_by_role("status").filter(has_text="Round 1 is kept")).to_be_visible()
    expect(phone.get_by_role("heading", name="Queens are wild")).to_be_visible()
    expect(phone.get_by_text("12 cards each")).to_be_visible()
    tap(phone, "Ann", "Queen")  # a queen is wild now: 20
    expect(phone.get_by_label("Ann's points")).to_have_text("20")
    tap(phone, "Ben", "King")  # and a king is a king again: 13
    expect(phone.get_by_label("Ben's points")).to_have_text("13")
