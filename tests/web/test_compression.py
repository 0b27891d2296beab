"""What travels compressed: static files as their Brotli or gzip copies (only while a copy
holds its file's bytes), pages in Brotli or gzip as the browser takes them, live streams
never; every answer that could differ says it varies by Accept-Encoding."""

import gzip
import os
import threading

import anyio
import brotli
import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import Response, StreamingResponse
from starlette.routing import Mount, Route

from app.compression import (
    CompressionMiddleware,
    PrecompressedStatic,
    accepted,
    encodings_taken,
)
from app.config import STATIC_DIR
from tests.installed import build_backend

pytestmark = pytest.mark.one_database

BROWSER = "gzip, deflate, br, zstd"
SCRIPT = ("function tally(seat) { return seat.points + 1; }\n" * 80).encode()


def get(client, path, accept, **headers):
    """The answer and its body as sent (the client would unpack Brotli and gzip itself)."""
    with client.stream("GET", path, headers={"Accept-Encoding": accept, **headers}) as response:
        return response, b"".join(response.iter_raw())


def unpacked(response, raw):
    """The body as the browser reads it."""
    encoding = response.headers.get("content-encoding")
    return {"br": brotli.decompress, "gzip": gzip.decompress, None: bytes}[encoding](raw)


@pytest.fixture
def static_folder(tmp_path):
    folder = tmp_path / "static"
    (folder / "vendor").mkdir(parents=True)
    (folder / "tally.js").write_bytes(SCRIPT)
    (folder / "vendor" / "lib.js").write_bytes(SCRIPT * 2)
    (folder / "tiny.svg").write_bytes(b"<svg/>")
    build_backend().write_copies(folder)
    return folder


@pytest.fixture
def static_client(static_folder):
    app = Starlette(
        routes=[Mount("/static", PrecompressedStatic(directory=static_folder))],
        middleware=[Middleware(CompressionMiddleware)],
    )
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize(
    ("accept", "encoding"),
    [(BROWSER, "br"), ("gzip, deflate", "gzip"), ("br;q=0, gzip", "gzip"), ("identity", None)],
)
def test_a_static_file_comes_as_the_copy_the_browser_takes(
    static_client, static_folder, accept, encoding
):
    for name in ["tally.js", "vendor/lib.js"]:
        response, raw = get(static_client, f"/static/{name}", accept)
        assert response.status_code == 200
        assert response.headers.get("content-encoding") == encoding
        assert response.headers["vary"] == "Accept-Encoding"
        assert response.headers["content-type"].startswith("text/javascript")
        source = (static_folder / name).read_bytes()
        assert unpacked(response, raw) == source
        if encoding:
            copy = static_folder / (name + {"br": ".br", "gzip": ".gz"}[encoding])
            assert raw == copy.read_bytes()  # the copy as written, not packed again
            assert int(response.headers["content-length"]) < len(source) / 5


def test_each_copy_has_its_own_etag_and_answers_304_to_it(static_client):
    tags = {
        accept: get(static_client, "/static/tally.js", accept)[0].headers["etag"]
        for accept in ("br", "gzip", "identity")
    }
    assert len(set(tags.values())) == 3
    again, _ = get(static_client, "/static/tally.js", "br", **{"If-None-Match": tags["br"]})
    assert again.status_code == 304 and again.headers["vary"] == "Accept-Encoding"
    other, _ = get(static_client, "/static/tally.js", "gzip", **{"If-None-Match": tags["br"]})
    assert other.status_code == 200


def test_a_stale_copy_is_never_served(static_client, static_folder):
    script = static_folder / "tally.js"
    assert get(static_client, "/static/tally.js", "br")[0].headers["content-encoding"] == "br"
    changed = SCRIPT.replace(b"+ 1", b"+ 2")
    script.write_bytes(changed)
    os.utime(script, ns=(script.stat().st_atime_ns, script.stat().st_mtime_ns + 10**9))
    for encoding, suffix in [("br", ".br"), ("gzip", ".gz")]:
        response, raw = get(static_client, "/static/tally.js", encoding)
        assert response.headers["content-encoding"] == encoding  # packed as it is sent
        assert unpacked(response, raw) == changed
        assert raw != (static_folder / ("tally.js" + suffix)).read_bytes()


