"""An independent check of a table's stats: random games with players joining and leaving,
tie-breaks, solitaire, games ended early, deletes, renames and merges, played through the
API; the test keeps its own book of who is who and recomputes every person's stats and head
to head with the rules' reference (app/rules/stats.py) from the games' own sheets, and every
person's rating with openskill itself (who left after a round ranked behind who stayed)."""

import random
from dataclasses import asdict

import pytest
from openskill.models import PlackettLuce

from app.rules.cards import Decks, parse_rank
from app.rules.leftovers import leftover_totals
from app.rules.stats import PersonGameLine, PersonStats, head_to_head, table_stats
from tests.tables_helpers import new_table

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus"]


def put(client, code, number, results):
    response = client.put(f"/api/games/{code}/rounds/{number}", json={"results": results})
    assert response.status_code == 200, response.text
    return response.json()


def typed_points(plan, rng):
    """Points a player who did not go out could type for this round or pile: a total the
    cards they keep can cost (app/rules/leftovers.py), 0 among them. Only the tens, so that
    totals tie now and then and tie-breaks get played."""
    decks = Decks.for_players(len(plan["players_in"]))
    possible = leftover_totals(plan["cards_dealt"], parse_rank(plan["wild_rank"]), decks)
    return rng.choice(sorted(points for points in possible if points % 10 == 0))


def results_for(state, number, rng):
    plan = state["rounds"][number - 1]
    seats = plan["players_in"]
    out = rng.choice(seats)
    results = [None] * len(state["players"])
    for seat in seats:
        results[seat] = {"went_out": True} if seat == out else {"points": typed_points(plan, rng)}
    return results


def play_one(client, table, rng, number_of_game):
    """A random game at the table; returns its final state (or None if deleted)."""
    if number_of_game % 5 == 4:
        solo = client.post("/api/games", json={"players": [rng.choice(NAMES)], "table": table})
        code = solo.json()["code"]
        state = solo.json()
        for pile in range(1, rng.choice([3, 12])):
            plan = state["rounds"][pile - 1]
            result = (
                {"went_out": True} if rng.random() < 0.5 else {"points": typed_points(plan, rng)}
            )
            state = put(client, code, pile, [result])
        if not state["finished"]:
            state = client.post(f"/api/games/{code}/finish").json()
        return state
    players = rng.sample(NAMES, rng.randint(2, 4))
    state = client.post("/api/games", json={"players": players, "table": table}).json()
    code = state["code"]
    rounds = 11 if rng.random() < 0.6 else rng.randint(1, 5)
    for number in range(1, rounds + 1):
        if number in (2, 4) and rng.random() < 0.4:
            newcomer = rng.choice([n for n in NAMES if n not in state["players"]] or ["Hal"])
            seat = rng.randint(0, len(state["players"]))
            response = client.post(
                f"/api/games/{code}/players", json={"name": newcomer, "seat": seat}
            )
            if response.status_code == 201:
                state = response.json()
        if number == 3 and rng.random() < 0.4:
            still = [s for s, seat in enumerate(state["seats"]) if seat["left_round"] is None]
            if len(still) > 2:
                state = client.delete(f"/api/games/{code}/players/{rng.choice(still)}").json()
        state = put(client, code, number, results_for(state, number, rng))
    if not state["finished"]:
        state = client.post(f"/api/games/{code}/finish").json()
    while state["can_tiebreak"] and rng.random() < 0.7:
        state = client.post(f"/api/games/{code}/tiebreak").json()
        state = put(
            client, code, len(state["rounds"]), results_for(state, len(state["rounds"]), rng)
        )
    if rng.random() < 0.1:
        client.delete(f"/api/games/{code}")
        return None
    return state


