"""The tables service as the start page shows it: each table this browser has opened, with
how many games it holds."""

import re

from fastapi.testclient import TestClient
from sqlmodel import func, select

from app.models import Game
from tests.tables_helpers import new_table, table_game


def shown_table(home, name):
    """The start page's line for the table called name: "<count> game(s)[ · watching]"."""
    found = re.search(rf'{re.escape(name)}</span>\s*<span class="muted">([^<]*)</span>', home)
    assert found, f"{name} is not listed on the start page"
    return found.group(1).strip()


def test_the_start_page_counts_each_remembered_tables_own_games(client):
    smiths = new_table(client, "The Smiths")
    cousins = new_table(client, "Cousins")
    played = [table_game(client, smiths, players) for players in (["Ann", "Ben"], ["Ann", "Cy"])]
    table_game(client, smiths, ["Ben", "Cy"])
    assert client.delete(f"/api/games/{played[0]['code']}").status_code == 200
    # Opening a table is what puts it on this browser's start page.
    assert client.get(f"/t/{cousins['code']}").status_code == 200
    assert client.get(f"/t/{smiths['watch_code']}").status_code == 200

    home = client.get("/").text
    # The deleted game no longer counts, and one table's games are not another's.
    assert shown_table(home, "The Smiths") == "2 games · watching"
    assert shown_table(home, "Cousins") == "0 games"


def test_a_game_started_at_a_table_is_made_and_linked_in_one_transaction(client, monkeypatch):
    # Created, linked and published together: a failure while linking leaves no game behind
    # (nothing committed, nothing told to open pages).
    from app.tables import service

    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])

    def broken_link(*args, **kwargs):
        raise RuntimeError("the disk filled up while linking")

    monkeypatch.setattr(service, "link_game", broken_link)
    failing = TestClient(client.app, raise_server_exceptions=False)
    answer = failing.post("/api/games", json={"players": ["Cy", "Dee"], "table": table["code"]})
    assert answer.status_code == 500
    monkeypatch.undo()
    listed = client.get(f"/api/tables/{table['code']}").json()
    assert listed["game_count"] == 1
    assert {p["name"] for p in listed["people"]} == {"Ann", "Ben"}
    with client.app.state.sessions() as session:
        assert session.exec(select(func.count()).select_from(Game)).one() == 1
