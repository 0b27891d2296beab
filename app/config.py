"""Settings, read once from environment variables (see the README for each)."""

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url

_PACKAGE_DIR = Path(__file__).resolve().parent
# Installed (`pip install .` or the wheel), templates, static files and migrations are package
# data inside app/ (pyproject.toml maps them there); in the source tree, which an editable
# install runs from, they sit beside app/.
_FILES_DIR = _PACKAGE_DIR if (_PACKAGE_DIR / "templates").is_dir() else _PACKAGE_DIR.parent
TEMPLATES_DIR = _FILES_DIR / "templates"
STATIC_DIR = _FILES_DIR / "static"
MIGRATIONS_DIR = _FILES_DIR / "migrations"


class Settings(BaseSettings):
    """Every setting is an environment variable; the defaults serve a home server."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./data/crownkeeper.db",
        description=(
            "Where games are kept: a SQLite file (its folder is created if missing), or a "
            "PostgreSQL server as postgresql+psycopg://user:password@host/database."
        ),
    )
    host: str = Field(
        default="0.0.0.0",
        description="Address to listen on; 0.0.0.0 lets phones on the home network connect.",
    )
    port: int = Field(default=8000, description="Port to listen on.")
    root_path: str = Field(
        default="",
        description="Sub-path when served behind a reverse proxy, such as /crownkeeper.",
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        description="Proxies whose X-Forwarded-Proto and -Host are trusted (comma list or *).",
    )
    max_body_bytes: int = Field(
        default=64 * 1024,
        description="Largest request body taken; bigger ones get 413 before being read whole.",
    )
    import_max_bytes: int = Field(
        default=8 * 1024 * 1024,
        description="Largest table import taken (a family's years of games); others get 413.",
    )
    import_max_games: int = Field(
        default=2000,
        ge=1,
        description="Most games one table import may hold; a bigger document gets 413.",
    )
    table_max_people: int = Field(
        default=500,
        ge=1,
        description="Most people a table may have, counting those a new game or import adds.",
    )
    create_rate_limit: str = Field(
        default="20/minute;200/day",
        description="New games and tables per client address (such as 20/minute;200/day), or off.",
    )
    streams_per_game: int = Field(
        default=100, description="Live update streams one game may have open at once."
    )
    streams_total: int = Field(
        default=2000, description="Live update streams the server keeps open at once."
    )
    busy_timeout_ms: int = Field(
        default=5000,
        description="How long a save waits for the database before answering 503 (busy).",
    )
    limit_concurrency: int | None = Field(
        default=None,
        description="Most connections served at once; empty: just below the open-file limit.",
    )
    timeout_keep_alive: int = Field(
        default=5, description="Seconds an idle keep-alive connection stays open."
    )
    backup_dir: str = Field(
        default="",
        description="Folder for automatic daily backups (and for `backup` without a path).",
    )
    backup_keep: int = Field(default=14, description="Daily backups kept in BACKUP_DIR.")
    public_url: str = Field(
        default="",
        description=(
            "The address phones use, such as http://192.168.1.20:8000, for the watch link, "
            "its QR code and the address printed on start; empty: found on the network."
        ),
    )

    workers: int = Field(
        default=1,
        ge=1,
        description="How many server processes to start; more than one needs PostgreSQL.",
    )

    def check(self) -> None:
        """Refuse settings that cannot work together, saying why and what to use instead."""
        if self.workers > 1 and make_url(self.database_url).get_backend_name() == "sqlite":
            raise SettingsError(
                f"WORKERS={self.workers} needs PostgreSQL. SQLite takes one writer at a time "
                "and keeps live updates inside one process, so other workers' watchers would "
                "miss saves. Keep WORKERS=1 with SQLite, or set "
                "DATABASE_URL=postgresql+psycopg://user:password@host/database "
                '(README: "One process, or many").'
            )


class SettingsError(ValueError):
    """Settings that cannot work together."""


settings = Settings()
