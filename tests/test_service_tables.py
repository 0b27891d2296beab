"""The tables service as the start page shows it: each table this browser has opened, with
how many games it holds."""

import re

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
