"""`python -m app`: serve Crownkeeper with uvicorn in one process, as the settings say."""

import uvicorn

from .config import settings


def main() -> None:
    """Run the server (one process: SQLite and live updates want that)."""
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        # The app reads X-Forwarded-* itself (app/proxy.py), host included.
        proxy_headers=False,
        workers=1,
    )


if __name__ == "__main__":
    main()
