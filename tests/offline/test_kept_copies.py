"""What a phone keeps of the pages it opened, in a real Chromium at a phone's size: a copy
of each game page and nothing else, let go when the server says the page is gone (the link
replaced, the game deleted), when the player forgets the game on this phone, and after 30
days unused."""

import pytest
from playwright.sync_api import Error, expect

from tests.browsers import PHONE
from tests.offline.test_offline import new_game, open_controlled

pytestmark = pytest.mark.browser
DAY_MS = 24 * 3600 * 1000
NO_COPY = "This phone keeps no copy of this page"
COPY = "this is the copy of this page from"


@pytest.fixture
def context(browser, live_server):
    """A phone of its own, with no request routing (routing would bypass the worker)."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    yield context
    context.close()


@pytest.fixture
def phone(context):
    page = context.new_page()
    page.set_default_timeout(8000)
    return page


KEPT_PAGES = "caches.open('crownkeeper-pages').then(c => c.keys()).then(k => k.map(r => r.url))"


def kept_pages(page):
    return page.evaluate(KEPT_PAGES)


def settled(page, kept=(), gone=()):
    """Wait for the worker to have kept the copies of kept and let those of gone go."""
    page.wait_for_function(
        f"([kept, gone]) => {KEPT_PAGES}.then(urls =>"
        " kept.every(url => urls.includes(url)) && !gone.some(url => urls.includes(url)))",
        arg=[list(kept), list(gone)],
        polling=100,
    )


# The rounds this phone keeps (kept-rounds.js), with one more of code kept first if given.
ROUNDS = """code => new Promise((resolve, reject) => {
  const opening = indexedDB.open("crownkeeper", 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore("rounds", { keyPath: "id" });
  opening.onerror = () => reject(opening.error);
  opening.onsuccess = () => {
    const done = opening.result.transaction("rounds", "readwrite");
    const rounds = done.objectStore("rounds");
    if (code) rounds.put({ id: code + ":01", code: code, round: 1, fields: [["version", "1"]],
      base: null, seats: [], keptAt: Date.now(), problem: null });
    const all = rounds.getAll();
    done.oncomplete = () => { opening.result.close(); resolve(all.result.map(r => r.id)); };
  };
})"""


def kept_rounds(page, keep=None):
    return page.evaluate(ROUNDS, keep)


def opens_offline(page, url):
    """Whether url, opened with the network gone, shows this phone's copy."""
    context = page.context
    context.set_offline(True)
    try:
        page.goto(url)
        if page.get_by_text(COPY).is_visible():
            return True
        expect(page.get_by_text(NO_COPY)).to_be_visible()
        return False
    finally:
        context.set_offline(False)


@pytest.mark.parametrize("gone", ["replaced", "deleted"])
def test_a_page_the_server_says_is_gone_leaves_no_copy(context, phone, live_server, gone):
    game = new_game(phone, live_server.url)
    url = f"{live_server.url}/g/{game['code']}"
    open_controlled(phone, url)
    settled(phone, kept=[url])
    assert opens_offline(phone, url)

    if gone == "replaced":  # from another phone: this one knows nothing of it
        answer = phone.request.post(f"{live_server.url}/api/games/{game['code']}/scorekeeper-code")
    else:
        answer = phone.request.delete(f"{live_server.url}/api/games/{game['code']}")
    assert answer.ok
    phone.goto(url)
    heading = "This link was replaced" if gone == "replaced" else "Not found"
    expect(phone.get_by_role("heading", name=heading)).to_be_visible()
    settled(phone, gone=[url])
    assert not opens_offline(phone, url)


def test_replacing_the_link_on_this_phone_lets_the_old_pages_copy_go(context, phone, live_server):
    game = new_game(phone, live_server.url)
    old = f"{live_server.url}/g/{game['code']}"
    open_controlled(phone, old)
    phone.get_by_text("Hand the scorekeeping to another phone").click()
    phone.get_by_role("button", name="Replace the scorekeeper link").click()
    expect(phone).not_to_have_url(old)
    expect(phone.get_by_role("heading", name="Threes are wild")).to_be_visible()
    settled(phone, kept=[phone.url], gone=[old])
    assert not opens_offline(phone, old)


def test_forget_this_game_asks_first_and_then_keeps_nothing(
    context, phone, live_server, screenshots
):
    game = new_game(phone, live_server.url)
    code = game["code"]
    url = f"{live_server.url}/g/{code}"
    open_controlled(phone, url)
    kept_rounds(phone, keep=code)
    phone.get_by_role("link", name="Forget this game on this phone").click()
    expect(phone.get_by_role("heading", name="Forget this game on this phone?")).to_be_visible()
    expect(phone.get_by_text("rounds of this game that are not sent yet")).to_be_visible()
    phone.screenshot(path=screenshots / "forget-this-game.png")

    # Keep it: nothing goes.
    phone.get_by_role("link", name="Keep it").click()
    expect(phone).to_have_url(url)
    assert kept_rounds(phone) == [f"{code}:01"]
    assert opens_offline(phone, url)

    phone.goto(url)
    phone.get_by_role("link", name="Forget this game on this phone").click()
    phone.get_by_role("button", name="Forget this game").click()
    expect(phone.get_by_role("heading", name="Forgotten on this phone")).to_be_visible()
    assert kept_rounds(phone) == []
    assert url not in kept_pages(phone)
    games_cookie = [c for c in context.cookies() if c["name"] == "crownkeeper_games"]
    assert code not in (games_cookie[0]["value"] if games_cookie else "")
    assert not opens_offline(phone, url)


def test_forgetting_by_the_plain_form_lets_the_worker_forget(context, phone, live_server):
    """Without the page's script (the form sent as is), the service worker forgets."""
    watch = new_game(phone, live_server.url)["watch_code"]
    url = f"{live_server.url}/g/{watch}"
    open_controlled(phone, url)
    kept_rounds(phone, keep=watch)
    phone.goto(f"{url}/forget")
    phone.locator("form.forget").evaluate("form => form.submit()")
    expect(phone.get_by_role("heading", name="Forgotten on this phone")).to_be_visible()
    assert kept_rounds(phone) == []
    assert url not in kept_pages(phone)
    assert not opens_offline(phone, url)


def test_no_copy_is_kept_of_table_home_or_person_pages(context, phone, live_server):
    table = phone.request.post(f"{live_server.url}/api/tables", data={"name": "The Smiths"}).json()
    phone.request.post(
        f"{live_server.url}/api/games", data={"players": ["Ann", "Ben"], "table": table["code"]}
    )
    people = phone.request.get(f"{live_server.url}/api/tables/{table['code']}").json()["people"]
    pages = [
        f"{live_server.url}/t/{table['code']}",
        f"{live_server.url}/",
        f"{live_server.url}/t/{table['code']}/people/{people[0]['id']}",
    ]
    open_controlled(phone, pages[0])
    for url in pages:
        phone.goto(url)
    assert kept_pages(phone) == []
    context.set_offline(True)
    for url in pages:
        with pytest.raises(Error, match="ERR_INTERNET_DISCONNECTED"):
            phone.goto(url)


def test_copies_unused_for_30_days_are_swept(context, phone, live_server):
    game = new_game(phone, live_server.url)
    url = f"{live_server.url}/g/{game['code']}"
    open_controlled(phone, url)
    store = """([url, daysAgo]) => caches.open('crownkeeper-pages').then(cache => {
      const at = String(Date.now() - daysAgo * 24 * 3600 * 1000);
      return cache.put(url, new Response('<!doctype html><main id="main"><h1>Kept</h1></main>',
        { headers: { 'Content-Type': 'text/html', 'X-Copied-At': at, 'X-Used-At': at } }));
    })"""
    old, fresh = f"{live_server.url}/g/old-copy", f"{live_server.url}/g/fresh-copy"
    stray = f"{live_server.url}/t/some-table"
    phone.evaluate(store, [old, 31])
    phone.evaluate(store, [fresh, 29])
    phone.evaluate(store, [stray, 0])
    phone.goto(f"{live_server.url}/rules")  # any navigation sweeps
    settled(phone, gone=[old, stray])
    assert set(kept_pages(phone)) == {url, f"{url}/ahead", fresh}  # and its rounds ahead

    # Shown offline, a copy counts as used: kept 30 days from now.
    assert opens_offline(phone, fresh)
    used = phone.evaluate(
        "url => caches.match(url).then(r => Number(r.headers.get('X-Used-At')))", fresh
    )
    assert used > phone.evaluate("Date.now()") - DAY_MS

    # A copy gone stale is not shown, even by the navigation that finds it.
    phone.evaluate(store, [url, 30.5])
    assert not opens_offline(phone, url)
    assert url not in kept_pages(phone)


def test_forgetting_without_a_connection_still_forgets_on_this_phone(context, phone, live_server):
    code = new_game(phone, live_server.url)["code"]
    url = f"{live_server.url}/g/{code}"
    open_controlled(phone, url)
    phone.goto(f"{url}/forget")
    kept_rounds(phone, keep=code)
    context.set_offline(True)
    phone.get_by_role("button", name="Forget this game").click()
    expect(phone.get_by_text("This phone has forgotten this game")).to_be_visible()
    assert kept_rounds(phone) == []
    assert url not in kept_pages(phone)
    assert not opens_offline(phone, url)
