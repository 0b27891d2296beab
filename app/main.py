"""The app factory: settings, database migration on start, routes and static files."""

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import live, logs
from .config import PROJECT_DIR, Settings, settings
from .db import make_engine
from .games import (
    GameNotFound,
    GameState,
    NoSuchRound,
    ReadOnlyLink,
    ReplacedLink,
    load_for_live_pages,
)
from .migrate import upgrade_to_head
from .proxy import ForwardedHostMiddleware, ProxyHeadersMiddleware
from .web import api, pages, piles, stream


def create_app(app_settings: Settings | None = None) -> FastAPI:
    """Build the app for app_settings (the environment's settings by default)."""
    chosen = app_settings or settings
    chosen.check()
    engine = make_engine(chosen.database_url)
    logs.install()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            upgrade_to_head(engine)
            await live.start(engine, load_state=partial(_load_for_live_pages, engine))
            # Everything loaded so far lives as long as the process: keep the collector from
            # walking it again and again, which pauses live updates to a table of watchers.
            gc.collect()
            gc.freeze()
            yield
        finally:
            await live.stop()
            engine.dispose()

    app = FastAPI(
        title="Crownkeeper",
        summary="Keep score for Five Crowns at the table.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.engine = engine
    app.state.settings = chosen
    app.mount("/static", StaticFiles(directory=PROJECT_DIR / "static"), name="static")
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(piles.router)
    app.include_router(stream.router)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(GameNotFound, _game_problem)
    app.add_exception_handler(NoSuchRound, _game_problem)
    app.add_exception_handler(ReadOnlyLink, _game_problem)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(GZipMiddleware, minimum_size=512)
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=chosen.forwarded_allow_ips)
    app.add_middleware(ForwardedHostMiddleware, trusted=chosen.forwarded_allow_ips)
    return app


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


def _problem(request: Request, detail: str, status_code: int, **extra: object) -> Response:
    """JSON with a `detail` for the API, a page that says it for everything else."""
    if _is_api(request) or _is_static(request):
        return JSONResponse({"detail": detail, **extra}, status_code=status_code)
    return pages.error_page(request, detail, status_code=status_code)


GAME_PROBLEM_STATUS = {
    GameNotFound: 404,
    ReplacedLink: 404,
    NoSuchRound: 404,
    ReadOnlyLink: 403,
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
        found = api.code_problem(request.app.state.engine, code, request.method)
        if found is not None:
            return await _game_problem(request, found)
    problems = [_describe(error) for error in exc.errors()]
    return _problem(request, " ".join(problems), 422, problems=problems)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    detail = str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found" and not _is_api(request):
        detail = f"There is no page at {request.url.path}."
    return _problem(request, detail, exc.status_code)


SECURITY_HEADERS = [
    (b"referrer-policy", b"no-referrer"),
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
]


class SecurityHeadersMiddleware:
    """Game links stay off other sites (no referrer) and pages run no inline script."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
