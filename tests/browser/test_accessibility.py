"""axe-core, the accessibility engine, finds nothing serious on any page, light or dark, with
every fold-out open. axe is injected by the test (from `make axe`), never served to players."""

import os
from pathlib import Path

import pytest

from tests.browser.test_at_the_table import open_entry
from tests.browsers import PHONE
from tests.conftest import went_out_first

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / ".tools/node_modules/axe-core/axe.min.js"
BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but axe-core is missing at {AXE}: run `make axe`.")
        pytest.skip(f"axe-core not found at {AXE}: run `make axe` (needs npm)")
    return AXE.read_text(encoding="utf-8")


def problems(page, axe_source):
    """Serious and critical violations on the page as it is now, with every fold-out open."""
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.evaluate(axe_source)
    found = page.evaluate(
        "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => "
        "({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.html)})))"
    )
    return [v for v in found if v["impact"] in BLOCKING]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_problem_on_any_page(browser, live_server, axe_source, scheme):
    context = browser.new_context(viewport=PHONE, color_scheme=scheme, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(5000)
    base = live_server.url
    names = ["Ann", "Ben", "Cy", "Dee"]
    game = page.request.post(base + "/api/games", data={"players": names}).json()
    page.request.put(
        f"{base}/api/games/{game['code']}/rounds/1",
        # a round 1 hand keeps 0 or 3 cards: 13 (4 + 4 + 5) at least
        data={"results": went_out_first(4, points=[13] * 4)},
    )
    many = page.request.post(
        base + "/api/games", data={"players": [f"Player{n}" for n in range(1, 15)]}
    ).json()
    replaced = page.request.post(base + "/api/games", data={"players": names}).json()
    page.request.post(f"{base}/api/games/{replaced['code']}/scorekeeper-code")

    seen = {}
    for path in [
        f"/g/{game['code']}",  # first, so the start page lists a game
        "/",
        f"/g/{game['watch_code']}",
        f"/g/{game['code']}/rounds/1",
        f"/g/{many['code']}",
        "/hand?round=3&cards=5R,9H,JOKER,KD,7C&discard=1",
        "/rules",
        "/nowhere",
        f"/g/{replaced['code']}",
    ]:
        page.goto(base + path)
        if path == f"/g/{game['code']}":
            # The round entry with cards tapped (a wild one among them) and a refused tap.
            open_entry(page, 2)
            ben = page.get_by_role("group", name="Add a card to Ben's hand")
            for name in ["Q Queen", "4 Four", "Joker", "3 Three", "5 Five"]:
                ben.get_by_role("button", name=name, exact=True).click()
        seen[path] = problems(page, axe_source)

    page.goto(f"{base}/g/{game['code']}")
    open_entry(page, 2)
    page.get_by_role("button", name="Tap Cy's whole hand").click()
    # Round 2 deals four cards: the checker lays out a hand of exactly four.
    for name in ["Q Queen of hearts", "Q Queen of spades", "Q Queen of clubs", "7 Seven of clubs"]:
        page.get_by_role("dialog").get_by_role("button", name=name).click()
    page.get_by_role("dialog").get_by_text("Best layout leaves").wait_for()
    seen["whole-hand dialog"] = problems(page, axe_source)
    context.close()
    failing = {where: found for where, found in seen.items() if found}
    assert not failing, "\n".join(f"{w}: {f}" for w, f in failing.items())
