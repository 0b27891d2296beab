"""Shared steps for the table tests: a table, games at it, rounds saved."""


def new_table(client, name="The Smiths"):
    response = client.post("/api/tables", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


def table_game(client, table, players, first_dealer=0):
    response = client.post(
        "/api/games",
        json={"players": players, "table": table["code"], "first_dealer": first_dealer},
    )
    assert response.status_code == 201, response.text
    return response.json()


def play(client, game, rounds, *, finish=True):
    """Save rounds given as lists of points; the seat with 0 first went out."""
    for number, points in enumerate(rounds, start=1):
        out = points.index(0)
        results = [
            {"went_out": True} if seat == out else {"points": p} for seat, p in enumerate(points)
        ]
        response = client.put(
            f"/api/games/{game['code']}/rounds/{number}", json={"results": results}
        )
        assert response.status_code == 200, response.text
    if finish and len(rounds) < 11:
        assert client.post(f"/api/games/{game['code']}/finish").status_code == 200
    return client.get(f"/api/games/{game['code']}").json()


def person(table_json, name):
    return next(p for p in table_json["people"] if p["name"] == name)
