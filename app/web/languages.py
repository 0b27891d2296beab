"""Which language a request is answered in, and the switch every page shows.

The reader's choice comes first: `?lang=` in the address (this page only), then the phone's
cookie, set by the language switch (`GET /language?to=de&back=/g/...`, a link, so a watch
page stays without forms). Then, on a table's pages, the table's language; then the
browser's Accept-Language; then English. Anything unknown or absurd (a tag of 10,000
characters) is passed over, never refused: the page is shown in the next language down.
"""

from http.cookies import SimpleCookie
from typing import Annotated
from urllib.parse import parse_qs

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import i18n

router = APIRouter(include_in_schema=False)


def chosen_language(scope: Scope) -> str | None:
    """The language the reader chose: in the address, else in their cookie."""
    query = scope.get("query_string", b"")
    if b"lang=" in query:
        values = parse_qs(query.decode("latin-1")).get("lang") or [None]
        code = i18n.known(values[-1])
        if code is not None:
            return code
    for name, value in scope.get("headers", ()):
        if name == b"cookie" and i18n.COOKIE.encode() in value:
            cookie: SimpleCookie = SimpleCookie()
            try:
                cookie.load(value.decode("latin-1"))
            except Exception:  # a cookie header we cannot read chooses nothing
                return None
            morsel = cookie.get(i18n.COOKIE)
            return i18n.known(morsel.value) if morsel is not None else None
    return None


def accepted_language(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            return i18n.from_accept_language(value.decode("latin-1"))
    return None


class LanguageMiddleware:
    """Sets the language of each request before anything answers it (refusals included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            i18n.start(chosen=chosen_language(scope), accepted=accepted_language(scope))
        await self.app(scope, receive, send)


def local_path(back: str | None, request: Request) -> str:
    """back when it is a path of this site (never another site's address), else home."""
    root = request.scope.get("root_path", "")
    local = back and back.startswith("/") and not back.startswith("//")
    if local and all(32 < ord(c) < 127 and c != "\\" for c in back or ""):
        return back or "/"
    return root + "/"


@router.get("/language")
def choose_language(
    request: Request,
    to: Annotated[str, Query(max_length=i18n.LONGEST_TAG)] = i18n.DEFAULT,
    back: Annotated[str | None, Query(max_length=2000)] = None,
) -> RedirectResponse:
    """Remember the language chosen on this phone (a year), and go back to the page."""
    code = i18n.known(to) or i18n.DEFAULT
    response = RedirectResponse(local_path(back, request), status_code=303)
    response.set_cookie(
        i18n.COOKIE,
        code,
        max_age=i18n.COOKIE_MAX_AGE_S,
        path=request.scope.get("root_path", "") or "/",
        samesite="lax",
        httponly=True,
    )
    return response
