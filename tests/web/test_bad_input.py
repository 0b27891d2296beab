"""Bad input gets a clear 4xx and stores nothing: big bodies, unreadable text, loose types,
look-alike and blank names, and form posts as strict as the API."""

import json
import re

import pytest

from tests.conftest import test_settings, went_out_first
from tests.html import elements as page_elements
from tests.html import visible_text as page_text


def raw_post(client, url, text, method="POST"):
    return client.request(
        method,
        url,
        content=text.encode("utf-8", "surrogatepass"),
        headers={"content-type": "application/json"},
    )


def test_a_body_over_the_limit_gets_413_before_it_is_read(client):
    padding = "x" * (70 * 1024)
    response = client.post("/api/games", json={"players": ["Ann", "Ben"], "pad": padding})
    assert response.status_code == 413
    assert "too large" in response.json()["detail"]


def test_a_chunked_body_over_the_limit_gets_413_too(client):
    def chunks():
        yield b'{"players": ["Ann", "Ben"], "pad": "'
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}'

    response = client.post(
        "/api/games", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert client.get("/").status_code == 200


def test_the_body_limit_is_a_setting(tmp_path):
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(test_settings(f"sqlite:///{tmp_path}/db.db", max_body_bytes=100))
    with TestClient(app) as small:
        body = {"players": [f"Player number {i}" for i in range(9)]}
        assert small.post("/api/games", json=body).status_code == 413
        assert small.post("/api/games", json={"players": ["A", "B"]}).status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        '{"players": ["Ann", "B\\ud800n"]}',
        '{"players": ["\\udfff", "Ben"]}',
    ],
)
def test_lone_surrogates_in_names_get_422(client, body):
    response = raw_post(client, "/api/games", body)
    assert response.status_code == 422
    assert response.json()["detail"]


def test_lone_surrogates_in_cards_get_422(client, new_game):
    game = new_game()
    body = '{"results": [{"went_out": true}, {"cards": ["5\\ud800"]}, {"points": 13}]}'
    response = raw_post(client, f"/api/games/{game['code']}/rounds/1", body, "PUT")
    assert response.status_code == 422
    solve = raw_post(client, "/api/hands/solve", '{"cards": ["\\ud83d"], "wild_rank": "3"}')
    assert solve.status_code == 422
    assert client.get(f"/api/games/{game['code']}").json()["rounds"][0]["scores"] is None


@pytest.mark.parametrize(
    "seat",
    [
        {"points": "15"},
        {"points": 15.0},
        {"points": True},
        {"went_out": 1},
        {"went_out": "true"},
        {"cards": "5H"},
    ],
)
def test_types_are_taken_as_written(client, new_game, seat):
    game = new_game()
    # Round 1 keeps 0 or 3 cards: 13 points at least, so only the type can be wrong.
    results = [{"went_out": True}, seat, {"points": 13}]
    if seat.get("went_out") is not None:
        results[0] = {"points": 13}
    response = client.put(f"/api/games/{game['code']}/rounds/1", json={"results": results})
    assert response.status_code == 422, response.text
    assert client.get(f"/api/games/{game['code']}").json()["version"] == game["version"]


@pytest.mark.parametrize(
    "body",
    [
        {"results": went_out_first(3, points=[13] * 3), "version": "1"},
        {"results": went_out_first(3, points=[13] * 3), "version": 1.0},
    ],
)
def test_a_version_must_be_a_whole_number(client, new_game, body):
    game = new_game()
    response = client.put(f"/api/games/{game['code']}/rounds/1", json=body)
    assert response.status_code == 422


@pytest.mark.parametrize("first_dealer", ["0", 0.0, True])
def test_the_first_dealer_must_be_a_whole_number(client, first_dealer):
    body = {"players": ["Ann", "Ben"], "first_dealer": first_dealer}
    assert client.post("/api/games", json=body).status_code == 422


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ann", "Ａｎｎ"),  # full-width letters
        ("Ann", "\u0410nn"),  # Cyrillic capital A
        ("Ann", "ANN"),
        ("Bob", "B\u043eb"),  # Cyrillic small o
        ("Nina", "\u039dina"),  # Greek capital Nu
        ("Pete", "\u0420ete"),  # Cyrillic capital Er
        ("Ann", "A\u200bnn"),  # zero-width space
    ],
)
def test_look_alike_names_are_the_same_name(client, first, second):
    response = client.post("/api/games", json={"players": [first, "Cy", second]})
    assert response.status_code == 422
    assert "Two players are called" in response.json()["detail"]


