"""How pages are drawn: the templates, a whole page or the fragment htmx asked for, links
under ROOT_PATH, error pages, the share links, and the live regions sent to open pages."""

from __future__ import annotations

import functools
import io
import json
import re
from typing import Any
from urllib.parse import urlencode

import segno
from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from jinja2 import pass_context, pass_eval_context
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2_fragments import render_block
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup

from .. import i18n
from ..addresses import shared_base
from ..caches import Recent
from ..config import TEMPLATES_DIR
from ..games import GameState, ReplacedLink
from ..i18n import lazy
from ..rules import ratings
from ..rules.card_words import card_name, rank_name, rank_plural, suit_name, wild_sentence
from ..rules.cards import RANK_CODES, RANK_PLURALS
from ..rules.schedule import ROUND_COUNT
from ..rules.solver import has_wild_only_group
from .card_faces import card_face, chip_face, keypad, suit_grid
from .forms import RoundForm

templates = Jinja2Blocks(directory=TEMPLATES_DIR)
templates.env.add_extension("jinja2.ext.i18n")
# Jinja's own i18n: {% trans %} blocks and _() in templates, in the language of the moment
# (app/i18n.py). New style: placeholders are named and the values escaped.
templates.env.install_gettext_callables(  # type: ignore[attr-defined]
    gettext=i18n.gettext, ngettext=i18n.ngettext, pgettext=i18n.pgettext, newstyle=True
)


# Jinja's own new-style callables go through the template context twice a call; a table page
# makes a thousand of them. These do what they do (escape the values in HTML, always format,
# so "%%" is one "%") in one step.
@pass_eval_context
def _gettext(eval_ctx: EvalContext, string: str, /, **variables: Any) -> str:
    text = i18n.gettext(string)
    return (Markup(text) if eval_ctx.autoescape else text) % variables


@pass_eval_context
def _ngettext(
    eval_ctx: EvalContext, singular: str, plural: str, num: int, /, **variables: Any
) -> str:
    variables.setdefault("num", num)
    text = i18n.ngettext(singular, plural, num)
    return (Markup(text) if eval_ctx.autoescape else text) % variables


@pass_eval_context
def _pgettext(eval_ctx: EvalContext, context: str, string: str, /, **variables: Any) -> str:
    variables.setdefault("context", context)
    text = i18n.pgettext(context, string)
    return (Markup(text) if eval_ctx.autoescape else text) % variables


templates.env.globals.update(gettext=_gettext, _=_gettext, ngettext=_ngettext, pgettext=_pgettext)


def script_json(value: Any) -> Markup:
    """value as JSON for inside a <script> (the scripts' words): as short as JSON goes (no
    spaces, letters as themselves), with <, > and & escaped so no text can close the script.
    Unlike tojson it leaves ' alone (five more bytes each, and this is never in an attribute)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


templates.env.filters.update(
    script_json=script_json,
    date=i18n.format_date,
    datetime=i18n.format_datetime,
    short_date=i18n.format_short_date,
    time=i18n.format_time,
    number=i18n.format_number,
    percent=i18n.format_percent,
)


@pass_context
def language_links(context: Context) -> list[tuple[str, str, str]]:
    """The language switch: each language's code, own name, and the link that chooses it and
    comes back to this page."""
    request: Request = context["request"]
    # The page again, without a ?lang= that would outvote the new choice.
    query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "lang"])
    back = request.url.path + (f"?{query}" if query else "")
    switch = url_path_for(request, "choose_language")
    # The link says where back is: a click sends no Referer (Referrer-Policy: no-referrer keeps
    # game links off other sites). Its slashes as they are, a few bytes less on every page.
    return [
        (code, name, f"{switch}?{urlencode({'to': code, 'back': back}, safe='/')}")
        for code, name in i18n.LANGUAGES.items()
    ]


@pass_context
def url_path(context: Context, name: str, /, **params: Any) -> str:
    """A link as a path (with ROOT_PATH), so one rendering serves every viewer's host."""
    return url_path_for(context["request"], name, **params)


