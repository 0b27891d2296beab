"""`python -m app` (or the installed console script, `crownkeeper`): serve Crownkeeper with
uvicorn, as the settings say (one process on SQLite, WORKERS processes on PostgreSQL);
`serve` says so by name.

`backup [PATH]` writes a consistent copy of the database while the server runs;
`restore PATH` puts a checked copy back (with the server stopped).
"""

import sys

import uvicorn

from .addresses import announce
from .config import SettingsError, settings
from .db import MissingDriver, check_driver
from .serve import concurrency_limit, raise_open_file_limit, take_database


def main() -> None:
    """Run the command asked for: serve (the default), backup or restore."""
    arguments = sys.argv[1:]
    if arguments and arguments != ["serve"]:
        from .commands import run_command

        raise SystemExit(run_command(arguments, settings))
    serve()


def serve() -> None:
    """Run the server: one process on SQLite, WORKERS processes on PostgreSQL."""
    try:
        settings.check()
        check_driver(settings.database_url)
    except (SettingsError, MissingDriver) as error:
        sys.exit(f"Crownkeeper cannot start: {error}")
    # Refused here in one line, before the address is printed; the app's lifespan then takes
    # the same safeguards in this process (on PostgreSQL, in each worker).
    take_database(settings)
    open_files = raise_open_file_limit()
    announce(settings)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        root_path=settings.root_path,
        # The app reads X-Forwarded-* itself (app/proxy.py), host included.
        proxy_headers=False,
        workers=settings.workers,
        # Live pages hold their streams open; don't let them stall a restart.
        timeout_graceful_shutdown=3,
        limit_concurrency=concurrency_limit(settings, open_files),
        timeout_keep_alive=settings.timeout_keep_alive,
        # Room in the queue of connections waiting to be accepted for a crowd of pages
        # arriving at once (STREAMS_TOTAL), so the table's own requests are not dropped and
        # retried a second or more later; the kernel caps it at net.core.somaxconn.
        backlog=max(2048, 2 * settings.streams_total),
        # A worker busy for a few seconds (a burst of saves to thousands of open pages on a
        # crowded machine) is not hung: killing it would cut all its pages at once.
        timeout_worker_healthcheck=30,
    )


if __name__ == "__main__":
    main()
