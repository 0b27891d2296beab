"""Pure ASGI guards in front of the app: bodies too big are refused before anyone reads them,
form posts from other sites change nothing, and HEAD is answered wherever GET is."""

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import logs
from .db import is_busy
from .i18n import fill
from .i18n import gettext as _
from .web.errors import failure_answer, is_static

log = logging.getLogger("crownkeeper")

# Builds the answer for a refused request (JSON for the API, a page otherwise), as an ASGI app.
Refusal = Callable[[Scope, str, int], Callable[[Scope, Receive, Send], Awaitable[None]]]

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_PORTS = {"http": "80", "https": "443"}


class BodyTooLarge(HTTPException):
    """The request body passed MAX_BODY_BYTES while it was being read."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large_message(limit))


def too_large_message(limit: int) -> str:
    return fill(_("The request is too large: at most %(kb)s KB is taken."), kb=limit // 1024)


IMPORT_PATH = re.compile(r"(/api/tables|/t)/[^/]+/import")


class BodyLimitMiddleware:
    """Refuse bodies over limit bytes with 413: at once when Content-Length says so, or as
    soon as the bytes read pass it (chunked bodies), so a big body never sits in memory."""

    def __init__(
        self, app: ASGIApp, *, limit: int, refuse: Refusal, import_limit: int | None = None
    ) -> None:
        self.app = app
        self.limit = limit
        self.refuse = refuse
        # A table's import carries every game it ever played: it alone may be bigger.
        self.import_limit = limit if import_limit is None else max(limit, import_limit)

    def limit_for(self, scope: Scope) -> int:
        path = scope["path"].removeprefix(scope.get("root_path", ""))
        if scope["method"] == "POST" and IMPORT_PATH.fullmatch(path):
            return self.import_limit
        return self.limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = _header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self.refuse(scope, too_large_message(limit), 413)(scope, receive, send)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except BodyTooLarge as error:
            # Read outside the routes' error handling (a form parser, a middleware).
            if started:
                raise
            await self.refuse(scope, str(error.detail), 413)(scope, receive, send)


class CrossSiteMiddleware:
    """A change asked for by another web site's page is refused with 403: a browser sends
    Origin (and Sec-Fetch-Site) with such posts. Requests without them (curl, scripts) pass."""

    def __init__(self, app: ASGIApp, *, refuse: Refusal) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE_METHODS and _cross_site(scope):
            message = _(
                "This change came from another web site, so it was not made. "
                "Open Crownkeeper's own page and try again."
            )
            await self.refuse(scope, message, 403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _cross_site(scope: Scope) -> bool:
    if (_header(scope, b"sec-fetch-site") or "").lower() == "cross-site":
        return True
    origin = _header(scope, b"origin")
    # "null" is what browsers send for our own pages' form posts under Referrer-Policy
    # no-referrer; Sec-Fetch-Site (above) tells those apart from other sites'.
    if origin is None or origin.strip().lower() == "null":
        return False
    return _origin_of(origin) != _origin_of(f"{scope['scheme']}://{_header(scope, b'host')}")


def _origin_of(url: str) -> tuple[str, str, str] | None:
    """(scheme, host, port) with default ports filled in; None for "null" or a broken one."""
    try:
        parts = urlsplit(url.strip().lower())
        port = str(parts.port) if parts.port else DEFAULT_PORTS.get(parts.scheme, "")
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port


class HeadMiddleware:
    """HEAD wherever GET works (health checks use it): the GET's status and headers, no
    body. A stream (live updates) ends as soon as its headers are out."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        finished = False

        async def receive_until_finished() -> Message:
            if finished:
                return {"type": "http.disconnect"}
            return await receive()

        async def send_headers_only(message: Message) -> None:
            nonlocal finished
            if message["type"] == "http.response.start":
                await send(message)
            elif message["type"] == "http.response.body" and not finished:
                finished = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            # Anything a stream sends later is dropped: its reader is told (receive above)
            # that the client has gone, which ends it.

        await self.app({**scope, "method": "GET"}, receive_until_finished, send_headers_only)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


class StreamStartGate:
    """Live pages start their streams a few at a time. Two thousand pages arriving together
    would otherwise each do their start-up work (checks, the first message, its sending)
    ahead of any request that came after them; parked here, they wait without cost while
    the table's own requests go straight through."""

    def __init__(self, app: ASGIApp, *, at_once: int = 2) -> None:
        self.app = app
        self.at_once = at_once
        self._gates: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

    def _gate(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            self._gates = {loop: (gate := asyncio.Semaphore(self.at_once))}
        return gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/events"):
            await self.app(scope, receive, send)
            return
        gate = self._gate()
        await gate.acquire()
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                gate.release()

        async def send_then_release(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body":  # the first message is on its way
                release()

        try:
            await self.app(scope, receive, send_then_release)
        finally:
            release()


SECURITY_HEADERS = [
    (b"referrer-policy", b"no-referrer"),
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
]
# Answers carry game codes (the API's JSON, the pages): no cache keeps them, except the
# static files, which carry none.
NO_STORE = (b"cache-control", b"no-store")


class SecurityHeadersMiddleware:
    """Game links stay off other sites (no referrer) and pages run no inline script. The
    outermost of the app's own layers, so every answer gets the headers: an unexpected
    error is answered here (500, or 503 when the database is busy), not by Starlette's
    bare error page outside it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        static = is_static(Request(scope))

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in present]
                if not static and NO_STORE[0] not in present:
                    extra.append(NO_STORE)
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as error:
            if started:
                raise
            busy = isinstance(error, OperationalError) and is_busy(error)
            if not busy:
                log.exception("Error while answering %s", logs.redact(scope.get("path", "")))
            answer = failure_answer(scope, busy)
            await answer(scope, receive, send_with_headers)
