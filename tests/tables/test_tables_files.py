"""The table's data in a phone's hands: exports download as files named for the table or
game and the date, the table page imports an export file, and lists recently deleted games
with a Restore button. Pages without JavaScript: forms post and redirect."""

import json
import re
from datetime import UTC, datetime

import pytest

from tests.html import elements, visible_text
from tests.tables_helpers import new_table, play, table_game

pytestmark = pytest.mark.one_database

TODAY = datetime.now(UTC).strftime("%Y-%m-%d")


def filename(response):
    disposition = response.headers["content-disposition"]
    assert disposition.startswith("attachment")
    return re.search(r'filename="([^"]+)"', disposition).group(1)


def test_exports_download_as_files_named_for_the_table_or_game(client):
    table = new_table(client, "The Smiths")
    game = table_game(client, table, ["Ann", "Ben"])
    play(client, game, [[0, 13]])
    page = client.get(f"/t/{table['code']}").text
    link = next(a for a in elements(page, "a") if "export" in (a.get("href") or ""))
    downloaded = client.get(link["href"])
    assert filename(downloaded) == f"crownkeeper-the-smiths-{TODAY}.json"
    assert downloaded.json()["format"] == 1 and len(downloaded.json()["games"]) == 1
    # The API answer stays as it was, for scripts.
    assert "content-disposition" not in client.get(f"/api/tables/{table['code']}/export").headers
    game_page = client.get(f"/g/{game['code']}").text
    hrefs = [a.get("href") or "" for a in elements(game_page, "a")]
    export = next(h for h in hrefs if "/export" in h)
    assert filename(client.get(export)).startswith("crownkeeper-ann-ben-")
    sheet = next(h for h in hrefs if h.endswith("sheet.csv"))
    assert re.fullmatch(
        r"crownkeeper-sheet-ann-ben-\d{4}-\d\d-\d\d\.csv", filename(client.get(sheet))
    )


def test_the_table_page_imports_an_export_file(client):
    home = new_table(client, "Home")
    for players in (["Ann", "Ben"], ["Ann", "Cy"]):
        play(client, table_game(client, home, players), [[0, 13]])
    exported = client.get(f"/api/tables/{home['code']}/export").content
    cousins = new_table(client, "Cousins")
    url = f"/t/{cousins['code']}/import"
    sent = client.post(url, files={"document": ("smiths.json", exported, "application/json")})
    assert sent.status_code == 200  # followed to the table page
    assert "Added 2 games; 0 were already here." in visible_text(sent.text)
    again = client.post(url, files={"document": ("smiths.json", exported, "application/json")})
    assert "Added 0 games; 2 were already here." in visible_text(again.text)
    assert client.get(f"/api/tables/{cousins['code']}").json()["game_count"] == 2


def test_a_file_that_is_not_an_export_is_refused_in_words(client):
    table = new_table(client)
    url = f"/t/{table['code']}/import"
    refused = client.post(url, files={"document": ("notes.txt", b"shopping list", "text/plain")})
    assert refused.status_code == 422
    assert "not valid JSON" in visible_text(refused.text)
    nothing = client.post(url, data={"nothing": "here"})
    assert nothing.status_code == 422 and "Choose an export file" in visible_text(nothing.text)
    newer = json.dumps({"format": 99, "games": []}).encode()
    too_new = client.post(url, files={"document": ("x.json", newer, "application/json")})
    assert too_new.status_code == 422 and "newer Crownkeeper" in visible_text(too_new.text)
    watch = client.post(
        f"/t/{table['watch_code']}/import",
        files={"document": ("x.json", newer, "application/json")},
    )
    assert watch.status_code == 403


def test_recently_deleted_games_are_listed_with_a_restore_button(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben"])
    play(client, game, [[0, 13]])
    assert client.delete(f"/api/games/{game['code']}").status_code == 200
    page = client.get(f"/t/{table['code']}").text
    text = visible_text(page)
    assert "Recently deleted" in text and "Ann, Ben" in text
    restore = next(
        f for f in elements(page, "form") if (f.get("action") or "").endswith("/restore")
    )
    assert any(a.get("href", "").endswith("/deleted") for a in elements(page, "a"))
    restored = client.post(restore["action"], follow_redirects=False)
    assert restored.status_code == 303
    assert client.get(f"/api/games/{game['code']}").status_code == 200
    assert "Recently deleted" not in visible_text(client.get(f"/t/{table['code']}").text)
    # The watch page shows no such list.
    client.delete(f"/api/games/{game['code']}")
    assert "Recently deleted" not in visible_text(client.get(f"/t/{table['watch_code']}").text)


def test_a_tables_new_game_form_offers_solitaire_with_one_name(client):
    table = new_table(client)
    page = client.get(f"/t/{table['code']}").text
    assert any(i.get("value") == "solitaire" for i in elements(page, "input"))
    fields = {"mode": "solitaire", "name_0": "Ann", "name_1": "Ben", "action": "create"}
    started = client.post(f"/t/{table['code']}/games", data=fields, follow_redirects=False)
    assert started.status_code == 303
    code = started.headers["location"].rsplit("/", 1)[-1]
    game = client.get(f"/api/games/{code}").json()
    assert game["mode"] == "solitaire" and game["players"] == ["Ann"]
    listed = client.get(f"/api/tables/{table['code']}").json()
    assert [p["name"] for p in listed["people"]] == ["Ann"]
