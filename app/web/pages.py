"""The HTML pages: the same URL gives the whole page, or just the region htmx asked for."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any

import segno
from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import RedirectResponse, Response
from jinja2 import pass_context
from jinja2.runtime import Context
from jinja2_fragments import render_block
from jinja2_fragments.fastapi import Jinja2Blocks
from sqlmodel import Session, select

from ..addresses import shared_base
from ..config import PROJECT_DIR
from ..db import SessionDep
from ..games import (
    GameError,
    GameNotFound,
    GameState,
    NoSuchRound,
    ReadOnlyLink,
    ReplacedLink,
    RoundState,
    StaleVersion,
    add_player,
    add_tiebreak,
    create_game,
    finish_game,
    load_game,
    remove_player,
    replace_keeper_code,
    save_round,
)
from ..ratelimit import RateLimited
from ..rules.cards import RANK_CODES, RANK_PLURALS, Decks
from ..rules.schedule import ROUND_COUNT, plan_rounds
from ..rules.scoring import JOKER_POINTS, WILD_POINTS, RoundError
from ..rules.solver import has_wild_only_group
from .forms import (
    HandForm,
    JoinForm,
    NewGameForm,
    RoundForm,
    card_face,
    chip_face,
    keypad,
    suit_grid,
)
from .table_cookie import remembered_tables

router = APIRouter(include_in_schema=False)
templates = Jinja2Blocks(directory=PROJECT_DIR / "templates")


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
    RANK_CODES=RANK_CODES,
    RANK_PLURALS=RANK_PLURALS,
    ROUND_COUNT=ROUND_COUNT,
    keypad=keypad,
)

GAMES_COOKIE = "crownkeeper_games"
REMEMBERED_GAMES = 12
Code = Annotated[str, Path()]


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
    return response


def redirect(request: Request, url: Any) -> Response:
    """Go to url: a 303 for a plain form, a whole-page visit (HX-Redirect) for htmx."""
    if request.headers.get("HX-Request") == "true":
        return Response(status_code=200, headers={"HX-Redirect": str(url)})
    return RedirectResponse(url, status_code=303)


async def posted_fields(request: Request) -> dict[str, str]:
    """A form post's text fields (files and repeated names are not used by any form here)."""
    return {k: v for k, v in (await request.form()).items() if isinstance(v, str)}


ERROR_HEADINGS = {404: "Not found", 410: "This link was replaced"}


