"""Nothing hidden, nothing covered (issue 28): on a 390x844 phone and at 200% zoom (195 px
wide), in light and dark. An error at Save comes into view with the focus on the seat it
names; Save is never under the keys; every message the round loop shows sits in the flow,
clear of the round's heading, the keys, Save and the choice it asks for; taps brought back
say so; a player who left can be seated again from the page the leaving lands on."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_round_at_the_table import fail_saves_of_round_one, tap
from tests.browser.test_table_changes import tap as tap_suits
from tests.browsers import SCREENS

pytestmark = pytest.mark.browser


def shoot(page, screenshots, name):
    """A screenshot of what the phone shows, at 390x844 (light and dark)."""
    if page.label.startswith("390"):
        page.screenshot(path=screenshots / f"{name}-{page.label}.png")


# What matters at the table: headings, the round's line, every control, the sheet's and the
# comparison's cells, the totals. A message must not overlap any of them (its own buttons
# and the boxes it sits in aside), and must sit in the flow: not fixed, sticky or absolute,
# so no scrolling can slide it over anything either.
MATTERS = (
    "h1, h2, .round-line > span, button, input, label, summary, a, select, output, "
    ".compare th, .compare td, .sheet th, .sheet td, .totals li, .chips, .keypad"
)
COVERED = """([message, matters]) => {
  const box = message.getBoundingClientRect();
  const problems = [];
  for (let el = message; el; el = el.parentElement) {
    const position = getComputedStyle(el).position;
    if (["fixed", "sticky", "absolute"].includes(position)) problems.push("position " + position);
  }
  for (const el of document.querySelectorAll(matters)) {
    if (el.contains(message) || message.contains(el) || el.closest(".visually-hidden")) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    if (r.left < box.right - 0.5 && box.left < r.right - 0.5 &&
        r.top < box.bottom - 0.5 && box.top < r.bottom - 0.5) {
      problems.push(el.outerHTML.slice(0, 90));
    }
  }
  return problems;
}"""
IN_VIEW = """(el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 10));
  return r.top >= -0.5 && r.bottom <= innerHeight + 0.5 && r.left >= -0.5 &&
    r.right <= innerWidth + 0.5 && !!hit && (el === hit || el.contains(hit));
}"""


def covers_nothing(page, message, *, in_view=True):
    """The message is shown, in the flow, over nothing that matters; in sight and on top
    when in_view (what a tap or a save just brought up)."""
    expect(message).to_be_visible()
    handle = message.element_handle()
    assert page.evaluate(COVERED, [handle, MATTERS]) == [], f"{message} on {page.label}"
    if in_view:
        assert handle.evaluate(IN_VIEW), f"{message} is not in sight on {page.label}"


def in_sight(page, locator):
    return locator.element_handle().evaluate(IN_VIEW)


def new_game(page, base, names=("Ann", "Ben", "Cy")):
    game = page.request.post(base + "/api/games", data={"players": list(names)}).json()
    page.goto(f"{base}/g/{game['code']}")
    return game


def put_round(page, base, code, number, results):
    response = page.request.put(
        f"{base}/api/games/{code}/rounds/{number}", data={"results": results}
    )
    assert response.ok, response.text()


def test_an_error_at_save_comes_into_view_with_the_focus_on_its_seat(
    screen, live_server, screenshots
):
    new_game(screen, live_server.url)
    screen.get_by_label("Ann went out").check()
    tap(screen, "Ben", "Queen")
    save = screen.get_by_role("button", name="Save round 1")
    save.scroll_into_view_if_needed()
    assert in_sight(screen, save)  # nothing lies over Save
    save.click()
    message = screen.locator("#seat-2-error")
    expect(message).to_have_text("Did Cy go out too? Tap Went out or add Cy's cards.")
    covers_nothing(screen, message)
    assert screen.evaluate("document.activeElement.dataset.seat") == "2"
    # The seat's name and its Went out, which the message asks for, are in sight with it.
    cy = screen.get_by_role("group", name=re.compile("^Cy"))
    assert in_sight(screen, cy.get_by_label("Cy went out").locator(".."))
    shoot(screen, screenshots, "save-error-focus")
    expect(screen.get_by_label("Ben's points")).to_have_text("12")

    # A message from a tap: the keys stay under the finger, and nothing is covered.
    keypad = screen.get_by_role("group", name="Add a card to Ben's hand")
    tap(screen, "Ben", "King", "Three")
    top = keypad.bounding_box()["y"]
    tap(screen, "Ben", "Four")
    too_many = screen.locator("#seat-1-error")
    expect(too_many).to_contain_text("Ben cannot have more than 3 cards left")
    assert abs(keypad.bounding_box()["y"] - top) < 1
    covers_nothing(screen, too_many, in_view=False)
    shoot(screen, screenshots, "tap-error")
    screen.get_by_role("button", name="remove King, K").click()
    expect(too_many).to_be_empty()
    assert abs(keypad.bounding_box()["y"] - top) < 1

    # Nobody went out: the server's message for the whole table comes into view, clear of
    # Save below it.
    screen.get_by_label("Cy laid everything down: 0").check()
    screen.evaluate("document.querySelector('input[name=went_out]:checked').checked = false")
    screen.get_by_role("button", name="Save round 1").click()
    nobody = screen.get_by_role("alert").filter(has_text="Choose the player who went out first")
    covers_nothing(screen, nobody)


def test_save_is_never_under_the_keys_in_solitaire(screen, live_server, screenshots):
    screen.goto(live_server.url + "/")
    screen.get_by_label("Solitaire (1 player)").check()
    screen.get_by_label("Player 1", exact=True).fill("Sol")
    screen.get_by_role("button", name="Start the game").click()
    screen.get_by_role("link", name="Lay out pile 3").click()
    hand = ["J Jack of clubs", "Q Queen of hearts", "Joker", "9 Nine of spades"]
    tap_suits(screen, *hand)
    expect(screen.get_by_text("Tap 1 more card")).to_be_visible()
    tap_suits(screen, "K King of diamonds")  # the last card, at the foot of the grid
    save = screen.get_by_role("button", name="Save pile 3: 95 points")
    expect(save).to_be_visible()
    assert in_sight(screen, save), f"Save is hidden or covered on {screen.label}"
    shoot(screen, screenshots, "pile-save")
    save.click()
    piles = screen.get_by_role("region", name="Piles").get_by_role("listitem")
    expect(piles.nth(2)).to_contain_text("95 points")


def test_each_message_of_the_round_loop_covers_nothing(screen, live_server, screenshots):
    base = live_server.url
    game = new_game(screen, base)
    code = game["code"]
    # Saved: the note above the next round, its heading and keys clear.
    screen.get_by_label("Ann went out").check()
    tap(screen, "Ben", "Queen")
    tap(screen, "Cy", "King")
    screen.get_by_role("button", name="Save round 1").click()
    saved = screen.get_by_role("status").filter(has_text="Round 1 saved")
    covers_nothing(screen, saved)
    expect(screen.get_by_text("Round 2 of 11")).to_be_visible()
    assert in_sight(screen, screen.get_by_text("Round 2 of 11"))
    assert in_sight(screen, screen.get_by_text("4 cards each"))
    shoot(screen, screenshots, "round-saved")

    # Taps brought back by a reload say so.
    screen.get_by_label("Ben went out").check()
    tap(screen, "Ann", "Seven")
    screen.reload()
    back = screen.get_by_text(re.compile(r"^Round 2's taps from \d\d?:\d\d(\s[AP]M)? are back"))
    back.scroll_into_view_if_needed()
    covers_nothing(screen, back)
    shoot(screen, screenshots, "taps-back")

    # Another phone saves round 2 meanwhile: said in the entry, beside each seat too.
    put_round(screen, base, code, 2, [{"points": 9}, {"went_out": True}, {"points": 40}])
    other = screen.get_by_text("Another phone saved round 2 a moment ago")
    covers_nothing(screen, other, in_view=False)
    beside = screen.locator(".saved-other").first
    covers_nothing(screen, beside, in_view=False)
    tap(screen, "Cy", "Eight")
    screen.get_by_role("button", name="Save round 2").click()
    conflict = screen.get_by_role("alert").filter(has_text="Another phone saved round 2")
    covers_nothing(screen, conflict.locator("strong"))
    shoot(screen, screenshots, "conflict")
    screen.get_by_role("button", name="Keep the saved round").click()
    expect(screen.get_by_role("heading", name="Enter round 3")).to_be_visible()

    # The server fails: said at Save, which stays clear.
    screen.get_by_label("Cy went out").check()
    tap(screen, "Ann", "Four")
    tap(screen, "Ben", "Nine")
    screen.context.route("**/rounds/3", lambda route: route.fulfill(status=500, body="Down"))
    screen.get_by_role("button", name="Save round 3").click()
    failed = screen.get_by_role("alert").filter(has_text="Round 3 is not saved")
    covers_nothing(screen, failed)
    screen.context.unroute("**/rounds/3")

    # No connection: the round is kept, the next one opens under the note.
    screen.context.route("**/rounds/3", lambda route: route.abort("internetdisconnected"))
    screen.get_by_role("button", name="Save round 3").click()
    kept = screen.get_by_role("status").filter(has_text="Round 3 is kept on this phone")
    expect(screen.get_by_role("heading", name="Enter round 4")).to_be_visible()
    covers_nothing(screen, kept)
    assert in_sight(screen, screen.get_by_text("Round 4 of 11"))
    shoot(screen, screenshots, "round-kept")
    # Another phone saves round 3 too: the kept round needs a look once it can be sent.
    put_round(screen, base, code, 3, [{"points": 4}, {"points": 9}, {"went_out": True}])
    screen.context.unroute("**/rounds/3")
    screen.evaluate("dispatchEvent(new Event('online'))")
    look = screen.get_by_text("needs a look before it is sent")
    covers_nothing(screen, look)
    compare = screen.get_by_role("table", name="Round 3: saved, and yours")
    expect(compare.get_by_role("columnheader", name="Saved")).to_be_visible()
    shoot(screen, screenshots, "needs-a-look")
    screen.get_by_role("button", name="Replace it with mine").click()
    expect(screen.get_by_role("heading", name="Enter round 4")).to_be_visible()

    # The last round: the note above the result, clear of it and of the sheet.
    for number in range(4, 11):
        put_round(screen, base, code, number, [{"went_out": True}, {"points": 20}, {"points": 30}])
    screen.reload()
    screen.get_by_label("Ann went out").check()
    tap(screen, "Ben", "Queen")
    tap(screen, "Cy", "Jack")  # Kings are wild now, and a wild is never kept after laying down
    screen.get_by_role("button", name="Save round 11").click()
    final = screen.get_by_role("status").filter(has_text="Round 11 saved")
    covers_nothing(screen, final)
    expect(screen.get_by_role("heading", name=re.compile("wins"))).to_be_visible()
    shoot(screen, screenshots, "round-11-saved")


def test_all_rounds_sent_covers_nothing(screen, live_server):
    new_game(screen, live_server.url)
    screen.get_by_label("Ann went out").check()
    tap(screen, "Ben", "Queen")
    tap(screen, "Cy", "King")
    fail_saves_of_round_one(screen, None)
    screen.get_by_role("button", name="Save round 1").click()
    expect(screen.get_by_role("status").filter(has_text="Round 1 is kept")).to_be_visible()
    screen.context.unroute("**/rounds/1")
    screen.evaluate("dispatchEvent(new Event('online'))")
    sent = screen.get_by_role("status").filter(has_text="All rounds sent")
    covers_nothing(screen, sent, in_view=False)
    expect(screen.get_by_role("heading", name="Enter round 2")).to_be_visible()


def test_taps_brought_back_say_so_and_clear(screen, live_server, screenshots):
    """The family's find: a half-tapped round came back, and new taps were added to it."""
    new_game(screen, live_server.url)
    tap(screen, "Ann", "Seven")
    # The draft is written once the entry's script has come (fetched on the first tap).
    screen.wait_for_function(
        "() => Object.keys(localStorage).some(k => k.startsWith('crownkeeper-draft:'))"
    )
    screen.reload()
    back = screen.get_by_text(re.compile(r"^Round 1's taps from \d\d?:\d\d(\s[AP]M)? are back\."))
    expect(back).to_be_visible()
    expect(screen.get_by_label("Ann's points")).to_have_text("7")
    back.get_by_role("button", name="Clear", exact=True).click()
    expect(back).to_have_count(0)
    expect(screen.get_by_label("Ann's points")).to_have_text("0")
    tap(screen, "Ann", "Four")
    expect(screen.get_by_label("Ann's points")).to_have_text("4")
    screen.get_by_label("Ben went out").check()
    tap(screen, "Cy", "Five")
    screen.get_by_role("button", name="Save round 1").click()
    expect(screen.get_by_role("status").filter(has_text="Round 1 saved")).to_be_visible()
    totals = screen.get_by_role("region", name="Totals").get_by_role("listitem")
    expect(totals.first).to_contain_text("4")


