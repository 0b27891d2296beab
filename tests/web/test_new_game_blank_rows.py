"""The new-game form with rows left blank: a blank row is no player, and the first dealer
stays the person chosen, wherever the blank rows were."""

import pytest


def create_from_form(client, names, first_dealer, **extra):
    data = {f"name_{index}": name for index, name in enumerate(names)}
    data.update(first_dealer=str(first_dealer), **extra)
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    code = response.headers["location"].rstrip("/").rsplit("/", 1)[-1]
    return client.get(f"/api/games/{code}").json()


@pytest.mark.parametrize(
    ("names", "first_dealer", "players", "dealer_name"),
    [
        (["Ann", "", "Ben", "  ", "Cy"], 4, ["Ann", "Ben", "Cy"], "Cy"),
        (["", "Ann", "Ben", "Cy"], 2, ["Ann", "Ben", "Cy"], "Ben"),
        (["Ann", "Ben", "", "", "Cy", "Dee"], 5, ["Ann", "Ben", "Cy", "Dee"], "Dee"),
        (["Ann", "Ben", "", "Cy"], 0, ["Ann", "Ben", "Cy"], "Ann"),
    ],
)
def test_blank_rows_are_left_out_and_the_dealer_stays(
    client, names, first_dealer, players, dealer_name
):
    state = create_from_form(client, names, first_dealer)
    assert state["players"] == players
    assert state["players"][state["first_dealer"]] == dealer_name
    assert state["rounds"][0]["dealer"] == state["first_dealer"]


def test_a_dealer_chosen_on_a_blank_row_falls_to_the_first_player(client):
    state = create_from_form(client, ["Ann", "", "Ben"], 1)
    assert state["players"] == ["Ann", "Ben"]
    assert state["first_dealer"] == 0


def test_only_blank_rows_beside_one_name_is_too_few_players(client):
    response = client.post("/games", data={"name_0": "Ann", "name_1": " ", "name_2": ""})
    assert response.status_code == 422
    assert "2 to 14 players" in response.text
    # What was typed stays on the form.
    assert 'value="Ann"' in response.text
