"""What a family found in a month of games (issue 20): stats follow the person whatever is
renamed or joined, the crown follows the tie-break, someone who left counts as having left,
solitaire's best counts full games, a full table seats a newcomer once someone left, and a
rematch seats those still at the table."""

from tests.html import visible_text
from tests.tables_helpers import new_table, person, table_game, went_out_first


def save(client, code, number, results):
    response = client.put(f"/api/games/{code}/rounds/{number}", json={"results": results})
    assert response.status_code == 200, response.text
    return response.json()


def in_round(state, number, points_by_name):
    """Results for the players in round number: the name with 0 went out, others typed."""
    plan = state["rounds"][number - 1]
    results = [None] * len(state["players"])
    for seat in plan["players_in"]:
        points = points_by_name[state["players"][seat]]
        results[seat] = {"went_out": True} if points == 0 else {"points": points}
    return results


def join(client, code, name, seat):
    response = client.post(f"/api/games/{code}/players", json={"name": name, "seat": seat})
    assert response.status_code == 201, response.text
    return response.json()


def test_stats_follow_the_person_through_a_rename_and_joins(client):
    table = new_table(client)
    game = table_game(client, table, ["A", "B", "C"])
    code = game["code"]
    state = save(client, code, 1, went_out_first(3, [0, 20, 20]))
    state = join(client, code, "Zed", 1)
    points = {"A": 0, "Zed": 20, "B": 20, "C": 20, "Yo": 20}
    state = save(client, code, 2, in_round(state, 2, points))
    zed = person(client.get(f"/api/tables/{table['code']}").json(), "Zed")
    renamed = client.patch(f"/api/tables/{table['code']}/people/{zed['id']}", json={"name": "Zedd"})
    assert renamed.status_code == 200
    state = join(client, code, "Yo", 3)
    for number in range(3, 12):
        state = save(client, code, number, in_round(state, number, points))
    assert state["finished"]
    answer = client.get(f"/api/tables/{table['code']}").json()
    rounds = {p["name"]: p["stats"]["rounds"] for p in answer["people"]}
    assert rounds == {"A": 11, "B": 11, "C": 11, "Zedd": 10, "Yo": 9}
    assert answer["games"][0]["players"] == ["A", "Zedd", "B", "Yo", "C"]


def test_after_a_tie_break_only_its_winner_wears_the_crown(client):
    table = new_table(client)
    code = table_game(client, table, ["Ann", "Ben", "Cy"])["code"]
    for number in range(1, 12):
        out = 0 if number % 2 else 1
        results = [{"points": 20}, {"points": 20}, {"points": 30}]
        results[out] = {"went_out": True}
        if number == 11:  # Ann goes out, Ben lays everything down too: 100 each
            results = [{"went_out": True}, {"points": 0}, {"points": 20}]
        state = save(client, code, number, results)
    assert state["finished"] and state["leaders"] == state["winners"] == [0, 1]
    assert client.post(f"/api/games/{code}/tiebreak").status_code == 201
    decided = save(client, code, 12, [{"points": 30}, {"went_out": True}, None])
    assert decided["winners"] == [1] and decided["leaders"] == [1]
    page = client.post(
        f"/g/{code}/rounds/12",
        data={"from": "game", "version": "", "went_out": "1", "points_0": "30", "save": "1"},
        headers={"HX-Request": "true"},
    )
    assert 'data-saved-text="Tie-break saved"' in page.text
    sheet = client.get(f"/g/{code}").text
    assert visible_text(sheet).count("Game over") >= 1
    versus = person(client.get(f"/api/tables/{table['code']}").json(), "Ben")["versus"]
    ann_id = str(person(client.get(f"/api/tables/{table['code']}").json(), "Ann")["id"])
    assert versus[ann_id] == {"games": 1, "lower": 1, "higher": 0}


