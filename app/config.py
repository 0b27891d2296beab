"""Settings, read once from environment variables (see the README for each)."""

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_DIR = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Every setting is an environment variable; the defaults serve a home server."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./data/crownkeeper.db",
        description="Where games are kept: a SQLite URL; its folder is created if missing.",
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
    public_url: str = Field(
        default="",
        description=(
            "The address phones use, such as http://192.168.1.20:8000, for the watch link, "
            "its QR code and the address printed on start; empty: found on the network."
        ),
    )


settings = Settings()
