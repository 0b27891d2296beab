"""A family's table on a phone: start it, play two short games with the same people (ending
each early), rematch, and read the stats."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SHOTS = "screenshots"


def save_round(page, went_out, typed):
    page.get_by_text(re.compile(r"^Enter round \d+$")).click()
    page.get_by_label(f"{went_out} went out").check()
    for name, points in typed.items():
        seat = page.get_by_role("group", name=f"Add a card to {name}'s hand").locator("..")
        seat.get_by_text("Type a number instead").click()
        page.get_by_label(f"Points for {name}").fill(str(points))
    page.get_by_role("button", name=re.compile(r"^Save round")).click()


def end_game(page):
    page.get_by_text("End the game now").click()
    page.get_by_role("button", name="End the game").click()
    expect(page.get_by_role("heading", name=re.compile("wins|share the win"))).to_be_visible()


def test_a_family_table_from_start_to_stats(phone, live_server):
    shots = SHOTS
    phone.goto(live_server.url + "/")
    phone.get_by_label("Table name").fill("The Smiths")
    phone.get_by_role("button", name="Start a table").click()
    expect(phone.get_by_role("heading", name="The Smiths")).to_be_visible()

    # First game: names typed once.
    for index, name in enumerate(["Ann", "Ben", "Cy"]):
        phone.get_by_label(f"Player {index + 1}", exact=True).fill(name)
    phone.get_by_role("button", name="Start the game").click()
    expect(phone.get_by_role("heading", name="Threes are wild")).to_be_visible()
    # Round 1 keeps 0 or 3 cards: 13 points at least.
    save_round(phone, "Ann", {"Ben": 13, "Cy": 25})
    expect(phone.get_by_role("heading", name="Fours are wild")).to_be_visible()
    save_round(phone, "Ben", {"Ann": 5, "Cy": 30})
    expect(phone.get_by_role("img", name=re.compile("running total"))).to_be_visible()
    end_game(phone)
    expect(phone.get_by_role("heading", name=re.compile("Ann wins"))).to_be_visible()
    phone.screenshot(path=f"{shots}/table-game-finished.png", full_page=True)

    # Rematch: same seats, the deal moves one seat on.
    phone.get_by_role("button", name="Rematch").click()
    expect(phone.get_by_role("heading", name="Threes are wild")).to_be_visible()
    expect(phone.get_by_text("Ben deals")).to_be_visible()
    save_round(phone, "Cy", {"Ann": 15, "Ben": 13})
    end_game(phone)
    expect(phone.get_by_role("heading", name=re.compile("Cy wins"))).to_be_visible()

    # Back at the table, the people are offered as names to tap for the next game.
    phone.get_by_role("link", name="Crownkeeper").click()
    phone.get_by_role("link", name=re.compile("The Smiths")).click()
    expect(phone.get_by_role("button", name="Cy", exact=True)).to_be_visible()
    phone.get_by_role("button", name="Ben", exact=True).click()
    expect(phone.get_by_label("Player 1", exact=True)).to_have_value("Ben")
    phone.get_by_role("button", name="Ann", exact=True).click()
    expect(phone.get_by_label("Player 2", exact=True)).to_have_value("Ann")
    phone.get_by_role("button", name="Start the game").click()
    expect(phone.get_by_text("Ben deals")).to_be_visible()
    save_round(phone, "Ann", {"Ben": 13})
    end_game(phone)

    phone.get_by_role("link", name="Crownkeeper").click()
    phone.get_by_role("link", name=re.compile("The Smiths")).click()
    games = phone.get_by_role("region", name="Games").get_by_role("listitem")
    expect(games).to_have_count(3)
    expect(games.first).to_contain_text("Ann wins")
    stats = phone.get_by_role("region", name="Stats")
    ann = stats.get_by_role("listitem").filter(has_text=re.compile(r"^\s*Ann "))
    expect(ann).to_contain_text("3 games · 2 wins · 67%")
    ann.get_by_text("Ann", exact=True).click()
    expect(ann.get_by_role("definition").filter(has_text="2 (50%)")).to_be_visible()
    expect(phone.get_by_role("table", name="Ann against each")).to_contain_text("Ben")
    phone.screenshot(path=f"{shots}/table-stats.png", full_page=True)
    scroll_width = phone.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= 390
