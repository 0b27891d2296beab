"""Every game the product makes exports and imports back (issue 27): hypothesis plays random
tables through the JSON API (joins, leaves, returns, ties and tie-breaks, games ended early
and then tie-broken, solitaire, corrections, deletes and restores, renames and merges),
exports the table, imports the export at a new table, and finds there the same games, the
same stats, records and ratings for each person (by name), all time and for each year.

A person renamed or merged at the table keeps their figures after the round trip: the
table's export says which of its people sat in each seat, so their older games (whose
sheets keep the name they were played under) stay theirs at the new table.

The run is derandomized (the same tables every time, as the suite's other hypothesis tests)
and must have exported every kind of game in KINDS, a game ended early then tie-broken
among them. ROUNDTRIP_EXAMPLES=500 (say) runs a longer, randomised audit;
ROUNDTRIP_SHRINK=1 shrinks what it finds."""

from __future__ import annotations

import os
import random
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from app.games import service as games_service
from app.main import create_app
from app.rules.cards import RANK_CODES, Decks
from app.rules.leftovers import leftover_totals
from app.rules.solitaire import SOLITAIRE_DECKS
from tests.conftest import test_settings

AUDIT = int(os.environ.get("ROUNDTRIP_EXAMPLES", "0"))
ROUNDTRIP = settings(
    max_examples=AUDIT or 25,
    deadline=None,
    derandomize=not AUDIT,  # the suite's runs are the same every time; an audit explores
    database=None,
    # Shrinking replays whole tables for minutes: the first failing table is reported as
    # drawn (ROUNDTRIP_SHRINK=1 shrinks it).
    phases=[
        phase for phase in Phase if phase != Phase.shrink or os.environ.get("ROUNDTRIP_SHRINK")
    ],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

NAMES = ("Ann", "Ben", "Cy", "Dee", "Eve")
NEW_NAMES = ("Bea", "Bob", "Kit", "ann")  # "ann": a rename that only changes letter case
RANK_BY_CODE = {code: rank for rank, code in RANK_CODES.items()}
SUITS = "SHCDR"


# A shuffled game's order is the server's own chance; here it is drawn by hypothesis, so
# that a table is played the same way each time hypothesis replays it.
SHUFFLE_SEED = [0]


@pytest.fixture
def client(migrated_database_url, monkeypatch):
    # The service seeds each shuffle from secrets: here from hypothesis's draw.
    monkeypatch.setattr(
        games_service,
        "random",
        SimpleNamespace(Random=lambda _seed: random.Random(SHUFFLE_SEED[0])),
    )
    app = create_app(test_settings(migrated_database_url, create_rate_limit="off"))
    with TestClient(app) as test_client:
        yield test_client


def ok(response, *codes: int) -> Any:
    assert response.status_code in (codes or (200,)), response.text
    return response.json()


def refused(response) -> bool:
    """A change the rules turn down (a 4xx in words); anything else must have worked."""
    assert response.status_code < 500, response.text
    return response.status_code >= 400


# Playing ---------------------------------------------------------------------------------


def chance(data, one_in: int) -> bool:
    """True one time in one_in (never, in the simplest example: it shrinks towards less)."""
    return data.draw(st.integers(1, one_in)) == one_in


def reachable(round_: dict[str, Any], *, solitaire: bool) -> list[int]:
    """The points a kept hand can leave in this round: a few low ones, so totals tie."""
    decks = SOLITAIRE_DECKS if solitaire else Decks.for_players(len(round_["players_in"]))
    totals = leftover_totals(round_["cards_dealt"], RANK_BY_CODE[round_["wild_rank"]], decks)
    return sorted(totals)[:4]


def pile_cards(picks: list[int], count: int) -> list[str]:
    """Exactly count cards for a solitaire pile (one deck: two of each card)."""
    deck = [f"{code}{suit}" for code in RANK_CODES.values() for suit in SUITS] * 2
    deck += ["JOKER"] * 3
    cards, used = [], set()
    for pick in picks[:count]:
        pick %= len(deck)
        while pick in used:
            pick = (pick + 1) % len(deck)
        used.add(pick)
        cards.append(deck[pick])
    return cards


# What hypothesis draws for a round has the same shape whatever the round deals (a
# shuffled game's deal is the server's own chance): a kind and a pick for every seat.
SEAT_DRAW = st.tuples(st.integers(0, 7), st.integers(0, 3))
PILE_DRAW = st.tuples(
    st.integers(0, 3), st.integers(0, 3), st.lists(st.integers(0, 300), min_size=13, max_size=13)
)
KEPT_CARDS = ([], ["4S"], ["4S", "9D"], ["KH"])


def results_for(
    data, game: dict[str, Any], round_: dict[str, Any], *, tie: bool = False
) -> list[Any]:
    """Every seat's result for a round: one player out, the others typed points (a total a
    kept hand can leave), a card or two, or the points that tie them with the one out.
    tie: the highest total goes out and everyone who can catches up with it."""
    seats = len(game["players"])
    if game["mode"] == "solitaire":
        kind, pick, picks = data.draw(PILE_DRAW)
        if kind == 1:
            return [{"went_out": True}]
        if kind == 2:
            return [{"cards": pile_cards(picks, round_["cards_dealt"])}]
        return [{"points": reachable(round_, solitaire=True)[pick]}]
    players_in = round_["players_in"]
    totals = game["totals"] if round_["kind"] == "round" else [0] * seats
    out = data.draw(st.sampled_from(players_in))
    if tie:
        out = max(players_in, key=lambda seat: totals[seat])
    results: list[Any] = [None] * seats
    results[out] = {"went_out": True}
    possible = leftover_totals(
        round_["cards_dealt"], RANK_BY_CODE[round_["wild_rank"]], Decks.for_players(len(players_in))
    )
    low = reachable(round_, solitaire=False)
    for seat in players_in:
        kind, pick = data.draw(SEAT_DRAW)
        if seat == out:
            continue
        catch_up = totals[out] - totals[seat]
        if (tie or kind >= 5) and catch_up in possible:
            results[seat] = {"points": catch_up}
        elif kind == 4:
            # A card may be the round's wild rank, kept all the same after laying down.
            results[seat] = {"cards": KEPT_CARDS[pick], "confirmed": True}
        else:
            results[seat] = {"points": low[pick]}
    return results


def save(client, data, game: dict[str, Any], number: int, *, tie: bool = False) -> dict[str, Any]:
    round_ = game["rounds"][number - 1]
    body = {"results": results_for(data, game, round_, tie=tie), "version": game["version"]}
    response = client.put(f"/api/games/{game['code']}/rounds/{number}", json=body)
    return ok(response)


def correct(client, data, game: dict[str, Any]) -> dict[str, Any]:
    """Correct a saved round (any: an ordinary one, a pile, a tie-break) with its version."""
    saved = [r["number"] for r in game["rounds"] if r["scores"] is not None]
    if not saved:
        return game
    return save(client, data, game, data.draw(st.sampled_from(saved)))


def seat_change(client, data, game: dict[str, Any], pool: list[str]) -> dict[str, Any]:
    """A player joins, leaves or comes back, from the next unsaved round on."""
    code = game["code"]
    change = data.draw(st.sampled_from(["join", "leave", "return"]))
    if change == "join":
        body = {
            "name": data.draw(st.sampled_from(pool)),
            "seat": data.draw(st.integers(0, len(game["players"]))),
            "start": data.draw(st.sampled_from(["zero", "highest", "average", 7])),
        }
        response = client.post(f"/api/games/{code}/players", json=body)
    else:
        gone = [s for s, seat in enumerate(game["seats"]) if seat["left_round"] is not None]
        seats = gone if change == "return" else range(len(game["players"]))
        if not seats:
            return game
        seat = data.draw(st.sampled_from(list(seats)))
        if change == "leave":
            response = client.delete(f"/api/games/{code}/players/{seat}")
        else:
            response = client.post(f"/api/games/{code}/players/{seat}/return")
    if refused(response):
        return game
    event(f"a player's {change}")
    return response.json()


def play_game(client, data, table: str, pool: list[str]) -> dict[str, Any]:
    """One game at the table, played as far as hypothesis likes."""
    solitaire = chance(data, 5)
    players = data.draw(
        st.lists(
            st.sampled_from(pool),
            min_size=1 if solitaire else 2,
            max_size=1 if solitaire else 4,
            unique_by=str.casefold,
        )
    )
    # A name typed in other letters is the same person.
    players = [name.upper() if chance(data, 6) else name for name in players]
    body = {
        "players": players,
        "table": table,
        "order": data.draw(st.sampled_from(["up", "up", "down", "shuffled"])),
        "first_dealer": data.draw(st.integers(0, len(players) - 1)),
    }
    SHUFFLE_SEED[0] = data.draw(st.integers(0, 1000))
    game = ok(client.post("/api/games", json=body), 201)
    code = game["code"]
    ending = data.draw(st.sampled_from(["open", "early", "all"]))
    rounds = 11 if ending == "all" else data.draw(st.integers(1, 10))
    if solitaire:
        for number in data.draw(st.permutations(range(1, 12)))[:rounds]:
            game = save(client, data, game, number)
    else:
        # Often a tie for the lowest total at the end, to be broken (or not).
        tied_end = ending != "open" and data.draw(st.booleans())
        for number in range(1, rounds + 1):
            while chance(data, 8):
                game = seat_change(client, data, game, pool)
            game = save(client, data, game, number, tie=tied_end and number == rounds)
    if ending == "early":
        game = ok(client.post(f"/api/games/{code}/finish"))
    event("solitaire" if solitaire else f"a game: {ending}")
    # Ties broken, or left shared; a tie-break left unplayed, or ended (shared after all).
    for _ in range(3):
        if not game["can_tiebreak"] or chance(data, 4):
            break
        game = ok(client.post(f"/api/games/{code}/tiebreak"), 201)
        then = ("play", "play", "wait", "finish")[data.draw(st.integers(0, 3))]
        event(f"a tie-break ({ending}): {then}")
        if then == "wait":
            break
        if then == "finish":
            game = ok(client.post(f"/api/games/{code}/finish"))
            break
        game = save(client, data, game, len(game["rounds"]))
    while chance(data, 4):
        game = correct(client, data, game)
        event("a correction")
    return game


def table_change(client, data, table: str) -> None:
    """A person renamed (another name, or the same in other letters), or two merged."""
    event("a table change")
    answer = ok(client.get(f"/api/tables/{table}?games=all"))
    people = answer["people"]
    people.sort(key=lambda person: (person["name"].casefold(), person["name"]))
    if not people:
        return
    person = data.draw(st.sampled_from(people))
    others = [other for other in people if other["id"] != person["id"]]
    if not others or data.draw(st.sampled_from(["rename", "merge"])) == "rename":
        name = data.draw(st.sampled_from([*NEW_NAMES, *NAMES, person["name"].lower()]))
        answer = client.patch(f"/api/tables/{table}/people/{person['id']}", json={"name": name})
        event("a rename" if not refused(answer) else f"a rename refused {answer.status_code}")
    else:
        # Mostly two people who never played together (else the merge is refused).
        apart = [
            other
            for other in others
            if not any(
                {person["id"], other["id"]} <= set(game["person_ids"]) for game in answer["games"]
            )
        ]
        into = data.draw(st.sampled_from(apart if apart and not chance(data, 5) else others))
        merge = f"/api/tables/{table}/people/{person['id']}/merge"
        answer = client.post(merge, json={"into": into["id"]})
        event("a merge" if not refused(answer) else f"a merge refused {answer.status_code}")


def play_table(client, data) -> str:
    table = ok(client.post("/api/tables", json={"name": "The Smiths"}), 201)["code"]
    deleted: list[str] = []
    for _ in range(data.draw(st.integers(1, 4))):
        people = [p["name"] for p in ok(client.get(f"/api/tables/{table}"))["people"]]
        pool = sorted({*NAMES, *people}, key=lambda name: (name.casefold(), name))
        pool = list({name.casefold(): name for name in pool}.values())
        game = play_game(client, data, table, pool)
        if chance(data, 4):
            ok(client.delete(f"/api/games/{game['code']}"))
            deleted.append(game["code"])
            event("a delete")
        if deleted and chance(data, 3):
            restored = deleted.pop(data.draw(st.integers(0, len(deleted) - 1)))
            ok(client.post(f"/api/games/{restored}/restore"))
            event("a restore")
        while chance(data, 3):
            table_change(client, data, table)
    return table


# Comparing -------------------------------------------------------------------------------

GAME_CODES = ("code", "watch_code", "version", "can_edit")


def games_of(client, table: str) -> list[dict[str, Any]]:
    """The table's games, oldest first, each as its players and the people in its seats,
    the game as the API answers it (codes and versions aside), and its line in the list."""
    answer = ok(client.get(f"/api/tables/{table}?games=all"))
    names = {person["id"]: person["name"] for person in answer["people"]}
    found = []
    for listed in reversed(answer["games"]):
        game = ok(client.get(f"/api/games/{listed['code']}"))
        found.append(
            {
                "created_at": listed["created_at"],
                "people": [names[person] for person in listed["person_ids"]],
                "listed": {k: v for k, v in listed.items() if k not in ("code", "person_ids")},
                "game": {k: v for k, v in game.items() if k not in GAME_CODES},
            }
        )
    return found


def figures(client, table: str, query: str) -> dict[str, Any]:
    """Each person's stats, head to head, streaks and rating, and the records, by name."""
    answer = ok(client.get(f"/api/tables/{table}?games=all{query}"))
    names = {person["id"]: person["name"] for person in answer["people"]}
    people = {
        person["name"]: {
            "stats": person["stats"],
            "rating": person["rating"],
            "versus": {names[int(other)]: h for other, h in person["versus"].items()},
        }
        for person in answer["people"]
    }
    records = {
        record: sorted(
            (
                holder["person"]["name"],
                holder["figure"],
                holder["date"],
                holder.get("round"),
            )
            for holder in holders
        )
        for record, holders in answer["records"].items()
    }
    return {
        "people": people,
        "records": records,
        "years": answer["years"],
        "period": answer["period"],
    }


def without_gamesless(people: dict[str, Any], kept: set[str]) -> dict[str, Any]:
    """The people with a game at the table; anyone else (their games all deleted) has no
    figures to carry over, and must show none."""
    for name, person in people.items():
        if name not in kept:
            assert person["stats"]["games"] == 0 and person["stats"]["solitaire"]["played"] == 0
            assert person["rating"] is None
    return {name: person for name, person in people.items() if name in kept}


def export_document(client, table: str) -> dict[str, Any]:
    return ok(client.get(f"/api/tables/{table}/export"))


def game_documents(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in game.items() if k != "id"} for game in document["games"]]


