"""The round loop at the table: a save says what happened, nothing tapped is lost, an
empty seat is not a silent 0, and two scorekeeper phones never overwrite each other."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_play import expect_total
from tests.browsers import PHONE

pytestmark = pytest.mark.browser
NAMES = ["Ann", "Ben", "Cy"]


def open_game(page, base_url, names=NAMES):
    game = page.request.post(base_url + "/api/games", data={"players": names}).json()
    page.goto(f"{base_url}/g/{game['code']}")
    return game


RANK_LABELS = {"Three": "3", "Four": "4", "Five": "5", "Six": "6", "Seven": "7", "Eight": "8",
               "Nine": "9", "Ten": "10", "Jack": "J", "Queen": "Q", "King": "K"}  # fmt: skip


def tap(page, name, *cards):
    """Tap cards by name; a key's name starts with the label it shows ("Q Queen")."""
    keypad = page.get_by_role("group", name=f"Add a card to {name}'s hand")
    for card in cards:
        label = f"{RANK_LABELS[card]} {card}" if card in RANK_LABELS else card
        keypad.get_by_role("button", name=label, exact=True).click()


def expect_saved(page, number, next_wild):
    expect(page.get_by_role("status").filter(has_text=f"Round {number} saved")).to_be_visible()
    expect(page.get_by_role("heading", name=f"{next_wild} are wild")).to_be_visible()


def test_a_save_says_so_brings_the_status_up_and_readies_the_next_round(
    phone, live_server, screenshots
):
    open_game(phone, live_server.url)
    expect(phone.get_by_role("heading", name="Enter round 1")).to_be_visible()
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen")
    tap(phone, "Cy", "King")
    phone.get_by_role("button", name="Save round 1").click()
    expect_saved(phone, 1, "Fours")
    phone.screenshot(path=screenshots / "round-saved.png")
    assert phone.evaluate("document.activeElement.id") == "status"
    top = phone.evaluate("document.getElementById('status').getBoundingClientRect().top")
    assert -2 <= top < 60
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect(phone.get_by_label("Ben's points")).to_have_text("0")
    expect(phone.get_by_role("status").filter(has_text="Round 1 saved")).to_be_hidden(timeout=9000)


def test_a_reload_restores_the_taps_until_the_round_is_saved(phone, live_server, screenshots):
    open_game(phone, live_server.url)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "Seven")
    phone.reload()
    # What the phone brought back says so, with the time of the last tap.
    back = phone.get_by_text(re.compile(r"^Round 1's taps from \d\d?:\d\d(\s[AP]M)? are back\."))
    expect(back).to_be_visible()
    phone.screenshot(path=screenshots / "round-restored.png")
    expect(phone.get_by_label("Ben's points")).to_have_text("19")
    expect(phone.get_by_label("Ann went out")).to_be_checked()
    back.get_by_role("button", name="Clear", exact=True).click()
    expect(phone.get_by_text("are back")).to_have_count(0)
    expect(phone.get_by_label("Ann went out")).not_to_be_checked()
    expect(phone.get_by_role("button", name=re.compile("^remove"))).to_have_count(0)

    phone.get_by_label("Cy went out").check()
    tap(phone, "Ann", "Joker")
    tap(phone, "Ben", "Three")
    phone.reload()
    expect(phone.get_by_label("Ann's points")).to_have_text("50")
    phone.get_by_role("button", name="Save round 1").click()
    expect_saved(phone, 1, "Fours")
    phone.reload()
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect(phone.get_by_text("are back")).to_have_count(0)
    expect_total(phone, "Ann", 50)


def test_a_double_tap_on_save_sends_one_request(phone, live_server):
    open_game(phone, live_server.url)
    saves = []
    phone.on("request", lambda r: saves.append(r.method) if "/rounds/1" in r.url else None)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen")
    tap(phone, "Cy", "King")
    labels = phone.evaluate(
        """() => {
             const save = document.querySelector('button.save'), seen = [];
             const look = () => seen.push(save.textContent + (save.disabled ? ' (disabled)' : ''));
             new MutationObserver(look).observe(
               save, {childList: true, attributes: true, characterData: true, subtree: true});
             save.click(); save.click();
             window.seen = seen;
             return seen;
           }"""
    )
    assert labels is not None
    expect_saved(phone, 1, "Fours")
    assert "Saving… (disabled)" in phone.evaluate("window.seen")
    phone.wait_for_timeout(300)
    assert saves == ["PUT"], saves
    phone.on("request", lambda r: saves.append(r.method) if "/rounds/2" in r.url else None)
    phone.get_by_label("Ben went out").check()
    tap(phone, "Ann", "Queen")
    tap(phone, "Cy", "King")
    phone.get_by_role("button", name="Save round 2").dblclick()
    expect(phone.get_by_role("heading", name="Fives are wild")).to_be_visible()
    phone.wait_for_timeout(300)
    assert saves == ["PUT", "PUT"], saves


