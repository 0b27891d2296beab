"""Every error a request can meet, answered once: problem JSON (a `detail` in words) under
/api, a page that says it everywhere else. The services raise; this maps, and no route
catches a service error: a page that keeps what was typed says how to show its form again
(show_again), and the one handler here draws it with the error's sentence and status."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Receive, Scope, Send

from ..db import is_busy, is_retryable
from ..games import (
    GameError,
    GameNotFound,
    NoSuchRound,
    NoSuchSeat,
    PlayerError,
    ReadOnlyLink,
    ReplacedLink,
    StaleVersion,
    VersionRequired,
    load_game,
)
from ..i18n import fill, lazy, ngettext
from ..i18n import gettext as _
from ..imports import ImportRefused, ImportTooBig
from ..names import UnreadableText
from ..ratelimit import RateLimited
from ..rules.cards import CardError
from ..rules.scoring import RoundError
from ..rules.seasons import PeriodError
from ..rules.solitaire import PileError
from ..tables import (
    NoSuchPerson,
    PersonMerged,
    ReadOnlyTable,
    TableError,
    TableNotFound,
    is_keeper_code,
)
from .rendering import error_page, replaced_link_page
from .schemas import game_public

log = logging.getLogger("crownkeeper")
BUSY_MESSAGE = lazy("The score keeper is busy; try again.")
BUSY_RETRY_AFTER = "2"

# Every error the services raise, with the one status it is answered with, on the API and on
# pages alike; its sentence is its str. The most specific class first: the first that matches
# answers. tests/web/test_errors_mapped_once.py drives each through a request.
STATUS: list[tuple[type[Exception], int]] = [
    (ReplacedLink, 410),
    (ReadOnlyLink, 403),
    (ReadOnlyTable, 403),
    (GameNotFound, 404),
    (NoSuchRound, 404),
    (NoSuchSeat, 404),
    (TableNotFound, 404),
    (NoSuchPerson, 404),
    (StaleVersion, 409),
    (PersonMerged, 409),
    (VersionRequired, 428),
    (PlayerError, 422),
    (TableError, 422),
    (RoundError, 422),
    (CardError, 422),
    (PeriodError, 422),
    (ImportTooBig, 413),
    (ImportRefused, 422),
    # Raised inside the services and said again as one of the errors above; answered here
    # too, so one that ever got out would still be a 4xx in words.
    (PileError, 422),
    (UnreadableText, 422),
    (RateLimited, 429),
    (GameError, 409),
]
FORM_AGAIN = "form_again"


def install(app: FastAPI) -> None:
    """Answer every error the routes leave to the app."""
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    for error_class, _status in STATUS:
        app.add_exception_handler(error_class, _service_error)
    app.add_exception_handler(DBAPIError, _database_problem)


def is_api(request: Request) -> bool:
    return _path(request).startswith("/api")


def is_static(request: Request) -> bool:
    return _path(request).startswith("/static")


def _path(request: Request) -> str:
    return request.url.path.removeprefix(request.scope.get("root_path", ""))


def api_problem(status_code: int, detail: str, **extra: Any) -> JSONResponse:
    """The API's answer to a problem: its status and a `detail` in words."""
    return JSONResponse({"detail": detail, **extra}, status_code=status_code)


def draws_page(request: Request) -> bool:
    """Whether an error is answered with a page (else problem JSON: the API, static files and
    the live stream, which no person reads as a page)."""
    return not (is_api(request) or is_static(request) or request.url.path.endswith("/events"))


def problem(
    request: Request,
    detail: str,
    status_code: int,
    headers: dict[str, str] | None = None,
    **extra: object,
) -> Response:
    """JSON with a `detail` for the API, a page that says it for everything else."""
    if draws_page(request):
        response = error_page(request, detail, status_code=status_code)
    else:
        response = api_problem(status_code, detail, **extra)
    response.headers.update(headers or {})
    return response


def show_again(request: Request, form_again: Callable[[Exception], Response]) -> None:
    """How this page shows its form again when a service error stops the change it asked
    for: form_again draws the form with what was typed and the error's sentence. It runs in
    a thread, after the request's session is closed (one that reads opens its own on
    request.app.state.engine); the error's status and headers are set here."""
    setattr(request.state, FORM_AGAIN, form_again)


def forget_form(request: Request) -> None:
    """A request tried again from the start shows no form until its route says which."""
    request.scope.get("state", {}).pop(FORM_AGAIN, None)