templates.env.globals.update(
    has_wild_only_group=has_wild_only_group,
    card_face=card_face,
    chip_face=chip_face,
    suit_grid=suit_grid,
    url_for=url_path,
    language=i18n.language,
    pct=lambda value: "–" if value is None else i18n.format_percent(value),
    num=lambda value, digits=1: "–" if value is None else i18n.format_number(value, digits),
    language_links=language_links,
    LANGUAGES=i18n.LANGUAGES,
    plural_rule=i18n.plural_rule,
    RANK_CODES=RANK_CODES,
    RANK_PLURALS=RANK_PLURALS,
    wild_sentence=wild_sentence,
    rank_plural=rank_plural,
    rank_name=rank_name,
    suit_name=suit_name,
    card_name=card_name,
    ROUND_COUNT=ROUND_COUNT,
    keypad=keypad,
    RATING_SCALE={
        "start": ratings.START,
        "scale": ratings.SCALE,
        "floor": ratings.FLOOR,
        "new_until": ratings.NEW_UNTIL,
        "mu": ratings.MU,
        "sigma": ratings.SIGMA,
    },
)


def wants_fragment(request: Request) -> bool:
    """htmx asked for part of a page (a full navigation still gets the whole page)."""
    return request.headers.get("HX-Request") == "true" and (
        request.headers.get("HX-Request-Type", "partial") != "full"
    )


def render(
    request: Request,
    template: str,
    context: dict[str, Any],
    *,
    block: str | None = None,
    status_code: int = 200,
) -> Response:
    """The whole page, or only `block` of it when htmx asked for a fragment."""
    fragment = block if block and wants_fragment(request) else None
    context = {**context, "fragment": fragment is not None}
    response = templates.TemplateResponse(
        request, template, context, status_code=status_code, block_name=fragment
    )
    response.headers["Vary"] = "HX-Request, HX-Request-Type"
    response.headers["Cache-Control"] = "no-store"
    if b"<pre" not in response.body and b"<textarea" not in response.body:
        # The templates' indentation is for people reading them, not for browsers (a line
        # break is all the whitespace HTML needs): the game page's first load is lighter.
        response.body = _INDENTATION.sub(b"\n", response.body)
        response.headers["Content-Length"] = str(len(response.body))
    return response


_INDENTATION = re.compile(rb"\n\s+")


def redirect(request: Request, url: Any) -> Response:
    """Go to url: a 303 for a plain form, a whole-page visit (HX-Redirect) for htmx."""
    if request.headers.get("HX-Request") == "true":
        return Response(status_code=200, headers={"HX-Redirect": str(url)})
    return RedirectResponse(url, status_code=303)


async def posted_fields(request: Request) -> dict[str, str]:
    """A form post's text fields (files and repeated names are not used by any form here)."""
    return {k: v for k, v in (await request.form()).items() if isinstance(v, str)}


ERROR_HEADINGS = {404: lazy("Not found"), 410: lazy("This link was replaced")}
SOMETHING_WRONG = lazy("Something is not right")


def error_page(
    request: Request, message: str, *, status_code: int, watch_url: str | None = None
) -> Response:
    """A page that says what went wrong and where to go next."""
    context = {
        "heading": str(ERROR_HEADINGS.get(status_code, SOMETHING_WRONG)),
        "message": message,
        "watch_url": watch_url,
    }
    return render(request, "error.html", context, status_code=status_code)


def replaced_link_page(request: Request, replaced: ReplacedLink) -> Response:
    """410 for a replaced scorekeeper link, pointing to the game's watch link."""
    watch_url = url_path_for(request, "game_page", code=replaced.watch_code)
    return error_page(request, str(replaced), status_code=410, watch_url=watch_url)


