"""The phone's copy of a game page is the last state it saw, and offline play comes from
what the server rendered, in a real Chromium at a phone's size: rounds saved online are in
the copy a reload shows offline; a round entered offline does not depend on the page's
wording; the offline and "needs a look" notices go when what they say is over."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_round_at_the_table import tap
from tests.offline.test_offline import NAMES, SENT_WITHIN_MS, new_game, open_controlled

pytestmark = pytest.mark.browser
OFFLINE_LINE = "this is the copy of this page from"


@pytest.fixture
def context(browser, live_server):
    """A phone of its own, with no request routing (routing would bypass the worker)."""
    from tests.browsers import PHONE

    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    yield context
    context.close()


@pytest.fixture
def phone(context):
    page = context.new_page()
    page.set_default_timeout(8000)
    return page


def server_game(page, base_url, code):
    return page.request.get(f"{base_url}/api/games/{code}").json()


def copy_at_version(page, url, version):
    """Wait for the worker's copy of url to be the page at version."""
    page.wait_for_function(
        "([url, version]) => caches.open('crownkeeper-pages').then(c => c.match(url))"
        ".then(copy => !!copy && copy.headers.get('X-Game-Version') === String(version))",
        arg=[url, version],
        polling=100,
    )


def expect_totals(page, names, totals):
    items = page.get_by_role("region", name="Totals").get_by_role("listitem")
    for name, total in zip(names, totals, strict=True):
        expect(items.filter(has_text=name)).to_contain_text(str(total))


def test_rounds_saved_online_are_in_the_copy_a_reload_shows_offline(
    context, phone, live_server, screenshots
):
    game = new_game(phone, live_server.url)
    code = game["code"]
    for number in range(1, 9):
        out = number % 3
        results = [
            {"went_out": True} if s == out else {"points": [13, 20, 25][s]} for s in range(3)
        ]
        answer = phone.request.put(
            f"{live_server.url}/api/games/{code}/rounds/{number}", data={"results": results}
        )
        assert answer.ok
    url = f"{live_server.url}/g/{code}"
    open_controlled(phone, url)
    expect(phone.get_by_role("heading", name="Enter round 9")).to_be_visible()

    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "King")
    tap(phone, "Cy", "Ten", "Ten")  # a jack would be wild in round 9, and joined a group
    phone.get_by_role("button", name="Save round 9").click()
    expect(phone.get_by_role("heading", name="Enter round 10")).to_be_visible()
    phone.get_by_label("Ben went out").check()
    tap(phone, "Ann", "Five")
    tap(phone, "Cy", "Ten", "Ten", "Three")
    phone.get_by_role("button", name="Save round 10").click()
    expect(phone.get_by_role("heading", name="Enter round 11")).to_be_visible()
    state = server_game(phone, live_server.url, code)
    assert state["totals"] == [83, 125, 168]
    copy_at_version(phone, url, state["version"])

    context.set_offline(True)
    phone.reload()
    expect(phone.get_by_text(OFFLINE_LINE)).to_be_visible()
    expect(phone.get_by_role("heading", name="Enter round 11")).to_be_visible()
    expect(phone.get_by_role("heading", name="Kings are wild")).to_be_visible()
    expect(phone.get_by_text("Round 11 of 11")).to_be_visible()
    expect(phone.get_by_text("Ben deals · Cy plays first")).to_be_visible()
    expect_totals(phone, NAMES, state["totals"])
    expect(phone.get_by_role("button", name="Save round 11")).to_be_visible()
    phone.screenshot(path=screenshots / "offline-reload-round-11.png")
    phone.screenshot(path=screenshots / "offline-reload-round-11-full.png", full_page=True)

    # Back online, the live update makes the page current: the offline line goes.
    context.set_offline(False)
    expect(phone.get_by_text(OFFLINE_LINE)).to_be_hidden(timeout=15_000)
    expect(phone.get_by_role("heading", name="Enter round 11")).to_be_visible()


def test_a_live_update_renews_the_copy(context, phone, live_server):
    """A round saved on another phone reaches this one live, and its copy with it."""
    game = new_game(phone, live_server.url)
    url = f"{live_server.url}/g/{game['watch_code']}"
    open_controlled(phone, url)
    expect(phone.get_by_text("Live", exact=True)).to_be_visible()
    results = [{"went_out": True}, {"points": 13}, {"points": 20}]
    saved = phone.request.put(
        f"{live_server.url}/api/games/{game['code']}/rounds/1", data={"results": results}
    )
    assert saved.ok
    expect(phone.get_by_role("heading", name="Fours are wild")).to_be_visible()
    copy_at_version(phone, url, saved.json()["version"])
    context.set_offline(True)
    phone.reload()
    expect(phone.get_by_text(OFFLINE_LINE)).to_be_visible()
    expect(phone.get_by_role("heading", name="Fours are wild")).to_be_visible()
    expect_totals(phone, NAMES, [0, 13, 20])


