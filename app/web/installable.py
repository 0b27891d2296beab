"""On the home screen and through a Wi-Fi drop: the web app manifest and the service worker,
both at the app's root (under ROOT_PATH) so the worker's scope is every page; and the page
that forgets a game on this phone."""

from __future__ import annotations

import functools
import hashlib
import json
from email.utils import formatdate, parsedate

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import Headers
from starlette.staticfiles import NotModifiedResponse

from .. import i18n
from ..config import STATIC_DIR, TEMPLATES_DIR
from .deps import Code
from .remembered import forget
from .rendering import redirect, render, templates

router = APIRouter()

# The light page's background (static/app.css, --bg): the manifest has one colour for
# both schemes, and a phone in light mode starts on a light page. Dark mode gets its own
# through the pages' theme-color meta tags.
LIGHT_BACKGROUND = "#fbf8f1"


# Notes, and the compressed copies the build writes beside each file (the server sends a
# copy in place of its file: a page never asks for one by name).
NOT_LOADED_SUFFIXES = frozenset({".md", ".br", ".gz"})


@functools.cache
def static_files() -> tuple[str, ...]:
    """Every file under static/ the pages may load, as paths below /static/."""
    return tuple(
        sorted(
            path.relative_to(STATIC_DIR).as_posix()
            for path in STATIC_DIR.rglob("*")
            if path.is_file()
            and not path.name.startswith(".")
            and path.suffix not in NOT_LOADED_SUFFIXES
        )
    )


@functools.cache
def build_version() -> str:
    """A fingerprint of the static files and the worker itself: an upgrade that changes
    either gives the worker new bytes, so phones fetch every static file afresh."""
    digest = hashlib.sha256((TEMPLATES_DIR / "sw.js").read_bytes())
    for name in static_files():
        digest.update(name.encode())
        digest.update((STATIC_DIR / name).read_bytes())
    for code in i18n.LANGUAGES:  # the words scripts the worker keeps beside them
        digest.update(later_words(code)[0])
    return digest.hexdigest()[:16]


WORDS_LATER = "_words_later.js"


@functools.cache
def later_words(code: str) -> tuple[bytes, str, str]:
    """The words script of language code (templates/_words_later.js): its bytes, ETag and
    Last-Modified, the way StaticFiles describes a file."""
    with i18n.using(code):
        source = templates.env.get_template(WORDS_LATER).render().encode()
    sources = [TEMPLATES_DIR / WORDS_LATER, i18n.LOCALE_DIR / code / "LC_MESSAGES" / "messages.po"]
    changed = max(path.stat().st_mtime for path in sources if path.exists())
    etag = '"' + hashlib.sha256(source).hexdigest()[:32] + '"'
    return source, etag, formatdate(changed, usegmt=True)


@router.get("/static/words-{lang}.js", include_in_schema=False)
def script_words(request: Request, lang: str) -> Response:
    """The words of the scripts the pages fetch later, in one language, served like the
    static files it sits among (an ETag, no Cache-Control, 304 when the phone has it)."""
    if lang not in i18n.LANGUAGES:
        raise HTTPException(status_code=404)
    source, etag, modified = later_words(lang)
    headers = {"etag": etag, "last-modified": modified}
    if not_modified(request, etag, modified):
        return NotModifiedResponse(Headers(headers))
    return Response(source, media_type="text/javascript", headers=headers)


def not_modified(request: Request, etag: str, modified: str) -> bool:
    """StaticFiles' rule: If-None-Match when sent, else If-Modified-Since."""
    if asked := request.headers.get("if-none-match"):
        tags = [tag.strip().removeprefix("W/") for tag in asked.split(",")]
        return asked.strip() == "*" or etag in tags
    since = parsedate(request.headers.get("if-modified-since", ""))
    last = parsedate(modified)
    return since is not None and last is not None and since >= last


@router.get("/manifest.webmanifest", include_in_schema=False)
def manifest() -> Response:
    """The web app manifest: name, colours and icons for the phone's home screen."""
    # Addresses relative to the manifest's own, which sits at the app's root: right under
    # any ROOT_PATH and whatever host the phone used.
    document = {
        "name": "Crownkeeper",
        "short_name": "Crownkeeper",
        "description": "Keep score for Five Crowns at the table.",
        "start_url": "./",
        "scope": "./",
        "display": "standalone",
        "theme_color": LIGHT_BACKGROUND,
        "background_color": LIGHT_BACKGROUND,
        "icons": [
            {"src": "static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": "static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
            {
                "src": "static/icons/icon-maskable-512.png",
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }
    return JSONResponse(
        document,
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/sw.js", include_in_schema=False)
def service_worker() -> Response:
    """The service worker in the phone's language, checked by the browser on every visit
    (no-cache): a new language is new bytes, so a new worker."""
    config = {
        "version": build_version(),
        "static": [*static_files(), f"words-{i18n.language()}.js"],
        "language": i18n.language(),
    }
    source = templates.env.get_template("sw.js").render(config=json.dumps(config))
    return Response(
        source,
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Vary": "Cookie, Accept-Language"},
    )


@router.get("/g/{code}/forget", include_in_schema=False)
def forget_page(request: Request, code: Code, forgotten: bool = False) -> Response:
    """Asks before this phone forgets a game; says so once it has."""
    return render(request, "forget.html", {"code": code, "forgotten": forgotten})


@router.post("/g/{code}/forget", include_in_schema=False)
def forget_game(request: Request, code: Code) -> Response:
    """Drops the game from this phone's list (its copy and unsent rounds went on the way)."""
    response = redirect(request, str(request.url_for("forget_page", code=code)) + "?forgotten=1")
    forget(response, request, code)
    return response