def error_page(
    request: Request, message: str, *, status_code: int, watch_url: str | None = None
) -> Response:
    """A page that says what went wrong and where to go next."""
    context = {
        "heading": ERROR_HEADINGS.get(status_code, "Something is not right"),
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
        path = str(request.app.url_path_for(name, **params))
        if len(_paths) >= PATHS_KEPT:
            _paths.clear()
        _paths[key] = path
    return request.scope.get("root_path", "") + path


PATHS_KEPT = 8192
_paths: dict[tuple[int, str, tuple[tuple[str, Any], ...]], str] = {}


def remembered_codes(request: Request) -> list[str]:
    """Game codes this browser has opened, newest first."""
    raw = request.cookies.get(GAMES_COOKIE, "")
    return [code for code in raw.split(".") if 0 < len(code) <= 64][:REMEMBERED_GAMES]


def remember(response: Response, request: Request, code: str) -> None:
    """Keep code first in this browser's list of games."""
    codes = [code, *(c for c in remembered_codes(request) if c != code)][:REMEMBERED_GAMES]
    _set_games_cookie(response, request, codes)


def forget(response: Response, request: Request, code: str) -> None:
    """Drop code from this browser's list of games (a replaced scorekeeper link)."""
    _set_games_cookie(response, request, [c for c in remembered_codes(request) if c != code])


def _set_games_cookie(response: Response, request: Request, codes: list[str]) -> None:
    response.set_cookie(
        GAMES_COOKIE,
        ".".join(codes),
        max_age=400 * 24 * 3600,
        httponly=True,
        secure=request.url.scheme == "https",
        samesite="lax",
        path=request.scope.get("root_path") or "/",
    )


@router.get("/")
def home(request: Request, session: SessionDep) -> Response:
    """Start a game, or reopen one this browser has seen."""
    return render(request, "home.html", home_context(request, session))


def home_context(request: Request, session: Session) -> dict[str, Any]:
    """What the home page shows: a blank new game, and this browser's games and tables."""
    games = []
    for code in remembered_codes(request):
        try:
            games.append(load_game(session, code=code))
        except GameNotFound:
            continue
    return {
        "form": NewGameForm.blank(),
        "games": games,
        "tables": remembered_tables(request, session),
    }


@router.post("/games")
async def new_game(request: Request, session: SessionDep) -> Response:
    """Create the game, or add, remove or move a seat on the form."""
    fields = await posted_fields(request)
    form = NewGameForm.parse(fields)
    status, headers = 200, {}
    if not form.apply_action(fields):
        names, first_dealer = form.players()
        try:
            if form.problem:
                raise GameError(form.problem)
            request.app.state.create_limiter.check(request)
            state = create_game(
                session,
                players=names,
                first_dealer=first_dealer,
                order=form.order,
                mode="solitaire" if form.mode == "solitaire" else "game",
            )
        except GameError as error:
            form.error, status = str(error), 422
        except RateLimited as error:
            form.error, status = str(error), 429
            headers["Retry-After"] = str(error.retry_after)
        else:
            return redirect(request, request.url_for("game_page", code=state.code))
    response = render(
        request, "home.html", {"form": form, "games": []}, block="new_game", status_code=status
    )
    response.headers.update(headers)
    return response


@router.get("/g/{code}")
def game_page(
    request: Request, code: Code, session: SessionDep, saved: int | None = None
) -> Response:
    """The score sheet, whose deal it is, the wild rank and the round entry."""
    state = _load_or_404(session, code)
    # After a save without JavaScript the redirect says which round; the page says it saved.
    saved_round = None
    if saved is not None and 1 <= saved <= len(state.rounds) and state.round(saved).entries:
        saved_round = saved
    response = _game_response(request, state, saved_round=saved_round)
    remember(response, request, code)
    return response


@router.get("/g/{code}/rounds/{number}")
def round_page(request: Request, code: Code, number: int, session: SessionDep) -> Response:
    """Enter or correct one round."""
    state = _load_for_edit(session, code)
    round_state = _round_or_404(state, number)
    if state.is_solitaire:
        return RedirectResponse(request.url_for("pile_page", code=code, number=number), 303)
    if round_state.entries is None and (state.current_round is not round_state):
        return RedirectResponse(request.url_for("game_page", code=code), 303)
    form = RoundForm.blank(state, round_state)
    return render(request, "round.html", _round_context(state, form))


# PUT is what the page's script sends (saving a round is idempotent); POST is the plain form.
@router.api_route("/g/{code}/rounds/{number}", methods=["POST", "PUT"])
async def post_round(request: Request, code: Code, number: int, session: SessionDep) -> Response:
    """Save a round (or take a tap, when the phone runs no JavaScript)."""
    state = _load_for_edit(session, code)
    _round_or_404(state, number)
    fields = await posted_fields(request)
    players_in = state.round(number).players_in
    form = RoundForm.parse(number, fields, len(state.players), players_in)
    from_game_page = fields.get("from") == "game"
    if fields.get("keep"):
        # "Keep the saved round": drop this phone's entries, show the game as saved.
        if wants_fragment(request) and from_game_page:
            return _game_response(request, state)
        return redirect(request, request.url_for("game_page", code=code))
    status = 200
    if not form.apply_tap(fields):
        status = _save(session, state, form)
        if status == 200:
            if wants_fragment(request) and from_game_page:
                return _game_response(request, load_game(session, code=code), saved_round=number)
            saved_url = request.url_for("game_page", code=code).include_query_params(saved=number)
            return redirect(request, saved_url)
        state = load_game(session, code=code)
        if form.version_unreadable:
            form.version = state.version
    if from_game_page:
        return _game_response(request, state, form=form, status_code=status)
    return render(
        request, "round.html", _round_context(state, form), block="entry", status_code=status
    )


@router.post("/g/{code}/finish")
def finish_page(request: Request, code: Code, session: SessionDep) -> Response:
    """End the game now (the shorter-game house rule)."""
    _load_for_edit(session, code)
    try:
        finish_game(session, code=code)
    except GameError as error:
        return error_page(request, str(error), status_code=409)
    return RedirectResponse(request.url_for("game_page", code=code), 303)


@router.post("/g/{code}/tiebreak")
def tiebreak_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Deal a tie-break round to the players sharing the lowest total."""
    _load_for_edit(session, code)
    try:
        add_tiebreak(session, code=code)
    except GameError as error:
        return error_page(request, str(error), status_code=409)
    return redirect(request, request.url_for("game_page", code=code))


@router.get("/g/{code}/players")
def players_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Someone joins or leaves: from the next round on, the deal staying put."""
    return _players_response(request, _load_for_edit(session, code))


@router.post("/g/{code}/players")
async def join_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Seat a new player from the next round on; a problem keeps what was typed."""
    state = _load_for_edit(session, code)
    join = JoinForm.parse(await posted_fields(request))
    if not join.error:
        try:
            add_player(session, code=code, name=join.name, seat=join.seat, start=join.start())
        except GameError as error:
            session.rollback()
            join.error = str(error)
        else:
            return redirect(request, request.url_for("game_page", code=code))
    return _players_response(request, state, join=join, status_code=422)


@router.post("/g/{code}/players/{seat}/leave")
def leave_page(request: Request, code: Code, seat: int, session: SessionDep) -> Response:
    """Take a player out of the game from the next round on."""
    state = _load_for_edit(session, code)
    try:
        remove_player(session, code=code, seat=seat)
    except GameError as error:
        session.rollback()
        return _players_response(request, state, leave_error=str(error), status_code=422)
    return redirect(request, request.url_for("game_page", code=code))


@router.post("/g/{code}/scorekeeper-code")
def replace_code_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Replace the scorekeeper link; this phone moves to the new one."""
    _load_for_edit(session, code)
    state = replace_keeper_code(session, code=code)
    response = redirect(request, request.url_for("game_page", code=state.code))
    forget(response, request, code)
    return response


@router.get("/hand")
def hand_page(request: Request) -> Response:
    """The hand checker: tap a hand, see its best books and runs and what it costs."""
    form = HandForm.parse(request.query_params)
    faces, solution = form.check(form.wild_rank, Decks(form.games))
    context = {
        "form": form,
        "faces": faces,
        "solution": solution,
        "plans": plan_rounds(seat_count=1),
    }
    block = "picker" if request.query_params.get("part") == "picker" else "result"
    return render(
        request, "hand.html", context, block=block, status_code=422 if form.error else 200
    )


@router.get("/healthz")
def health(session: SessionDep) -> dict[str, str]:
    """For the container's health check: the database answers."""
    session.exec(select(1)).one()
    return {"status": "ok"}


@router.get("/rules")
def rules_page(request: Request) -> Response:
    """How to play and score, with the wild card chart."""
    return render(
        request,
        "rules.html",
        {
            "plans": plan_rounds(seat_count=1),
            "joker_points": JOKER_POINTS,
            "wild_points": WILD_POINTS,
            "one_game": Decks(1),
            "two_games": Decks(2),
        },
    )


def _save(session: SessionDep, state: GameState, form: RoundForm) -> int:
    """Save the form's round; on a problem, note it on the form and return the status."""
    results = form.results(state.players)
    if results is None:
        return 422
    # Only "Replace it with mine" may save over a round changed since this form was filled.
    version = form.replace_version if form.replace_version is not None else form.version
    try:
        save_round(session, code=state.code, number=form.number, results=results, version=version)
    except RoundError as error:
        session.rollback()
        form.errors = error.table_errors
        for seat, message in error.seat_errors.items():
            form.seats[seat].error = message
        return 422
    except StaleVersion:
        session.rollback()
        form.conflict = True
        return 409
    except GameError as error:
        session.rollback()
        form.errors = [str(error)]
        return 409
    return 200


def _game_response(
    request: Request,
    state: GameState,
    *,
    form: RoundForm | None = None,
    status_code: int = 200,
    saved_round: int | None = None,
) -> Response:
    if state.is_solitaire:
        return render(
            request, "solitaire.html", {"state": state}, block="game", status_code=status_code
        )
    current = state.current_round
    if form is None and current is not None:
        form = RoundForm.blank(state, current)
    # A form sent back with a problem stays on its own round, even if the game moved on.
    entry_round = state.round(form.number) if form else None
    context = {
        "state": state,
        "current": current,
        "form": form,
        "entry_round": entry_round,
        # Deck limits follow the players in the round being entered.
        "decks": entry_round.decks if entry_round else state.decks,
        "share": share_links(request, state),
        "saved_round": saved_round,
        "shared": request.query_params.get("shared") == "1",
    }
    return render(request, "game.html", context, block="game", status_code=status_code)


def _players_response(
    request: Request,
    state: GameState,
    *,
    join: JoinForm | None = None,
    leave_error: str = "",
    status_code: int = 200,
) -> Response:
    context = {
        "state": state,
        "current": state.current_round,
        "join": join or JoinForm(),
        "leave_error": leave_error,
    }
    return render(request, "players.html", context, status_code=status_code)


def share_links(request: Request, state: GameState) -> dict[str, str]:
    """The watch link (and, for the scorekeeper, their own link) as full URLs and QR codes,
    at an address the other phones can reach (never this machine's loopback)."""
    base = shared_base(
        request.app.state.settings,
        scheme=request.url.scheme,
        host=request.url.hostname or "",
        port=request.url.port,
    )
    watch_url = base + url_path_for(request, "game_page", code=state.watch_code)
    links = {"watch_url": watch_url, "watch_qr": qr_svg(watch_url)}
    if state.can_edit:
        keeper_url = base + url_path_for(request, "game_page", code=state.code)
        links.update(keeper_url=keeper_url, keeper_qr=qr_svg(keeper_url))
    return links


@functools.lru_cache(maxsize=1024)
def qr_svg(url: str) -> str:
    """url as a QR code, drawn here as inline SVG (nothing fetched from anywhere)."""
    code = segno.make(url, error="m")
    return str(code.svg_inline(border=2, dark="#000", light="#fff", omitsize=True))


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


def replaced_update(request: Request, watch_code: str) -> str:
    """What an open page of a replaced scorekeeper link shows instead of the game."""
    context = {
        "request": request,
        "heading": ERROR_HEADINGS[410],
        "message": str(ReplacedLink(watch_code)),
        "watch_url": url_path_for(request, "game_page", code=watch_code),
    }
    html = render_block(templates.env, "error.html", "problem", context)
    # Replacing the page's main region also drops its live stream: nothing is left to follow.
    return _BETWEEN_TAGS.sub("> <", f'<hx-partial hx-target="#main">{html}</hx-partial>')


def _round_context(state: GameState, form: RoundForm) -> dict[str, Any]:
    round_state = state.round(form.number)
    return {"state": state, "round": round_state, "form": form, "decks": round_state.decks}


def _load_or_404(session: SessionDep, code: str) -> GameState:
    try:
        return load_game(session, code=code)
    except ReplacedLink:
        raise  # answered with its own page (410), pointing to the watch link
    except GameNotFound as error:
        shown = code if len(code) <= 24 else code[:24] + "…"
        message = f"No game has the code {shown}. Check the link, or start a new game."
        raise HTTPException(404, message) from error


def _load_for_edit(session: SessionDep, code: str) -> GameState:
    state = _load_or_404(session, code)
    if not state.can_edit:
        raise HTTPException(403, ReadOnlyLink.message)
    return state


def _round_or_404(state: GameState, number: int) -> RoundState:
    try:
        return state.round(number)
    except NoSuchRound as error:
        raise HTTPException(404, str(error)) from error
