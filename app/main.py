"""The app factory: settings, the database's safeguards on start, routes and static files.

`app.main:app` is the app for the environment's settings, built on first use: importing this
module starts nothing and opens no database. `uvicorn app.main:app`, `fastapi run
app/main.py` and gunicorn's uvicorn workers serve it; `uvicorn --factory app.main:create_app`
and `python -m app` build their own. Each takes the same safeguards in its lifespan.
"""

import asyncio
import gc
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from functools import partial

from fastapi import FastAPI
from sqlalchemy import Engine
from sqlmodel import Session

from . import backup, housekeeping, live, logs, serve
from .compression import CompressionMiddleware, PrecompressedStatic
from .config import STATIC_DIR, Settings, SettingsError, settings
from .db import MissingDriver, make_engine
from .games import CommitHook, GameEvents, GameState, load_for_live_pages, sessions
from .guards import (
    BodyLimitMiddleware,
    CrossSiteMiddleware,
    HeadMiddleware,
    SecurityHeadersMiddleware,
    StreamStartGate,
)
from .proxy import ForwardedHostMiddleware, ProxyHeadersMiddleware
from .ratelimit import CreateLimiter
from .tables import forget_games, record_change
from .web import (
    api,
    errors,
    installable,
    languages,
    pages,
    piles,
    stream,
    table_pages,
    tables_api,
)

SWITCH_INTERVAL_S = 0.0005


GC_THRESHOLDS = (50_000, 20, 100)
"""The cycle collector's thresholds (gc.set_threshold), set when the app starts."""


def game_events(*, publish: CommitHook | None = None) -> GameEvents:
    """Who hears of a game's changes: its table (the history its figures come from, and the
    table's version, in the change's own transaction) and, after the commit, publish (the
    live pages)."""
    return GameEvents(
        changed=(record_change,),
        committed=() if publish is None else (publish,),
        purged=(forget_games,),
    )


def create_app(app_settings: Settings | None = None) -> FastAPI:
    """Build the app for app_settings (the environment's settings by default)."""
    chosen = app_settings or settings
    chosen.check()
    engine = make_engine(chosen.database_url, busy_timeout_ms=chosen.busy_timeout_ms)
    # /healthz reads on connections of its own and never waits for a writer.
    health_engine = make_engine(chosen.database_url, busy_timeout_ms=0)
    logs.install()
    # Every session the app opens carries who hears of a game's changes: the tables (each
    # table's history and version, in the change's own transaction) and, once it is
    # committed, the open pages.
    updates = live.LiveUpdates()
    open_session = sessions(engine, game_events(publish=updates.publish_change))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        daily = None
        purging = None
        held = None
        try:
            # However the app was started: the SQLite lock (one server, one process), a
            # database that is Crownkeeper's, brought up to date. Refused in one line.
            held = serve.open_database(chosen, engine)
            await updates.start(engine, load_state=partial(_load_for_live_pages, engine))
            await housekeeping.purge(open_session)
            purging = asyncio.create_task(housekeeping.purge_daily(open_session))
            if chosen.backup_dir:
                daily = asyncio.create_task(
                    backup.daily_backups(engine, chosen.backup_dir, keep=chosen.backup_keep)
                )
            # Everything loaded so far lives as long as the process: keep the collector from
            # walking it again and again, which pauses live updates to a table of watchers.
            gc.collect()
            gc.freeze()
            # A full collection walks every object the process keeps (a busy table's kept
            # seasons alone run to a hundred thousand): with Python's defaults a table page
            # now and then waited 100 ms or more for one. Collect young objects after
            # 50,000 allocations, not 700, and the rest far less often.
            gc.set_threshold(*GC_THRESHOLDS)
            # A thread busy in Python (an import, a burst of saves) hands the interpreter on
            # every half millisecond, not every five: the event loop gives up the interpreter
            # at each system call, and at the default it waited up to 5 ms to get it back
            # each time, which added up to a second and more for a page or /healthz.
            sys.setswitchinterval(SWITCH_INTERVAL_S)
            yield
        finally:
            for task in (purging, daily):
                if task is not None:
                    task.cancel()
                    with suppress(asyncio.CancelledError):
                        await task
            await updates.stop()
            engine.dispose()
            health_engine.dispose()
            serve.close_database(held)

    app = FastAPI(
        title="Crownkeeper",
        summary="Keep score for Five Crowns at the table.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.engine = engine
    app.state.sessions = open_session
    app.state.health_engine = health_engine
    app.state.settings = chosen
    app.state.create_limiter = CreateLimiter(chosen.create_rate_limit)
    app.state.live = updates
    app.state.streams = stream.StreamCounts(
        per_game=chosen.streams_per_game, total=chosen.streams_total
    )
    app.state.stream_reads = {}
    app.include_router(api.router)
    app.include_router(tables_api.router)
    app.include_router(pages.router)
    app.include_router(table_pages.router)
    app.include_router(piles.router)
    app.include_router(stream.router)
    app.router.routes.extend(stream.stream_routes())
    app.include_router(installable.router)
    app.include_router(languages.router)
    # After the routes: /static/words-{lang}.js (installable) is answered before the mount,
    # which Starlette would otherwise match first.
    app.mount("/static", PrecompressedStatic(directory=STATIC_DIR), name="static")
    errors.install(app)
    # Listed innermost first: each add_middleware wraps the ones before it. Requests pass
    # the proxy headers first (so addresses, scheme and host are the phone's), then HEAD,
    # the body limit and the cross-site check; every answer, refusals and errors included,
    # leaves through SecurityHeadersMiddleware. Outermost, live pages start a few at a time.
    app.add_middleware(CompressionMiddleware)
    app.add_middleware(CrossSiteMiddleware, refuse=errors.refusal)
    app.add_middleware(
        BodyLimitMiddleware,
        limit=chosen.max_body_bytes,
        import_limit=chosen.import_max_bytes,
        refuse=errors.refusal,
    )
    app.add_middleware(HeadMiddleware)
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=chosen.forwarded_allow_ips)
    app.add_middleware(ForwardedHostMiddleware, trusted=chosen.forwarded_allow_ips)
    # Refusals and errors too are in the reader's language.
    app.add_middleware(languages.LanguageMiddleware)
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