def test_a_copy_missing_or_broken_is_compressed_on_the_way(static_client, static_folder):
    (static_folder / "tally.js.br").unlink()
    (static_folder / "vendor" / "lib.js.br").write_bytes(b"not brotli at all")
    for name in ["tally.js", "vendor/lib.js"]:
        response, raw = get(static_client, f"/static/{name}", "br")
        assert response.status_code == 200 and response.headers["content-encoding"] == "br"
        assert unpacked(response, raw) == (static_folder / name).read_bytes()


def test_a_copy_is_never_sent_by_its_own_name(static_client):
    for name in ("tally.js.br", "tally.js.gz", "vendor/lib.js.br"):
        assert get(static_client, f"/static/{name}", BROWSER)[0].status_code == 404


def test_small_files_and_byte_ranges_go_as_they_are(static_client):
    tiny, raw = get(static_client, "/static/tiny.svg", BROWSER)
    assert "content-encoding" not in tiny.headers and raw == b"<svg/>"
    part, raw = get(static_client, "/static/tally.js", BROWSER, Range="bytes=0-7")
    assert part.status_code == 206 and "content-encoding" not in part.headers
    assert raw == SCRIPT[:8]


def test_the_apps_own_static_files_and_pages_come_in_brotli(client):
    response, raw = get(client, "/static/app.css", BROWSER)
    assert response.headers["content-encoding"] == "br"
    assert unpacked(response, raw) == (STATIC_DIR / "app.css").read_bytes()
    page, raw = get(client, "/", BROWSER)
    assert page.headers["content-encoding"] == "br"
    assert "Accept-Encoding" in page.headers["vary"]
    assert b"<!doctype html>" in unpacked(page, raw)
    assert "content-encoding" not in get(client, "/", "identity")[0].headers


def test_a_live_stream_is_neither_compressed_nor_held_back():
    first_sent, release = threading.Event(), threading.Event()

    async def events():
        yield b"event: hello\ndata: " + b"x" * 2048 + b"\n\n"
        first_sent.set()
        while not release.is_set():  # the stream stays open until the test has read
            await anyio.sleep(0.01)
        yield b"data: bye\n\n"

    async def stream(request):
        return StreamingResponse(events(), media_type="text/event-stream")

    app = Starlette(
        routes=[Route("/events", stream)], middleware=[Middleware(CompressionMiddleware)]
    )
    with (
        TestClient(app) as client,
        client.stream("GET", "/events", headers={"Accept-Encoding": BROWSER}) as response,
    ):
        assert "content-encoding" not in response.headers
        first = next(response.iter_raw())
        assert first.startswith(b"event: hello")  # came before the stream ended
        release.set()


def test_accept_encoding_is_read_with_its_weights():
    assert accepted("gzip, deflate, br, zstd") == {"gzip", "deflate", "br", "zstd"}
    assert accepted("br;q=0, gzip;q=0.5") == {"gzip"}
    assert accepted("BR ; q=1.0") == {"br"}
    assert accepted("br;q=0.000, gzip;q=1.2.3") == set()
    assert accepted("") == set()


@pytest.mark.parametrize(
    ("accept", "encoding"), [("*", "br"), ("br;q=0, *", "gzip"), ("br;q=0, gzip;q=0, *", None)]
)
def test_any_coding_means_any_not_refused_by_name(accept, encoding):
    assert (
        next(
            iter(
                encodings_taken(
                    {"type": "http", "headers": [(b"accept-encoding", accept.encode())]}
                )
            ),
            None,
        )
        == encoding
    )


def test_a_big_answer_is_compressed_whole():
    body = b"".join(f"row {n}, {n * n}\n".encode() for n in range(40_000))
    assert len(body) > 256 * 1024

    async def export(request):
        return Response(body, media_type="text/csv")

    app = Starlette(
        routes=[Route("/export", export)], middleware=[Middleware(CompressionMiddleware)]
    )
    with TestClient(app) as big:
        response, raw = get(big, "/export", "br")
    assert response.headers["content-encoding"] == "br"
    assert unpacked(response, raw) == body and len(raw) < len(body) / 3