def difference(before: Any, after: Any, where: str = "") -> str | None:
    """Where two answers first differ, and how (None when they are the same)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            if key not in before or key not in after:
                return (
                    f"{where}.{key}: {before.get(key, '(none)')!r} != {after.get(key, '(none)')!r}"
                )
            found = difference(before[key], after[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (one, other) in enumerate(zip(before, after, strict=True)):
            found = difference(one, other, f"{where}[{index}]")
            if found:
                return found
        return None
    return None if before == after else f"{where}: {before!r} != {after!r}"


def check_same(before: Any, after: Any, what: str) -> None:
    found = difference(before, after)
    assert found is None, f"{what} differ after the round trip at {found}"


def check_round_trip(client, table: str) -> dict[str, Any]:
    """Export the table, import it at a new one, and find everything the same there; the
    export, with the new table's code ("copy")."""
    document = export_document(client, table)
    copy = ok(client.post("/api/tables", json={"name": "The copy"}), 201)["code"]
    answer = ok(client.post(f"/api/tables/{copy}/import", json=document))
    before = games_of(client, table)
    assert answer["imported"] == len(document["games"]) == len(before)
    after = games_of(client, copy)
    check_same(before, after, "the games")
    check_same(game_documents(document), game_documents(export_document(client, copy)), "exports")
    played = {name for game in before for name in game["people"]}
    whole = figures(client, table, "")
    for query in ["", *(f"&year={year}" for year in whole["years"])]:
        original, copied = figures(client, table, query), figures(client, copy, query)
        original["people"] = without_gamesless(original["people"], played)
        check_same(original, copied, f"figures ({query or 'all time'})")
    return {**document, "copy": copy}


