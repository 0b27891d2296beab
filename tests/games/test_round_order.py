"""Rounds are entered in order: a round after the one being played cannot be saved, by the
API or by the page's form, and nothing of it is kept."""

from tests.conftest import round_form, went_out_first


def test_a_round_after_the_next_is_refused_by_the_api(client, new_game):
    game = new_game()
    code = game["code"]
    first = client.put(f"/api/games/{code}/rounds/1", json={"results": went_out_first(3)})
    assert first.status_code == 200
    version = first.json()["version"]

    early = client.put(
        f"/api/games/{code}/rounds/3", json={"results": went_out_first(3, points=[0, 30, 30])}
    )
    assert early.status_code in (409, 422)
    assert "Save round 2 first" in early.json()["detail"]

    state = client.get(f"/api/games/{code}").json()
    assert state["version"] == version
    assert [r["scores"] for r in state["rounds"][1:3]] == [None, None]
    assert state["totals"] == [0, 20, 20]
    assert state["current_round"] == 2


def test_a_round_after_the_next_is_refused_by_the_form(client, new_game):
    game = new_game()
    code = game["code"]
    assert client.put(f"/api/games/{code}/rounds/1", json={"results": went_out_first(3)})

    page = client.post(
        f"/g/{code}/rounds/3", data=round_form(3, went_out="0", points_1="30", points_2="30")
    )
    assert page.status_code in (409, 422)
    assert "Save round 2 first" in page.text

    state = client.get(f"/api/games/{code}").json()
    assert state["rounds"][2]["scores"] is None
    assert state["totals"] == [0, 20, 20]


def test_the_round_page_of_a_later_round_leads_back_to_the_game(client, new_game):
    game = new_game()
    code = game["code"]
    later = client.get(f"/g/{code}/rounds/4", follow_redirects=False)
    assert later.status_code == 303
    assert later.headers["location"].endswith(f"/g/{code}")
    current = client.get(f"/g/{code}/rounds/1", follow_redirects=False)
    assert current.status_code == 200
