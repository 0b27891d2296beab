"""How many SQL statements a write runs (BEGIN and COMMIT included when the driver sends
them), counted with SQLAlchemy's before_cursor_execute on the app's engine, on a fresh
SQLite database: a round saved through the API and through the page's form, in a game of 4
with and without a table, the last round that ends the game, and a correction.

    python bench/statements.py
"""

from __future__ import annotations

import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]


# 20 to 23 points can be left in every round (round 1 keeps 0 or 3 cards: 13 at least).
def results(out: int = 0) -> list[dict[str, object]]:
    return [{"went_out": True} if seat == out else {"points": 20 + seat} for seat in range(4)]


def form(out: int = 0) -> dict[str, str]:
    fields = {"from": "game", "version": "", "went_out": str(out), "save": "1"}
    for seat in range(4):
        fields[f"cards_{seat}"] = ""
        fields[f"points_{seat}"] = "" if seat == out else str(20 + seat)
    return fields


@contextmanager
def counting(client: TestClient):
    seen: list[str] = []

    def count(*args: object) -> None:
        seen.append(str(args[2]))

    engine = client.app.state.engine  # type: ignore[attr-defined]
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            _env_file=None,
            database_url=f"sqlite:///{folder}/bench.db",
            create_rate_limit="off",
        )
        with TestClient(create_app(settings)) as client:
            table = client.post("/api/tables", json={"name": "Bench"}).json()
            rows = []
            for at_table in (False, True):
                body = {"players": PLAYERS, **({"table": table["code"]} if at_table else {})}
                code = client.post("/api/games", json=body).json()["code"]
                client.put(f"/api/games/{code}/rounds/1", json={"results": results()})
                where = "at a table" if at_table else "no table"
                with counting(client) as seen:
                    client.put(f"/api/games/{code}/rounds/2", json={"results": results()})
                rows.append((f"round saved through the API, {where}", len(seen)))
                with counting(client) as seen:
                    client.post(f"/g/{code}/rounds/3", data=form(), follow_redirects=False)
                rows.append((f"round saved through the page's form, {where}", len(seen)))
                # A correction says which version of the game it is based on.
                version = client.get(f"/api/games/{code}").json()["version"]
                with counting(client) as seen:
                    body = {"results": results(1), "version": version}
                    client.put(f"/api/games/{code}/rounds/2", json=body)
                rows.append((f"correction of round 2, {where}", len(seen)))
                for number in range(4, 11):
                    client.put(f"/api/games/{code}/rounds/{number}", json={"results": results()})
                with counting(client) as seen:
                    client.put(f"/api/games/{code}/rounds/11", json={"results": results()})
                rows.append((f"round 11 (ends the game), {where}", len(seen)))
                version = client.get(f"/api/games/{code}").json()["version"]
                with counting(client) as seen:
                    body = {"results": results(2), "version": version}
                    client.put(f"/api/games/{code}/rounds/5", json=body)
                rows.append((f"correction of a finished game, {where}", len(seen)))
                with counting(client) as seen:
                    client.get(f"/api/games/{code}")
                rows.append((f"reading the game, {where}", len(seen)))
    width = max(len(label) for label, _ in rows)
    print("SQL statements per request (SQLite, a game of 4)")
    for label, count in rows:
        print(f"  {label:<{width}}  {count:>3}")


if __name__ == "__main__":
    main()
