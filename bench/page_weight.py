"""Page weight of the game page: every response it loads, gzip-compressed, added up.

Run: `make bench-page` (starts its own server on 127.0.0.1 and Debian's Chromium).
"""

import gzip
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LIMIT_BYTES = 30 * 1024


def game_page_weight(page, url):
    """Load url in page; return [(url, raw bytes, gzip bytes)] for every response, and
    the requests that went anywhere but the page's own server."""
    origin = url.split("/g/")[0]
    responses, outside = [], []
    page.on("request", lambda r: None if r.url.startswith(origin) else outside.append(r.url))
    page.on("response", lambda r: responses.append(r))
    page.goto(url, wait_until="load")
    page.wait_for_timeout(500)  # the live stream connects; it stays open, so never "idle"
    weights = []
    for response in responses:
        if "text/event-stream" in response.headers.get("content-type", ""):
            continue  # the live stream is not page weight: it carries later changes
        body = response.body() if response.status != 304 else b""
        weights.append((response.url, len(body), len(gzip.compress(body, compresslevel=6))))
    return weights, outside


def main():
    from playwright.sync_api import sync_playwright

    from tests.browsers import CHROMIUM, CHROMIUM_ARGS, PHONE, LiveServer

    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(f"sqlite:///{folder}/bench.db").start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=PHONE)
                names = [f"Player {i}" for i in range(1, 8)]
                created = page.request.post(server.url + "/api/games", data={"players": names})
                code = created.json()["code"]
                weights, outside = game_page_weight(page, f"{server.url}/g/{code}")
                browser.close()
        finally:
            server.stop()
    print("Game page of a 7-player game, every response gzip-compressed:")
    for url, raw, packed in weights:
        label = url.split("/static/")[-1] if "/static/" in url else "the game page /g/{code}"
        print(f"  {label:<32} {raw:>7} B raw {packed:>7} B gzip")
    total = sum(packed for _, _, packed in weights)
    print(
        f"Total: {total} B gzip ({total / 1024:.1f} KB) in {len(weights)} responses; "
        f"limit {LIMIT_BYTES // 1024} KB"
    )
    print(f"Requests outside the server: {len(outside)}")


if __name__ == "__main__":
    main()
