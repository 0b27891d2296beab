"""Solitaire, a tie-break round, and players coming and going, on a phone."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_play import expect_total

pytestmark = pytest.mark.browser


def api(phone, live_server, method, path, **body):
    response = phone.request.fetch(live_server.url + path, method=method, data=body or None)
    assert response.ok, response.text()
    return response.json()


def sheet_headers(phone):
    sheet = phone.get_by_role("table", name="Score sheet")
    return [" ".join(h.split()) for h in sheet.get_by_role("columnheader").all_inner_texts()]


RANK_KEYS = {
    "Three": "3", "Four": "4", "Five": "5", "Six": "6", "Seven": "7", "Eight": "8",
    "Nine": "9", "Ten": "10", "Jack": "J", "Queen": "Q", "King": "K",
}  # fmt: skip


def tap(area, *names):
    """Tap cards by name ("Seven of hearts"); each key is named with its rank code first."""
    grid = area.get_by_role("group", name="Add a card to the hand")
    for name in names:
        code = RANK_KEYS.get(name.split()[0])
        key = f"{code} {name}" if code else name
        grid.get_by_role("button", name=key, exact=True).click()


def test_a_solitaire_game(phone, live_server, screenshots):
    phone.goto(live_server.url + "/")
    phone.get_by_label("Solitaire (1 player)").check()
    phone.get_by_label("Player 1", exact=True).fill("Sol")
    phone.get_by_role("button", name="Start the game").click()
    expect(phone.get_by_text("0 of 11 piles saved")).to_be_visible()
    piles = phone.get_by_role("region", name="Piles").get_by_role("listitem")
    expect(piles).to_have_count(11)
    expect(piles.nth(10)).to_contain_text("13 cards · Kings wild")
    phone.screenshot(path=screenshots / "solitaire.png", full_page=True)

    phone.get_by_role("link", name="Lay out pile 2").click()
    expect(phone.get_by_role("heading", name="Pile 2")).to_be_visible()
    tap(phone, "7 Seven of hearts", "7 Seven of spades", "7 Seven of clubs")
    expect(phone.get_by_text("Tap 1 more card: the hand holds 4.")).to_be_visible()
    tap(phone, "K King of diamonds")
    expect(phone.get_by_text("Best layout leaves 13 points.")).to_be_visible()
    phone.screenshot(path=screenshots / "solitaire-pile.png", full_page=True)
    phone.get_by_role("button", name="Save pile 2: 13 points").click()
    expect(piles.nth(1)).to_contain_text("13 points")

    phone.get_by_role("link", name="Lay out pile 3").click()
    phone.get_by_label("I just drew: pick my discard").check()
    hand = ["7 Seven of hearts", "8 Eight of hearts", "5 Five of stars", "Joker", "9 Nine of clubs"]
    tap(phone, *hand)
    expect(phone.get_by_text("Tap 1 more card: the hand holds 6.")).to_be_visible()
    tap(phone, "K King of diamonds")
    advice = phone.get_by_text("Discarding the King of diamonds leaves the fewest points: 9.")
    expect(advice).to_be_visible()
    expect(phone.get_by_role("img", name="Five of stars as Nine of hearts")).to_be_visible()
    phone.screenshot(path=screenshots / "solitaire-drew.png", full_page=True)
    phone.get_by_role("button", name="Pile 3 is closed").click()
    expect(piles.nth(2)).to_contain_text("closed")

    code = phone.url.rsplit("/", 1)[-1]
    for number in [1, *range(4, 12)]:
        api(
            phone,
            live_server,
            "PUT",
            f"/api/games/{code}/rounds/{number}",
            results=[{"went_out": True}],
        )
    phone.reload()
    expect(phone.get_by_role("heading", name="Not this time: 13 points left")).to_be_visible()
    phone.screenshot(path=screenshots / "solitaire-over.png", full_page=True)


def test_a_tiebreak_round(phone, live_server, screenshots):
    game = api(phone, live_server, "POST", "/api/games", players=["Ann", "Ben", "Cy"])
    code = game["code"]
    for number in range(1, 12):
        results = [{"went_out": True}, {"points": 13}, {"points": 0}]  # 13: any round
        api(phone, live_server, "PUT", f"/api/games/{code}/rounds/{number}", results=results)
    phone.goto(f"{live_server.url}/g/{code}")
    expect(phone.get_by_role("heading", name=re.compile("Ann & Cy share the win"))).to_be_visible()
    expect(phone.get_by_role("link", name="Share the win")).to_be_visible()
    phone.screenshot(path=screenshots / "tie.png", full_page=True)
    phone.get_by_role("button", name="Play a tie-break round").click()

    expect(phone.get_by_role("heading", name="Sixes are wild")).to_be_visible()
    expect(phone.get_by_text("Tie-break round", exact=True)).to_be_visible()
    expect(phone.get_by_text("Cy deals · Ann plays first")).to_be_visible()
    expect(phone.get_by_text("Only Ann and Cy play")).to_be_visible()
    phone.get_by_text("Enter the tie-break round").click()
    expect(phone.get_by_label("Ben went out")).to_have_count(0)
    phone.get_by_label("Cy went out").check()
    ann = phone.get_by_role("group", name="Add a card to Ann's hand")
    # Not the wild six: a player who laid cards down keeps no wild.
    ann.get_by_role("button", name="8 Eight", exact=True).click()
    ann.get_by_role("button", name="9 Nine", exact=True).click()
    expect(phone.get_by_label("Ann's points")).to_have_text("17")
    phone.screenshot(path=screenshots / "tiebreak-entry.png", full_page=True)
    phone.get_by_role("button", name="Save the tie-break round").click()

    expect(phone.get_by_role("heading", name=re.compile("Cy wins"))).to_be_visible()
    expect(phone.get_by_text("and the fewest in the tie-break")).to_be_visible()
    expect_total(phone, "Cy", 0)
    expect_total(phone, "Ann", 0)
    expect(phone.get_by_role("button", name="Play a tie-break round")).to_have_count(0)
    phone.screenshot(path=screenshots / "tiebreak-won.png", full_page=True)


def test_a_player_joins_and_another_leaves_mid_game(phone, live_server, screenshots):
    game = api(phone, live_server, "POST", "/api/games", players=["Ann", "Ben", "Cy"])
    code = game["code"]
    # Round 1 keeps 0 or 3 cards (13 at least); Ben ends on 40, Cy on 60: average 33.
    for number, points in [(1, [0, 13, 20]), (2, [0, 27, 40])]:
        results = [{"went_out": True}, {"points": points[1]}, {"points": points[2]}]
        api(phone, live_server, "PUT", f"/api/games/{code}/rounds/{number}", results=results)
    phone.goto(f"{live_server.url}/g/{code}")
    expect(phone.get_by_text("Cy deals · Ann plays first")).to_be_visible()

    phone.get_by_role("link", name="Someone joins or leaves").click()
    phone.get_by_label("Name of the new player").fill("Eve")
    phone.get_by_label("Sits").select_option(label="before Ben")
    phone.get_by_label("the average total (33)").check()
    phone.screenshot(path=screenshots / "join-form.png", full_page=True)
    phone.get_by_role("button", name="Seat the new player").click()

    expect(phone.get_by_text("Cy deals · Ann plays first")).to_be_visible()  # the deal stays
    assert sheet_headers(phone)[:5] == ["Round", "Ann", "Eve joined: 33", "Ben", "Cy"]
    expect_total(phone, "Eve", 33)

    phone.get_by_role("link", name="Someone joins or leaves").click()
    phone.get_by_role("button", name="Ben leaves the game").click()
    expect(phone.get_by_role("table", name="Score sheet")).to_contain_text("left")
    assert sheet_headers(phone)[3] == "Ben left"
    ben = phone.get_by_role("region", name="Totals").get_by_role("listitem").filter(has_text="Ben")
    expect(ben).to_have_text(re.compile(r"^\s*Ben\s+left\s+40\b"))

    phone.get_by_text("Enter round 3").click()
    expect(phone.get_by_label("Ben went out")).to_have_count(0)
    phone.get_by_label("Eve went out").check()
    phone.get_by_role("group", name="Add a card to Ann's hand").get_by_role(
        "button", name="K King", exact=True
    ).click()
    phone.get_by_role("group", name="Add a card to Cy's hand").get_by_role(
        "button", name="4 Four", exact=True
    ).click()
    phone.get_by_role("button", name="Save round 3").click()
    expect(phone.get_by_role("heading", name="Sixes are wild")).to_be_visible()
    # Cy dealt round 3; Ben has left, so the deal moves on to Ann, and Eve plays first.
    expect(phone.get_by_text("Ann deals · Eve plays first")).to_be_visible()
    expect_total(phone, "Ann", 13)
    expect_total(phone, "Eve", 33)
    phone.screenshot(path=screenshots / "join-leave.png", full_page=True)
