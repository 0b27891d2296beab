"""The app factory: settings, the database's safeguards on start, routes and static files.

`app.main:app` is the app for the environment's settings, built on first use: importing this
module starts nothing and opens no database. `uvicorn app.main:app`, `fastapi run
app/main.py` and gunicorn's uvicorn workers serve it; `uvicorn --factory app.main:create_app`
and `python -m app` build their own. Each takes the same safeguards in its lifespan.
"""

import asyncio
import gc
import logging
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from functools import partial

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import backup, live, logs, serve
from .config import PROJECT_DIR, Settings, SettingsError, settings
from .db import MissingDriver, is_busy, make_engine
from .games import (
    GameNotFound,
    GameState,
    NoSuchRound,
    ReadOnlyLink,
    ReplacedLink,
    load_for_live_pages,
)
from .guards import BodyLimitMiddleware, CrossSiteMiddleware, HeadMiddleware, StreamStartGate
from .proxy import ForwardedHostMiddleware, ProxyHeadersMiddleware
from .ratelimit import CreateLimiter
from .tables import NoSuchPerson, ReadOnlyTable, TableNotFound
from .web import api, pages, piles, stream, table_pages, tables_api

log = logging.getLogger("crownkeeper")
BUSY_MESSAGE = "The score keeper is busy; try again."
BUSY_RETRY_AFTER = "2"


def create_app(app_settings: Settings | None = None) -> FastAPI:
    """Build the app for app_settings (the environment's settings by default)."""
    chosen = app_settings or settings
    chosen.check()
    engine = make_engine(chosen.database_url, busy_timeout_ms=chosen.busy_timeout_ms)
    logs.install()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        daily = None
        relay = None
        held = None
        try:
            # However the app was started: the SQLite lock (one server, one process), a
            # database that is Crownkeeper's, brought up to date. Refused in one line.
            held = serve.open_database(chosen, engine)
            relay = await live.start(engine, load_state=partial(_load_for_live_pages, engine))
            if chosen.backup_dir:
                daily = asyncio.create_task(
                    backup.daily_backups(engine, chosen.backup_dir, keep=chosen.backup_keep)
                )
            # Everything loaded so far lives as long as the process: keep the collector from
            # walking it again and again, which pauses live updates to a table of watchers.
            gc.collect()
            gc.freeze()
            yield
        finally:
            if daily is not None:
                daily.cancel()
                with suppress(asyncio.CancelledError):
                    await daily
            await live.stop(relay)
            engine.dispose()
            serve.close_database(held)

    app = FastAPI(
        title="Crownkeeper",
        summary="Keep score for Five Crowns at the table.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.engine = engine
    app.state.settings = chosen
    app.state.create_limiter = CreateLimiter(chosen.create_rate_limit)
    app.state.streams = stream.StreamCounts(
        per_game=chosen.streams_per_game, total=chosen.streams_total
    )
    app.mount("/static", StaticFiles(directory=PROJECT_DIR / "static"), name="static")
    app.include_router(api.router)
    app.include_router(tables_api.router)
    app.include_router(pages.router)
    app.include_router(table_pages.router)
    app.include_router(piles.router)
    app.include_router(stream.router)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(GameNotFound, _game_problem)
    app.add_exception_handler(NoSuchRound, _game_problem)
    app.add_exception_handler(ReadOnlyLink, _game_problem)
    for table_problem in (TableNotFound, ReadOnlyTable, NoSuchPerson):
        app.add_exception_handler(table_problem, _game_problem)
    app.add_exception_handler(OperationalError, _database_problem)
    # Listed innermost first: each add_middleware wraps the ones before it. Requests pass
    # the proxy headers first (so addresses, scheme and host are the phone's), then HEAD,
    # the body limit and the cross-site check; every answer, refusals and errors included,
    # leaves through SecurityHeadersMiddleware. Outermost, live pages start a few at a time.
    app.add_middleware(GZipMiddleware, minimum_size=512)
    app.add_middleware(CrossSiteMiddleware, refuse=_refusal)
    app.add_middleware(
        BodyLimitMiddleware,
        limit=chosen.max_body_bytes,
        import_limit=chosen.import_max_bytes,
        refuse=_refusal,
    )
    app.add_middleware(HeadMiddleware)
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=chosen.forwarded_allow_ips)
    app.add_middleware(ForwardedHostMiddleware, trusted=chosen.forwarded_allow_ips)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(StreamStartGate)
    # A start refused by the lifespan (the database in use, not Crownkeeper's) in one line.
    app.add_middleware(serve.StartRefusals)
    return app


