"""Years at the table in Chromium at 390x844: the season chooser, the records, people in
order of rating (or of wins, one tap away), and a person's page with their rating chart, in
light and dark mode."""

from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect
from sqlmodel import Session, select

from app.models import Game
from tests.browsers import PHONE

pytestmark = pytest.mark.browser


def finish_on(server, code, when):
    with Session(server.app.state.engine) as session:
        game = session.exec(select(Game).where(Game.code == code)).one()
        game.finished_at = when
        game.version += 1
        session.add(game)
        session.commit()


def played(page, base, table, players, rounds, when):
    game = page.request.post(
        base + "/api/games", data={"players": players, "table": table["code"]}
    ).json()
    for number, points in enumerate(rounds, start=1):
        results = [{"went_out": True} if p == 0 else {"points": p} for p in points]
        saved = page.request.put(
            f"{base}/api/games/{game['code']}/rounds/{number}", data={"results": results}
        )
        assert saved.status == 200, saved.text()
    if len(rounds) < 11:
        assert page.request.post(f"{base}/api/games/{game['code']}/finish").status == 200
    return game


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_seasons_records_and_a_persons_page(browser, live_server, screenshots, scheme):
    context = browser.new_context(viewport=PHONE, color_scheme=scheme, device_scale_factor=2)
    page = context.new_page()
    page.set_default_timeout(5000)
    base = live_server.url
    table = page.request.post(base + "/api/tables", data={"name": "The Smiths"}).json()
    full = [[0, 20, 30, 13]] * 10 + [[0, 13, 70, 20]]
    eve = played(page, base, table, ["Ann", "Ben", "Cy", "Grandma"], full, None)
    finish_on(live_server, eve["code"], datetime(2025, 12, 31, 21, 0, tzinfo=UTC))
    for day, winner in ((1, 1), (2, 1), (3, 3)):
        rounds = [[0 if seat == winner else 13 + 7 * seat for seat in range(4)]]
        game = played(page, base, table, ["Ann", "Ben", "Cy", "Grandma"], rounds, None)
        finish_on(live_server, game["code"], datetime(2026, 1, day, 20, 0, tzinfo=UTC))

    page.goto(f"{base}/t/{table['code']}")
    seasons = page.get_by_role("navigation", name="Season")
    expect(seasons.get_by_role("link", name="All time")).to_have_attribute("aria-current", "page")
    seasons.get_by_role("link", name="2026").click()
    expect(page).to_have_url(f"{base}/t/{table['code']}?year=2026")
    expect(page.get_by_role("heading", name="Stats · 2026")).to_be_visible()
    expect(page.get_by_text("Rating: everyone starts at 1000")).to_be_visible()
    records = page.locator("#records")
    expect(records.get_by_text("Longest win streak")).to_be_visible()
    expect(records).to_contain_text("Ben 2")
    # People in order of rating, as the API has them for 2026.
    answer = page.request.get(f"{base}/api/tables/{table['code']}?year=2026").json()
    ranked = sorted(answer["people"], key=lambda p: -p["rating"]["ordinal"])
    expect(page.locator(".person-name")).to_have_text([p["name"] for p in ranked])
    new = answer["people"][0]["rating"]
    expect(page.locator("#people")).to_contain_text(
        f"rating {new['figure']}, new ({new['rated_games']} games)"
    )
    page.locator("#people").scroll_into_view_if_needed()
    page.screenshot(path=screenshots / f"table-season-{scheme}.png", full_page=True)
    # Who wins most: one tap, kept in the address with the season.
    order = page.get_by_role("navigation", name="Order of the people")
    order.get_by_role("link", name="Wins").click()
    expect(page).to_have_url(f"{base}/t/{table['code']}?year=2026&order=wins#people")
    by_wins = sorted(answer["people"], key=lambda p: -p["stats"]["wins"])
    expect(page.locator(".person-name").first).to_have_text(by_wins[0]["name"])
    expect(order.get_by_role("link", name="Wins")).to_have_attribute("aria-current", "true")
    order.get_by_role("link", name="Rating").click()
    expect(page.locator(".person-name")).to_have_text([p["name"] for p in ranked])

    page.locator(".person-name", has_text="Ben").click()
    page.get_by_role("link", name="Ben's page: games, records and rating").click()
    expect(page).to_have_url(f"{base}/t/{table['code']}/people/2?year=2026")
    expect(page.get_by_role("heading", name="Ben", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Rating · 2026")).to_be_visible()
    chart = page.get_by_role("img", name="Ben's rating after each rated game")
    expect(chart).to_be_visible()
    assert chart.evaluate("img => img.naturalWidth") > 0  # the SVG drew
    box = chart.bounding_box()
    assert box["width"] <= PHONE["width"]
    expect(page.get_by_role("heading", name="Games (3)")).to_be_visible()
    page.screenshot(path=screenshots / f"person-{scheme}.png", full_page=True)

    page.goto(f"{base}/t/{table['watch_code']}/people/2")
    expect(page.get_by_role("heading", name="Ben", exact=True)).to_be_visible()
    assert table["code"] not in page.content()
    expect(page.get_by_role("button")).to_have_count(0)
    context.close()
