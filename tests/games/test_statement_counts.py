"""A write reads its game once and builds its answer from what it wrote: the SQL statements
a save runs are counted (BEGIN and COMMIT included, when the driver sends them), so a
change that reads again shows up here."""

from contextlib import contextmanager

import pytest
from sqlalchemy import event

from tests.conftest import round_form
from tests.tables_helpers import new_table, table_game, went_out_first

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
# Totals a leftover hand can reach in every round, the first to the last.
ROUND = went_out_first(4, [0, 17, 13, 30])


@contextmanager
def counted(client):
    """The statements the app runs inside the block, as a list of their SQL."""
    engine = client.app.state.engine
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def put_round(client, code, number, results=ROUND, **extra):
    body = {"results": results, **extra}
    response = client.put(f"/api/games/{code}/rounds/{number}", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def new_game(client, *, at_table, table=None):
    if at_table:
        return table_game(client, table or new_table(client), PLAYERS)
    response = client.post("/api/games", json={"players": PLAYERS})
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.parametrize(("at_table", "most"), [(False, 10), (True, 12)])
def test_a_round_saved_through_the_api(client, at_table, most):
    game = new_game(client, at_table=at_table)
    put_round(client, game["code"], 1)
    with counted(client) as statements:
        saved = put_round(client, game["code"], 2)
    assert saved["rounds"][1]["scores"] == [0, 17, 13, 30]
    assert saved["totals"] == [0, 34, 26, 60]
    assert len(statements) <= most, "\n".join(statements)


@pytest.mark.parametrize("at_table", [False, True])
def test_the_last_round_that_ends_the_game(client, at_table):
    game = new_game(client, at_table=at_table)
    for number in range(1, 11):
        put_round(client, game["code"], number)
    with counted(client) as statements:
        saved = put_round(client, game["code"], 11)
    assert saved["finished"] is True and saved["winners"] == [0]
    assert len(statements) <= (12 if at_table else 10), "\n".join(statements)


@pytest.mark.parametrize("finished", [False, True])
def test_a_correction_of_an_earlier_round_at_a_table(client, finished):
    table = new_table(client)
    game = new_game(client, at_table=True, table=table)
    for number in range(1, 12 if finished else 4):
        version = put_round(client, game["code"], number)["version"]
    corrected = went_out_first(4, [5, 0, 13, 30])
    with counted(client) as statements:
        saved = put_round(client, game["code"], 2, corrected, version=version)
    assert saved["rounds"][1]["scores"] == [5, 0, 13, 30]
    assert len(statements) <= 12, "\n".join(statements)
    # The table's stats follow the correction (finished games count; unfinished do not).
    people = client.get(f"/api/tables/{table['code']}").json()["people"]
    ann, ben = (next(p for p in people if p["name"] == name) for name in ("Ann", "Ben"))
    assert ann["stats"]["games"] == (1 if finished else 0)
    if finished:
        assert ann["stats"]["best_total"] == 5 and ben["stats"]["best_total"] == 170
        assert ann["versus"][str(ben["id"])] == {"games": 1, "lower": 1, "higher": 0}


def test_a_round_saved_through_the_page_form_costs_at_most_two_more(client):
    game = new_game(client, at_table=True)
    code = game["code"]
    put_round(client, code, 1)
    with counted(client) as through_api:
        put_round(client, code, 2)
    form = round_form(4, went_out="0", points_1="17", points_2="13", points_3="30", save="1")
    with counted(client) as through_page:
        response = client.post(f"/g/{code}/rounds/3", data=form, follow_redirects=False)
    assert response.status_code == 303
    assert client.get(f"/api/games/{code}").json()["totals"] == [0, 51, 39, 90]
    assert len(through_page) <= len(through_api) + 2, "\n".join(through_page)


def test_a_round_saved_through_the_page_with_htmx_renders_what_was_written(client):
    game = new_game(client, at_table=True)
    code = game["code"]
    put_round(client, code, 1)
    with counted(client) as through_api:
        put_round(client, code, 2)
    form = round_form(4, went_out="0", points_1="17", points_2="13", points_3="30", save="1")
    with counted(client) as through_page:
        response = client.post(f"/g/{code}/rounds/3", data=form, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert 'data-saved="3"' in response.text
    assert len(through_page) <= len(through_api) + 2, "\n".join(through_page)
