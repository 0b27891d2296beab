"""Take the screenshots README.md shows (the round loop on a 390x844 phone) into
docs/screenshots/.

Run: `.venv/bin/python scripts/screenshots.py` (starts its own server on 127.0.0.1 and
Debian's Chromium).
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHOTS = ROOT / "docs" / "screenshots"


def main():
    from playwright.sync_api import expect, sync_playwright

    from tests.browsers import CHROMIUM, CHROMIUM_ARGS, PHONE, LiveServer

    SHOTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(f"sqlite:///{folder}/shots.db").start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=PHONE)
                names = ["Ann", "Ben", "Cy", "Dana"]
                game = page.request.post(
                    server.url + "/api/games", data={"players": names, "first_dealer": 3}
                ).json()
                page.goto(f"{server.url}/g/{game['code']}")
                page.screenshot(path=SHOTS / "1-round-starts.png")

                save = page.get_by_role("button", name="Save round 1")
                if not save.is_visible():
                    page.get_by_text("Enter round 1").click()
                page.get_by_label("Ann went out").check()
                for name, cards in {
                    "Ben": ["Q Queen", "7 Seven", "Joker"],
                    "Cy": ["3 Three"],
                }.items():
                    keypad = page.get_by_role("group", name=f"Add a card to {name}'s hand")
                    for card in cards:
                        keypad.get_by_role("button", name=card, exact=True).click()
                page.get_by_label("Ann went out").scroll_into_view_if_needed()
                page.screenshot(path=SHOTS / "2-tap-the-cards.png")

                page.get_by_role("button", name="Tap Dana's whole hand").click()
                dialog = page.get_by_role("dialog")
                for card in ["4 Four of hearts", "4 Four of spades", "5 Five of clubs"]:
                    dialog.get_by_role("button", name=card, exact=True).click()
                expect(dialog.get_by_text("Best layout leaves 13 points.")).to_be_visible()
                dialog.evaluate("d => d.scrollTo(0, 0)")
                page.screenshot(path=SHOTS / "3-whole-hand.png")
                dialog.get_by_role("button", name="Use for Dana").click()

                page.get_by_role("button", name="Save round 1").click()
                expect(page.get_by_role("heading", name="Fours are wild")).to_be_visible()
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=SHOTS / "4-next-round.png")

                page.goto(f"{server.url}/g/{game['watch_code']}")
                page.screenshot(path=SHOTS / "5-watching.png")

                many = page.request.post(
                    server.url + "/api/games",
                    data={"players": [f"Player {n}" for n in range(1, 15)]},
                ).json()
                page.goto(f"{server.url}/g/{many['code']}")
                if not page.get_by_role("button", name="Save round 1").is_visible():
                    page.get_by_text("Enter round 1").click()
                page.get_by_label("Player 1 went out").check()
                keypad = page.get_by_role("group", name="Add a card to Player 2's hand")
                keypad.get_by_role("button", name="K King", exact=True).click()
                page.locator("fieldset.seat").first.scroll_into_view_if_needed()
                page.screenshot(path=SHOTS / "6-fourteen-players.png")
                kept_round(browser, server.url, PHONE)
                home_screen(browser, server.url, PHONE)
                in_german(browser, server.url, PHONE)
                browser.close()
        finally:
            server.stop()
    print(f"Screenshots in {SHOTS.relative_to(ROOT)}/:")
    for shot in sorted(SHOTS.glob("*.png")):
        print(f"  {shot.name}  {shot.stat().st_size // 1024} KB")


def kept_round(browser, url, phone):
    """A round saved with the Wi-Fi gone: kept on the phone, on the sheet as not sent yet."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport=phone)
    page = context.new_page()
    game = page.request.post(url + "/api/games", data={"players": ["Ann", "Ben", "Cy"]}).json()
    page.goto(f"{url}/g/{game['code']}")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    page.get_by_label("Ann went out").check()
    for name, cards in {
        "Ben": ["Q Queen", "K King", "5 Five"],
        "Cy": ["4 Four", "9 Nine", "Joker"],
    }.items():
        keypad = page.get_by_role("group", name=f"Add a card to {name}'s hand")
        for card in cards:
            keypad.get_by_role("button", name=card, exact=True).click()
    page.get_by_role("button", name="Save round 1").click()
    expect(page.get_by_role("status").filter(has_text="Round 1 is kept")).to_be_visible()
    page.reload()
    page.locator("#sheet").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, -120)")
    page.screenshot(path=SHOTS / "8-kept-round.png")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=SHOTS / "9-offline-copy.png")
    context.close()


def home_screen(browser, url, phone):
    """The installed app: its icon as a launcher masks it, beside the manifest's name."""
    page = browser.new_page(viewport=phone, color_scheme="dark")
    manifest = page.request.get(url + "/manifest.webmanifest").json()
    maskable = next(icon for icon in manifest["icons"] if icon.get("purpose") == "maskable")
    page.set_content(
        "<body style='margin:0;background:#2b3a55;font:14px system-ui;color:#fff'>"
        "<div style='display:grid;grid-template-columns:repeat(4,1fr);gap:24px;padding:48px 24px'>"
        f"<figure style='margin:0;text-align:center'><img src='{url}/{maskable['src']}' "
        "style='width:72px;height:72px;border-radius:50%' alt=''>"
        f"<figcaption>{manifest['short_name']}</figcaption></figure></div></body>"
    )
    page.wait_for_load_state("networkidle")
    top = {"x": 0, "y": 0, "width": 390, "height": 200}
    page.screenshot(path=SHOTS / "7-home-screen.png", clip=top)
    page.close()


def in_german(browser, url, phone):
    """The same round, on a phone whose browser asks for German: every word follows."""
    context = browser.new_context(viewport=phone, locale="de-DE")
    page = context.new_page()
    names = ["Ann", "Ben", "Cy", "Dana"]
    game = page.request.post(url + "/api/games", data={"players": names, "first_dealer": 3}).json()
    results = [{"went_out": True}, {"points": 15}, {"points": 0}, {"points": 20}]
    page.request.put(f"{url}/api/games/{game['code']}/rounds/1", data={"results": results})
    page.goto(f"{url}/g/{game['code']}")
    page.screenshot(path=SHOTS / "10-in-german.png")
    context.close()


if __name__ == "__main__":
    main()
