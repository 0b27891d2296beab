"""The picker stays where the finger is, every phone and hand can use every page, and links
and messages make sense (issue 12)."""

import re

import pytest
from playwright.sync_api import expect

from tests.browsers import PHONE
from tests.conftest import went_out_first

pytestmark = pytest.mark.browser

# Every visible key's place in the page (scroll offsets added back in, so only a layout
# shift counts as a move), by name.
KEY_PLACES = """() => Object.fromEntries([...document.querySelectorAll('.key')]
  .filter(k => k.offsetParent !== null)
  .map(k => {
    const r = k.getBoundingClientRect();
    let x = r.x, y = r.y;  // the loop below adds every scroll offset, the page's too
    for (let e = k.parentElement; e; e = e.parentElement) { x += e.scrollLeft; y += e.scrollTop; }
    const pad = k.closest('[aria-label]').getAttribute('aria-label');
    return [pad + ' / ' + k.getAttribute('aria-label'), [x, y]];
  }))"""
# The keys of the pad being tapped, where they are on the screen: what the finger meets. A
# seat's message comes in the flow above its cards (covering none of them), and the page
# scrolls by what it moved: the keys under the finger stay put, those of other seats may not.
PAD_ON_SCREEN = """(pad) => Object.fromEntries([...pad.querySelectorAll('.key')].map(k => {
  const r = k.getBoundingClientRect();
  return [k.getAttribute('aria-label'), [r.x, r.y]];
}))"""

FOURTEEN_WITH_SUITS = [
    "3 Three of stars", "4 Four of hearts", "5 Five of clubs", "6 Six of spades",
    "7 Seven of diamonds", "8 Eight of stars", "9 Nine of hearts", "10 Ten of clubs",
    "J Jack of spades", "Q Queen of diamonds", "K King of stars", "K King of hearts",
    "Q Queen of clubs", "Joker",
]  # fmt: skip


def create(page, base_url, players, rounds_saved=0):
    game = page.request.post(base_url + "/api/games", data={"players": players}).json()
    for number in range(1, rounds_saved + 1):
        saved = page.request.put(
            f"{base_url}/api/games/{game['code']}/rounds/{number}",
            # 13 points can be left in every round (4 + 4 + 5 of the 3 cards kept in round 1;
            # later a King, or 3 + 10 when Kings are wild)
            data={"results": went_out_first(len(players), points=[13] * len(players))},
        )
        assert saved.ok, saved.text()
    return game


def open_entry(page, number):
    """The round entry, opened with a tap if it is folded away."""
    if not page.get_by_role("button", name=f"Save round {number}").is_visible():
        page.get_by_text(f"Enter round {number}").click()
    expect(page.get_by_role("button", name=f"Save round {number}")).to_be_visible()


def largest_move(before, after):
    assert before.keys() == after.keys(), "keys appeared or went away"
    return max(
        max(abs(after[name][0] - x), abs(after[name][1] - y)) for name, (x, y) in before.items()
    )


def tap_and_measure(page, keys, names, settle=None, places=None):
    """Tap each key named in names; after each tap, no key (of those places finds: by
    default every key on the page, in the page's layout) may have moved > 2 px."""
    places = places or (lambda: page.evaluate(KEY_PLACES))
    start = places()
    for count, name in enumerate(names, start=1):
        keys.get_by_role("button", name=name, exact=True).click()
        if settle:
            settle(count)
        moved = largest_move(start, places())
        assert moved <= 2, f"a key moved {moved:.1f} px at card {count} ({name})"