def url_path_for(request: Request, name: str, /, **params: Any) -> str:
    """A path within this app (with ROOT_PATH), for links on pages and in live updates."""
    # Starlette's lookup tries route after route; a table page holds a thousand links.
    key = (id(request.app), name, tuple(sorted(params.items())))
    path = _paths.get(key)
    if path is None:
        path = _paths.put(key, str(request.app.url_path_for(name, **params)))
    return request.scope.get("root_path", "") + path


PATHS_KEPT = 8192


_paths: Recent[tuple[int, str, tuple[tuple[str, Any], ...]], str] = Recent(PATHS_KEPT)


def share_links(request: Request, state: GameState) -> dict[str, str]:
    """The watch link (and, for the scorekeeper, their own link) as full URLs, with the
    paths of their QR codes (images, fetched only when the share panel opens)."""
    links = {
        "watch_url": share_url(request, state.watch_code),
        "watch_qr": url_path_for(request, "qr_code", code=state.watch_code),
    }
    if state.can_edit:
        links.update(
            keeper_url=share_url(request, state.code),
            keeper_qr=url_path_for(request, "qr_code", code=state.code),
        )
    return links


def share_url(request: Request, code: str) -> str:
    """The game page of code as a full URL, at an address the other phones can reach (never
    this machine's loopback)."""
    base = shared_base(
        request.app.state.settings,
        scheme=request.url.scheme,
        host=request.url.hostname or "",
        port=request.url.port,
    )
    return base + url_path_for(request, "game_page", code=code)


@functools.lru_cache(maxsize=1024)
def qr_svg(url: str) -> str:
    """url as a QR code, drawn here as SVG (nothing fetched from anywhere)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", border=2, dark="#000", light="#fff", omitsize=True, xmldecl=False
    )
    return buffer.getvalue().decode()


LIVE_REGIONS = ("status", "totals", "sheet")


_BETWEEN_TAGS = re.compile(r">\s+<")


def live_update(request: Request, state: GameState) -> str:
    """What an open game page needs after a change: its live regions, as htmx partials."""
    context = {
        "request": request,
        "state": state,
        "current": state.current_round,
        "decks": state.decks,
        "fragment": True,
    }
    template = templates.env.get_template("game.html")
    title = render_block(templates.env, "game.html", "title", context).strip()
    parts = [f"<title>{title}</title>"] if title else []
    for region in LIVE_REGIONS:
        html = render_block(templates.env, template.name or "game.html", region, context)
        parts.append(f'<hx-partial hx-target="#{region}">{html}</hx-partial>')
    # One line per event: fewer "data:" lines to frame and send to every open page.
    return _BETWEEN_TAGS.sub("> <", "".join(parts))


def rounds_ahead(request: Request, state: GameState) -> str:
    """The main rounds after the current one, each as the game page shows it once current (a
    `<template>` of its status and blank entry): what a phone needs to play on offline."""
    current = state.current_round
    if current is None or current.is_tiebreak or not state.can_edit:
        return ""
    template = templates.env.get_template("ahead.html")
    parts = []
    for round_state in state.main_rounds[current.number :]:
        if round_state.entries is not None:
            continue
        form = RoundForm.blank(state, round_state)
        form.version = None  # based on the round kept before it, not on the game as it is now
        context = {
            "request": request,
            "state": state,
            "current": round_state,
            "form": form,
            "decks": round_state.decks,
        }
        parts.append(template.render(context))
    return _TEXT_INDENTATION.sub("\n", "".join(parts))


_TEXT_INDENTATION = re.compile(r"\n\s+")


def replaced_update(request: Request, watch_code: str) -> str:
    """What an open page of a replaced scorekeeper link shows instead of the game."""
    context = {
        "request": request,
        "heading": str(ERROR_HEADINGS[410]),
        "message": str(ReplacedLink(watch_code)),
        "watch_url": url_path_for(request, "game_page", code=watch_code),
    }
    html = render_block(templates.env, "error.html", "problem", context)
    # Replacing the page's main region also drops its live stream: nothing is left to follow.
    return _BETWEEN_TAGS.sub("> <", f'<hx-partial hx-target="#main">{html}</hx-partial>')