@pytest.mark.parametrize(
    "blank",
    [
        "\u3164",  # Hangul filler
        "\u3164\u3164",
        "\u2800",  # braille blank
        "\u0301\u0308",  # combining marks alone
        "\u200d",  # a joiner alone
        "\u115f\u1160",
        "\u00a0\u2003",  # no-break and em spaces
    ],
)
def test_names_that_show_nothing_are_refused(client, blank):
    response = client.post("/api/games", json={"players": ["Ann", blank]})
    assert response.status_code == 422
    assert "Player 2" in response.json()["detail"]


@pytest.mark.parametrize("name", ["👨‍👩‍👧", "👩🏽‍🚀 Zoë", "Jürgen", "Νίκος", "Аня"])
def test_real_names_are_kept_as_typed(client, name):
    response = client.post("/api/games", json={"players": ["Ann", name]})
    assert response.status_code == 201, response.text
    assert response.json()["players"][1] == name


def test_different_names_that_only_share_letters_are_fine(client):
    response = client.post("/api/games", json={"players": ["Ann", "Anna", "Jose", "José"]})
    assert response.status_code == 201


# --- forms, as strict as the API ---


@pytest.mark.parametrize("version", ["2x", "1.0", "one", "1e3", "0x1"])
def test_a_round_form_with_an_unreadable_version_saves_nothing_and_keeps_the_taps(
    client, new_game, version
):
    game = new_game()
    fields = {
        "version": version,
        "went_out": "0",
        "cards_1": "5H,KS",
        "points_2": "17",
    }
    response = client.post(f"/g/{game['code']}/rounds/1", data=fields)
    assert response.status_code == 422
    text = page_text(response.text)
    assert "nothing was saved" in text
    assert 'value="5H,KS"' in response.text
    assert 'value="17"' in response.text
    saved = client.get(f"/api/games/{game['code']}").json()
    assert saved["version"] == game["version"]
    assert saved["rounds"][0]["scores"] is None


def test_a_stale_form_version_still_gets_409(client, new_game):
    game = new_game()
    code = game["code"]
    saved = client.put(
        f"/api/games/{code}/rounds/1", json={"results": went_out_first(3, points=[13] * 3)}
    )
    assert saved.status_code == 200
    fields = {"version": str(game["version"]), "went_out": "1", "points_0": "3", "points_2": "5"}
    response = client.post(f"/g/{code}/rounds/2", data=fields)
    assert response.status_code == 409


@pytest.mark.parametrize("first_dealer", ["3", "-1", "x", "1.5", "99"])
def test_a_new_game_form_with_a_first_dealer_outside_the_seats_is_refused(client, first_dealer):
    fields = {"name_0": "Ann", "name_1": "Ben", "name_2": "Cy", "first_dealer": first_dealer}
    response = client.post("/games", data=fields)
    assert response.status_code == 422
    assert "first dealer" in page_text(response.text)
    assert 'value="Ann"' in response.text and 'value="Cy"' in response.text
    assert "location" not in response.headers


def test_a_new_game_form_with_more_than_14_names_is_refused(client):
    fields = {f"name_{i}": f"Player {i}" for i in range(16)}
    response = client.post("/games", data=fields)
    assert response.status_code == 422
    assert "at most 14" in page_text(response.text)
    assert 'value="Player 0"' in response.text


def test_a_new_game_form_with_look_alike_names_is_refused(client):
    response = client.post(
        "/games", data={"name_0": "Ann", "name_1": "Ａｎｎ", "first_dealer": "0"}
    )
    assert response.status_code == 422
    assert "Two players are called" in page_text(response.text)


def test_bad_json_is_a_422_not_a_500(client):
    response = raw_post(client, "/api/games", '{"players": ["Ann", ')
    assert response.status_code == 422
    assert json.loads(response.text)["detail"]


# --- the routes for players joining and leaving, tie-breaks and solitaire ---


@pytest.mark.parametrize(
    "body",
    [
        {"name": "Eve", "seat": "1"},
        {"name": "Eve", "seat": 1.0},
        {"name": "Eve", "start": "5"},
        {"name": "Eve", "start": 5.0},
        {"name": "Eve", "start": True},
        {"name": 5},
        {"name": "Eve", "extra": 1},
    ],
)
def test_a_joining_player_is_taken_as_written(client, new_game, body):
    game = new_game()
    response = client.post(f"/api/games/{game['code']}/players", json=body)
    assert response.status_code == 422, response.text
    assert client.get(f"/api/games/{game['code']}").json()["players"] == ["Ann", "Ben", "Cy"]


