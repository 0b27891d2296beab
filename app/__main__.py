"""`python -m app`: serve Crownkeeper with uvicorn, as the settings say."""

import sys

import uvicorn

from .addresses import announce
from .config import SettingsError, settings


def main() -> None:
    """Run the server: one process on SQLite, WORKERS processes on PostgreSQL."""
    try:
        settings.check()
    except SettingsError as error:
        sys.exit(f"Crownkeeper cannot start: {error}")
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
        # A worker busy for a few seconds (a burst of saves to thousands of open pages on a
        # crowded machine) is not hung: killing it would cut all its pages at once.
        timeout_worker_healthcheck=30,
    )


if __name__ == "__main__":
    main()
