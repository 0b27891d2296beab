"""The table pages, and a game's pages looking back: its chart, its sheet as CSV, rematch,
delete and undo. Thin routes over the tables, games and exports services."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import RedirectResponse, Response
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from .. import i18n
from ..db import SessionDep
from ..exports import (
    attachment,
    download_name,
    sheet_csv,
)
from ..games import (
    GameNotFound,
    GameState,
    delete_game,
    find_game,
    load_game,
    rematch_game,
    restore_game,
)
from ..i18n import fill, lazy, ngettext
from ..i18n import gettext as _
from ..names import folded
from ..rules.cards import MAX_PLAYERS
from ..rules.seasons import Period, period_from
from ..rules.stats import result_line
from ..tables import (
    DeletedGame,
    ReadOnlyTable,
    TableState,
    check_keeper_code,
    create_table,
    load_person,
    load_table,
    merge_people,
    person_named,
    recently_deleted,
    rename_person,
    set_language,
    start_game,
)
from .chart import WIDTH as CHART_WIDTH
from .chart import rating_chart, running_totals, totals_chart, totals_chart_height
from .deps import (
    FormFields,
    check_create_limit,
    check_rematch_limit,
    import_into,
    page_game_for_change,
)
from .errors import show_again
from .forms import NewGameForm
from .people_order import everyone_query, order_asked, order_links, people_in_order
from .remembered import home_context, remember, remember_table
from .rendering import (
    error_page,
    qr_svg,
    redirect,
    render,
    share_url,
    templates,
    wants_fragment,
)
from .retrying import RetryingRoute

router = APIRouter(include_in_schema=False, route_class=RetryingRoute)
Code = Annotated[str, Path()]
GAMES_SHOWN = 30
PEOPLE_SHOWN = 100
"""People the table page lists, in the order chosen (all of them on asking): a club's table
of hundreds keeps its page small and quick."""
CHART_FROM_ROUNDS = 2


def share_result(state: GameState) -> str:
    """The finished game's result as a line to share."""
    return result_line(state.players, state.totals, state.winners)


# A person's head to head on the table page: those they played most (all of it is in the API).
VERSUS_SHOWN = 5
HOLDERS_SHOWN = 5
"""A record's holders the table page lists (a tie may hold hundreds; the API gives all)."""
templates.env.globals.update(
    share_result=share_result,
    CHART_FROM_ROUNDS=CHART_FROM_ROUNDS,
    CHART_WIDTH=CHART_WIDTH,
    chart_height=totals_chart_height,
    VERSUS_SHOWN=VERSUS_SHOWN,
    HOLDERS_SHOWN=HOLDERS_SHOWN,
)


@router.post("/tables")
def new_table(request: Request, session: SessionDep, fields: FormFields) -> Response:
    """Start a table from the home page; a refusal shows the home page again, with the name
    as typed and the reason by the form."""
    name = fields.get("table_name", "")

    def form_again(error: Exception) -> Response:
        with Session(request.app.state.engine) as own:
            context = {**home_context(request, own), "table_name": name, "table_error": str(error)}
        return render(request, "home.html", context)

    show_again(request, form_again)
    check_create_limit(request, "tables")
    state = create_table(session, name=name)
    response = redirect(request, request.url_for("table_page", code=state.code))
    remember_table(response, request, state.code)
    return response


@router.get("/t/{code}")
def table_page(request: Request, code: Code, session: SessionDep) -> Response:
    """The table: a new game with its people, its games newest first, and the stats of the
    season chosen (all time unless the address says a year)."""
    state = load_table(
        session, code=code, games_limit=_games_limit(request), period=_season_asked(request)
    )
    deleted = recently_deleted(session, table_code=code) if state.can_edit else []
    response = _table_response(
        request, state, NewGameForm.blank(), deleted=deleted, imported=_import_note(request)
    )
    remember_table(response, request, code)
    return response


