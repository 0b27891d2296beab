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


def save_round(client, code, number, results):
    response = client.put(f"/api/games/{code}/rounds/{number}", json={"results": results})
    assert response.status_code == 200, response.text
    return response.json()


def went_out_first(seat_count, points):
    out = points.index(0)
    return [
        {"went_out": True} if seat == out else {"points": points[seat]}
        for seat in range(seat_count)
    ]


def game_at(client, table, players, *, order="up", first_dealer=0):
    response = client.post(
        "/api/games",
        json={
            "players": players,
            "table": table["code"],
            "order": order,
            "first_dealer": first_dealer,
        },
    )
    assert response.status_code == 201, response.text
    return response.json()["code"]


def table_of_every_kind(client):
    """A table with an ordinary game (rounds counted down, ended early), a solitaire game
    (piles out of order, one laid out from its cards), a game won in a tie-break, a game
    waiting for its tie-break, and a game someone joined mid-way and someone left."""
    table = new_table(client)
    ordinary = game_at(client, table, ["Ann", "Ben", "Cy", "Dee"], order="down")
    save_round(client, ordinary, 1, went_out_first(4, [0, 25, 40, 13]))
    save_round(client, ordinary, 2, went_out_first(4, [7, 0, 12, 30]))
    assert client.post(f"/api/games/{ordinary}/finish").status_code == 200

    solitaire = game_at(client, table, ["Ann"])
    save_round(client, solitaire, 2, [{"cards": ["7H", "7S", "7C", "KD"]}])
    save_round(client, solitaire, 1, [{"cards": ["7H", "7S", "7C"]}])  # a book: it closes
    save_round(client, solitaire, 11, [{"went_out": True}])
    save_round(client, solitaire, 5, [{"points": 9}])
    assert client.post(f"/api/games/{solitaire}/finish").status_code == 200

    tiebreak = game_at(client, table, ["Ann", "Ben", "Cy"], first_dealer=1)
    for number in range(1, 12):
        save_round(client, tiebreak, number, went_out_first(3, [0, 20, 0]))
    assert client.post(f"/api/games/{tiebreak}/tiebreak").status_code == 201
    save_round(client, tiebreak, 12, [{"points": 40}, None, {"went_out": True}])

    waiting = game_at(client, table, ["Ben", "Dee"])
    bens = iter([13, 10, 10, 10, 7])  # a round 1 hand keeps 0 or 3 cards: 13 at least
    for number in range(1, 12):
        points = [0, 0] if number == 11 else [0, next(bens)] if number % 2 else [10, 0]
        save_round(client, waiting, number, went_out_first(2, points))
    assert client.get(f"/api/games/{waiting}").json()["totals"] == [50, 50]
    assert client.post(f"/api/games/{waiting}/tiebreak").status_code == 201

    comings = game_at(client, table, ["Ann", "Ben", "Cy", "Dee"])
    for number in (1, 2, 3):
        save_round(
            client, comings, number, went_out_first(4, [0, 13 if number == 1 else 10, 20, 20])
        )
    joined = client.post(
        f"/api/games/{comings}/players", json={"name": "Eve", "seat": 1, "start": 42}
    )
    assert joined.status_code == 201, joined.text
    for number in (4, 5):
        save_round(client, comings, number, went_out_first(5, [0, 10, 10, 20, 20]))
    assert client.delete(f"/api/games/{comings}/players/0").status_code == 200  # Ann leaves
    save_round(
        client, comings, 6, [None, {"points": 10}, {"went_out": True}, *[{"points": 20}] * 2]
    )
    assert client.post(f"/api/games/{comings}/finish").status_code == 200
    return table