def fail_saves_of_round_one(phone, status):
    def fail(route):
        if status is None:
            route.abort("internetdisconnected")
        else:
            route.fulfill(status=status, body="The server is not answering")

    # On the whole phone: the service worker's own sends too.
    phone.context.route("**/rounds/1", fail)


@pytest.mark.parametrize("failure", [None, 502, 503, 504])
def test_a_save_that_cannot_get_through_is_kept_and_sent_once_it_can(
    phone, live_server, failure, screenshots
):
    """No connection, or a server (or its proxy) not answering: the round is kept on the
    phone, the next round opens, and the round goes to the server when it answers again."""
    game = open_game(phone, live_server.url)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "Joker")
    tap(phone, "Cy", "Three")
    fail_saves_of_round_one(phone, failure)
    phone.get_by_role("button", name="Save round 1").click()
    kept = phone.get_by_role("status").filter(has_text="Round 1 is kept on this phone")
    expect(kept).to_be_visible()
    phone.screenshot(path=screenshots / f"round-save-kept-{failure or 'network'}.png")
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect(phone.locator("#sheet tbody tr.kept")).to_contain_text("not sent yet")
    expect_total(phone, "Ben", 62)
    phone.context.unroute("**/rounds/1")
    phone.evaluate("dispatchEvent(new Event('online'))")
    expect(phone.get_by_role("status").filter(has_text="All rounds sent")).to_be_visible()
    state = phone.request.get(f"{live_server.url}/api/games/{game['code']}").json()
    assert state["totals"] == [0, 62, 20] and state["version"] == game["version"] + 1
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect(phone.locator("#sheet tbody tr.kept")).to_have_count(0)


def test_a_save_the_server_failed_says_so_at_the_button_and_keeps_every_tap(
    phone, live_server, screenshots
):
    """A server error is not the connection: nothing is kept for later, the taps stay in the
    form and the button offers to try again."""
    open_game(phone, live_server.url)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "Joker")
    tap(phone, "Cy", "Three")
    fail_saves_of_round_one(phone, 500)
    phone.get_by_role("button", name="Save round 1").click()
    alert = phone.get_by_role("alert").filter(has_text="Round 1 is not saved")
    expect(alert).to_be_visible()
    phone.screenshot(path=screenshots / "round-save-failed-server.png")
    save_box = phone.get_by_role("button", name="Save round 1").bounding_box()
    alert_box = alert.bounding_box()
    assert 0 <= save_box["y"] - (alert_box["y"] + alert_box["height"]) < 40
    expect(phone.get_by_label("Ben's points")).to_have_text("62")
    expect(phone.get_by_label("Cy's points")).to_have_text("20")
    expect(phone.get_by_role("button", name="Save round 1")).to_be_enabled()
    phone.context.unroute("**/rounds/1")
    alert.get_by_role("button", name="Try again").click()
    expect_saved(phone, 1, "Fours")
    expect_total(phone, "Ben", 62)


def test_end_the_game_now_lands_on_the_finished_page(phone, live_server):
    game = open_game(phone, live_server.url)
    phone.get_by_label("Cy went out").check()
    tap(phone, "Ann", "Four")
    tap(phone, "Ben", "Five")
    phone.get_by_role("button", name="Save round 1").click()
    expect_saved(phone, 1, "Fours")
    phone.get_by_text("End the game now").click()
    phone.get_by_role("button", name="End the game").click()
    expect(phone.get_by_role("heading", name="Cy wins")).to_be_visible()
    assert phone.url == f"{live_server.url}/g/{game['code']}"
    assert "application/json" not in phone.evaluate("document.contentType")