def refusal(scope: Scope, detail: str, status_code: int) -> Response:
    """The answer to a request refused before it reached the routes (too big, cross-site)."""
    response = problem(Request(scope), detail, status_code)
    # The body may be left unread: close the connection rather than wait for it.
    response.headers["Connection"] = "close"
    return response


def status_of(error: Exception) -> int:
    """The HTTP status a service error is answered with."""
    return next(status for error_class, status in STATUS if isinstance(error, error_class))


async def _service_error(request: Request, exc: Exception) -> Response:
    status_code = status_of(exc)
    if draws_page(request):
        response = await _service_page(request, exc, status_code)
    else:
        extra = _problem_extra(exc) if is_api(request) else {}
        response = api_problem(status_code, str(exc), **extra)
    if isinstance(exc, RateLimited):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def _service_page(request: Request, error: Exception, status_code: int) -> Response:
    """The page for a service error: a replaced link's own page, a person merged away's new
    page, the route's form again with what was typed, or the page that says it."""
    if isinstance(error, ReplacedLink):
        return replaced_link_page(request, error)
    if isinstance(error, PersonMerged):
        moved = _merged_person_page(request, error)
        if moved is not None:
            return moved
    form_again: Callable[[Exception], Response] | None = getattr(request.state, FORM_AGAIN, None)
    if form_again is None:
        return error_page(request, str(error), status_code=status_code)
    response = await run_in_threadpool(form_again, error)
    response.status_code = status_code
    return response


def _merged_person_page(request: Request, merged: PersonMerged) -> Response | None:
    """A person's page asked for someone merged away: the same page of whom they are now,
    the season in the address kept."""
    route = request.scope.get("route")
    if request.method != "GET" or "person_id" not in request.path_params or route is None:
        return None
    params = {**request.path_params, "person_id": str(merged.into_id)}
    kept = request.url_for(route.name, **params)
    return RedirectResponse(kept.replace(query=request.url.query), 303)


def _problem_extra(error: Exception) -> dict[str, Any]:
    """What the API's answer holds beside `detail`: the game as it is now for a version
    problem, the seats' and the table's messages for a round, the kept person for a merge."""
    if isinstance(error, StaleVersion | VersionRequired) and error.current is not None:
        return {"game": game_public(error.current)}
    if isinstance(error, RoundError):
        seat_errors = {str(seat): text for seat, text in error.seat_errors.items()}
        return {
            "seat_errors": seat_errors,
            "table_errors": error.table_errors,
            "to_confirm": sorted(error.to_confirm),
        }
    if isinstance(error, PersonMerged):
        return {"into": error.into_id}
    return {}


async def _database_problem(request: Request, exc: Exception) -> Response:
    # Busy: SQLite's write lock stayed taken past the busy timeout; retryable: a race lost
    # on PostgreSQL every time it was tried (retrying.TRIES).
    assert isinstance(exc, DBAPIError)
    if not (is_busy(exc) or is_retryable(exc)):
        raise exc
    return problem(request, str(BUSY_MESSAGE), 503, headers={"Retry-After": BUSY_RETRY_AFTER})


