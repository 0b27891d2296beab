"""The game pages: the same URL gives the whole page, or just the region htmx asked for."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ..db import SessionDep, is_readable
from ..games import (
    GameState,
    StaleVersion,
    VersionRequired,
    add_player,
    add_tiebreak,
    create_game,
    finish_game,
    load_game,
    remove_player,
    replace_keeper_code,
    return_player,
    save_round,
)
from ..i18n import fill
from ..i18n import gettext as _
from ..rules.cards import JOKER_POINTS, WILD_POINTS, Decks
from ..rules.schedule import plan_rounds
from ..rules.scoring import RoundError
from ..tables import check_room_for
from .deps import (
    Code,
    FormFields,
    check_create_limit,
    in_table_language,
    page_game_for_change,
    page_game_to_edit,
)
from .errors import show_again
from .forms import HandForm, JoinForm, NewGameForm, RoundForm
from .remembered import forget, home_context, remember
from .rendering import (
    redirect,
    render,
    rounds_ahead,
    share_links,
    url_path_for,
    wants_fragment,
)
from .retrying import RetryingRoute

router = APIRouter(include_in_schema=False, route_class=RetryingRoute)


@router.get("/")
def home(request: Request, session: SessionDep) -> Response:
    """Start a game, or reopen one this browser has seen."""
    return render(request, "home.html", home_context(request, session))


@router.post("/games")
def new_game(request: Request, session: SessionDep, fields: FormFields) -> Response:
    """Create the game, or add, remove or move a seat on the form."""
    form = NewGameForm.parse(fields)

    def form_again(error: Exception | str, status_code: int = 200) -> Response:
        form.error = str(error)
        context = {"form": form, "games": []}
        return render(request, "home.html", context, block="new_game", status_code=status_code)

    if form.apply_action(fields):
        return form_again("")
    if form.problem:
        return form_again(form.problem, 422)
    names, first_dealer = form.players()
    show_again(request, form_again)
    check_create_limit(request)
    state = create_game(
        session,
        players=names,
        first_dealer=first_dealer,
        order=form.order,
        mode="solitaire" if form.mode == "solitaire" else "game",
    )
    return redirect(request, request.url_for("game_page", code=state.code))


@router.get("/g/{code}")
def game_page(
    request: Request, code: Code, session: SessionDep, saved: int | None = None
) -> Response:
    """The score sheet, whose deal it is, the wild rank and the round entry."""
    state = in_table_language(session, load_game(session, code=code))
    # After a save without JavaScript the redirect says which round; the page says it saved.
    saved_round = None
    if saved is not None and 1 <= saved <= len(state.rounds) and state.round(saved).entries:
        saved_round = saved
    response = _game_response(request, state, saved_round=saved_round)
    remember(response, request, code)
    return response


@router.get("/g/{code}/ahead")
def rounds_ahead_page(request: Request, code: Code, session: SessionDep) -> Response:
    """The rounds after the current one as the game page will show them, for offline play."""
    html = rounds_ahead(request, page_game_to_edit(session, code))
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/g/{code}/rounds/{number}")
def round_page(request: Request, code: Code, number: int, session: SessionDep) -> Response:
    """Enter or correct one round."""
    state = in_table_language(session, page_game_to_edit(session, code))
    round_state = state.round(number)
    if state.is_solitaire:
        return RedirectResponse(request.url_for("pile_page", code=code, number=number), 303)
    if round_state.entries is None and (state.current_round is not round_state):
        return RedirectResponse(request.url_for("game_page", code=code), 303)
    form = RoundForm.blank(state, round_state)
    return render(request, "round.html", _round_context(state, form))


# PUT is what the page's script sends (saving a round is idempotent); POST is the plain form.
@router.api_route("/g/{code}/rounds/{number}", methods=["POST", "PUT"])
def post_round(
    request: Request, code: Code, number: int, session: SessionDep, fields: FormFields
) -> Response:
    """Save a round (or take a tap, when the phone runs no JavaScript)."""
    game = page_game_for_change(session, code)
    state = game.state()
    players_in = state.round(number).players_in
    form = RoundForm.parse(number, fields, len(state.players), players_in)
    from_game_page = fields.get("from") == "game"
    if fields.get("keep"):
        session.rollback()
        # "Keep the saved round": drop this phone's entries, show the game as saved.
        if wants_fragment(request) and from_game_page:
            return _game_response(request, state)
        return redirect(request, request.url_for("game_page", code=code))

    def form_again(error: Exception | None = None, status_code: int = 200) -> Response:
        if error is not None:
            _note_problem(form, state, error)
        if from_game_page:
            return _game_response(request, state, form=form, status_code=status_code)
        context = _round_context(state, form)
        return render(request, "round.html", context, block="entry", status_code=status_code)

    if form.apply_tap(fields):
        session.rollback()
        return form_again()
    results = form.results(state.players)
    if results is None:
        session.rollback()
        if form.version_unreadable:
            form.version = state.version
        return form_again(status_code=422)
    show_again(request, form_again)
    saved = save_round(session, game=game, number=number, results=results, version=form.based_on)
    if wants_fragment(request) and from_game_page:
        return _game_response(request, saved, saved_round=number)
    saved_url = request.url_for("game_page", code=code).include_query_params(saved=number)
    return redirect(request, saved_url)


@router.post("/g/{code}/finish")
def finish_page(request: Request, code: Code, session: SessionDep) -> Response:
    """End the game now (the shorter-game house rule)."""
    finish_game(session, game=page_game_for_change(session, code))
    return RedirectResponse(request.url_for("game_page", code=code), 303)


@router.post("/g/{code}/tiebreak")
def tiebreak_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Deal a tie-break round to the players sharing the lowest total."""
    add_tiebreak(session, game=page_game_for_change(session, code))
    return redirect(request, request.url_for("game_page", code=code))


