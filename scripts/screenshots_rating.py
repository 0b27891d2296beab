"""Take the rating's screenshots (a table's people and a new player's page on a 390x844
phone) into docs/screenshots/: table-rating.png and person-rating.png.

The family is issue 28's: Ann wins 1 of her 7 games of five but finishes second in most;
Granny wins 3 of her 4 games of two. Run: `.venv/bin/python scripts/screenshots_rating.py`
(starts its own server on 127.0.0.1 and Debian's Chromium).
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHOTS = ROOT / "docs" / "screenshots"
POINTS = [0, 13, 20, 27, 34]
"""Round 1's points by place: who went out, then totals three cards can leave."""
GAMES = [
    ["Ann", "Ben", "Cy", "Dana", "Eli"],
    ["Ben", "Ann", "Cy", "Dana", "Eli"],
    ["Cy", "Ann", "Ben", "Dana", "Eli"],
    ["Ben", "Ann", "Dana", "Cy", "Eli"],
    ["Cy", "Ann", "Ben", "Eli", "Dana"],
    ["Ben", "Ann", "Cy", "Dana", "Eli"],
    ["Granny", "Dana"],
    ["Granny", "Eli"],
    ["Dana", "Granny"],
    ["Granny", "Eli"],
    ["Dana", "Ann", "Ben", "Cy", "Eli"],
]
"""Each game's players in the order they finished (a game of one round, ended early)."""


def main():
    from playwright.sync_api import sync_playwright

    from tests.browsers import CHROMIUM, CHROMIUM_ARGS, PHONE, LiveServer

    SHOTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(f"sqlite:///{folder}/shots.db").start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=PHONE)
                base = server.url
                table = page.request.post(base + "/api/tables", data={"name": "The Smiths"})
                code = table.json()["code"]
                for finishing in GAMES:
                    played(page, base, code, finishing)
                page.goto(f"{base}/t/{code}#people")
                page.screenshot(path=SHOTS / "table-rating.png")
                answer = page.request.get(f"{base}/api/tables/{code}").json()
                granny = next(p for p in answer["people"] if p["name"] == "Granny")
                page.goto(f"{base}/t/{code}/people/{granny['id']}")
                page.screenshot(path=SHOTS / "person-rating.png")
                browser.close()
        finally:
            server.stop()


def played(page, base, code, finishing):
    """A game of one round at the table: the first went out, the others in order."""
    seats = sorted(finishing)  # not seated in the order they finished
    game = page.request.post(base + "/api/games", data={"players": seats, "table": code}).json()
    results = [
        {"went_out": True}
        if finishing.index(name) == 0
        else {"points": POINTS[finishing.index(name)]}
        for name in seats
    ]
    saved = page.request.put(f"{base}/api/games/{game['code']}/rounds/1", data={"results": results})
    assert saved.status == 200, saved.text()
    assert page.request.post(f"{base}/api/games/{game['code']}/finish").status == 200


if __name__ == "__main__":
    main()
