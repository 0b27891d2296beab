"""A bounded fuzz run of the JSON API from its own OpenAPI schema: whatever schemathesis sends,
the answer is never a 5xx."""

import tempfile
import zlib

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from app.main import create_app
from tests.conftest import test_settings

# The operations come from the app's OpenAPI description, read when this file is imported;
# the app that answers, its database and its game are made when the test runs. A process
# forked after the import (as mutmut does) then shares no connection or thread with it.
schema = schemathesis.openapi.from_dict(create_app(test_settings("sqlite://")).openapi())


@pytest.fixture(scope="module")
def api():
    """An app with a real game in it, so that generated paths also reach the handlers behind
    a known code: (app, {"keeper": code, "watch": watch code})."""
    with tempfile.TemporaryDirectory(prefix="crownkeeper-fuzz-") as folder:
        app = create_app(test_settings(f"sqlite:///{folder}/fuzz.db", create_rate_limit="off"))
        with TestClient(app) as client:
            game = client.post("/api/games", json={"players": ["Ann", "Ben", "Cy"]}).json()
            yield app, {"keeper": game["code"], "watch": game["watch_code"]}


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_the_api_never_answers_5xx(case, api):
    app, codes = api
    if "code" in (case.path_parameters or {}):
        # One case in three each: the scorekeeper's code, the watch code, or what was drawn.
        choice = zlib.crc32(repr(case.body).encode("utf-8", "replace")) % 3
        if choice < 2:
            case.path_parameters["code"] = codes["keeper" if choice == 0 else "watch"]
    case.call_and_validate(app=app, checks=[not_a_server_error])