@router.get("/g/{code}/players")
def players_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Someone joins or leaves: from the next round on, the deal staying put."""
    state = in_table_language(session, page_game_to_edit(session, code))
    return _players_response(request, state)


@router.post("/g/{code}/players")
def join_page(request: Request, code: Code, session: SessionDep, fields: FormFields) -> Response:
    """Seat a new player from the next round on; a problem keeps what was typed."""
    join = JoinForm.parse(fields)
    game = page_game_for_change(session, code, at_table=True)
    state = game.state()

    def form_again(error: Exception | str, status_code: int = 200) -> Response:
        join.error = str(error)
        return _players_response(request, state, join=join, status_code=status_code)

    if join.error:
        session.rollback()
        return form_again(join.error, 422)
    show_again(request, form_again)
    limit = request.app.state.settings.table_max_people
    check_room_for(session, game_id=game.id, name=join.name, max_people=limit)
    add_player(session, game=game, name=join.name, seat=join.seat, start=join.start())
    return redirect(request, request.url_for("game_page", code=code))


@router.post("/g/{code}/players/{seat}/leave")
def leave_page(request: Request, code: Code, seat: int, session: SessionDep) -> Response:
    """Take a player out of the game from the next round on."""
    game = page_game_for_change(session, code)
    _players_again(request, game.state())
    remove_player(session, game=game, seat=seat)
    return redirect(request, request.url_for("game_page", code=code))


@router.post("/g/{code}/players/{seat}/return")
def return_page(
    request: Request, code: Code, seat: int, session: SessionDep, fields: FormFields
) -> Response:
    """Seat again a player who left (the undo of leaving): back to the page it came from."""
    game = page_game_for_change(session, code)
    _players_again(request, game.state())
    return_player(session, game=game, seat=seat)
    back = "game_page" if fields.get("back") == "game" else "players_page"
    return redirect(request, request.url_for(back, code=code))


@router.post("/g/{code}/scorekeeper-code")
def replace_code_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Replace the scorekeeper link; this phone moves to the new one."""
    state = replace_keeper_code(session, game=page_game_for_change(session, code))
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
async def health(request: Request) -> Response:
    """For the container's health check: the database answers a read. Never waits for the
    write lock, a thread or a connection that requests are holding: its own engine and its
    own thread."""
    if await anyio.to_thread.run_sync(
        is_readable, request.app.state.health_engine, limiter=_HEALTH
    ):
        return JSONResponse({"status": "ok"})
    return JSONResponse({"status": "unavailable"}, status_code=503, headers={"Retry-After": "2"})


# One check at a time, beside the threads that requests use.
_HEALTH = anyio.CapacityLimiter(1)


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


def _note_problem(form: RoundForm, state: GameState, error: Exception) -> None:
    """Show on the round form why the save was refused, the entries kept: each seat's
    problem beside its seat, another phone's save as the choice between the two rounds."""
    if isinstance(error, RoundError):
        form.errors = error.table_errors
        form.to_confirm = error.to_confirm
        for seat, message in error.seat_errors.items():
            form.seats[seat].error = message
    elif isinstance(error, StaleVersion):
        form.conflict = True
    elif isinstance(error, VersionRequired):
        name = state.round_name(state.round(form.number))
        form.errors = [
            fill(
                _(
                    "%(round)s is saved already, and this form did not say which copy of the "
                    "game it was filled in on, so nothing was saved; your entries are kept. "
                    "Save again to put them in place of the round as it is saved now."
                ),
                round=name[0].upper() + name[1:],
            )
        ]
        # Saving again is based on the game this answer shows.
        form.version = state.version
    else:
        form.errors = [str(error)]
    # The game as read under the lock is the game as it is now.
    if form.version_unreadable:
        form.version = state.version


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
    blank_entry = form is None and current is not None
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
        "saved_text": _saved_text(state, saved_round),
        "shared": request.query_params.get("shared") == "1",
    }
    response = render(request, "game.html", context, block="game", status_code=status_code)
    # For this phone's service worker and kept rounds (templates/sw.js, kept-rounds.js): the
    # version the page shows, the round its entry takes blank (a save may be based on it),
    # and where the rounds after it are, to play on offline.
    response.headers["X-Game-Version"] = str(state.version)
    if blank_entry and current is not None:
        response.headers["X-Fresh-Round"] = str(current.number)
    if state.can_edit and current is not None and not current.is_tiebreak:
        response.headers["X-Rounds-Ahead"] = url_path_for(
            request, "rounds_ahead_page", code=state.code
        )
    return response


def _saved_text(state: GameState, saved_round: int | None) -> str:
    """What the note says once a round is saved."""
    if saved_round is None:
        return ""
    if state.round(saved_round).is_tiebreak:
        return _("Tie-break saved")
    return fill(_("Round %(number)s saved"), number=saved_round)


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


def _players_again(request: Request, state: GameState) -> None:
    """A player who cannot leave or come back: the players page again, saying why."""

    def players_again(error: Exception) -> Response:
        return _players_response(request, state, leave_error=str(error))

    show_again(request, players_again)


def _round_context(state: GameState, form: RoundForm) -> dict[str, Any]:
    round_state = state.round(form.number)
    return {"state": state, "round": round_state, "form": form, "decks": round_state.decks}
