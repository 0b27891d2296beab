"""A phone at the table: create a game, enter rounds with the card picker, correct, finish."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def start_game(page, base_url, names, first_dealer=None):
    page.goto(base_url + "/")
    while page.get_by_label(re.compile(r"^Player \d+$")).count() < len(names):
        page.get_by_role("button", name="Add a player").click()
    for index, name in enumerate(names):
        page.get_by_label(f"Player {index + 1}", exact=True).fill(name)
    if first_dealer is not None:
        page.get_by_label(f"Player {first_dealer + 1} deals first").check()
    page.get_by_role("button", name="Start the game").click()
    expect(page.get_by_role("heading", name="Threes are wild")).to_be_visible()


def expect_total(page, name, points):
    totals = page.get_by_role("region", name="Totals")
    expect(totals.get_by_role("listitem").filter(has_text=name)).to_have_text(
        re.compile(rf"^\s*{name}\s+{points}\b")
    )


def test_round_one_with_the_picker_then_a_correction(phone, live_server, screenshots):
    start_game(phone, live_server.url, ["Ann", "Ben", "Cy"])
    expect(phone.get_by_text("Ann deals")).to_be_visible()
    phone.get_by_text("Enter round 1").click()
    phone.get_by_label("Ann went out").check()
    ben = phone.get_by_role("group", name="Add a card to Ben's hand")
    ben.get_by_role("button", name="Q Queen", exact=True).click()
    ben.get_by_role("button", name="7 Seven", exact=True).click()
    ben.get_by_role("button", name="Joker", exact=True).click()
    expect(phone.get_by_label("Ben's points")).to_have_text("69")
    phone.get_by_role("button", name="remove Seven").click()
    expect(phone.get_by_label("Ben's points")).to_have_text("62")
    cy = phone.get_by_role("group", name="Add a card to Cy's hand")
    cy.get_by_role("button", name="3 Three", exact=True).click()  # wild: 20
    expect(phone.get_by_label("Cy's points")).to_have_text("20")
    phone.screenshot(path=screenshots / "round-entry.png", full_page=True)
    phone.get_by_role("button", name="Save round 1").click()
    expect(phone.get_by_role("heading", name="Fours are wild")).to_be_visible()
    expect(phone.get_by_text("Ben deals")).to_be_visible()
    expect_total(phone, "Ann", 0)
    expect_total(phone, "Ben", 62)
    expect_total(phone, "Cy", 20)
    expect(phone).to_have_title(re.compile("Round 2: Fours wild"))
    phone.screenshot(path=screenshots / "game-round-2.png", full_page=True)

    phone.get_by_role("link", name="Correct round 1").click()
    phone.get_by_role("button", name="remove Joker").click()
    phone.get_by_role("button", name="Save round 1").click()
    expect(phone.get_by_role("heading", name="Fours are wild")).to_be_visible()
    expect_total(phone, "Ben", 12)
    expect(phone.get_by_role("table", name="Score sheet")).to_contain_text("12")


def test_limits_keep_what_was_tapped(phone, live_server):
    start_game(phone, live_server.url, ["Ann", "Ben"])
    phone.get_by_text("Enter round 1").click()
    ben = phone.get_by_role("group", name="Add a card to Ben's hand")
    # Not three Kings: they make a book, which the page would ask about first.
    for key in ("K King", "Q Queen", "J Jack", "K King"):
        ben.get_by_role("button", name=key, exact=True).click()
    expect(
        phone.get_by_text("only 3 were dealt", exact=False).or_(
            phone.get_by_text("cannot have more than 3 cards")
        )
    ).to_be_visible()
    expect(phone.get_by_label("Ben's points")).to_have_text("36")
    phone.get_by_role("button", name="Save round 1").click()  # nobody went out yet
    expect(phone.get_by_text("Choose the player who went out first.")).to_be_visible()
    expect(phone.get_by_role("group", name="Ben's cards").get_by_role("button")).to_have_count(3)
    phone.get_by_label("Ann went out").check()
    phone.get_by_role("button", name="Save round 1").click()
    expect_total(phone, "Ben", 36)


def test_a_whole_game_to_the_winner(phone, live_server, screenshots):
    start_game(phone, live_server.url, ["Ann", "Ben", "Cy", "Dee"], first_dealer=1)
    for number in range(1, 12):
        phone.get_by_text(f"Enter round {number}").click()
        winner = ["Ann", "Ben", "Cy", "Dee"][number % 4 if number % 4 != 1 else 0]
        phone.get_by_label(f"{winner} went out").check()
        for name in ["Ann", "Ben", "Cy", "Dee"]:
            if name != winner:
                keypad = phone.get_by_role("group", name=f"Add a card to {name}'s hand")
                # Kings are wild in round 11, and no wild is kept after laying down.
                key = "Q Queen" if number == 11 else "K King"
                keypad.get_by_role("button", name=key, exact=True).click()
        phone.get_by_role("button", name=f"Save round {number}").click()
        if number < 11:
            expect(phone.get_by_text(f"Round {number + 1} of 11")).to_be_visible()
    expect(phone.get_by_role("heading", name=re.compile("wins|share the win"))).to_be_visible()
    phone.screenshot(path=screenshots / "finished.png", full_page=True)
    phone.reload()
    expect(phone.get_by_role("heading", name=re.compile("wins|share the win"))).to_be_visible()


def test_no_sideways_scrolling_and_big_enough_targets_with_seven_players(phone, live_server):
    names = ["Annabelle", "Benedict", "Cy", "Dee", "Eli", "Fay", "Gus"]
    game = phone.request.post(live_server.url + "/api/games", data={"players": names}).json()
    for path in ["/", f"/g/{game['code']}", f"/g/{game['watch_code']}", "/hand", "/rules"]:
        phone.goto(live_server.url + path)
        if path == f"/g/{game['code']}":
            phone.get_by_text("Enter round 1").click()
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} scrolls sideways: {width}px"
        inner = phone.evaluate(
            "[...document.querySelectorAll('.sheet-wrap')].map(e => e.scrollWidth - e.clientWidth)"
        )
        assert all(extra <= 0 for extra in inner), f"{path}: the sheet scrolls sideways"
        small = phone.evaluate(
            """[...document.querySelectorAll('main button, main summary, main input[type=radio]')]
               .filter(e => e.offsetParent !== null)
               .map(e => e.closest('label') || e)
               .filter(e => { const r = e.getBoundingClientRect();
                              return r.height < 44 || r.width < 44; })
               .map(e => e.outerHTML.slice(0, 80))"""
        )
        assert small == [], f"{path} has tap targets under 44 px: {small}"