def test_an_empty_seat_is_refused_until_it_is_marked(phone, live_server, screenshots):
    open_game(phone, live_server.url)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen")
    phone.get_by_role("button", name="Save round 1").click()
    message = phone.get_by_text("Did Cy go out too? Tap Went out or add Cy's cards")
    expect(message).to_be_visible()
    cy = phone.get_by_role("group", name=re.compile("^Cy"))
    expect(cy.get_by_text("Did Cy go out too?")).to_be_visible()
    phone.screenshot(path=screenshots / "round-empty-seat.png")
    expect(phone.get_by_label("Ben's points")).to_have_text("12")
    phone.get_by_label("Cy laid everything down: 0").check()
    phone.get_by_role("button", name="Save round 1").click()
    expect_saved(phone, 1, "Fours")
    expect_total(phone, "Cy", 0)
    expect_total(phone, "Ben", 12)


def second_phone(browser, url):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(5000)
    page.goto(url)
    return page


def test_two_scorekeeper_phones_never_overwrite_each_other(
    phone, browser, live_server, screenshots
):
    game = open_game(phone, live_server.url)
    other = second_phone(browser, f"{live_server.url}/g/{game['code']}")
    try:
        for page in (phone, other):
            expect(page.get_by_role("status").filter(has_text="Live")).to_be_visible()
        phone.get_by_label("Ann went out").check()
        tap(phone, "Ben", "King")
        tap(phone, "Cy", "Queen")

        other.get_by_label("Ben went out").check()
        tap(other, "Ann", "Four")
        other.get_by_label("Cy laid everything down: 0").check()
        other.get_by_role("button", name="Save round 1").click()
        expect_saved(other, 1, "Fours")

        expect(phone.get_by_text("Another phone saved round 1 a moment ago")).to_be_visible()
        ben = phone.get_by_role("group", name=re.compile("^Ben"))
        expect(ben.get_by_text("Saved by the other phone: went out")).to_be_visible()
        expect(phone.get_by_label("Ben's points")).to_have_text("13")
        phone.get_by_text("Another phone saved round 1 a moment ago").scroll_into_view_if_needed()
        phone.screenshot(path=screenshots / "round-other-phone-saved.png")

        with phone.expect_response(lambda r: "/rounds/1" in r.url) as first:
            phone.get_by_role("button", name="Save round 1").click()
        assert first.value.status == 409
        conflict = phone.get_by_text("Another phone saved round 1 while you were entering it")
        expect(conflict).to_be_visible()
        compare = phone.get_by_role("table", name="Round 1: saved, and yours")
        expect(compare.get_by_role("row", name=re.compile("^Ben"))).to_have_text(
            re.compile(r"Ben\s*went out\s*13")
        )
        conflict.scroll_into_view_if_needed()
        phone.screenshot(path=screenshots / "round-conflict.png")
        with phone.expect_response(lambda r: "/rounds/1" in r.url) as again:
            phone.get_by_role("button", name="Save round 1").click()
        assert again.value.status == 409
        expect(phone.get_by_role("button", name="Replace it with mine")).to_be_visible()
        expect_total(phone, "Ben", 0)
        expect_total(other, "Ann", 4)

        phone.get_by_role("button", name="Replace it with mine").click()
        expect_saved(phone, 1, "Fours")
        expect_total(phone, "Ben", 13)
        expect_total(other, "Ben", 13)
        expect_total(other, "Cy", 12)
    finally:
        other.context.close()


def test_keep_the_saved_round_drops_this_phones_entries(phone, browser, live_server):
    game = open_game(phone, live_server.url)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "King")
    tap(phone, "Cy", "Queen")
    phone.request.put(
        f"{live_server.url}/api/games/{game['code']}/rounds/1",
        data={"results": [{"cards": ["4"]}, {"went_out": True}, {"cards": []}]},
    )
    phone.get_by_role("button", name="Save round 1").click()
    phone.get_by_role("button", name="Keep the saved round").click()
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect_total(phone, "Ann", 4)
    phone.reload()
    expect(phone.get_by_text("are back")).to_have_count(0)