@router.post("/t/{code}/import")
async def import_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Import an export file at the table (the API's limits and answers), then say what
    was added."""
    await run_in_threadpool(check_keeper_code, session, code=code)
    session.rollback()
    await run_in_threadpool(check_create_limit, request)
    async with request.form(max_files=1) as form:
        upload = form.get("document")
        raw = await upload.read() if isinstance(upload, UploadFile) else None
    if raw is None:
        message = _("Choose an export file (the .json a Crownkeeper export saves) to import.")
        return error_page(request, message, status_code=422)
    imported = await import_into(request, session, table_code=code, raw=raw)
    url = request.url_for("table_page", code=code).include_query_params(
        imported=imported.added, already=imported.already_there
    )
    return RedirectResponse(f"{url}#import", 303)


def _import_note(request: Request) -> str:
    """What the page says after an import (from its query: imported=N&already=M)."""
    added, already = request.query_params.get("imported"), request.query_params.get("already")
    if not (added and already and added.isdigit() and already.isdigit()):
        return ""
    added_words = ngettext("Added %(num)s game", "Added %(num)s games", int(added))
    already_words = ngettext(
        "%(num)s was already here.", "%(num)s were already here.", int(already)
    )
    return fill(
        _("%(added)s; %(already)s"),
        added=added_words % {"num": int(added)},
        already=already_words % {"num": int(already)},
    )


@router.post("/t/{code}/games")
def table_new_game(
    request: Request, code: Code, session: SessionDep, fields: FormFields
) -> Response:
    """Start a game at the table, or pick a person, add, remove or move a seat on the form."""
    state = _table_for_edit(session, code, games_limit=GAMES_SHOWN)
    form = NewGameForm.parse(fields)

    def form_again(error: Exception | str, status_code: int = 200) -> Response:
        form.error = str(error)
        return _table_response(request, state, form, block="new_game", status_code=status_code)

    picked = fields.get("pick", "")
    if picked:
        _seat_person(form, picked)
        return form_again("")
    if form.apply_action(fields):
        return form_again("")
    if form.problem:
        return form_again(form.problem, 422)
    names, first_dealer = form.players()
    show_again(request, form_again)
    check_create_limit(request)
    game = start_game(
        session,
        table_code=code,
        players=names,
        first_dealer=first_dealer,
        order=form.order,
        mode="solitaire" if form.mode == "solitaire" else "game",
        max_people=request.app.state.settings.table_max_people,
    )
    response = redirect(request, request.url_for("game_page", code=game.code))
    remember(response, request, game.code)
    return response


@router.post("/t/{code}/people/{person_id}")
def rename_or_merge(
    request: Request, code: Code, person_id: int, session: SessionDep, fields: FormFields
) -> Response:
    """Rename a person, or merge them into another (a misspelt name)."""
    check_keeper_code(session, code=code)
    if fields.get("into"):
        into = int(fields["into"]) if re.fullmatch(r"[0-9]{1,20}", fields["into"]) else -1
        merge_people(session, table_code=code, keep_id=into, merge_id=person_id)
    elif fields.get("action") == "merge":
        into = person_named(session, table_code=code, name=fields.get("into_name", ""))
        merge_people(session, table_code=code, keep_id=into, merge_id=person_id)
    else:
        rename_person(session, table_code=code, person_id=person_id, name=fields.get("name", ""))
    return RedirectResponse(str(request.url_for("table_page", code=code)) + "#people", 303)


@router.post("/t/{code}/language")
def table_language_page(
    request: Request, code: Code, session: SessionDep, fields: FormFields
) -> Response:
    """Choose the language of the table's pages (blank: each reader's own)."""
    set_language(session, table_code=code, language=fields.get("language") or None)
    return RedirectResponse(str(request.url_for("table_page", code=code)) + "#language", 303)


@router.get("/g/{code}/chart.svg")
def chart(code: Code, session: SessionDep) -> Response:
    """The running totals as an SVG image, one line per player."""
    state = load_game(session, code=code)
    svg = totals_chart(state.players, running_totals(state), len(state.main_rounds))
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={
            "Cache-Control": "no-cache",
            # Its own policy: the drawing's colours live in a style element inside it.
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        },
    )


@router.get("/g/{code}/chart")
def chart_figure(request: Request, code: Code, session: SessionDep) -> Response:
    """The chart as the game page shows it, asked for when its box comes into view; a
    visit that is not htmx's goes to the image itself."""
    state = load_game(session, code=code)
    if not wants_fragment(request):
        return RedirectResponse(str(request.url_for("chart", code=code)), 303)
    return render(request, "game.html", {"state": state, "chart_shown": True}, block="chart")