def lines_of(state, person_of):
    """The reference's lines for one finished game, from its own sheet."""
    main = [r for r in state["rounds"] if r["kind"] == "round"]
    lines = []
    for seat, name in enumerate(state["players"]):
        played = [r["scores"][seat] for r in main if r["scores"] and r["scores"][seat] is not None]
        lines.append(
            PersonGameLine(
                game=hash(state["watch_code"]),
                person=person_of[name.casefold()],
                total=state["totals"][seat],
                rounds=len(played),
                went_out=sum(r["went_out"] == seat for r in main),
                zero_rounds=played.count(0),
                full_game=all(r["scores"] is not None for r in main) and len(played) == len(main),
                won=seat in state["winners"],
                solitaire=state["mode"] == "solitaire",
                start_points=state["seats"][seat]["start_points"],
                seated=state["seats"][seat]["left_round"] is None,
            )
        )
    return lines


def test_the_tables_stats_agree_with_an_independent_count(client):
    rng = random.Random(2026)
    table = new_table(client)["code"]
    finished = [state for n in range(14) if (state := play_one(client, table, rng, n))]
    # A misspelt name, "Anne", for a game without Ann (merged into Ann below).
    misspelt = client.post("/api/games", json={"players": ["Anne", "Ben"], "table": table}).json()
    put(client, misspelt["code"], 1, [{"went_out": True}, {"points": 40}])
    finished.append(client.post(f"/api/games/{misspelt['code']}/finish").json())
    # The book: every name played so far is one person (names match people ignoring case).
    people = client.get(f"/api/tables/{table}").json()["people"]
    ids = {person["name"].casefold(): person["id"] for person in people}

    # A rename and a merge: the stats follow the person, not the name.
    renamed = client.patch(f"/api/tables/{table}/people/{ids['ben']}", json={"name": "Benjamin"})
    assert renamed.status_code == 200
    merged_away, keep = ids["anne"], ids["ann"]
    merged = client.post(f"/api/tables/{table}/people/{merged_away}/merge", json={"into": keep})
    assert merged.status_code == 200, merged.text

    person_of = {name: (keep if pid == merged_away else pid) for name, pid in ids.items()}
    lines = [line for state in finished for line in lines_of(state, person_of)]
    expected_stats = table_stats(lines)
    expected_versus = head_to_head(lines)
    after = client.get(f"/api/tables/{table}").json()
    assert any(p["name"] == "Benjamin" for p in after["people"])
    for entry in after["people"]:
        expected = asdict(expected_stats.get(entry["id"], PersonStats()))
        # Streaks follow the order games finished in: tests/tables/test_seasons_api.py checks them.
        sums = {k: v for k, v in entry["stats"].items() if not k.endswith("_win_streak")}
        assert sums == expected, entry["name"]
        assert entry["versus"] == {
            str(other): asdict(h) for other, h in expected_versus.get(entry["id"], {}).items()
        }, entry["name"]

    together = [lines_of(state, person_of) for state in finished if state["mode"] != "solitaire"]
    assert any(not line.seated and line.rounds for lines in together for line in lines)
    expected_ratings = openskill_ratings(together)
    for entry in after["people"]:
        rating = expected_ratings.get(entry["id"])
        if rating is None:
            assert entry["rating"] is None, entry["name"]
            continue
        found = entry["rating"]
        assert (found["mu"], found["sigma"]) == pytest.approx((rating.mu, rating.sigma))
        assert found["figure"] == max(100, round(rating.ordinal(alpha=20, target=1000)))


def openskill_ratings(games):
    """openskill over the games in the order they finished: everyone who played a round of a
    game, those still seated at its end first (by total, a tie-break's winner ahead), then
    those who left (by total)."""
    model = PlackettLuce()
    ratings = {}
    for lines in games:
        played = [line for line in lines if line.rounds]
        if len(played) < 2:
            continue
        keys = [(not line.seated, line.total, not line.won) for line in played]
        ranks = [sorted(set(keys)).index(key) + 1 for key in keys]
        teams = [[ratings.get(line.person, model.rating())] for line in played]
        for line, (rating,) in zip(played, model.rate(teams, ranks=ranks), strict=True):
            ratings[line.person] = rating
    return ratings