# What the tables exported held between them: the run must have exported every kind.
KINDS = {
    "a game of eleven rounds",
    "a game ended early",
    "a tie-break played",
    "a game ended early, then tie-broken",
    "a tie-break waiting",
    "solitaire",
    "a player joined",
    "a player left",
    "a person renamed or merged since",
}
SEEN: set[str] = set()


def kinds_of(document: dict[str, Any]) -> set[str]:
    found = set()
    for game in document["games"]:
        main = [r for r in game["rounds"] if r["kind"] == "round"]
        tiebreaks = [r for r in game["rounds"] if r["kind"] == "tiebreak"]
        unplayed = any(r["results"] is None for r in main)
        if game["mode"] == "solitaire":
            found.add("solitaire")
        elif not unplayed:
            found.add("a game of eleven rounds")
        elif game["finished_at"] is not None or tiebreaks:
            found.add("a game ended early")
        if any(r["results"] is not None for r in tiebreaks):
            found.add("a tie-break played")
            if unplayed:
                found.add("a game ended early, then tie-broken")
        if any(r["results"] is None for r in tiebreaks):
            found.add("a tie-break waiting")
        if any(seat["joined_round"] for seat in game["seats"]):
            found.add("a player joined")
        if any(seat["left_round"] for seat in game["seats"]):
            found.add("a player left")
        if game["people"] != game["players"]:
            found.add("a person renamed or merged since")
    return found