@router.get("/g/{code}/qr.svg")
def qr_code(request: Request, code: Code, session: SessionDep) -> Response:
    """This code's game link as a QR code, for another phone to scan."""
    load_game(session, code=code)
    return Response(
        qr_svg(share_url(request, code)),
        media_type="image/svg+xml",
        headers={"Cache-Control": "no-cache", "Content-Security-Policy": "default-src 'none'"},
    )


@router.get("/g/{code}/sheet.csv")
def sheet(code: Code, session: SessionDep) -> Response:
    """The score sheet as CSV, for a spreadsheet."""
    state = load_game(session, code=code)
    return Response(
        sheet_csv(state),
        media_type="text/csv; charset=utf-8",
        headers=attachment(
            download_name("sheet", *state.players, when=state.created_at, suffix="csv")
        ),
    )


@router.post("/g/{code}/rematch")
def rematch_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Start the rematch and go to it."""
    game = page_game_for_change(session, code, at_table=True)
    check_rematch_limit(request, session, game)
    new, _started = rematch_game(session, game=game)
    response = redirect(request, request.url_for("game_page", code=new.code))
    remember(response, request, new.code)
    return response


@router.post("/g/{code}/delete")
def delete_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Delete the game (the form asked to confirm first); the next page offers Undo."""
    delete_game(session, game=page_game_for_change(session, code))
    return RedirectResponse(request.url_for("deleted_page", code=code), 303)


