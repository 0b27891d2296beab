"""`python -m app`: serve Crownkeeper with uvicorn in one process, as the settings say."""

import uvicorn

from .addresses import announce
from .config import settings


def main() -> None:
    """Run the server (one process: SQLite and live updates want that)."""
    announce(settings)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        root_path=settings.root_path,
        # The app reads X-Forwarded-* itself (app/proxy.py), host included.
        proxy_headers=False,
        workers=1,
        # Live pages hold their streams open; don't let them stall a restart.
        timeout_graceful_shutdown=3,
    )


if __name__ == "__main__":
    main()
