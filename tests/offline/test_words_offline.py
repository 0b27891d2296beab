"""The words said through a Wi-Fi drop are in the reader's language, in a real Chromium at a
phone's size: the page's own note (its words came with the page), the service worker's
line over a copy and its page for no copy (the worker speaks the phone's language), and a
language chosen later is not stuck behind copies kept in the one before."""

import re

import pytest
from playwright.sync_api import expect

from tests.browsers import PHONE
from tests.offline.test_offline import new_game, open_controlled

pytestmark = pytest.mark.browser


def phone_in(browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(8000)
    return context, page


def test_a_german_watcher_cut_off_reads_it_in_german(browser, live_server):
    context, phone = phone_in(browser)
    try:
        game = new_game(phone, live_server.url)
        phone.goto(f"{live_server.url}/g/{game['watch_code']}?lang=de")
        expect(phone.locator("#live")).to_have_attribute("data-sse", "open", timeout=10_000)
        context.set_offline(True)
        # German hours: 24 of them, two digits.
        note = phone.get_by_text(re.compile(r"^Offline seit \d\d:\d\d, zeigt Runde 1$"))
        expect(note).to_be_visible(timeout=10_000)
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()


def test_the_workers_words_are_in_the_phones_language(browser, live_server):
    # The phone's choice, its cookie (Playwright's locale reaches pages, not the worker's
    # own requests, where a real browser sends its Accept-Language).
    context, phone = phone_in(browser)
    context.add_cookies([{"name": "crownkeeper_lang", "value": "de", "url": live_server.url}])
    try:
        game, other = new_game(phone, live_server.url), new_game(phone, live_server.url)
        open_controlled(phone, f"{live_server.url}/g/{game['code']}")
        context.set_offline(True)
        phone.reload()
        line = phone.locator(".offline-copy")
        expect(line).to_have_text(
            re.compile(
                r"^Offline: Das ist die Kopie dieser Seite von \d\d:\d\d\. Sie wird aktualisiert"
            )
        )
        phone.goto(f"{live_server.url}/g/{other['code']}")
        expect(phone.get_by_text("Dieses Handy hat keine Kopie dieser Seite")).to_be_visible()
        assert phone.evaluate("document.documentElement.lang") == "de"
    finally:
        context.close()


def test_a_language_chosen_later_renews_the_copies(browser, live_server):
    context, phone = phone_in(browser)
    try:
        game, other = new_game(phone, live_server.url), new_game(phone, live_server.url)
        page_url = f"{live_server.url}/g/{game['code']}"
        open_controlled(phone, page_url)
        copy_language = (
            "url => caches.open('crownkeeper-pages').then(c => c.match(url))"
            ".then(r => r && r.headers.get('X-Language'))"
        )
        assert phone.evaluate(copy_language, page_url) == "en"
        # German chosen on another game's page: the worker comes anew in German, and the
        # copy of the first game, taken in English, is taken again.
        phone.goto(f"{live_server.url}/language?to=de&back=/g/{other['code']}")
        for _ in range(60):
            if phone.evaluate(copy_language, page_url) == "de":
                break
            phone.wait_for_timeout(250)
        assert phone.evaluate(copy_language, page_url) == "de"
        context.set_offline(True)
        phone.goto(page_url)
        assert phone.evaluate("document.documentElement.lang") == "de"
        expect(phone.locator(".offline-copy")).to_contain_text("Offline: Das ist die Kopie")
    finally:
        context.close()


@pytest.mark.parametrize(
    ("language", "forms"), [("fr", ["one", "one", "many"]), ("de", ["many", "one", "many"])]
)
def test_counts_take_the_languages_form(browser, live_server, language, forms):
    """0, 1 and 2 jokers: French says 0 like 1, German like 2 (the page's plural rule)."""
    context, phone = phone_in(browser)
    try:
        game = new_game(phone, live_server.url)
        phone.goto(f"{live_server.url}/g/{game['watch_code']}?lang={language}")
        phone.wait_for_function("() => window.crownkeeper && window.crownkeeper.words")
        # The decks' limits are the round entry's words: they come with its script.
        phone.add_script_tag(url=f"{live_server.url}/static/words-{language}.js")
        said = phone.evaluate("[0, 1, 2].map(n => window.crownkeeper.words('jokers', n))")
        sent = phone.evaluate("self.crownkeeperWords.jokers")
        one, many = sent
        expected = [(one if form == "one" else many) for form in forms]
        assert said == [text.replace("%(num)s", str(n)) for n, text in enumerate(expected)]
        assert one != many
    finally:
        context.close()


def test_a_round_kept_offline_says_so_in_german(browser, live_server):
    """The kept rounds' words come in /static/words-de.js, not with the page: the worker
    keeps that script with the static files, so a page opened offline from its copy says
    everything in German."""
    context, phone = phone_in(browser)
    context.add_cookies([{"name": "crownkeeper_lang", "value": "de", "url": live_server.url}])
    try:
        game = new_game(phone, live_server.url)
        open_controlled(phone, f"{live_server.url}/g/{game['code']}")
        kept_words = "url => caches.match(url).then(r => r ? r.text() : '')"
        words_url = f"{live_server.url}/static/words-de.js"
        assert "Runde %(round)s wird auf diesem Handy" in phone.evaluate(kept_words, words_url)
        context.set_offline(True)
        phone.reload()
        expect(phone.locator(".offline-copy")).to_contain_text("Offline: Das ist die Kopie")
        phone.get_by_label("Ann ist raus").check()
        for name, card in (("Ben", "Q Dame"), ("Cy", "K König")):
            keypad = phone.get_by_role("group", name=f"Karte zur Hand von {name} hinzufügen")
            keypad.get_by_role("button", name=card, exact=True).click()
        phone.get_by_role("button", name="Runde 1 speichern").click()
        kept = (
            "Runde 1 wird auf diesem Handy aufbewahrt und gesendet, "
            "sobald die Verbindung wieder da ist"
        )
        expect(phone.get_by_role("status").filter(has_text=kept)).to_be_visible()
        expect(phone.get_by_role("heading", name="Runde 2 eintragen")).to_be_visible()
        phone.reload()
        expect(phone.locator("#sheet tr.kept").first).to_contain_text("noch nicht gesendet")
        expect(phone.locator("#sheet tfoot")).to_contain_text("(noch nicht gesendet)")
        assert "not sent" not in phone.locator("#main").inner_text()
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()