def test_a_player_who_left_is_one_tap_from_coming_back(screen, live_server, screenshots):
    base = live_server.url
    game = new_game(screen, base, ("Ann", "Ben", "Cy", "Dee"))
    screen.goto(f"{base}/g/{game['code']}/players")
    screen.get_by_role("button", name="Dee leaves the game").click()
    expect(screen).to_have_url(f"{base}/g/{game['code']}")
    left = screen.get_by_text("Dee left.")
    covers_nothing(screen, left)
    shoot(screen, screenshots, "dee-left")
    left.get_by_role("button", name="Undo").click()
    expect(screen).to_have_url(f"{base}/g/{game['code']}")
    expect(screen.get_by_label("Dee went out")).to_be_visible()
    expect(screen.get_by_text("Dee left.")).to_have_count(0)

    # Left again: the note stays until the next round is saved.
    screen.goto(f"{base}/g/{game['code']}/players")
    screen.get_by_role("button", name="Dee leaves the game").click()
    expect(screen.get_by_text("Dee left.")).to_be_visible()
    screen.reload()
    expect(screen.get_by_text("Dee left.")).to_be_visible()
    screen.get_by_label("Ann went out").check()
    tap(screen, "Ben", "Queen")
    tap(screen, "Cy", "King")
    screen.get_by_role("button", name="Save round 1").click()
    expect(screen.get_by_role("status").filter(has_text="Round 1 saved")).to_be_visible()
    expect(screen.get_by_text("Dee left.")).to_have_count(0)


def test_leaving_and_coming_back_without_javascript(browser, live_server):
    context = browser.new_context(
        viewport=SCREENS["390-light"][0], java_script_enabled=False, device_scale_factor=2
    )
    page = context.new_page()
    page.set_default_timeout(5000)
    base = live_server.url
    try:
        game = page.request.post(
            base + "/api/games", data={"players": ["Ann", "Ben", "Cy", "Dee"]}
        ).json()
        page.goto(f"{base}/g/{game['code']}/players")
        page.get_by_role("button", name="Dee leaves the game").click()
        expect(page).to_have_url(f"{base}/g/{game['code']}")
        page.get_by_text("Dee left.").get_by_role("button", name="Undo").click()
        expect(page).to_have_url(f"{base}/g/{game['code']}")
        expect(page.get_by_label("Dee went out")).to_be_visible()
        expect(page.get_by_text("Dee left.")).to_have_count(0)
    finally:
        context.close()
