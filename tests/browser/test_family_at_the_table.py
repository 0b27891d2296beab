"""What a family found, on a phone at 390x844: the crown after a tie-break, solitaire from
the new-game form, a player who left seated again, and the table's games out as a file and
back in from the table page."""

import json

import pytest
from playwright.sync_api import expect

from tests.browser.test_table_changes import api

pytestmark = pytest.mark.browser


def crowned(phone):
    totals = phone.get_by_role("region", name="Totals").get_by_role("listitem")
    return [
        item.inner_text().split()[0]
        for item in totals.all()
        if item.get_by_role("img", name="leading").count()
    ]


def test_after_the_tie_break_only_its_winner_wears_the_crown(phone, live_server, screenshots):
    game = api(phone, live_server, "POST", "/api/games", players=["Ann", "Ben", "Cy"])
    code = game["code"]
    for number in range(1, 12):
        results = [{"went_out": True}, {"points": 13}, {"points": 0}]  # 13: any round
        api(phone, live_server, "PUT", f"/api/games/{code}/rounds/{number}", results=results)
    phone.goto(f"{live_server.url}/g/{code}")
    assert crowned(phone) == ["Ann", "Cy"]
    phone.get_by_role("button", name="Play a tie-break round").click()
    phone.get_by_text("Enter the tie-break round").click()
    phone.get_by_label("Cy went out").check()
    ann = phone.get_by_role("group", name="Add a card to Ann's hand")
    ann.get_by_role("button", name="9 Nine", exact=True).click()
    phone.get_by_role("button", name="Save the tie-break round").click()
    note = phone.locator("#saved-note")
    expect(note).to_have_text("Tie-break saved")
    expect(phone.get_by_role("heading", name="Cy wins", exact=False)).to_be_visible()
    assert crowned(phone) == ["Cy"]
    # The note sits low, off the heading that says who won.
    heading = phone.get_by_role("heading", name="Cy wins", exact=False).bounding_box()
    # Its box as laid out (the note hides after a few seconds but keeps its room).
    box = note.evaluate(
        "e => { const r = e.getBoundingClientRect(); return {y: r.y, height: r.height}; }"
    )
    assert box["y"] > heading["y"] + heading["height"] or box["y"] + box["height"] < heading["y"]
    phone.screenshot(path=screenshots / "tiebreak-crown.png")


def test_solitaire_from_the_new_game_form_shows_one_name(phone, live_server, screenshots):
    phone.goto(live_server.url + "/")
    expect(phone.get_by_label("Player 2", exact=True)).to_be_visible()
    phone.get_by_label("Solitaire (1 player)").check()
    expect(phone.get_by_label("Player 2", exact=True)).to_be_hidden()
    expect(phone.get_by_role("button", name="Add a player")).to_be_hidden()
    expect(phone.get_by_label("Player 1 deals first")).to_be_hidden()
    phone.screenshot(path=screenshots / "new-solitaire.png")
    phone.get_by_label("Player 1", exact=True).fill("Sol")
    phone.get_by_role("button", name="Start the game").click()
    expect(phone.get_by_text("0 of 11 piles saved")).to_be_visible()


def test_a_player_who_left_by_mistake_comes_back(phone, live_server):
    game = api(phone, live_server, "POST", "/api/games", players=["Ann", "Ben", "Cy"])
    phone.goto(f"{live_server.url}/g/{game['code']}/players")
    phone.get_by_role("button", name="Ben leaves the game").click()
    phone.get_by_role("link", name="Someone joins or leaves").click()
    phone.get_by_role("button", name="Seat Ben again (undo leaving)").click()
    expect(phone.get_by_role("button", name="Ben leaves the game")).to_be_visible()
    state = api(phone, live_server, "GET", f"/api/games/{game['code']}")
    assert state["seats"][1]["left_round"] is None


def test_the_tables_games_go_out_as_a_file_and_back_in(phone, live_server, tmp_path):
    home = api(phone, live_server, "POST", "/api/tables", name="The Smiths")
    game = api(phone, live_server, "POST", "/api/games", players=["Ann", "Ben"], table=home["code"])
    results = [{"went_out": True}, {"points": 17}]
    api(phone, live_server, "PUT", f"/api/games/{game['code']}/rounds/1", results=results)
    phone.goto(f"{live_server.url}/t/{home['code']}")
    with phone.expect_download() as waiting:
        phone.get_by_role("link", name="Export every game (a file to keep)").click()
    download = waiting.value
    assert download.suggested_filename.startswith("crownkeeper-the-smiths-")
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert len(json.loads(saved.read_text())["games"]) == 1

    cousins = api(phone, live_server, "POST", "/api/tables", name="Cousins")
    phone.goto(f"{live_server.url}/t/{cousins['code']}")
    phone.get_by_label("Import games from an export file").set_input_files(saved)
    phone.get_by_role("button", name="Import games", exact=True).click()
    expect(phone.get_by_text("Added 1 game; 0 were already here.")).to_be_visible()
    expect(phone.get_by_role("region", name="Games").get_by_role("listitem")).to_have_count(1)


def test_laid_everything_down_moves_on_with_eight_players(phone, live_server):
    players = [f"P{n}" for n in range(8)]
    game = api(phone, live_server, "POST", "/api/games", players=players)
    phone.goto(f"{live_server.url}/g/{game['code']}")
    phone.get_by_text("Enter round 1").click()
    keys = phone.get_by_role("group", name="Add a card to P2's hand")
    expect(keys).to_be_hidden()  # P0 is being entered, P1 is next: P2 waits folded
    phone.get_by_label("P0 laid everything down: 0").check()
    # P0 is done: on to P1's keys, with P2's next.
    expect(keys).to_be_visible()
    expect(phone.get_by_role("group", name="Add a card to P1's hand")).to_be_visible()
