"""Every service error has one status and one sentence, on the API (problem JSON: the
sentence is its `detail`) and on the pages (the sentence in the page's text): web/errors.py's
STATUS lists them, and each is driven here through a request of each kind that can meet it.
A new error class in app fails here until it is listed (tests/app_errors.py finds them)."""

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from app.games import ReadOnlyLink
from app.tables import ReadOnlyTable
from app.web.errors import STATUS, status_of
from tests.app_errors import NEVER_MEET_A_REQUEST, app_exception_classes, service_error_classes
from tests.conftest import round_form, went_out_first
from tests.html import elements, visible_text

pytestmark = pytest.mark.one_database


def new_game(client, players=("Ann", "Ben", "Cy"), **extra):
    response = client.post("/api/games", json={"players": list(players), **extra})
    assert response.status_code == 201, response.text
    return response.json()


def new_table(client, name="The Smiths"):
    response = client.post("/api/tables", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


def saved_round_one(client):
    """A game of two whose round 1 is saved: version 2, Ann out and Ben on 13."""
    game = new_game(client, ["Ann", "Ben"])
    saved = client.put(
        f"/api/games/{game['code']}/rounds/1", json={"results": went_out_first(2, points=[0, 13])}
    )
    assert saved.status_code == 200 and saved.json()["version"] == 2
    return game


def merged_anne(client):
    """A table where Anne, a misspelt Ann, was merged into Ann: the table and their ids."""
    table = new_table(client)
    new_game(client, ["Ann", "Ben"], table=table["code"])
    new_game(client, ["Anne", "Ben"], table=table["code"])
    listed = client.get(f"/api/tables/{table['code']}").json()["people"]
    people = {person["name"]: person["id"] for person in listed}
    merge = client.post(
        f"/api/tables/{table['code']}/people/{people['Anne']}/merge", json={"into": people["Ann"]}
    )
    assert merge.status_code == 200, merge.text
    return table, people


def import_file(document: bytes):
    return {"document": ("export.json", document, "application/json")}


# --- how each error is met: (the API's answer, a page's answer or None) ---------------------


def replaced_link(client):
    game = new_game(client)
    assert client.post(f"/api/games/{game['code']}/scorekeeper-code").status_code == 200
    return client.get(f"/api/games/{game['code']}"), client.get(f"/g/{game['code']}")


def read_only_link(client):
    watch = new_game(client)["watch_code"]
    return client.post(f"/api/games/{watch}/finish"), client.post(f"/g/{watch}/finish")


def read_only_table(client):
    table = new_table(client)
    watch = table["watch_code"]
    api = client.patch(f"/api/tables/{watch}/people/1", json={"name": "Zed"})
    page = client.post(f"/t/{watch}/games", data={"name_0": "Ann", "name_1": "Ben"})
    return api, page


def game_not_found(client):
    return client.get("/api/games/nosuchgame"), client.get("/g/nosuchgame")


def no_such_round(client):
    code = new_game(client)["code"]
    api = client.put(f"/api/games/{code}/rounds/12", json={"results": went_out_first(3)})
    return api, client.get(f"/g/{code}/rounds/12")


def no_such_seat(client):
    code = new_game(client)["code"]
    return client.delete(f"/api/games/{code}/players/7"), client.post(f"/g/{code}/players/7/leave")


def table_not_found(client):
    return client.get("/api/tables/nosuchtable"), client.get("/t/nosuchtable")


def no_such_person(client):
    code = new_table(client)["code"]
    return client.get(f"/api/tables/{code}/people/999"), client.get(f"/t/{code}/people/999")


def stale_version(client):
    code = saved_round_one(client)["code"]
    theirs = went_out_first(2, out=1, points=[20, 0])
    api = client.put(f"/api/games/{code}/rounds/1", json={"results": theirs, "version": 1})
    page = client.post(
        f"/g/{code}/rounds/1", data=round_form(2, went_out="1", points_0="20", version="1")
    )
    return api, page


def person_merged(client):
    table, people = merged_anne(client)
    api = client.get(f"/api/tables/{table['code']}/people/{people['Anne']}")
    assert api.json()["into"] == people["Ann"]
    # A person's page moves to whom they are now (below); a change to them says why not.
    page = client.post(f"/t/{table['code']}/people/{people['Anne']}", data={"name": "Annie"})
    return api, page


def version_required(client):
    code = saved_round_one(client)["code"]
    theirs = went_out_first(2, out=1, points=[20, 0])
    api = client.put(f"/api/games/{code}/rounds/1", json={"results": theirs})
    page = client.post(
        f"/g/{code}/rounds/1", data=round_form(2, went_out="1", points_0="20", version="")
    )
    return api, page


def player_error(client):
    api = client.post("/api/games", json={"players": ["Ann", "ann"]})
    page = client.post("/games", data={"name_0": "Ann", "name_1": "ann", "action": "create"})
    assert elements(page.text, "input", name="name_1")[0]["value"] == "ann"  # kept
    return api, page


def table_error(client):
    name = "Smith" * 13
    api = client.post("/api/tables", json={"name": name})
    page = client.post("/tables", data={"table_name": name})
    assert elements(page.text, "input", name="table_name")[0]["value"] == name  # kept
    return api, page


def round_error(client):
    code = new_game(client, ["Ann", "Ben"])["code"]
    api = client.put(
        f"/api/games/{code}/rounds/1", json={"results": [{"went_out": True}, {"points": 4}]}
    )
    assert api.json()["seat_errors"] == {"1": api.json()["detail"]}
    page = client.post(f"/g/{code}/rounds/1", data=round_form(2, went_out="0", points_1="4"))
    # Beside Ben's seat, with what was typed.
    (seat,) = [part for part in page.text.split("<fieldset")[1:] if 'data-seat="1"' in part]
    assert api.json()["detail"] in visible_text("<fieldset" + seat)
    assert elements(page.text, "input", name="points_1")[0]["value"] == "4"
    return api, page


def card_error(client):
    code = new_game(client, ["Ann", "Ben"])["code"]
    api = client.put(
        f"/api/games/{code}/rounds/1",
        json={"results": [{"went_out": True}, {"cards": ["ZZ", "3H", "4H"]}]},
    )
    solitaire = new_game(client, ["Sol"])["code"]
    page = client.post(f"/g/{solitaire}/piles/1", data={"cards": "ZZ,3H,4H"})
    assert elements(page.text, "input", name="cards")[0]["value"] == "ZZ,3H,4H"  # kept
    return api, page


def period_error(client):
    code = new_table(client)["code"]
    return client.get(f"/api/tables/{code}?year=20x6"), client.get(f"/t/{code}?year=20x6")


def import_too_big(client):
    code = new_table(client)["code"]
    document = json.dumps({"format": 1, "games": [{}] * 2001}).encode()
    api = client.post(f"/api/tables/{code}/import", content=document)
    return api, client.post(f"/t/{code}/import", files=import_file(document))


def import_refused(client):
    code = new_table(client)["code"]
    api = client.post(f"/api/tables/{code}/import", content=b"shopping list")
    return api, client.post(f"/t/{code}/import", files=import_file(b"shopping list"))


def pile_error(client):
    code = new_game(client, ["Sol"])["code"]
    api = client.put(f"/api/games/{code}/rounds/1", json={"results": [{"points": 58}]})
    return api, client.post(f"/g/{code}/piles/1", data={"points": "58"})


def unreadable_text(client):
    body = b'{"players": ["A\\ud800nn", "Ben"]}'
    api = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    return api, None


def rate_limited(client):
    for _ in range(20):  # CREATE_RATE_LIMIT in the tests: 20 a minute
        new_game(client)
    api = client.post("/api/games", json={"players": ["Ann", "Ben"]})
    page = client.post("/games", data={"name_0": "Ann", "name_1": "Ben", "action": "create"})
    assert api.headers["retry-after"] and page.headers["retry-after"]
    assert elements(page.text, "input", name="name_1")[0]["value"] == "Ben"  # kept
    return api, page


def game_error(client):
    code = new_game(client)["code"]
    return client.post(f"/api/games/{code}/tiebreak"), client.post(f"/g/{code}/tiebreak")


@dataclass(frozen=True)
class Case:
    status: int
    sentence: str
    met: Callable
    page_says: str = ""
    """What the page says instead, where a form draws the error in its own words."""
    said_within: str = ""
    """For an error another one says again: the error whose answer holds its sentence."""


CASES: dict[str, Case] = {
    "ReplacedLink": Case(
        410,
        "This scorekeeper link was replaced by a new one and no longer works. Ask the "
        "scorekeeper for the new link, or follow the game with its watch link.",
        replaced_link,
    ),
    "ReadOnlyLink": Case(403, ReadOnlyLink.message, read_only_link),
    "ReadOnlyTable": Case(403, ReadOnlyTable.message, read_only_table),
    "GameNotFound": Case(
        404, "No game has the code nosuchgame. Check the link, or start a new game.", game_not_found
    ),
    "NoSuchRound": Case(404, "There is no round 12: rounds run from 1 to 11.", no_such_round),
    "NoSuchSeat": Case(404, "There is no seat 7: seats run from 0 to 2.", no_such_seat),
    "TableNotFound": Case(
        404, "No table has this code. Check the link, or start a new table.", table_not_found
    ),
    "NoSuchPerson": Case(404, "Person 999 is not at this table.", no_such_person),
    "StaleVersion": Case(
        409,
        "Someone else changed this game a moment ago. Check the sheet, then save again.",
        stale_version,
        # The round form shows both rounds and asks which to keep, the entries kept.
        page_says="Another phone saved round 1 while you were entering it.",
    ),
    "PersonMerged": Case(
        409,
        "Anne was merged and is one person with Ann now. Reload the table to see who is at it.",
        person_merged,
    ),
    "VersionRequired": Case(
        428,
        "Round 1 is saved already: a change to it must give the version of the game it is "
        "based on, so it never saves over a change not seen. Nothing was saved.",
        version_required,
        page_says="Round 1 is saved already, and this form did not say which copy of the "
        "game it was filled in on, so nothing was saved; your entries are kept.",
    ),
    "PlayerError": Case(
        422, "Two players are called ann: give each player a different name.", player_error
    ),
    "TableError": Case(422, "Table names have at most 60 letters.", table_error),
    "RoundError": Case(
        422, "In round 1 a player keeps 0 or 3 cards; 4 points cannot be left.", round_error
    ),
    "CardError": Case(
        422,
        "'ZZ' is not a card: use a rank (3 to 10, J, Q, K), optionally with a suit letter "
        "(S, H, C, D, R for stars), or JOKER",
        card_error,
    ),
    "PeriodError": Case(
        422, "The year must be four digits, such as 2026, not '20x6'.", period_error
    ),
    "ImportTooBig": Case(
        413,
        "The document holds 2001 games or more; one import takes at most 2000 "
        "(IMPORT_MAX_GAMES). Split it, or ask whoever runs Crownkeeper to raise the limit.",
        import_too_big,
    ),
    "ImportRefused": Case(422, "The document is not valid JSON.", import_refused),
    "PileError": Case(
        422,
        "In pile 1 a player keeps 0 or 3 cards; 58 points cannot be left.",
        pile_error,
        said_within="RoundError",
    ),
    "UnreadableText": Case(
        422,
        "holds characters that are not text (lone surrogates)",
        unreadable_text,
        # A form's text arrives decoded: a lone surrogate only comes in JSON.
        said_within="the API's check of the request",
    ),
    "RateLimited": Case(429, "Too many new games from this address for now.", rate_limited),
    "GameError": Case(409, "A tie-break round comes after the game is over.", game_error),
}


def test_every_error_app_defines_is_listed_here_or_never_meets_a_request():
    defined = {error_class.__name__ for error_class in service_error_classes()}
    assert defined == set(CASES)
    kept_apart = {f"{c.__module__}.{c.__qualname__}" for c in app_exception_classes()}
    assert set(NEVER_MEET_A_REQUEST) <= kept_apart


def test_errors_py_answers_each_with_the_status_listed_here():
    assert {error_class.__name__: status for error_class, status in STATUS} == {
        name: case.status for name, case in CASES.items()
    }
    for error_class in service_error_classes():
        assert status_of(error_class.__new__(error_class)) == CASES[error_class.__name__].status


@pytest.mark.parametrize("name", list(CASES))
def test_each_error_has_one_status_and_one_sentence_on_the_api_and_the_pages(client, name):
    case = CASES[name]
    api, page = case.met(client)
    assert api.status_code == case.status, api.text
    assert api.headers["content-type"] == "application/json"
    if case.said_within:
        assert case.sentence in api.json()["detail"]
    else:
        assert api.json()["detail"].startswith(case.sentence)
    if page is None:
        return
    assert page.status_code == case.status, visible_text(page.text)
    assert page.headers["content-type"].startswith("text/html")
    assert (case.page_says or case.sentence) in visible_text(page.text)


def test_a_person_merged_away_has_the_page_of_whom_they_are_now(client):
    table, people = merged_anne(client)
    url = f"/t/{table['code']}/people/{people['Anne']}?year=2026"
    moved = client.get(url, follow_redirects=False)
    assert moved.status_code == 303
    assert moved.headers["location"].endswith(
        f"/t/{table['code']}/people/{people['Ann']}?year=2026"
    )
