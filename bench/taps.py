"""Taps and scrolling it takes to record a round on a phone: a 4-player and a 14-player round,
played by a script in Chromium at 390x844 the way a thumb would (scrolling only as far as the
next thing to tap needs).

Run: `make bench-taps` (starts its own server on 127.0.0.1 and Debian's Chromium).
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# The round each table records (round 3: five cards each, fives wild): who went out, and the
# cards every other player was left holding, as the keypad names them.
ROUND = 3
TABLES = {
    4: ("Ann", {"Ben": ["K King", "5 Five", "7 Seven"], "Cy": ["Joker", "3 Three"],
                "Dee": ["Q Queen", "J Jack", "9 Nine", "4 Four"]}),
    14: ("P1", {f"P{n}": [["K King", "7 Seven"], ["Q Queen", "3 Three"], ["Joker", "9 Nine"]][n % 3]
                for n in range(2, 15)}),
}  # fmt: skip
MARGIN = 8  # px kept between a target and the screen's edge when scrolling to it


class Thumb:
    """Taps like a person: scroll just enough to see the target, tap it, and keep count."""

    def __init__(self, page):
        self.page = page
        self.taps = {}
        self.scrolled = 0.0  # by the thumb, to reach the next thing to tap
        self.page_scrolled = 0.0  # by the page itself (keeping keys under the finger)

    def tap(self, locator, kind):
        box = locator.bounding_box()
        height = self.page.viewport_size["height"]
        if box["y"] < MARGIN:
            self.scroll(box["y"] - MARGIN)
        elif box["y"] + box["height"] > height - MARGIN:
            self.scroll(box["y"] + box["height"] - height + MARGIN)
        before = self.page.evaluate("scrollY")
        locator.click()
        self.page_scrolled += abs(self.page.evaluate("scrollY") - before)
        self.taps[kind] = self.taps.get(kind, 0) + 1

    def scroll(self, by):
        before = self.page.evaluate("scrollY")
        self.page.evaluate(f"window.scrollBy(0, {by})")
        self.scrolled += abs(self.page.evaluate("scrollY") - before)


def record_round(page, base_url, seat_count):
    """Play one scripted round on the game page; return the thumb that did it."""
    from playwright.sync_api import expect

    went_out, hands = TABLES[seat_count]
    names = [went_out, *hands]
    game = page.request.post(base_url + "/api/games", data={"players": names}).json()
    for number in range(1, ROUND):
        page.request.put(
            f"{base_url}/api/games/{game['code']}/rounds/{number}",
            # 20 can be left in rounds 1 and 2 (5 cannot: round 1 keeps 0 or 3 cards)
            data={"results": [{"went_out": True}] + [{"points": 20}] * (seat_count - 1)},
        )
    page.goto(f"{base_url}/g/{game['code']}")
    thumb = Thumb(page)
    save = page.get_by_role("button", name=f"Save round {ROUND}")
    if not save.is_visible():
        thumb.tap(page.get_by_text(f"Enter round {ROUND}"), "open the entry")
    thumb.tap(page.get_by_label(f"{went_out} went out"), "who went out")
    for name, cards in hands.items():
        keypad = page.get_by_role("group", name=f"Add a card to {name}'s hand")
        if not keypad.is_visible():  # a folded seat: open it with a tap on its line
            thumb.tap(page.get_by_role("button", name=f"{name}: add cards"), "open a seat")
        for card in cards:
            thumb.tap(keypad.get_by_role("button", name=card, exact=True), "cards")
    thumb.tap(save, "save")
    expect(page.get_by_text(f"Round {ROUND + 1} of 11")).to_be_visible()
    return thumb


def main():
    from playwright.sync_api import sync_playwright

    from tests.browsers import CHROMIUM, CHROMIUM_ARGS, PHONE, LiveServer

    results = {}
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(f"sqlite:///{folder}/bench.db").start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for seat_count in TABLES:
                    page = browser.new_page(viewport=PHONE)
                    page.set_default_timeout(10000)
                    results[seat_count] = record_round(page, server.url, seat_count)
                    page.close()
                browser.close()
        finally:
            server.stop()
    print(f"Recording round {ROUND} on a {PHONE['width']}x{PHONE['height']} phone (Chromium):")
    for seat_count, thumb in results.items():
        cards = thumb.taps.get("cards", 0)
        total = sum(thumb.taps.values())
        parts = ", ".join(f"{count} {kind}" for kind, count in thumb.taps.items())
        print(
            f"  {seat_count:>2} players, {cards:>2} leftover cards: {total:>2} taps ({parts}); "
            f"scrolled {thumb.scrolled:.0f} px by hand ({thumb.page_scrolled:.0f} px by the page)"
        )
    print("Target: one tap per leftover card, plus who went out and save.")


if __name__ == "__main__":
    main()