@router.get("/g/{code}/deleted")
def deleted_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Says the game is deleted, and offers to undo that."""
    if isinstance(find_game(session, code=code), GameNotFound):
        return render(request, "deleted.html", {"code": code})
    return RedirectResponse(request.url_for("game_page", code=code), 303)


@router.post("/g/{code}/restore")
def restore_page(request: Request, code: Code, session: SessionDep) -> Response:
    """Undo a delete."""
    restore_game(session, code=code)
    return RedirectResponse(request.url_for("game_page", code=code), 303)


def _seat_person(form: NewGameForm, name: str) -> None:
    """Put a tapped person in the first empty seat (or a new one); a second tap removes them."""
    taken = [folded(n) for n in form.names]
    if folded(name) in taken:
        form.names[taken.index(folded(name))] = ""
        return
    for index, seat_name in enumerate(form.names):
        if not seat_name.strip():
            form.names[index] = name[:30]
            return
    if len(form.names) < MAX_PLAYERS:
        form.names.append(name[:30])


def _table_response(
    request: Request,
    state: TableState,
    form: NewGameForm,
    *,
    block: str | None = None,
    status_code: int = 200,
    deleted: Sequence[DeletedGame] = (),
    imported: str = "",
) -> Response:
    i18n.prefer(state.language)
    order = order_asked(request)
    ranked = people_in_order(state, order)
    seated = {folded(name) for name in form.names if name.strip()}
    wants_everyone = request.query_params.get("people") == "all"
    context = {
        "deleted": deleted,
        "imported": imported,
        "table": state,
        "form": form,
        "seated": {p.name for p in state.people if folded(p.name) in seated},
        "games": state.games,
        "names": {person.id: person.name for person in state.people},
        "watch_url": str(request.url_for("table_page", code=state.watch_code)),
        "keeper_url": str(request.url_for("table_page", code=state.code)),
        "season_query": _season_query(request),
        "record_names": record_names(),
        "ranked": ranked if wants_everyone else ranked[:PEOPLE_SHOWN],
        "order_links": order_links(request, order),
        "everyone_query": everyone_query(request),
    }
    return render(request, "table.html", context, block=block, status_code=status_code)


def _games_limit(request: Request) -> int | None:
    """All the games when the page asks for them all, else the newest few."""
    return None if request.query_params.get("all") == "1" else GAMES_SHOWN


def _season_asked(request: Request) -> Period:
    """The season in the address (?year=2026, or ?from=...&to=...), all time without one."""
    asked = request.query_params
    return period_from(asked.get("year"), asked.get("from"), asked.get("to"))


@router.get("/t/{code}/people/{person_id}")
def person_page(request: Request, code: Code, person_id: str, session: SessionDep) -> Response:
    """One person at the table over the season: stats, streaks, records held, head to head,
    their games newest first, and their rating over time."""
    wanted = int(person_id) if person_id.isascii() and person_id.isdigit() else -1
    # Someone merged away: errors.py answers with the page of whom they are now.
    state, chosen = load_person(session, code=code, person_id=wanted, period=_season_asked(request))
    i18n.prefer(state.language)
    if state.season is None:
        raise HTTPException(
            404, fill(_("Person %(number)s is not at this table."), number=person_id)
        )
    season = state.season
    games = [
        game
        for game in reversed(season.games)
        if any(seat.person == chosen.id for seat in game.played())
    ]
    shown = None if request.query_params.get("all") == "1" else GAMES_SHOWN
    context = {
        "table": state,
        "person": chosen,
        "season": season,
        "streak": season.streaks.get(chosen.id),
        "rating": season.ratings.now.get(chosen.id),
        "held": [
            (name, holder)
            for name in RECORD_NAMES
            for holder in getattr(season.records, name)
            if holder.person == chosen.id
        ],
        "games": games[:shown],
        "game_count": len(games),
        "names": {p.id: p.name for p in state.people},
        "season_query": _season_query(request),
        "record_names": record_names(),
    }
    return render(request, "person.html", context)


@router.get("/t/{code}/people/{person_id}/rating.svg")
def rating_svg(request: Request, code: Code, person_id: str, session: SessionDep) -> Response:
    """One person's rating after each rated game of the season, as an SVG image."""
    state = load_table(session, code=code, games_limit=0, period=_season_asked(request))
    chosen = next((p for p in state.people if str(p.id) == person_id), None)
    if chosen is None or state.season is None:
        raise HTTPException(
            404, fill(_("Person %(number)s is not at this table."), number=person_id)
        )
    points = state.season.ratings.history.get(chosen.id, [])
    return Response(
        rating_chart(chosen.name, [point.figure for point in points]),
        media_type="image/svg+xml",
        headers={
            "Cache-Control": "no-cache",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        },
    )


def _season_query(request: Request) -> str:
    """The season part of this page's address, for the links that keep it."""
    kept = _season_params(request)
    return ("?" + urlencode(kept)) if kept else ""


def _season_params(request: Request) -> dict[str, str]:
    return {k: v for k, v in request.query_params.items() if k in ("year", "from", "to") and v}


RECORD_NAMES = {
    "lowest_total": lazy("Lowest game"),
    "highest_total": lazy("Highest game"),
    "highest_round": lazy("Most points in one round"),
    "most_went_out": lazy("Most rounds gone out in one game"),
    "longest_win_streak": lazy("Longest win streak"),
}


def record_names() -> dict[str, str]:
    """Each record's name, in the reader's language."""
    return {key: str(name) for key, name in RECORD_NAMES.items()}


def _table_for_edit(
    session: Session, code: str, *, games_limit: int | None = GAMES_SHOWN
) -> TableState:
    state = load_table(session, code=code, games_limit=games_limit)
    if not state.can_edit:
        raise ReadOnlyTable(ReadOnlyTable.message)
    return state
