"""Every test gets its own database file and its own app."""

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app


@pytest.fixture
def settings(tmp_path):
    return Settings(database_url=f"sqlite:///{tmp_path}/crownkeeper.db")


@pytest.fixture
def app(settings):
    return create_app(settings)


@pytest.fixture
def client(app):
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def new_game(client):
    """Create a game over the API and return its state."""

    def create(players=("Ann", "Ben", "Cy"), **extra):
        response = client.post("/api/games", json={"players": list(players), **extra})
        assert response.status_code == 201, response.text
        return response.json()

    return create


def went_out_first(seat_count, *, out=0, points=None):
    """Round results where `out` went out and everyone else scored `points` (typed)."""
    return [
        {"went_out": True} if seat == out else {"points": (points or [4] * seat_count)[seat]}
        for seat in range(seat_count)
    ]
