"""The game page's first load on a phone: the running-totals chart comes only when it is
scrolled into view, into a box kept at its shape (nothing on the page moves), and without
JavaScript it is a link away."""

import pytest
from playwright.sync_api import expect

from bench.page_weight import save_rounds
from tests.browsers import PHONE

pytestmark = pytest.mark.browser

# Every layout shift the page makes that no tap or key caused, added up (what Lighthouse
# calls Cumulative Layout Shift, over the whole visit).
WATCH_SHIFTS = """
window.layoutShift = 0;
new PerformanceObserver(function (list) {
  list.getEntries().forEach(function (entry) {
    if (!entry.hadRecentInput) window.layoutShift += entry.value;
  });
}).observe({ type: "layout-shift", buffered: true });
"""
CHART_NAME = "Chart of each player's running total, round by round"


@pytest.fixture
def game_code(phone, live_server):
    names = [f"Player {i}" for i in range(1, 8)]
    code = phone.request.post(live_server.url + "/api/games", data={"players": names}).json()[
        "code"
    ]
    save_rounds(phone.request, live_server.url, code)
    return code


def test_the_chart_comes_when_scrolled_to_and_nothing_moves(phone, live_server, game_code):
    asked = []
    phone.on("request", lambda request: asked.append(request.url))
    phone.add_init_script(WATCH_SHIFTS)
    phone.goto(f"{live_server.url}/g/{game_code}")
    phone.wait_for_timeout(800)
    assert not [url for url in asked if "/chart" in url], "the chart came before it was in view"

    box = phone.get_by_role("img", name=CHART_NAME)
    below = phone.locator("section.more")
    before = box.bounding_box(), below.evaluate("e => e.getBoundingClientRect().top + scrollY")
    assert before[0]["width"] == pytest.approx(PHONE["width"] - 24, abs=2)
    box.scroll_into_view_if_needed()
    chart = phone.locator("img.totals-chart")
    chart.wait_for()
    expect(chart).to_have_js_property("complete", True)  # (not a string to eval: the CSP refuses)
    assert chart.evaluate("img => img.naturalWidth") > 0
    assert chart.get_attribute("alt") == CHART_NAME
    after = chart.bounding_box(), below.evaluate("e => e.getBoundingClientRect().top + scrollY")
    assert after[0]["height"] == pytest.approx(before[0]["height"], abs=1)
    assert after[1] == pytest.approx(before[1], abs=1)
    assert phone.evaluate("window.layoutShift") < 0.05


def test_without_javascript_the_chart_is_a_link(browser, live_server, phone, game_code):
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/g/{game_code}")
    link = page.locator("a.totals-chart-link")
    assert link.get_by_role("img", name=CHART_NAME).count() == 1
    answer = page.request.get(live_server.url + link.get_attribute("href"))
    assert answer.ok and answer.headers["content-type"].startswith("image/svg+xml")
    assert "<polyline" in answer.text()
    context.close()