@ROUNDTRIP
@given(data=st.data())
def play_and_round_trip(client, data):
    table = play_table(client, data)
    SEEN.update(kinds_of(check_round_trip(client, table)))


def test_every_table_exports_and_imports_back(client):
    SEEN.clear()
    play_and_round_trip(client)
    assert SEEN >= KINDS, f"no table exported {sorted(KINDS - SEEN)}: play more kinds of game"


def test_renamed_and_merged_people_keep_their_figures(client):
    """Ann renamed Bea, a new Ann after her, Benny merged into Ben: at the new table each
    has their own games, as at the old one (the sheets keep the names played under)."""
    table = ok(client.post("/api/tables", json={"name": "The Smiths"}), 201)["code"]

    def game(*players, points):
        body = {"players": list(players), "table": table}
        played = ok(client.post("/api/games", json=body), 201)
        results = [{"went_out": True}, *({"points": p} for p in points)]
        ok(client.put(f"/api/games/{played['code']}/rounds/1", json={"results": results}))
        ok(client.post(f"/api/games/{played['code']}/finish"))

    game("Ann", "Ben", points=[13])
    ids = {p["name"]: p["id"] for p in ok(client.get(f"/api/tables/{table}"))["people"]}
    ok(client.patch(f"/api/tables/{table}/people/{ids['Ann']}", json={"name": "Bea"}))
    game("Ann", "Benny", "Cy", points=[14, 15])
    ids = {p["name"]: p["id"] for p in ok(client.get(f"/api/tables/{table}"))["people"]}
    ok(client.post(f"/api/tables/{table}/people/{ids['Benny']}/merge", json={"into": ids["Ben"]}))

    copy = check_round_trip(client, table)["copy"]
    people = {
        p["name"]: p["stats"]["games"] for p in ok(client.get(f"/api/tables/{copy}"))["people"]
    }
    assert people == {"Bea": 1, "Ann": 1, "Ben": 2, "Cy": 1}