_building = threading.Lock()


def __getattr__(name: str) -> FastAPI:
    """`app.main:app`: the app for the environment's settings, built once, on first use."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _building:
        built: FastAPI | None = globals().get("app")
        if built is None:
            try:
                built = create_app()
            except (SettingsError, MissingDriver) as error:
                print(f"Crownkeeper cannot start: {error}", file=sys.stderr)
                raise SystemExit(serve.CANNOT_START) from None
            globals()["app"] = built
    return built


def __dir__() -> list[str]:
    return sorted({*globals(), "app"})


def _load_for_live_pages(engine: Engine, watch_code: str) -> GameState:
    with Session(engine) as session:
        return load_for_live_pages(session, watch_code=watch_code)


def _describe(error: dict) -> str:  # type: ignore[type-arg]
    if error.get("type") == "json_invalid":
        return "The request body is not valid JSON."
    where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    return f"{where}: {message}." if where else f"{message}."


def _is_api(request: Request) -> bool:
    return request.url.path.removeprefix(request.scope.get("root_path", "")).startswith("/api")


def _is_static(request: Request) -> bool:
    return request.url.path.removeprefix(request.scope.get("root_path", "")).startswith("/static")


def _problem(
    request: Request,
    detail: str,
    status_code: int,
    headers: dict[str, str] | None = None,
    **extra: object,
) -> Response:
    """JSON with a `detail` for the API, a page that says it for everything else."""
    if _is_api(request) or _is_static(request) or request.url.path.endswith("/events"):
        response: Response = JSONResponse({"detail": detail, **extra}, status_code=status_code)
    else:
        response = pages.error_page(request, detail, status_code=status_code)
    response.headers.update(headers or {})
    return response


def _refusal(scope: Scope, detail: str, status_code: int) -> Response:
    """The answer to a request refused before it reached the routes (too big, cross-site)."""
    response = _problem(Request(scope), detail, status_code)
    # The body may be left unread: close the connection rather than wait for it.
    response.headers["Connection"] = "close"
    return response


async def _database_problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, OperationalError)
    if not is_busy(exc):
        raise exc
    return _problem(request, BUSY_MESSAGE, 503, headers={"Retry-After": BUSY_RETRY_AFTER})


GAME_PROBLEM_STATUS = {
    GameNotFound: 404,
    ReplacedLink: 404,
    NoSuchRound: 404,
    ReadOnlyLink: 403,
    TableNotFound: 404,
    NoSuchPerson: 404,
    ReadOnlyTable: 403,
}


async def _game_problem(request: Request, exc: Exception) -> Response:
    if isinstance(exc, ReplacedLink) and not _is_api(request):
        return pages.replaced_link_page(request, exc)
    return _problem(request, str(exc), GAME_PROBLEM_STATUS[type(exc)])


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    code = request.path_params.get("code")
    if code is not None and _is_api(request):
        # An unknown code or a watch code decides the answer, whatever the body held.
        path = request.url.path.removeprefix(request.scope.get("root_path", ""))
        problem_of = tables_api if path.startswith("/api/tables/") else api
        found = problem_of.code_problem(request.app.state.engine, code, request.method)
        if found is not None:
            return await _game_problem(request, found)
    problems = [_describe(error) for error in exc.errors()]
    return _problem(request, " ".join(problems), 422, problems=problems)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    detail = str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found" and not _is_api(request):
        detail = f"There is no page at {request.url.path}."
    return _problem(request, detail, exc.status_code, headers=exc.headers)


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
        static = _is_static(Request(scope))

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
            answer = _failure_answer(scope, busy)
            await answer(scope, receive, send_with_headers)


def _failure_answer(scope: Scope, busy: bool) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    request = Request(scope)
    try:
        if busy:
            return _problem(request, BUSY_MESSAGE, 503, headers={"Retry-After": BUSY_RETRY_AFTER})
        return _problem(request, "Something went wrong on the server; try again.", 500)
    except Exception:  # the error page itself failed: say it plainly
        log.exception("Error page failed")
        return JSONResponse({"detail": "Something went wrong on the server."}, status_code=500)
