"""Answers compressed the way the browser takes them: Brotli where it says so, else gzip, else
as they are. Static files come from the copies the build wrote beside them (.br, .gz; see
backend/precompress.py), each checked against its file first; the rest, and a file whose
copy is missing or stale, are compressed on the way out. Live streams never are."""

from __future__ import annotations

import gzip
import os
import re
from functools import partial
from mimetypes import guess_type
from pathlib import Path
from types import MappingProxyType

import anyio.to_thread
import brotli
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import (
    DEFAULT_EXCLUDED_CONTENT_TYPES,
    GZipResponder,
    IdentityResponder,
)
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .caches import Recent

PREFERRED = ("br", "gzip")
"""The encodings the server sends, best first."""

MINIMUM_SIZE = 512
"""Smaller answers go as they are: compressing them saves next to nothing."""

PAGE_BROTLI_QUALITY = 5
"""Brotli's level for answers compressed as they leave: about a millisecond for a game page,
and still smaller than gzip at its best. The static copies are written at 11."""

THREAD_MINIMUM_SIZE = 128 * 1024
"""Bodies this big are compressed on a worker thread (as Starlette's gzip does)."""

COPY_SUFFIXES = MappingProxyType({"br": ".br", "gzip": ".gz"})
_DECOMPRESS = MappingProxyType({"br": brotli.decompress, "gzip": gzip.decompress})
_Q_VALUE = re.compile(r"q=([0-9.]+)")


def accepted(header: str) -> set[str]:
    """The codings an Accept-Encoding header takes (any with q=0 refused), lower case."""
    return {coding for coding, taken in _said(header).items() if taken}


def _said(header: str) -> dict[str, bool]:
    said = {}
    for part in header.split(","):
        coding, _, parameters = part.partition(";")
        weight = _Q_VALUE.search(parameters.replace(" ", ""))
        try:
            refused = weight is not None and float(weight[1]) == 0
        except ValueError:
            refused = True
        if coding.strip():
            said[coding.strip().lower()] = not refused
    return said


def encodings_taken(scope: Scope) -> list[str]:
    """Those of PREFERRED the request's Accept-Encoding takes, best first ("*" takes any it
    does not refuse by name)."""
    said = _said(Headers(scope=scope).get("accept-encoding", ""))
    return [coding for coding in PREFERRED if said.get(coding, said.get("*", False))]


class BrotliResponder(IdentityResponder):
    """Starlette's gzip responder's rules (size, types, streaming), in Brotli."""

    content_encoding = "br"

    def __init__(self, app: ASGIApp, minimum_size: int, **options: object) -> None:
        super().__init__(app, minimum_size, **options)  # type: ignore[arg-type]
        self.compressor = brotli.Compressor(mode=brotli.MODE_TEXT, quality=PAGE_BROTLI_QUALITY)

    async def apply_compression(self, body: bytes, *, more_body: bool) -> bytes:
        if len(body) >= THREAD_MINIMUM_SIZE:  # an export: not on the event loop
            return await anyio.to_thread.run_sync(self._compress, body, more_body)
        return self._compress(body, more_body)

    def _compress(self, body: bytes, more_body: bool) -> bytes:
        packed = self.compressor.process(body)
        return packed + (self.compressor.flush() if more_body else self.compressor.finish())


class CompressionMiddleware:
    """Brotli or gzip for whatever the browser takes; answers already encoded (the static
    copies), small ones and streams (text/event-stream, never held back) pass untouched."""

    def __init__(self, app: ASGIApp, *, minimum_size: int = MINIMUM_SIZE) -> None:
        self.app = app
        self.minimum_size = minimum_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        encoding = next(iter(encodings_taken(scope)), None)
        options = {"exclude_content_types": DEFAULT_EXCLUDED_CONTENT_TYPES}
        responder: IdentityResponder
        if encoding == "br":
            responder = BrotliResponder(self.app, self.minimum_size, **options)
        elif encoding == "gzip":
            responder = GZipResponder(self.app, self.minimum_size, **options)
        else:
            responder = IdentityResponder(self.app, self.minimum_size, **options)

        async def one_vary(message: Message) -> None:
            if message["type"] == "http.response.start":
                # The static files say Accept-Encoding already; the responders add it again.
                headers = MutableHeaders(raw=message.setdefault("headers", []))
                if "vary" in headers:
                    names = [name.strip() for name in headers["vary"].split(",")]
                    headers["vary"] = ", ".join(dict.fromkeys(name for name in names if name))
            await send(message)

        await responder(scope, receive, one_vary)


class PrecompressedStatic(StaticFiles):
    """Static files, each sent as its .br or .gz copy when the browser takes that and the
    copy holds the file's bytes now; every answer says it varies by Accept-Encoding."""

    def __init__(self, *, directory: Path) -> None:
        super().__init__(directory=directory)
        # (copy, file's and copy's mtime and size) -> whether the copy holds the file's bytes:
        # each copy is read once a process, and again only after either changes.
        self.checked: Recent[tuple[str, int, int, int, int], bool] = Recent(512)

    async def get_response(self, path: str, scope: Scope) -> Response:
        """A copy is sent in its file's place, never by its own name."""
        if path.endswith(tuple(COPY_SUFFIXES.values())):
            raise HTTPException(status_code=404)
        return await super().get_response(path, scope)

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        request_headers = Headers(scope=scope)
        # Byte ranges stay ranges of the file itself.
        copy = None
        if "range" not in request_headers:
            copy = self._fresh_copy(full_path, stat_result, scope)
        response: Response
        if copy is not None:
            copy_path, copy_stat, encoding = copy
            response = FileResponse(
                copy_path,
                status_code=status_code,
                stat_result=copy_stat,
                media_type=guess_type(os.fspath(full_path))[0] or "text/plain",
                headers={"Content-Encoding": encoding},
            )
        else:
            response = FileResponse(full_path, status_code=status_code, stat_result=stat_result)
        MutableHeaders(raw=response.raw_headers).add_vary_header("Accept-Encoding")
        if self.is_not_modified(response.headers, request_headers):
            return NotModifiedResponse(response.headers)
        return response

    def _fresh_copy(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope
    ) -> tuple[str, os.stat_result, str] | None:
        for encoding in encodings_taken(scope):
            copy_path = os.fspath(full_path) + COPY_SUFFIXES[encoding]
            try:
                copy_stat = os.stat(copy_path)
            except OSError:
                continue
            key = (
                copy_path,
                stat_result.st_mtime_ns,
                stat_result.st_size,
                copy_stat.st_mtime_ns,
                copy_stat.st_size,
            )
            if self.checked.get_or_make(key, partial(_holds, copy_path, full_path, encoding)):
                return copy_path, copy_stat, encoding
        return None


def _holds(copy_path: str, full_path: str | os.PathLike[str], encoding: str) -> bool:
    """Whether the copy unpacks to the file's bytes as they are now (a small file, once)."""
    try:
        with open(copy_path, "rb") as copy, open(full_path, "rb") as source:
            return bool(_DECOMPRESS[encoding](copy.read()) == source.read())
    except (OSError, brotli.error, gzip.BadGzipFile, EOFError, ValueError):
        return False
