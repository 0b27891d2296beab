"""The running-totals chart for every kind of game: a line per player that starts where the
player started and stops where they left, tie-breaks left out, no name cut off."""

import re

from app.games import GameState, PlayerState, RoundState, SeatEntry
from app.web.chart import running_totals, totals_chart
from tests.tables_helpers import table_of_every_kind


def _svg(client, table, players):
    listed = client.get(f"/api/tables/{table['code']}").json()["games"]
    code = next(g["code"] for g in listed if g["players"] == players)
    response = client.get(f"/g/{code}/chart.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    return response.text


def _lines(svg):
    """Each player's line as (x, y) points, in seat order."""
    lines = re.findall(r'<polyline class="line s\d+"[^>]* points="([^"]+)"', svg)
    return [[tuple(map(float, p.split(","))) for p in line.split()] for line in lines]


def test_every_kind_of_game_has_a_chart(client):
    table = table_of_every_kind(client)
    # Eve sat down after round 3 with 42 points; Ann left after round 5 and drew no more.
    comings = _lines(_svg(client, table, ["Ann", "Eve", "Ben", "Cy", "Dee"]))
    assert [len(line) for line in comings] == [6, 4, 7, 7, 7]
    assert comings[1][0][0] == comings[0][3][0]  # Eve's line starts at round 3
    tiebreak = _svg(client, table, ["Ann", "Ben", "Cy"])
    assert [len(line) for line in _lines(tiebreak)] == [12, 12, 12]  # round 0 to round 11
    assert ">11</text>" in tiebreak and ">12</text>" not in tiebreak
    solitaire = _svg(client, table, ["Ann"])
    assert [len(line) for line in _lines(solitaire)] == [5]  # start, piles 1, 2, 5 and 11
    assert "Ann 22</text>" in solitaire


def _state(players, rounds, seats=None):
    return GameState(
        code="k",
        watch_code="w",
        can_edit=False,
        players=tuple(players),
        first_dealer=0,
        rounds=tuple(rounds),
        finished=False,
        version=1,
        seats=tuple(seats or [PlayerState(name) for name in players]),
    )


def _round(number, scores):
    entries = tuple(None if p is None else SeatEntry(p, p == 0, None) for p in scores)
    return RoundState(number, 3, 3, 0, 1, entries, players_in=(0, 1))


def test_running_totals_follow_start_points_and_leaving():
    seats = [PlayerState("Ann", left_round=3), PlayerState("Ben"), PlayerState("Eve", 42, 2)]
    rounds = [_round(1, [0, 10, None]), _round(2, [5, 0, 10]), _round(3, [None, 0, 20])]
    lines = running_totals(_state(["Ann", "Ben", "Eve"], rounds, seats))
    assert lines == [
        [(0, 0), (1, 0), (2, 5)],
        [(0, 0), (1, 10), (2, 10), (3, 10)],
        [(1, 42), (2, 52), (3, 72)],
    ]


def test_long_names_each_get_a_legend_row_and_are_never_cut():
    long_name = "Bartholomew Fitzgerald-Jones"
    players = ["Ann", long_name, "Cy", "Dee"]
    lines = [[(0, 0), (1, 10)]] * 4
    svg = totals_chart(players, lines, 11)
    legend_xs = {
        float(x) for x in re.findall(r'<text x="([\d.]+)" y="[\d.]+">[^<]+ 10</text>', svg)
    }
    assert legend_xs == {38.0}  # one column: every name starts at the left
    assert f"{long_name} 10</text>" in svg
    short = totals_chart(["Ann", "Ben", "Cy", "Dee"], lines, 11)
    assert len(set(re.findall(r'<text x="([\d.]+)" y="[\d.]+">[^<]+ 10</text>', short))) == 2


def test_the_chart_fits_its_picture_with_round_numbers_and_even_steps():
    lines = [[(0, 0), (1, 60), (2, 200)], [(0, 0), (1, 0), (2, 35)], [(0, 0), (1, 5), (2, 5)]]
    svg = totals_chart(["Ann", "Ben", "Cy"], lines, 11)
    width, height = map(float, re.search(r'viewBox="0 0 ([-\d.]+) ([-\d.]+)"', svg).groups())
    # The points axis counts in fifties up to the highest total.
    steps = re.findall(r'text-anchor="end">(\d+)</text>', svg)
    assert steps == ["0", "50", "100", "150", "200"]
    # The rounds axis names every round, the first too.
    rounds = re.findall(r'text-anchor="middle">(\d+)</text>', svg)
    assert rounds == [str(n) for n in range(1, 12)]
    # Every line, label and legend entry lies inside the picture.
    for x, y in (point for line in _lines(svg) for point in line):
        assert 0 <= x <= width and 0 <= y <= height
    for x, y in re.findall(r'<text x="([\d.]+)" y="([\d.]+)"', svg):
        assert 0 <= float(x) <= width and 0 <= float(y) <= height
    assert "Cy 5</text>" in svg
