"""Import bodies judged in one pass, in time and memory in step with their size: hostile
8 MiB bodies (unterminated strings, runs of escapes, deep nesting, a million empty games,
huge numbers) are refused at once, before anything is built."""

import time
import tracemalloc

import pytest

from app.imports import ImportRefused, ImportTooBig, check_document
from tests.tables_helpers import new_table

EIGHT_MIB = 8 * 1024 * 1024


def hostile(kind: str) -> bytes:
    """An 8 MiB body of one hostile kind."""
    if kind == "unterminated string":
        return b'{"format": 1, "games": ["' + b"a" * EIGHT_MIB
    if kind == "quote and escaped quotes":
        return b'"' + b'\\"' * (EIGHT_MIB // 2)
    if kind == "runs of escapes":
        return b'{"format": 1, "name": "' + b"\\\\" * (EIGHT_MIB // 2)
    if kind == "deep nesting":
        return b"[" * EIGHT_MIB
    if kind == "a million empty games":
        return b'{"format": 1, "games": [' + b"{}," * (EIGHT_MIB // 3) + b"{}]}"
    if kind == "huge number":
        return b'{"format": 1, "games": [], "name": ' + b"9" * EIGHT_MIB + b"}"
    if kind == "huge float":
        return b'{"format": 1, "games": [], "name": 0.' + b"9" * EIGHT_MIB + b"e99999}"
    raise AssertionError(kind)


KINDS = [
    "unterminated string",
    "quote and escaped quotes",
    "runs of escapes",
    "deep nesting",
    "a million empty games",
    "huge number",
    "huge float",
]


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_body_is_refused_in_time_in_step_with_its_size(kind):
    body = hostile(kind)
    started = time.perf_counter()
    tracemalloc.start()
    try:
        with pytest.raises(ImportRefused):
            check_document(body, most_games=2000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - started
    # The quadratic check this replaced took 8.8 s on 64 KB of escaped quotes (hours at
    # 8 MiB); a loaded 2-core CI machine stays far below this bound.
    assert elapsed < 10, f"{kind}: {elapsed:.1f} s"
    assert peak < 100 * 1024 * 1024, f"{kind}: {peak / 2**20:.0f} MB"


def test_games_are_counted_while_read():
    with pytest.raises(ImportTooBig, match="IMPORT_MAX_GAMES"):
        check_document(b'{"format": 1, "games": [{}, {}, {}, 1, "x", []]}', most_games=5)
    check_document(b'{"format": 1, "games": [{}, {"rounds": [[{}], {}]}, 1]}', most_games=3)
    # Nested lists inside a game are not games.
    check_document(b'{"format": 1, "games": [{"players": [1, 2, 3, 4, 5, 6]}]}', most_games=1)
    with pytest.raises(ImportRefused, match="nests deeper"):
        check_document(b'{"games": ' + b"[" * 17 + b"]" * 17 + b"}", most_games=5)
    with pytest.raises(ImportRefused, match="not valid JSON"):
        check_document(b'{"format": 1, "games": [}', most_games=5)


@pytest.mark.parametrize("kind", ["a million empty games", "quote and escaped quotes"])
def test_a_hostile_import_gets_its_4xx_over_the_api(client, kind):
    table = new_table(client)
    refused = client.post(
        f"/api/tables/{table['code']}/import",
        content=hostile(kind),
        headers={"Content-Type": "application/json"},
    )
    assert refused.status_code in (413, 422)
    assert refused.json()["detail"]
    assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 0