def test_an_export_naming_one_person_in_two_seats_is_refused(client):
    table = ok(client.post("/api/tables", json={"name": "The Smiths"}), 201)["code"]
    played = ok(client.post("/api/games", json={"players": ["Ann", "Ben"], "table": table}), 201)
    results = [{"went_out": True}, {"points": 13}]
    ok(client.put(f"/api/games/{played['code']}/rounds/1", json={"results": results}))
    document = export_document(client, table)
    document["games"][0]["people"] = ["Ann", "ann"]
    copy = ok(client.post("/api/tables", json={"name": "Copy"}), 201)["code"]
    answer = client.post(f"/api/tables/{copy}/import", json=document)
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("Game 1 of the document: Two players are called")
    document["games"][0]["people"] = ["Ann"]
    answer = client.post(f"/api/tables/{copy}/import", json=document)
    assert answer.status_code == 422 and "names 1 people" in answer.json()["detail"]
    assert ok(client.get(f"/api/tables/{copy}"))["people"] == []


def test_the_people_limit_counts_the_people_an_export_names(migrated_database_url):
    """A table of two people (TABLE_MAX_PEOPLE=2) takes an export whose seats are those two
    people, though one of them played under an old name."""
    chosen = test_settings(migrated_database_url, create_rate_limit="off", table_max_people=2)
    with TestClient(create_app(chosen)) as client:
        table = ok(client.post("/api/tables", json={"name": "The Smiths"}), 201)["code"]
        played = ok(
            client.post("/api/games", json={"players": ["Ann", "Ben"], "table": table}), 201
        )
        results = [{"went_out": True}, {"points": 13}]
        ok(client.put(f"/api/games/{played['code']}/rounds/1", json={"results": results}))
        ann = next(
            p for p in ok(client.get(f"/api/tables/{table}"))["people"] if p["name"] == "Ann"
        )
        ok(client.patch(f"/api/tables/{table}/people/{ann['id']}", json={"name": "Bea"}))
        document = export_document(client, table)
        assert document["games"][0]["players"] == ["Ann", "Ben"]
        assert document["games"][0]["people"] == ["Bea", "Ben"]

        copy = ok(client.post("/api/tables", json={"name": "Copy"}), 201)["code"]
        ok(client.post("/api/games", json={"players": ["Bea", "Ben"], "table": copy}), 201)
        answer = ok(client.post(f"/api/tables/{copy}/import", json=document))
        assert answer["imported"] == 1
        assert sorted(p["name"] for p in answer["table"]["people"]) == ["Bea", "Ben"]
