"""Page weight of the game page: what a phone's browser receives on its first load of a
7-player game with two rounds saved (the page, its styles and scripts, and anything it draws
at once), as it comes over the wire, beside the same bytes gzip-compressed (how this was
measured before issue 30).

Run: `make bench-page` (starts its own server on 127.0.0.1 and Debian's Chromium).
"""

import gzip
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LIMIT_BYTES = 25_000
"""The first load's budget over the wire: issue 30's 25 KB, read as 25,000 B (the stricter of
25,000 and 25,600)."""

# What Chromium asks for over HTTPS, where a phone meets a public server (over plain HTTP it
# leaves Brotli out): the server's Brotli answers are measured, not its gzip ones.
BROWSER_ACCEPT_ENCODING = "gzip, deflate, br, zstd"

# Two rounds of seven players: one out (0), the others with the points they were left with.
ROUNDS = {1: [0, 13, 20, 15, 31, 15, 25], 2: [12, 0, 25, 18, 24, 40, 22]}


def save_rounds(request, base: str, code: str) -> None:
    """Save ROUNDS into the game through the API."""
    for number, points in ROUNDS.items():
        results = [{"went_out": True} if p == 0 else {"points": p} for p in points]
        answer = request.put(f"{base}/api/games/{code}/rounds/{number}", data={"results": results})
        assert answer.ok, answer.text()


def game_page_weight(page, url):
    """Load url in page, as a first visit; return [(url, raw bytes, gzip bytes, bytes over
    the wire, content encoding)] for every response, and the requests that went anywhere but
    the page's own server."""
    origin = url.split("/g/")[0]
    responses, outside = [], []
    page.set_extra_http_headers({"Accept-Encoding": BROWSER_ACCEPT_ENCODING})
    page.on("request", lambda r: None if r.url.startswith(origin) else outside.append(r.url))
    page.on("response", lambda r: responses.append(r))
    page.goto(url, wait_until="load")
    page.wait_for_timeout(500)  # the live stream connects; it stays open, so never "idle"
    weights = []
    for response in responses:
        if "text/event-stream" in response.headers.get("content-type", ""):
            continue  # the live stream is not page weight: it carries later changes
        body = response.body() if response.status != 304 else b""
        wire = response.request.sizes()["responseBodySize"]
        encoding = response.headers.get("content-encoding", "identity")
        packed = len(gzip.compress(body, compresslevel=6))
        weights.append((response.url, len(body), packed, wire, encoding))
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
                save_rounds(page.request, server.url, code)
                weights, outside = game_page_weight(page, f"{server.url}/g/{code}")
                browser.close()
        finally:
            server.stop()
    print(
        "First load of the game page of a 7-player game with two rounds saved "
        f"(Accept-Encoding: {BROWSER_ACCEPT_ENCODING}):"
    )
    for url, raw, packed, wire, encoding in weights:
        label = url.split("/static/")[-1] if "/static/" in url else url.split("/", 3)[-1]
        label = label.replace(code, "{code}")
        print(
            f"  {label:<32} {raw:>7} B raw {packed:>7} B gzip {wire:>7} B over the wire "
            f"({encoding})"
        )
    gzip_total = sum(packed for _, _, packed, _, _ in weights)
    wire_total = sum(wire for _, _, _, wire, _ in weights)
    print(f"Total, every response gzip-compressed: {gzip_total} B ({gzip_total / 1024:.1f} KB)")
    print(
        f"Total over the wire: {wire_total} B ({wire_total / 1024:.1f} KB) in {len(weights)} "
        f"responses; limit {LIMIT_BYTES} B"
    )
    print(f"Requests outside the server: {len(outside)}")


if __name__ == "__main__":
    main()
