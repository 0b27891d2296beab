"""German, the language with the longest words, on a 390x844 phone and at 200% zoom (195 px
wide): no page scrolls sideways, no word is cut off, and axe finds nothing serious (issue 29)."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_accessibility import axe_source, problems  # noqa: F401 (fixture)
from tests.browser.test_table_pages_fit import a_table_with_games

pytestmark = pytest.mark.browser

# Every piece of text inside the screen and inside any box that clips it.
CUT_OFF = """() => {
  function* ancestors(node) {
    for (let b = node; b && b !== document.body; b = b.parentElement) yield b;
  }
  const width = document.documentElement.clientWidth;
  const cut = [];
  if (document.documentElement.scrollWidth > width) cut.push("the page scrolls sideways");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const parent = node.parentElement;
    if (!text || !parent || !parent.checkVisibility()) continue;
    if (parent.closest(".visually-hidden, svg, [hidden], template")) continue;
    // Hidden from sight on purpose (kept for screen readers): clipped to a pixel.
    const seen = parent.getBoundingClientRect();
    if (seen.width <= 1 || seen.height <= 1) continue;
    if ([...ancestors(parent)].some(box => getComputedStyle(box).clip !== "auto"
        && getComputedStyle(box).position === "absolute")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    // A wide score sheet scrolls in its own box: what is beyond the screen is a swipe away.
    const scrolls = [...ancestors(parent)].some(box =>
      ["auto", "scroll"].includes(getComputedStyle(box).overflowX));
    for (const r of scrolls ? [] : range.getClientRects()) {
      if (r.width && (r.left < -0.5 || r.right > width + 0.5)) { cut.push(text); break; }
    }
    for (let box = parent; box && box !== document.body; box = box.parentElement) {
      const style = getComputedStyle(box);
      // A name shortened on purpose ("Grand…") says so with an ellipsis; words never are.
      if (style.textOverflow === "ellipsis") break;
      if (style.overflowX !== "visible" && box.scrollWidth > box.clientWidth + 1
          && style.overflowX !== "auto" && style.overflowX !== "scroll") {
        cut.push(text + " (clipped)"); break;
      }
    }
  }
  return cut;
}"""

WIDTHS = {"390": {"width": 390, "height": 844}, "195": {"width": 195, "height": 422}}


@pytest.fixture(params=list(WIDTHS))
def german(request, browser, live_server):
    """A phone whose browser asks for German (no cookie, no ?lang=: the default)."""
    context = browser.new_context(
        viewport=WIDTHS[request.param], device_scale_factor=2, has_touch=True, locale="de-DE"
    )
    page = context.new_page()
    page.set_default_timeout(5000)
    page.label = request.param
    yield page
    context.close()


def test_every_page_fits_in_german(german, live_server, screenshots):
    base = live_server.url
    table, ids = a_table_with_games(german, base)
    game = german.request.post(
        base + "/api/games", data={"players": ["Ann", "Benedict", "Grandma Dee"]}
    ).json()
    german.request.put(
        f"{base}/api/games/{game['code']}/rounds/1",
        data={"results": [{"went_out": True}, {"points": 0}, {"points": 0}]},
    )
    pages = {
        "home": "/",
        "game": f"/g/{game['code']}",
        "round": f"/g/{game['code']}/rounds/2",
        "players": f"/g/{game['code']}/players",
        "table": f"/t/{table['code']}",
        "person": f"/t/{table['code']}/people/{ids['Benedict']}",
        "rules": "/rules",
        "hand": "/hand?cards_dealt=3&cards=9H,JH,JOKER,KD&discard=1",
        "missing": "/g/nothing-here",
    }
    found = {}
    for name, path in pages.items():
        german.goto(base + path)
        expect(german.locator("html")).to_have_attribute("lang", "de")
        german.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        found[name] = german.evaluate(CUT_OFF)
        german.screenshot(path=screenshots / f"de-{name}-{german.label}.png", full_page=True)
    assert found == {name: [] for name in pages}


def test_nothing_serious_for_axe_in_german(german, live_server, axe_source):  # noqa: F811
    base = live_server.url
    table, ids = a_table_with_games(german, base)
    seen = {}
    for path in ("/", f"/t/{table['code']}", f"/t/{table['code']}/people/{ids['Ann']}", "/rules"):
        german.goto(base + path)
        seen[path] = problems(german, axe_source)
    assert seen == {path: [] for path in seen}


def test_the_wild_card_says_wild_in_the_pages_language(phone, live_server):
    # The small word on the wild key and on its chip is the page's, not CSS's English.
    base = live_server.url
    game = phone.request.post(base + "/api/games", data={"players": ["Ann", "Ben"]}).json()
    phone.goto(f"{base}/g/{game['code']}?lang=fr")
    keypad = phone.get_by_role("group", name="Ajouter une carte à la main de Ben")
    wild_key = keypad.locator(".key.wild:not(.joker)")
    after = "(el) => getComputedStyle(el, '::after').content"
    assert wild_key.evaluate(after).startswith('"frime"')
    wild_key.click()
    chip = phone.locator("#main .chips .chip.wild").first
    expect(chip).to_be_visible()
    assert chip.evaluate("(el) => getComputedStyle(el, '::before').content").startswith('"frime')
