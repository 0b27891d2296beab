"""The hand checker in a phone's hand: tap a hand, read the verdict; whole-hand mode in a round."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_play import expect_total
from tests.browser.test_round_at_the_table import NAMES
from tests.browser.test_round_at_the_table import tap as tap_keys

pytestmark = pytest.mark.browser


def tap(page, *names, within=None):
    """Tap cards by name ("Seven of hearts"); a key's name starts with its rank ("7 ...")."""
    grid = (within or page).get_by_role("group", name="Add a card to the hand")
    for name in names:
        rank = {"Jack": "J", "Queen": "Q", "King": "K"}.get(name.split()[0])
        number = ["Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"]
        if name.split()[0] in number:
            rank = str(number.index(name.split()[0]) + 3)
        grid.get_by_role("button", name=f"{rank} {name}" if rank else name, exact=True).click()


def test_a_hand_that_goes_out_and_one_that_cannot(phone, live_server, screenshots):
    phone.goto(live_server.url + "/hand")
    phone.get_by_label("Round").select_option("6")  # 6 cards, sixes wild
    phone.get_by_label("I just drew: pick my discard").check()
    expect(phone.get_by_text("Tap the 7 cards in the hand")).to_be_visible()
    tap(phone, "Three of clubs", "Three of spades", "Three of hearts", "Seven of hearts")
    expect(phone.get_by_text("Tap 3 more cards: the hand holds 7.")).to_be_visible()
    tap(phone, "Nine of hearts", "Six of stars", "King of diamonds")
    verdict = phone.get_by_text("This hand goes out: discard the King of diamonds.")
    expect(verdict).to_be_visible()
    expect(phone.get_by_role("img", name="Six of stars as Eight of hearts")).to_be_visible()
    phone.screenshot(path=screenshots / "hand-goes-out.png", full_page=True)

    phone.get_by_role("button", name="remove Six of stars").click()
    tap(phone, "Queen of clubs")
    expect(phone.get_by_text("It cannot go out yet.")).to_be_visible()
    expect(phone.get_by_text("Left over:")).to_be_visible()
    expect(phone.get_by_role("button", name="remove King of diamonds")).to_be_visible()


def test_whole_hand_mode_fills_in_the_leftover(phone, live_server):
    game = phone.request.post(live_server.url + "/api/games", data={"players": ["Ann", "Ben"]})
    phone.goto(f"{live_server.url}/g/{game.json()['code']}")
    phone.get_by_text("Enter round 1").click()
    phone.get_by_label("Ann went out").check()
    phone.get_by_role("button", name="Tap Ben's whole hand").click()
    dialog = phone.get_by_role("dialog")
    expect(dialog.get_by_role("heading", name="Ben's whole hand")).to_be_visible()
    tap(phone, "Queen of hearts", within=dialog)
    expect(dialog.get_by_text("Tap 2 more cards: the hand holds 3.")).to_be_visible()
    tap(phone, "Queen of spades", "Seven of clubs", within=dialog)
    expect(dialog.get_by_text("Best layout leaves 31 points.")).to_be_visible()
    dialog.get_by_role("button", name="Joker", exact=True).click()
    expect(dialog.get_by_text("4 cards is too many: 3 were dealt. Remove 1.")).to_be_visible()
    dialog.get_by_role("button", name="remove Queen of spades").click()
    expect(dialog.get_by_text("Best layout leaves 69 points.")).to_be_visible()
    dialog.get_by_role("button", name="remove Joker").click()
    tap(phone, "Queen of diamonds", within=dialog)
    expect(dialog.get_by_text("Best layout leaves 31 points.")).to_be_visible()
    dialog.get_by_role("button", name="Use for Ben").click()
    expect(phone.get_by_label("Ben's points")).to_have_text("31")
    expect(phone.get_by_role("button", name="remove Seven of clubs")).to_be_visible()
    phone.get_by_role("button", name="Save round 1").click()
    expect_total(phone, "Ben", 31)


def test_tapped_cards_that_make_a_book_are_saved_once_confirmed(phone, live_server, screenshots):
    game = phone.request.post(live_server.url + "/api/games", data={"players": NAMES}).json()
    phone.goto(f"{live_server.url}/g/{game['code']}")
    phone.get_by_label("Ann went out").check()
    tap_keys(phone, "Ben", "Joker", "Joker", "Joker")
    tap_keys(phone, "Cy", "Queen", "King", "Seven")
    phone.get_by_role("button", name="Save round 1").click()
    question = phone.get_by_text(
        "Three jokers make a book: were they laid down? If Ben kept them, confirm."
    )
    expect(question).to_be_visible()
    confirm = phone.get_by_role("button", name="Yes, Ben kept these cards: save")
    confirm.scroll_into_view_if_needed()
    expect(confirm).to_be_in_viewport()
    phone.screenshot(path=screenshots / "kept-book-confirm.png")
    saved = phone.request.get(f"{live_server.url}/api/games/{game['code']}").json()
    assert saved["rounds"][0]["scores"] is None  # asked, not saved

    # Other cards: the question was about the cards before, and goes.
    phone.get_by_role("button", name="remove Joker").first.click()
    expect(confirm).to_have_count(0)
    tap_keys(phone, "Ben", "Joker")
    phone.get_by_role("button", name="Save round 1").click()
    expect(question).to_be_visible()
    phone.get_by_role("button", name="Yes, Ben kept these cards: save").click()
    expect(phone.get_by_role("heading", name="Enter round 2")).to_be_visible()
    expect_total(phone, "Ben", 150)
    expect_total(phone, "Cy", 32)
