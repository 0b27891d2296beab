"""A bounded fuzz run of the JSON API from its own OpenAPI schema: whatever schemathesis sends,
the answer is never a 5xx."""

import tempfile
import zlib
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from app.main import create_app
from tests.conftest import test_settings

FOLDER = Path(tempfile.mkdtemp(prefix="crownkeeper-fuzz-"))
app = create_app(test_settings(f"sqlite:///{FOLDER}/fuzz.db", create_rate_limit="off"))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)
CODES: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def real_game():
    """A real game, so generated paths also reach the handlers behind a known code."""
    with TestClient(app) as client:
        game = client.post("/api/games", json={"players": ["Ann", "Ben", "Cy"]}).json()
        CODES.update(keeper=game["code"], watch=game["watch_code"])
        yield


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_the_api_never_answers_5xx(case):
    if "code" in (case.path_parameters or {}):
        # One case in three each: the scorekeeper's code, the watch code, or what was drawn.
        choice = zlib.crc32(repr(case.body).encode("utf-8", "replace")) % 3
        if choice < 2:
            case.path_parameters["code"] = CODES["keeper" if choice == 0 else "watch"]
    case.call_and_validate(checks=[not_a_server_error])