def test_in_german_the_round_entrys_words_come_with_it_in_german(phone, live_server):
    # The round entry's words are not in the first load: they come with round-entry.js, in
    # the page's language (/static/words-de.js), once.
    phone.context.add_cookies([{"name": "crownkeeper_lang", "value": "de", "url": live_server.url}])
    open_game(phone, live_server.url)
    expect(phone.get_by_role("heading", name="Runde 1 eintragen")).to_be_visible()
    first_load = phone.evaluate("JSON.parse(document.getElementById('words').textContent)")
    assert "saved" not in first_load and "again" not in first_load and "offR" in first_load
    phone.get_by_label("Ann ist raus").check()
    phone.wait_for_function(
        "() => Object.keys(localStorage).some((key) => key.startsWith('crownkeeper-draft:'))"
    )
    phone.reload()
    back = phone.get_by_text(re.compile(r"^Die Tipps für Runde 1 \(\d\d:\d\d\) sind wieder da\."))
    expect(back).to_be_visible()
    expect(back.get_by_role("button", name="Leeren", exact=True)).to_be_visible()
    for name, card in (("Ben", "Q Dame"), ("Cy", "K König")):
        keypad = phone.get_by_role("group", name=f"Karte zur Hand von {name} hinzufügen")
        keypad.get_by_role("button", name=card, exact=True).click()
    # A save the server fails says so in German, with its button to try again.
    # (On the context: the service worker may send the save, where page routes do not reach.)
    phone.context.route(
        "**/rounds/1", lambda route: route.fulfill(status=500, body="Internal error")
    )
    phone.get_by_role("button", name="Runde 1 speichern").click()
    expect(
        phone.get_by_text("Runde 1 ist nicht gespeichert: Der Server hatte ein Problem.")
    ).to_be_visible()
    again = phone.get_by_role("button", name="Nochmal versuchen", exact=True)
    expect(again).to_be_visible()
    phone.context.unroute("**/rounds/1")
    again.click()
    expect(phone.get_by_role("status").filter(has_text="Runde 1 gespeichert")).to_be_visible()
    fetched = phone.evaluate(
        "Array.from(document.querySelectorAll('script[src*=\"/static/words-\"]'), s => s.src)"
    )
    assert [src.split("/static/")[1] for src in fetched] == ["words-de.js"]
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_taps_made_before_the_entry_script_arrives_are_not_lost(phone, live_server):
    """On a slow network the card picker (round-entry.js) comes a second after the first
    touch: the taps made meanwhile wait for it and then count, none posted, none lost."""
    held, posted = [], []
    phone.route("**/round-entry.js*", lambda route: held.append(route))
    phone.on(
        "request", lambda request: posted.append(request.url) if request.method == "POST" else None
    )
    open_game(phone, live_server.url)
    page_url = phone.url
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "King")
    tap(phone, "Cy", "Joker")
    phone.wait_for_timeout(1000)
    assert held, "the first touch did not ask for the entry script"
    assert phone.evaluate("!window.crownkeeper.tap"), "the picker was there before the script"
    expect(phone.get_by_label("Ben's points")).to_have_text("0")
    for route in held:
        route.continue_()

    expect(phone.get_by_label("Ben's points")).to_have_text("25")
    expect(phone.get_by_label("Cy's points")).to_have_text("50")
    expect(phone.get_by_label("Ann's points")).to_have_text("0")
    for chip in ["remove Queen", "remove King", "remove Joker"]:
        expect(phone.get_by_role("button", name=chip)).to_be_visible()
    assert phone.url == page_url and not posted, "a tap was posted instead of played"
    # The picker is in: a tap now counts at once, a chip tapped takes its card off.
    tap(phone, "Cy", "Five")
    expect(phone.get_by_label("Cy's points")).to_have_text("55")
    phone.get_by_role("button", name="remove Queen").click()
    expect(phone.get_by_label("Ben's points")).to_have_text("13")
    phone.get_by_role("button", name="Save round 1").click()
    expect_saved(phone, 1, "Fours")


def test_a_save_tapped_before_the_entry_script_arrives_saves_every_tap(phone, live_server):
    held = []
    phone.route("**/round-entry.js*", lambda route: held.append(route))
    open_game(phone, live_server.url)
    phone.get_by_label("Ann went out").check()
    tap(phone, "Ben", "Queen", "King")
    tap(phone, "Cy", "Joker")
    phone.get_by_role("button", name="Save round 1").click()
    phone.wait_for_timeout(1000)
    expect(phone.get_by_role("heading", name="Enter round 1")).to_be_visible()
    for route in held:
        route.continue_()

    expect_saved(phone, 1, "Fours")
    expect_total(phone, "Ben", 25)
    expect_total(phone, "Cy", 50)
    expect_total(phone, "Ann", 0)