def test_keys_stay_put_while_fourteen_cards_are_tapped_in_round_entry(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben", "Cy"], rounds_saved=10)
    phone.goto(f"{live_server.url}/g/{game['code']}")
    open_entry(phone, 11)  # 13 cards dealt: the 14th tap is refused with a message
    ben = phone.get_by_role("group", name="Add a card to Ben's hand")
    ben.get_by_role("button", name="3 Three", exact=True).scroll_into_view_if_needed()
    names = ["K King", "Q Queen", "J Jack", "10 Ten", "9 Nine", "8 Eight", "7 Seven"]
    names += ["6 Six", "5 Five", "4 Four", "3 Three", "Joker", "Q Queen", "J Jack"]
    tap_and_measure(phone, ben, names, places=lambda: ben.evaluate(PAD_ON_SCREEN))
    expect(phone.get_by_text("Ben cannot have more than 13 cards left")).to_be_visible()
    expect(phone.get_by_label("Ben's points")).to_have_text(str(20 + 12 + 11 + 52 + 50 + 12))


def test_keys_stay_put_in_the_whole_hand_dialog(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben"], rounds_saved=10)
    phone.goto(f"{live_server.url}/g/{game['code']}")
    open_entry(phone, 11)  # 13 cards dealt: the 14th tap asks to remove one
    phone.get_by_role("button", name="Tap Ben's whole hand").click()
    dialog = phone.get_by_role("dialog")
    # The dialog opens on its first card, ready to tap, not on Cancel.
    expect(dialog.get_by_role("button", name="3 Three of stars")).to_be_focused()
    result = dialog.locator(".whole-hand-result")

    def settle(count):
        expect(phone.locator("dialog input.hand-cards")).to_have_value(
            re.compile(rf"^([^,]+,){{{count - 1}}}[^,]+$")
        )

    tap_and_measure(phone, dialog, FOURTEEN_WITH_SUITS, settle)
    expect(result).to_contain_text("Remove 1")
    phone.wait_for_timeout(300)
    expect(dialog.get_by_role("button", name=re.compile("^remove "))).to_have_count(14)
    dialog.get_by_role("button", name="remove Joker").click()
    expect(result).to_contain_text("Best layout leaves")


def test_keys_stay_put_on_the_hand_checker(phone, live_server):
    phone.goto(live_server.url + "/hand?round=11")  # 13 dealt and 1 drawn: 14 cards
    phone.get_by_label("I just drew: pick my discard").check()
    phone.wait_for_timeout(300)
    grid = phone.get_by_role("group", name="Add a card to the hand")

    def settle(count):
        expect(phone.locator("input.hand-cards")).to_have_value(
            re.compile(rf"^([^,]+,){{{count - 1}}}[^,]+$")
        )

    tap_and_measure(phone, grid, FOURTEEN_WITH_SUITS, settle)
    expect(phone.locator("#hand-result .verdict")).to_be_visible()
    phone.wait_for_timeout(400)  # the last answer from the server is in: still nothing moved
    tap_and_measure(phone, grid, [])


def test_a_wild_chip_stands_out_and_a_tapped_key_does_not_stay_selected(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben"], rounds_saved=2)  # fives wild
    phone.goto(f"{live_server.url}/g/{game['code']}")
    open_entry(phone, 3)
    ben = phone.get_by_role("group", name="Add a card to Ben's hand")
    for name in ["9 Nine", "5 Five", "Joker"]:
        ben.get_by_role("button", name=name, exact=True).click()
    look = "e => { const s = getComputedStyle(e); return [s.backgroundColor, s.borderColor]; }"
    plain = phone.get_by_role("button", name="remove Nine, 9").evaluate(look)
    wild = phone.get_by_role("button", name="remove Five, 5").evaluate(look)
    joker = phone.get_by_role("button", name="remove Joker").evaluate(look)
    assert wild != plain and joker != plain
    expect(phone.get_by_label("Ben's points")).to_have_text("79")

    phone.mouse.move(0, 0)
    style = """e => { const s = getComputedStyle(e);
        return [s.backgroundColor, s.color, s.borderColor, s.outlineStyle, s.boxShadow]; }"""
    tapped = ben.get_by_role("button", name="9 Nine", exact=True)
    untapped = ben.get_by_role("button", name="8 Eight", exact=True)
    tapped.click()
    phone.mouse.move(0, 0)
    assert tapped.evaluate(style) == untapped.evaluate(style)


PAGES = ["/", "/g/{code}", "/g/{watch_code}", "/g/{code}/rounds/1", "/hand", "/rules", "/nowhere"]


def no_sideways_scroll(page, where):
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("innerWidth")
    assert width <= viewport, f"{where} scrolls sideways: {width} px in {viewport}"


@pytest.mark.parametrize("players", [3, 14])
def test_nothing_scrolls_sideways_at_200_percent_zoom(browser, live_server, players):
    context = browser.new_context(viewport={"width": 195, "height": 422}, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(5000)
    names = [f"Player{n}" for n in range(1, players + 1)]
    game = create(page, live_server.url, names, rounds_saved=1)
    for path in PAGES:
        page.goto(live_server.url + path.format(**game))
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        no_sideways_scroll(page, path)
    page.goto(f"{live_server.url}/g/{game['code']}")
    open_entry(page, 2)
    page.get_by_role("button", name=f"Tap {names[0]}'s whole hand").click()
    expect(page.get_by_role("button", name="3 Three of stars")).to_be_focused()
    no_sideways_scroll(page, "the whole-hand dialog")
    context.close()


def test_keys_stay_legible_at_200_percent_text_size(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben", "Cy", "Dee"], rounds_saved=1)
    for path in ["/g/{code}", "/hand"]:
        phone.goto(live_server.url + path.format(**game))
        phone.evaluate("document.documentElement.style.fontSize = '200%'")
        if path == "/g/{code}":
            open_entry(phone, 2)
        no_sideways_scroll(phone, path)
        overflowing = phone.evaluate(
            """[...document.querySelectorAll('.key')].filter(k => k.offsetParent !== null)
               .filter(k => k.scrollWidth > k.clientWidth + 1
                            || k.scrollHeight > k.clientHeight + 1)
               .map(k => k.getAttribute('aria-label'))"""
        )
        assert overflowing == [], f"{path}: text overflows these keys: {overflowing}"
        size = phone.get_by_role("button", name="Q Queen", exact=False).first.evaluate(
            "k => parseFloat(getComputedStyle(k).fontSize)"
        )
        assert size >= 30  # the text really doubled


def test_fourteen_players_sheet_keeps_the_round_column_and_entry_folds(phone, live_server):
    names = [f"Player{n}" for n in range(1, 15)]
    game = create(phone, live_server.url, names, rounds_saved=3)
    phone.goto(f"{live_server.url}/g/{game['code']}")
    no_sideways_scroll(phone, "the 14-player game page")
    expect(phone.get_by_text("Swipe the sheet sideways for all 14 players")).to_be_visible()
    wrap = phone.locator(".sheet-wrap")
    wrap.scroll_into_view_if_needed()
    assert wrap.evaluate("e => e.scrollWidth > e.clientWidth")  # more columns wait sideways
    round_cell = phone.get_by_role("rowheader").filter(has_text=re.compile(r"^\s*2\b")).first
    before = round_cell.bounding_box()
    wrap.evaluate("e => e.scrollLeft = 400")
    phone.wait_for_timeout(100)
    assert wrap.evaluate("e => e.scrollLeft") > 100
    after = round_cell.bounding_box()
    assert abs(after["x"] - before["x"]) <= 1 and abs(after["y"] - before["y"]) <= 1
    round_cell.scroll_into_view_if_needed()
    box = round_cell.bounding_box()
    top_cell = phone.evaluate(
        "([x, y]) => { const seen = document.elementFromPoint(x, y);"
        " return seen !== null && seen.closest('th') !== null; }",
        [box["x"] + 5, box["y"] + box["height"] / 2],
    )
    assert top_cell, "the round column is covered by scores"

    open_entry(phone, 4)
    height = phone.locator("form.entry").bounding_box()["height"]
    assert height < 2 * PHONE["height"], f"a 14-player round entry is {height} px long"
    seats = phone.locator("fieldset.seat")

    def open_seats():
        return [n + 1 for n in range(14) if seats.nth(n).bounding_box()["height"] >= 80]

    assert open_seats() == [1, 2]  # the seat being tapped and the next; the rest one line each
    phone.get_by_label("Player1 went out").check()
    assert open_seats() == [2, 3]
    phone.get_by_role("group", name="Add a card to Player2's hand").get_by_role(
        "button", name="Q Queen", exact=True
    ).click()
    # Moving on to the next seat costs no extra tap, and its keys stay under the finger.
    king = phone.get_by_role("group", name="Add a card to Player3's hand").get_by_role(
        "button", name="K King", exact=True
    )
    king.scroll_into_view_if_needed()
    before = king.bounding_box()["y"]
    king.click()
    assert abs(king.bounding_box()["y"] - before) <= 2
    assert open_seats() == [3, 4]
    expect(phone.get_by_role("button", name="Player2: Q · change")).to_be_visible()
    expect(phone.get_by_label("Player2's points")).to_have_text("12")
    # Who went out is one tap on a folded seat too; any seat opens with a tap on its line.
    phone.get_by_label("Player9 went out").check()
    expect(phone.get_by_role("button", name="Player9: went out")).to_be_visible()
    phone.get_by_role("button", name="Player12: add cards").click()
    assert open_seats() == [12, 13]


def test_each_keypad_is_one_tab_stop_with_arrow_keys_between_keys(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben"])
    for path in ["/g/{code}", "/hand"]:
        phone.goto(live_server.url + path.format(**game))
        if path == "/g/{code}":
            open_entry(phone, 1)
        pads = phone.locator(".keypad, .suit-grid")
        for pad in range(pads.count()):
            stops = pads.nth(pad).evaluate(
                "p => [...p.querySelectorAll('.key')].filter(k => k.tabIndex >= 0).length"
            )
            assert stops == 1
        first = pads.first.locator(".key").first
        # Tab from the control just before the keypad lands on its first key.
        first.focus()
        phone.keyboard.press("Shift+Tab")
        phone.keyboard.press("Tab")
        expect(first).to_be_focused()
        phone.keyboard.press("ArrowRight")
        second = pads.first.locator(".key").nth(1)
        expect(second).to_be_focused()
        phone.keyboard.press("ArrowDown")
        columns = pads.first.evaluate(
            "p => getComputedStyle(p).gridTemplateColumns.split(' ').length"
        )
        expect(pads.first.locator(".key").nth(1 + columns)).to_be_focused()
        phone.keyboard.press("End")
        expect(pads.first.locator(".key").last).to_be_focused()
        phone.keyboard.press("Home")
        expect(first).to_be_focused()
        phone.keyboard.press("Tab")
        left = phone.evaluate("document.activeElement.closest('.keypad, .suit-grid') === null")
        assert left, "Tab should leave the keypad in one step"


def test_every_fold_out_shows_a_disclosure_marker(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben"], rounds_saved=1)
    for path in ["/g/{code}", "/g/{watch_code}", "/g/{code}/rounds/1"]:
        phone.goto(live_server.url + path.format(**game))
        markers = phone.evaluate(
            """[...document.querySelectorAll('summary')].map(s => {
                 const before = getComputedStyle(s, '::before').content;
                 return [s.textContent.trim(), getComputedStyle(s).display === 'list-item'
                         || (before !== 'none' && before !== 'normal' && before !== '""')]; })"""
        )
        assert markers and all(shown for _, shown in markers), markers
    phone.goto(f"{live_server.url}/g/{game['code']}")
    closed = phone.evaluate(
        "getComputedStyle(document.querySelector('.more summary'), '::before').content"
    )
    phone.locator("summary", has_text="Wild card chart").click()
    opened = phone.evaluate(
        "getComputedStyle(document.querySelector('.more summary'), '::before').content"
    )
    assert closed != opened  # the marker says whether it is open


def test_the_watch_page_says_you_are_watching_at_the_top(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben"])
    phone.goto(f"{live_server.url}/g/{game['watch_code']}")
    watching = phone.get_by_text("You are watching")
    expect(watching).to_be_in_viewport()
    heading = phone.get_by_role("heading", name="Threes are wild")
    expect(heading).to_be_visible()
    # The live stream's first message may swap the heading's region as it is measured.
    tops = []
    for _ in range(50):
        boxes = watching.bounding_box(), heading.bounding_box()
        if all(boxes):
            tops = [box["y"] for box in boxes]
            break
        phone.wait_for_timeout(100)
    assert tops and tops[0] < tops[1]


def test_an_open_page_of_a_replaced_link_says_so(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben"])
    phone.goto(f"{live_server.url}/g/{game['code']}")
    expect(phone.locator("#live")).to_have_attribute("data-sse", "open")  # the stream is up
    phone.request.post(f"{live_server.url}/api/games/{game['code']}/scorekeeper-code")
    replaced = phone.get_by_role("heading", name="This link was replaced")
    expect(replaced).to_be_visible(timeout=10000)
    expect(phone.get_by_text("Reconnecting")).to_have_count(0)
    phone.get_by_role("link", name="Watch the game").click()
    expect(phone.get_by_text("You are watching")).to_be_visible()
    assert phone.url.endswith(f"/g/{game['watch_code']}")


def test_links_carry_the_round_and_never_a_loopback_address(phone, live_server):
    game = create(phone, live_server.url, ["Ann", "Ben"], rounds_saved=3)
    phone.goto(f"{live_server.url}/g/{game['code']}")
    site = phone.get_by_role("navigation", name="Site")
    expect(site.get_by_role("link", name="Hand checker")).to_have_attribute(
        "href", re.compile(r"/hand\?round=4$")
    )
    open_entry(phone, 4)
    phone.get_by_label("Ann went out").check()
    phone.get_by_role("group", name="Add a card to Ben's hand").get_by_role(
        "button", name="K King", exact=True
    ).click()
    phone.get_by_role("button", name="Save round 4").click()
    expect(phone.get_by_role("heading", name="Sevens are wild")).to_be_visible()
    expect(site.get_by_role("link", name="Hand checker")).to_have_attribute(
        "href", re.compile(r"/hand\?round=5$")
    )
    site.get_by_role("link", name="Hand checker").click()
    expect(phone.get_by_label("Round")).to_have_value("7")  # round 5 deals 7 cards

    phone.goto(f"{live_server.url}/g/{game['code']}")  # opened at 127.0.0.1
    phone.get_by_text("Share: let everyone watch").click()
    watch_link = phone.get_by_role("textbox", name="Watch link").input_value()
    assert watch_link.endswith(f"/g/{game['watch_code']}")
    assert not re.match(r"https?://(127\.|localhost|\[::1\])", watch_link), watch_link