def test_someone_who_left_counts_as_having_left(client):
    table = new_table(client)
    code = table_game(client, table, ["Ann", "Ben", "Cy", "Dee"])["code"]
    left = client.delete(f"/api/games/{code}/players/3")  # Dee leaves before round 1
    assert left.status_code == 200
    state = left.json()
    for number in range(1, 6):
        state = save(client, code, number, in_round(state, number, {"Ann": 20, "Ben": 0, "Cy": 20}))
    state = client.delete(f"/api/games/{code}/players/2").json()  # Cy leaves with 100
    for number in range(6, 12):
        state = save(client, code, number, in_round(state, number, {"Ann": 20, "Ben": 0}))
    assert state["finished"]
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, ben, cy, dee = (person(answer, name) for name in ("Ann", "Ben", "Cy", "Dee"))
    assert dee["stats"]["games"] == 0 and dee["versus"] == {}
    assert cy["stats"]["games"] == 1 and cy["stats"]["rounds"] == 5
    # Cy's 100 after five rounds is not "lower" than Ann's 220 after eleven: not compared.
    assert str(cy["id"]) not in ann["versus"] and cy["versus"] == {}
    assert ann["versus"] == {str(ben["id"]): {"games": 1, "lower": 0, "higher": 1}}


def test_solitaire_best_counts_games_of_all_eleven_piles(client):
    table = new_table(client)
    early = client.post("/api/games", json={"players": ["Ann"], "table": table["code"]}).json()
    save(client, early["code"], 1, [{"went_out": True}])
    assert client.post(f"/api/games/{early['code']}/finish").status_code == 200
    stats = person(client.get(f"/api/tables/{table['code']}").json(), "Ann")["stats"]
    assert stats["solitaire"] == {"played": 1, "won": 0, "best_total": None}


def test_a_full_table_seats_a_newcomer_once_someone_left(client):
    players = [f"P{n}" for n in range(14)]
    code = client.post("/api/games", json={"players": players}).json()["code"]
    refused = client.post(f"/api/games/{code}/players", json={"name": "New"})
    assert refused.status_code == 422 and "at most 14" in refused.json()["detail"]
    assert client.delete(f"/api/games/{code}/players/5").status_code == 200
    seated = client.post(f"/api/games/{code}/players", json={"name": "New"})
    assert seated.status_code == 201, seated.text
    assert len(seated.json()["players"]) == 15


def test_a_rematch_seats_the_players_still_at_the_table(client):
    table = new_table(client)
    code = table_game(client, table, ["Ann", "Ben", "Cy", "Dee"])["code"]
    state = save(client, code, 1, went_out_first(4, [0, 20, 20, 20]))
    state = client.delete(f"/api/games/{code}/players/1").json()  # Ben leaves
    for number in range(2, 12):
        state = save(client, code, number, in_round(state, number, {"Ann": 0, "Cy": 20, "Dee": 20}))
    rematch = client.post(f"/api/games/{code}/rematch")
    assert rematch.status_code == 201
    new = rematch.json()
    assert new["players"] == ["Ann", "Cy", "Dee"]
    assert new["first_dealer"] == 1  # the deal moves on from Ann to the next still seated
    listed = client.get(f"/api/tables/{table['code']}").json()["games"][0]
    assert listed["players"] == ["Ann", "Cy", "Dee"]


def test_a_player_who_left_by_mistake_is_seated_again_with_their_total(client):
    code = client.post("/api/games", json={"players": ["Ann", "Ben", "Cy"]}).json()["code"]
    state = save(client, code, 1, went_out_first(3, [0, 20, 30]))
    left = client.delete(f"/api/games/{code}/players/1").json()
    assert left["seats"][1]["left_round"] == 2 and 1 not in left["rounds"][1]["players_in"]
    back = client.post(f"/api/games/{code}/players/1/return")
    assert back.status_code == 200, back.text
    state = back.json()
    assert state["seats"][1]["left_round"] is None and state["totals"] == [0, 20, 30]
    assert state["rounds"][1]["players_in"] == [0, 1, 2]
    again = client.post(f"/api/games/{code}/players/1/return")
    assert again.status_code == 409 and "still in the game" in again.json()["detail"]
    watch = client.post(f"/api/games/{state['watch_code']}/players/1/return")
    assert watch.status_code == 403


def test_the_players_page_offers_to_undo_leaving(client):
    code = client.post("/api/games", json={"players": ["Ann", "Ben", "Cy"]}).json()["code"]
    client.post(f"/g/{code}/players/2/leave")
    page = visible_text(client.get(f"/g/{code}/players").text)
    assert "Seat Cy again (undo leaving)" in page
    back = client.post(f"/g/{code}/players/2/return", follow_redirects=True)
    assert back.status_code == 200
    assert "Seat Cy again" not in visible_text(back.text)
    assert "Cy leaves the game" in visible_text(back.text)