def _describe(error: dict[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        return _("The request body is not valid JSON.")
    where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    message = validation_words(error).removeprefix("Value error, ")
    if not where:
        return fill(_("%(problem)s."), problem=message)
    return fill(_("%(where)s: %(problem)s."), where=where, problem=message)


def validation_words(error: dict[str, Any]) -> str:
    """Pydantic's sentence for a value that does not fit, in the reader's language: the
    kinds an API client meets, said again from Pydantic's own English (which any other kind
    keeps, as does one whose English reads otherwise in this version of Pydantic)."""
    english = str(error.get("msg", "is not valid"))
    context = error.get("ctx") or {}
    kind = error.get("type")
    said = _PYDANTIC_WORDS.get(str(kind))
    try:
        if said is not None:
            words = fill(str(said), **context)
            english_again = fill(str.__str__(said), **context)
        elif kind in _PYDANTIC_COUNTED:
            singular, plural, key = _PYDANTIC_COUNTED[str(kind)]
            count = int(context[key])
            words = ngettext(singular, plural, count) % {**context, "num": count}
            english_again = (singular if count == 1 else plural) % {**context, "num": count}
        else:
            return english
    except (KeyError, TypeError, ValueError):
        return english
    return words if english_again == english else english


_PYDANTIC_WORDS = {
    "missing": lazy("Field required"),
    "int_type": lazy("Input should be a valid integer"),
    "int_parsing": lazy("Input should be a valid integer, unable to parse string as an integer"),
    "int_from_float": lazy("Input should be a valid integer, got a number with a fractional part"),
    "bool_type": lazy("Input should be a valid boolean"),
    "bool_parsing": lazy("Input should be a valid boolean, unable to interpret input"),
    "string_type": lazy("Input should be a valid string"),
    "list_type": lazy("Input should be a valid list"),
    "dict_type": lazy("Input should be a valid dictionary"),
    "model_attributes_type": lazy(
        "Input should be a valid dictionary or object to extract fields from"
    ),
    "greater_than_equal": lazy("Input should be greater than or equal to %(ge)s"),
    "less_than_equal": lazy("Input should be less than or equal to %(le)s"),
    "greater_than": lazy("Input should be greater than %(gt)s"),
    "less_than": lazy("Input should be less than %(lt)s"),
    "literal_error": lazy("Input should be %(expected)s"),
    "enum": lazy("Input should be %(expected)s"),
    "extra_forbidden": lazy("Extra inputs are not permitted"),
    "date_from_datetime_parsing": lazy("Input should be a valid date or datetime, %(error)s"),
}
"""Pydantic's sentences by the kind of error, with its context's values as placeholders."""
HTTP_PHRASES = {
    "Not Found": lazy("Not Found"),
    "Method Not Allowed": lazy("Method Not Allowed"),
}
"""Starlette's own details, said in the reader's language."""
_PYDANTIC_COUNTED = {
    "string_too_long": (
        "String should have at most %(num)s character",
        "String should have at most %(num)s characters",
        "max_length",
    ),
    "string_too_short": (
        "String should have at least %(num)s character",
        "String should have at least %(num)s characters",
        "min_length",
    ),
    "too_long": (
        "List should have at most %(num)s item after validation, not %(actual_length)s",
        "List should have at most %(num)s items after validation, not %(actual_length)s",
        "max_length",
    ),
    "too_short": (
        "List should have at least %(num)s item after validation, not %(actual_length)s",
        "List should have at least %(num)s items after validation, not %(actual_length)s",
        "min_length",
    ),
}
"""Pydantic's sentences that count (characters, items), as ngettext takes them."""


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    code = request.path_params.get("code")
    if code is not None and is_api(request):
        # An unknown code or a watch code decides the answer, whatever the body held.
        found = _code_problem(request, code)
        if found is not None:
            return await _service_error(request, found)
    problems = [_describe(error) for error in exc.errors()]
    return problem(request, " ".join(problems), 422, problems=problems)


def _code_problem(request: Request, code: str) -> Exception | None:
    """Why a request for code must fail whatever its body: an unknown code, or a change
    asked for with a watch code (of a game, or of a table for the table routes). Used when
    the body itself could not be read."""
    route = request.scope.get("route")
    of_table = getattr(route, "path", "").startswith("/api/tables/")
    with Session(request.app.state.engine) as session:
        try:
            can_edit = (
                is_keeper_code(session, code=code)
                if of_table
                else load_game(session, code=code).can_edit
            )
        except (GameNotFound, TableNotFound) as error:
            return error
    if request.method != "GET" and not can_edit:
        return (
            ReadOnlyTable(ReadOnlyTable.message) if of_table else ReadOnlyLink(ReadOnlyLink.message)
        )
    return None


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    detail = str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found" and not is_api(request):
        detail = fill(_("There is no page at %(path)s."), path=request.url.path)
    elif detail in HTTP_PHRASES:
        detail = str(HTTP_PHRASES[detail])
    return problem(request, detail, exc.status_code, headers=exc.headers)


def failure_answer(scope: Scope, busy: bool) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The answer to an error nothing else answered: 503 when the database is busy, else
    500, in words either way."""
    request = Request(scope)
    try:
        if busy:
            return problem(
                request, str(BUSY_MESSAGE), 503, headers={"Retry-After": BUSY_RETRY_AFTER}
            )
        return problem(request, _("Something went wrong on the server; try again."), 500)
    except Exception:  # the error page itself failed: say it plainly
        log.exception("Error page failed")
        return JSONResponse({"detail": _("Something went wrong on the server.")}, status_code=500)
