"""Every error a request can meet, answered once: problem JSON (a `detail` in words) under
/api, a page that says it everywhere else. The services raise; this maps."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DBAPIError
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
)
from ..ratelimit import RateLimited
from ..rules.cards import CardError
from ..rules.scoring import RoundError
from ..tables import NoSuchPerson, PersonMerged, ReadOnlyTable, TableError, TableNotFound
from .deps import code_problem
from .rendering import error_page, replaced_link_page
from .schemas import game_public

log = logging.getLogger("crownkeeper")
BUSY_MESSAGE = "The score keeper is busy; try again."
BUSY_RETRY_AFTER = "2"

# The most specific class first: the first that matches answers.
STATUS: list[tuple[type[Exception], int]] = [
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
    (RateLimited, 429),
    (GameError, 409),
]


def install(app: FastAPI) -> None:
    """Answer every error the routes leave to the app."""
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    for error_class, _ in STATUS:
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


def problem(
    request: Request,
    detail: str,
    status_code: int,
    headers: dict[str, str] | None = None,
    **extra: object,
) -> Response:
    """JSON with a `detail` for the API, a page that says it for everything else."""
    if is_api(request) or is_static(request) or request.url.path.endswith("/events"):
        response: Response = api_problem(status_code, detail, **extra)
    else:
        response = error_page(request, detail, status_code=status_code)
    response.headers.update(headers or {})
    return response


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
    if isinstance(exc, ReplacedLink) and not is_api(request):
        return replaced_link_page(request, exc)
    status_code = status_of(exc)
    extra: dict[str, Any] = {}
    headers: dict[str, str] = {}
    if isinstance(exc, RateLimited):
        headers["Retry-After"] = str(exc.retry_after)
    if (
        is_api(request)
        and isinstance(exc, StaleVersion | VersionRequired)
        and exc.current is not None
    ):
        extra["game"] = game_public(exc.current)
    if is_api(request) and isinstance(exc, RoundError):
        extra["seat_errors"] = {str(seat): text for seat, text in exc.seat_errors.items()}
        extra["table_errors"] = exc.table_errors
        extra["to_confirm"] = sorted(exc.to_confirm)
    if is_api(request) and isinstance(exc, PersonMerged):
        extra["into"] = exc.into_id
    return problem(request, str(exc), status_code, headers=headers, **extra)


async def _database_problem(request: Request, exc: Exception) -> Response:
    # Busy: SQLite's write lock stayed taken past the busy timeout; retryable: a race lost
    # on PostgreSQL every time it was tried (retrying.TRIES).
    assert isinstance(exc, DBAPIError)
    if not (is_busy(exc) or is_retryable(exc)):
        raise exc
    return problem(request, BUSY_MESSAGE, 503, headers={"Retry-After": BUSY_RETRY_AFTER})


def _describe(error: dict[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        return "The request body is not valid JSON."
    where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    return f"{where}: {message}." if where else f"{message}."


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    code = request.path_params.get("code")
    if code is not None and is_api(request):
        # An unknown code or a watch code decides the answer, whatever the body held.
        found = code_problem(request, code)
        if found is not None:
            return await _service_error(request, found)
    problems = [_describe(error) for error in exc.errors()]
    return problem(request, " ".join(problems), 422, problems=problems)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    detail = str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found" and not is_api(request):
        detail = f"There is no page at {request.url.path}."
    return problem(request, detail, exc.status_code, headers=exc.headers)


def failure_answer(scope: Scope, busy: bool) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The answer to an error nothing else answered: 503 when the database is busy, else
    500, in words either way."""
    request = Request(scope)
    try:
        if busy:
            return problem(request, BUSY_MESSAGE, 503, headers={"Retry-After": BUSY_RETRY_AFTER})
        return problem(request, "Something went wrong on the server; try again.", 500)
    except Exception:  # the error page itself failed: say it plainly
        log.exception("Error page failed")
        return JSONResponse({"detail": "Something went wrong on the server."}, status_code=500)