@pytest.mark.parametrize("name", ["Ａｎｎ", "\u0410nn", "A\u200bnn", "\u3164"])
def test_a_joining_name_gets_the_same_checks(client, new_game, name):
    game = new_game()
    response = client.post(f"/api/games/{game['code']}/players", json={"name": name})
    assert response.status_code == 422, response.text
    assert client.get(f"/api/games/{game['code']}").json()["players"] == ["Ann", "Ben", "Cy"]
    form = client.post(f"/g/{game['code']}/players", data={"name": name, "seat": "last"})
    assert form.status_code == 422
    assert client.get(f"/api/games/{game['code']}").json()["players"] == ["Ann", "Ben", "Cy"]


def test_a_joining_name_with_lone_surrogates_gets_422(client, new_game):
    game = new_game()
    body = '{"name": "E\\ud800ve"}'
    response = raw_post(client, f"/api/games/{game['code']}/players", body)
    assert response.status_code == 422
    assert client.get(f"/api/games/{game['code']}").json()["players"] == ["Ann", "Ben", "Cy"]


def test_a_join_over_the_body_limit_gets_413(client, new_game):
    game = new_game()
    body = json.dumps({"name": "E" * (70 * 1024)})
    response = raw_post(client, f"/api/games/{game['code']}/players", body)
    assert response.status_code == 413
    assert client.get(f"/api/games/{game['code']}").json()["players"] == ["Ann", "Ben", "Cy"]


def test_one_name_is_solitaire_and_fifteen_are_too_many(client):
    one = client.post("/api/games", json={"players": ["Ann"]})
    assert one.status_code == 201
    assert one.json()["players"] == ["Ann"]
    fifteen = client.post("/api/games", json={"players": [f"P{i}" for i in range(15)]})
    assert fifteen.status_code == 422
    assert "15" in fifteen.json()["detail"]


def test_a_table_import_may_be_bigger_than_other_bodies_up_to_its_own_limit(tmp_path):
    from fastapi.testclient import TestClient

    from app.main import create_app

    settings = test_settings(
        f"sqlite:///{tmp_path}/db.db", max_body_bytes=1024, import_max_bytes=64 * 1024
    )
    with TestClient(create_app(settings)) as small:
        code = small.post("/api/tables", json={"name": "The Smiths"}).json()["code"]
        # A few KB of games: over MAX_BODY_BYTES, under IMPORT_MAX_BYTES: read, and judged.
        games = [{"id": f"game-{n}", "players": ["Ann", "Ben"]} for n in range(100)]
        taken = small.post(f"/api/tables/{code}/import", json={"format": 1, "games": games})
        assert taken.status_code == 422
        # Only the import is allowed more: the same bytes anywhere else are too many.
        names = {"players": ["Ann", "Ben"], "padding": "x" * 2048}
        assert small.post("/api/games", json=names).status_code == 413
        huge = {"format": 1, "games": games * 20}
        refused = small.post(f"/api/tables/{code}/import", json=huge)
        assert refused.status_code == 413
        assert "64 KB" in refused.json()["detail"]


@pytest.mark.parametrize(("sent", "left_out"), [(15, 1), (16, 2)])
def test_names_past_the_fourteenth_seat_are_counted_in_the_refusal(client, sent, left_out):
    fields = {f"name_{i}": f"Player {i}" for i in range(sent)} | {"action": "create"}
    response = client.post("/games", data=fields, follow_redirects=False)
    assert response.status_code == 422
    assert f"{left_out} more name(s) were sent and left out" in page_text(response.text)


def test_a_seat_never_holds_more_than_twenty_tapped_cards(client, new_game):
    url = f"/g/{new_game()['code']}/rounds/1"
    full = ",".join(["5"] * 20)
    page = client.post(url, data={"from": "game", "version": "", "cards_0": full, "add": "0:6"})
    assert page.status_code == 200
    assert page_elements(page.text, "input", name="cards_0")[0]["value"] == full


@pytest.mark.parametrize(("length", "shown"), [(24, "a" * 24 + "."), (25, "a" * 24 + "….")])
def test_an_unknown_game_code_is_quoted_back_cut_to_24_characters(client, length, shown):
    response = client.get("/g/" + "a" * length)
    assert response.status_code == 404
    assert f"No game has the code {shown} Check the link" in page_text(response.text)


def test_a_refused_page_is_headed_something_is_not_right(client, new_game):
    response = client.post(f"/g/{new_game()['watch_code']}/finish")
    assert response.status_code == 403
    [heading] = re.findall(r'<h1 id="problem-heading">(.*?)</h1>', response.text)
    assert heading == "Something is not right"
