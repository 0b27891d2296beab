"""The table's pages on a 390x844 phone and at 200% zoom (195 px wide), in light and dark
(issue 28): head to head is never cut off, the new-game choice keeps each radio button
beside its words, and the home-screen colours are the light page's."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_years_at_the_table import played

pytestmark = pytest.mark.browser

# Every cell of the table inside the screen, and nothing wider than the screen.
FITS = """(table) => {
  const width = document.documentElement.clientWidth;
  const cut = [...table.querySelectorAll("th, td")].filter(cell => {
    const r = cell.getBoundingClientRect();
    return r.width && (r.left < -0.5 || r.right > width + 0.5);
  }).map(cell => cell.textContent.trim());
  if (document.documentElement.scrollWidth > width) cut.push("the page scrolls sideways");
  return cut;
}"""


def a_table_with_games(page, base):
    table = page.request.post(base + "/api/tables", data={"name": "The Smiths"}).json()
    people = ["Ann", "Benedict", "Cy", "Grandma Dee"]
    played(page, base, table, people, [[0, 20, 30, 13], [13, 0, 20, 30]], None)
    played(page, base, table, people, [[20, 13, 0, 30]], None)
    answer = page.request.get(f"{base}/api/tables/{table['code']}").json()
    ids = {person["name"]: person["id"] for person in answer["people"]}
    return table, ids


def test_head_to_head_fits_on_the_table_and_person_pages(screen, live_server, screenshots):
    base = live_server.url
    table, ids = a_table_with_games(screen, base)
    screen.goto(f"{base}/t/{table['code']}/people/{ids['Benedict']}")
    versus = screen.get_by_role("table", name="Benedict against each other person")
    expect(versus.get_by_role("link", name="Grandma Dee")).to_be_visible()
    versus.scroll_into_view_if_needed()
    assert versus.element_handle().evaluate(FITS) == []
    screen.screenshot(path=screenshots / f"person-head-to-head-{screen.label}.png")

    screen.goto(f"{base}/t/{table['code']}")
    screen.locator("summary").filter(has_text="Benedict").click()
    versus = screen.get_by_role("table", name="Benedict against each")
    expect(versus).to_be_visible()
    versus.scroll_into_view_if_needed()
    assert versus.element_handle().evaluate(FITS) == []
    screen.screenshot(path=screenshots / f"table-head-to-head-{screen.label}.png")


# A label's words start to the right of its radio button, which sits level with them (not
# alone on a line above them).
BESIDE = """(label) => {
  const radio = label.querySelector("input").getBoundingClientRect();
  const words = document.createRange();
  words.selectNodeContents(label.lastChild);
  const lines = [...words.getClientRects()].filter(r => r.width > 0);
  const middle = radio.top + radio.height / 2;
  return lines[0].left >= radio.right && lines[0].top <= middle &&
    middle <= lines[lines.length - 1].bottom;
}"""


def test_what_to_play_keeps_each_radio_beside_its_words(screen, live_server, screenshots):
    base = live_server.url
    table = screen.request.post(base + "/api/tables", data={"name": "The Smiths"}).json()
    screen.goto(f"{base}/t/{table['code']}")
    choice = screen.get_by_role("group", name="What to play")
    for label in ("A game (2 to 14 players)", "Solitaire (1 player)"):
        radio = choice.get_by_label(label)
        expect(radio).to_be_visible()
        assert radio.locator("..").element_handle().evaluate(BESIDE), label
    choice.scroll_into_view_if_needed()
    screen.screenshot(path=screenshots / f"table-what-to-play-{screen.label}.png")


def rgb(hex_colour):
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_the_home_screen_colours_are_the_pages(screen, live_server):
    """The manifest's colours are the light page's; a dark phone gets its own from the
    page's theme-color for dark mode."""
    base = live_server.url
    manifest = screen.request.get(base + "/manifest.webmanifest").json()
    screen.goto(base + "/")
    page_colour = screen.evaluate("getComputedStyle(document.body).backgroundColor")
    if screen.label.endswith("light"):
        assert rgb(manifest["theme_color"]) == rgb(manifest["background_color"]) == page_colour
    else:
        dark = screen.locator('meta[name=theme-color][media="(prefers-color-scheme: dark)"]')
        assert rgb(dark.get_attribute("content")) == page_colour
        assert rgb(manifest["theme_color"]) != page_colour  # the light page's, not this one