# The page's words changed on the server (here: put into French in the phone's copies).
WORDING = [
    ("Enter round", "Saisir la manche"),
    ("Save round", "Enregistrer la manche"),
    ("Round ", "Manche "),
    (" are wild", " sont atouts"),
    (" cards each", " cartes chacun"),
    ("Tap the cards each player was left holding.", "Touchez les cartes qui restent."),
]
REWORD = """([urls, words]) => caches.open('crownkeeper-pages').then(cache =>
  Promise.all(urls.map(url => cache.match(url).then(copy => copy.text().then(html => {
    words.forEach(([before, after]) => { html = html.split(before).join(after); });
    return cache.put(url, new Response(html, { headers: copy.headers }));
  })))))"""


def test_a_round_entered_offline_does_not_depend_on_the_pages_words(
    context, phone, live_server, screenshots
):
    code = new_game(phone, live_server.url)["code"]
    url = f"{live_server.url}/g/{code}"
    open_controlled(phone, url)
    copy_at_version(phone, url, server_game(phone, live_server.url, code)["version"])
    phone.wait_for_function(
        "url => caches.open('crownkeeper-pages').then(c => c.match(url)).then(r => !!r)",
        arg=f"{url}/ahead",
        polling=100,
    )
    phone.evaluate(REWORD, [[url, f"{url}/ahead"], WORDING])

    context.set_offline(True)
    phone.reload()
    expect(phone.get_by_text(OFFLINE_LINE)).to_be_visible()
    expect(phone.get_by_role("heading", name="Saisir la manche 1")).to_be_visible()
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "King", "Five")
    tap(phone, "Cy", "Four", "Four", "Five")
    phone.get_by_role("button", name="Enregistrer la manche 1").click()
    # The kept rounds' words come with kept-rounds.js (/static/words-en.js, kept by the worker
    # with the static files), not with the page: the copy's rewording leaves them be.
    expect(phone.get_by_role("status").filter(has_text="Round 1 is kept")).to_be_visible()
    expect(phone.get_by_role("heading", name="Saisir la manche 2")).to_be_visible()
    expect(phone.get_by_role("heading", name="Fours sont atouts")).to_be_visible()
    expect(phone.get_by_text("4 cartes chacun")).to_be_visible()
    tap(phone, "Ann", "Four")  # the server's keypad for round 2: a four is wild, 20
    expect(phone.get_by_label("Ann's points")).to_have_text("20")
    tap(phone, "Ann", "Nine", "Queen", "King")  # all four kept: the four made no group
    phone.get_by_label("Ben went out").check()
    tap(phone, "Cy", "King")
    phone.get_by_role("button", name="Enregistrer la manche 2").click()
    expect(phone.get_by_role("status").filter(has_text="Round 2 is kept")).to_be_visible()
    expect(phone.get_by_role("heading", name="Saisir la manche 3")).to_be_visible()
    phone.screenshot(path=screenshots / "offline-reworded-round-3.png")

    context.set_offline(False)
    expect(phone.get_by_role("status").filter(has_text="All rounds sent")).to_be_visible(
        timeout=SENT_WITHIN_MS
    )
    state = server_game(phone, live_server.url, code)
    assert [r["number"] for r in state["rounds"] if r.get("scores") is not None] == [1, 2]
    assert state["totals"] == [54, 30, 26]
    expect(phone.get_by_text(OFFLINE_LINE)).to_be_hidden()  # the page is the server's again
    expect(phone.locator("#sheet tr.kept")).to_have_count(0)


def test_needs_a_look_goes_once_the_choice_is_made(context, phone, live_server, screenshots):
    game = new_game(phone, live_server.url)
    code = game["code"]
    open_controlled(phone, f"{live_server.url}/g/{code}")
    context.set_offline(True)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "King", "Five")
    tap(phone, "Cy", "Four", "Four", "Five")
    phone.get_by_role("button", name="Save round 1").click()
    kept = phone.get_by_role("status").filter(has_text="Round 1 is kept")
    expect(kept).to_be_visible()
    other = phone.request.put(
        f"{live_server.url}/api/games/{code}/rounds/1",
        data={"results": [{"points": 20}, {"went_out": True}, {"points": 40}]},
    )
    assert other.ok

    context.set_offline(False)
    look = phone.get_by_text("needs a look before it is sent")
    expect(look).to_be_visible(timeout=SENT_WITHIN_MS)
    expect(kept).to_be_hidden()  # it was sent, and met the other phone's round
    phone.screenshot(path=screenshots / "offline-needs-a-look.png")
    phone.get_by_role("button", name="Keep the saved round").click()
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect(look).to_be_hidden()
