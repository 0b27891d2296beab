"""The tables API: every route and every refusal the issue names."""

import random
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from app.rules.stats import PersonGameLine, PersonStats, head_to_head, table_stats
from tests.tables_helpers import new_table, person, play, table_game


def test_a_new_table_has_codes_and_nothing_else_yet(client):
    response = client.post("/api/tables", json={"name": "  The Smiths "})
    assert response.status_code == 201
    table = response.json()
    assert set(table) == {"code", "watch_code", "name", "can_edit", "language", "people", "games"}
    assert table["name"] == "The Smiths" and table["can_edit"] is True
    assert table["language"] is None  # each reader's browser decides
    assert table["people"] == [] and table["games"] == []
    assert len(table["code"]) >= 22 and len(table["watch_code"]) >= 22  # 128 random bits
    assert table["code"] != table["watch_code"]
    assert new_table(client)["code"] != table["code"]


def test_a_table_needs_a_name(client):
    for body in ({"name": "   "}, {"name": "x" * 61}, {}, {"name": 3}):
        response = client.post("/api/tables", json=body)
        assert response.status_code == 422, body
        assert response.json()["detail"]


def test_the_newest_games_are_listed_unless_all_are_asked_for(client):
    table = new_table(client)
    codes = [table_game(client, table, ["Ann", "Ben"])["code"] for _ in range(3)]
    url = f"/api/tables/{table['code']}"
    answer = client.get(url).json()
    assert answer["game_count"] == 3 and [g["code"] for g in answer["games"]] == codes[::-1]
    assert [g["code"] for g in client.get(url, params={"games": 2}).json()["games"]] == codes[:0:-1]
    assert len(client.get(url, params={"games": "all"}).json()["games"]) == 3
    assert client.get(url, params={"games": "lots"}).status_code == 422


def test_either_code_reads_the_table(client):
    table = new_table(client)
    keeper = client.get(f"/api/tables/{table['code']}").json()
    assert keeper["can_edit"] is True and keeper["watch_code"] == table["watch_code"]
    watched = client.get(f"/api/tables/{table['watch_code']}").json()
    assert watched["can_edit"] is False and "watch_code" not in watched
    assert watched["code"] == table["watch_code"]
    assert client.get("/api/tables/nosuchtable").status_code == 404


def test_names_are_matched_to_people_ignoring_case_and_spaces(client):
    table = new_table(client)
    first = table_game(client, table, ["Ann", "Ben", "Cy"])
    second = table_game(client, table, ["  ann ", "BEN", "Dee"])
    assert second["players"] == ["ann", "BEN", "Dee"]
    answer = client.get(f"/api/tables/{table['code']}").json()
    assert sorted(p["name"] for p in answer["people"]) == ["Ann", "Ben", "Cy", "Dee"]
    ids = {p["name"]: p["id"] for p in answer["people"]}
    newest, oldest = answer["games"]
    assert newest["code"] == second["code"] and oldest["code"] == first["code"]
    assert newest["person_ids"] == [ids["Ann"], ids["Ben"], ids["Dee"]]
    # Most recent players first.
    assert [p["name"] for p in answer["people"]][:3] == ["Ann", "Ben", "Dee"]


def test_a_game_for_an_unknown_table_or_a_watch_code_is_refused(client):
    table = new_table(client)
    missing = client.post("/api/games", json={"players": ["A", "B"], "table": "nope"})
    assert missing.status_code == 404
    watched = client.post("/api/games", json={"players": ["A", "B"], "table": table["watch_code"]})
    assert watched.status_code == 403
    assert client.get(f"/api/tables/{table['code']}").json()["games"] == []


def test_stats_over_finished_games_with_exact_numbers(client):
    table = new_table(client)
    one = table_game(client, table, ["Ann", "Ben"])
    play(client, one, [[0, 13], [5, 0], [0, 17]])  # ended early: Ann 5, Ben 30
    two = table_game(client, table, ["Ben", "Ann"])
    play(client, two, [[0, 13]])  # ended early: Ben 0, Ann 13
    table_game(client, table, ["Ann", "Ben"])  # in progress: not counted
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, ben = person(answer, "Ann"), person(answer, "Ben")
    assert ann["stats"] == {
        "games": 2,
        "wins": 1,
        "win_rate": 0.5,
        "average_total": None,
        "best_total": None,
        "worst_total": None,
        "rounds": 4,
        "went_out": 2,
        "went_out_rate": 0.5,
        "average_round": 4.5,
        "zero_rounds": 2,
        "solitaire": {"played": 0, "won": 0, "best_total": None},
        "longest_win_streak": 1,  # the first game; Ben won the one after
        "current_win_streak": 0,
    }
    assert (ben["stats"]["longest_win_streak"], ben["stats"]["current_win_streak"]) == (1, 1)
    assert ben["stats"]["average_round"] == 7.5 and ben["stats"]["zero_rounds"] == 2
    assert ann["versus"] == {str(ben["id"]): {"games": 2, "lower": 1, "higher": 1}}
    listed = answer["games"][1]
    assert listed["finished"] is True and listed["winners"] == ["Ben"]
    assert answer["games"][0]["finished"] is False


def test_a_full_game_gives_average_best_and_worst_totals(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben"])
    play(client, game, [[0, 20]] * 10 + [[4, 0]])
    ann = person(client.get(f"/api/tables/{table['code']}").json(), "Ann")["stats"]
    assert (ann["average_total"], ann["best_total"], ann["worst_total"]) == (4.0, 4, 4)
    assert ann["wins"] == 1 and ann["went_out"] == 10


def test_rename_a_person(client):
    table = new_table(client)
    table_game(client, table, ["Grandma", "Ben"])
    answer = client.get(f"/api/tables/{table['code']}").json()
    grandma = person(answer, "Grandma")
    renamed = client.patch(
        f"/api/tables/{table['code']}/people/{grandma['id']}", json={"name": "Nana"}
    )
    assert renamed.status_code == 200
    assert person(renamed.json(), "Nana")["id"] == grandma["id"]
    clash = client.patch(
        f"/api/tables/{table['code']}/people/{grandma['id']}", json={"name": "ben"}
    )
    assert clash.status_code == 422 and "merge" in clash.json()["detail"]
    blank = client.patch(f"/api/tables/{table['code']}/people/{grandma['id']}", json={"name": " "})
    assert blank.status_code == 422
    missing = client.patch(f"/api/tables/{table['code']}/people/999", json={"name": "X"})
    assert missing.status_code == 404


def test_merge_two_people_and_their_stats_follow(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    play(client, table_game(client, table, ["Anne", "Ben"]), [[0, 20]])
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, anne = person(answer, "Ann"), person(answer, "Anne")
    merged = client.post(
        f"/api/tables/{table['code']}/people/{anne['id']}/merge", json={"into": ann["id"]}
    )
    assert merged.status_code == 200
    after = merged.json()
    assert [p["name"] for p in after["people"]].count("Anne") == 0
    stats = person(after, "Ann")["stats"]
    assert (stats["games"], stats["wins"], stats["went_out"]) == (2, 2, 2)
    assert person(after, "Ben")["versus"] == {str(ann["id"]): {"games": 2, "lower": 0, "higher": 2}}
    # Anne's name now belongs to Ann in the list of games too.
    assert after["games"][0]["person_ids"][0] == ann["id"]


def test_merge_refusals(client):
    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, ben = person(answer, "Ann"), person(answer, "Ben")
    url = f"/api/tables/{table['code']}/people"
    together = client.post(f"{url}/{ben['id']}/merge", json={"into": ann["id"]})
    assert together.status_code == 422 and "same game" in together.json()["detail"]
    itself = client.post(f"{url}/{ann['id']}/merge", json={"into": ann["id"]})
    assert itself.status_code == 422
    assert client.post(f"{url}/{ann['id']}/merge", json={"into": 999}).status_code == 404
    assert client.post(f"{url}/{ann['id']}/merge", json={"nope": 1}).status_code == 422


def test_rematch_keeps_seats_and_table_and_moves_the_first_dealer(client):
    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben", "Cy"], first_dealer=2)
    early = client.post(f"/api/games/{game['code']}/rematch")
    assert early.status_code == 409
    play(client, game, [[0, 13, 20]])
    response = client.post(f"/api/games/{game['code']}/rematch")
    assert response.status_code == 201
    rematch = response.json()
    assert rematch["players"] == ["Ann", "Ben", "Cy"]
    assert rematch["first_dealer"] == 0  # the seat after Cy
    assert rematch["code"] != game["code"] and rematch["rounds"][0]["scores"] is None
    listed = client.get(f"/api/tables/{table['code']}").json()["games"]
    assert listed[0]["code"] == rematch["code"]
    again = client.post(f"/api/games/{game['code']}/rematch")
    assert again.status_code == 200 and again.json()["code"] == rematch["code"]
    watched = client.post(f"/api/games/{game['watch_code']}/rematch")
    assert watched.status_code == 403


def test_rematch_of_a_game_without_a_table(client, new_game):
    game = new_game(["Ann", "Ben"])
    play(client, game, [[0, 13]])
    response = client.post(f"/api/games/{game['code']}/rematch")
    assert response.status_code == 201 and response.json()["first_dealer"] == 1


def test_game_export_has_a_format_and_a_stable_id(client, new_game):
    game = new_game(["Ann", "Ben"])
    play(client, game, [[0, 13], [8, 0]], finish=False)
    exported = client.get(f"/api/games/{game['code']}/export").json()
    assert exported["format"] == 1 and len(exported["id"]) >= 16
    assert exported["players"] == ["Ann", "Ben"]
    assert exported["rounds"][1]["results"] == [
        {"points": 8, "went_out": False, "cards": None},
        {"points": 0, "went_out": True, "cards": None},
    ]
    assert exported["rounds"][2]["results"] is None
    assert game["code"] not in str(exported) and game["watch_code"] not in str(exported)
    client.post(f"/api/games/{game['code']}/scorekeeper-code")
    again = client.get(f"/api/games/{game['watch_code']}/export").json()
    assert again["id"] == exported["id"]
    assert client.get("/api/games/nope/export").status_code == 404


def test_sheet_csv(client, new_game):
    game = new_game(["Ann", "=HYPERLINK(1)", "+Cy"])
    play(client, game, [[0, 13, 17]], finish=False)
    response = client.get(f"/g/{game['code']}/sheet.csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    rows = [row.split(",") for row in response.text.strip().split("\r\n")]
    assert rows[0] == ["Round", "Cards dealt", "Wild", "Dealer", "Ann", "'=HYPERLINK(1)", "'+Cy"]
    assert rows[1] == ["1", "3", "3", "Ann", "0", "13", "17"]
    assert rows[2][:4] == ["2", "4", "4", "'=HYPERLINK(1)"] and rows[2][4:] == ["", "", ""]
    assert len(rows) == 13 and rows[12] == ["Total", "", "", "", "0", "13", "17"]


def test_table_export_then_import_recreates_games_once(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13], [3, 0]])
    table_game(client, table, ["Ann", "Cy"])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    assert exported["format"] == 1 and len(exported["games"]) == 2
    other = new_table(client, "Cousins")
    table_game(client, other, ["ANN", "Dee"])
    imported = client.post(f"/api/tables/{other['code']}/import", json=exported)
    assert imported.status_code == 200 and imported.json()["imported"] == 2
    answer = client.get(f"/api/tables/{other['code']}").json()
    assert len(answer["games"]) == 3
    assert sorted(p["name"] for p in answer["people"]) == ["ANN", "Ben", "Cy", "Dee"]
    ann = person(answer, "ANN")["stats"]
    assert (ann["games"], ann["rounds"], ann["went_out"]) == (1, 2, 1)
    codes = {g["code"] for g in answer["games"]}
    assert not codes & {
        g["code"] for g in client.get(f"/api/tables/{table['code']}").json()["games"]
    }
    listed = next(g for g in answer["games"] if g["players"] == ["ANN", "Ben"])
    game = client.get(f"/api/games/{listed['code']}").json()
    assert game["rounds"][0]["scores"] == [0, 13] and game["finished"] is True
    second = client.post(f"/api/tables/{other['code']}/import", json=exported)
    assert second.json()["imported"] == 0
    assert len(client.get(f"/api/tables/{other['code']}").json()["games"]) == 3
    # Back into the table it came from: every game is there already.
    home = client.post(f"/api/tables/{table['code']}/import", json=exported)
    assert home.json()["imported"] == 0


def test_a_malformed_or_newer_import_is_422_and_changes_nothing(client):
    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    exported = client.get(f"/api/tables/{table['code']}/export").json()
    other = new_table(client, "Cousins")
    bad_round = {**exported["games"][0], "id": "another"}
    bad_round["rounds"] = [
        {**bad_round["rounds"][0], "results": [{"points": 13}, {"points": 20}]},
        *bad_round["rounds"][1:],
    ]
    good = {**exported["games"][0], "id": "fine"}
    for document, reason in [
        ({**exported, "format": 2}, "newer"),
        ({"games": []}, "format"),
        ([1, 2], "not a Crownkeeper export"),
        ({"format": 1, "games": [{"id": "x"}]}, "malformed"),
        ({"format": 1, "games": [good, bad_round]}, "Game 2"),
    ]:
        response = client.post(f"/api/tables/{other['code']}/import", json=document)
        assert response.status_code == 422, document
        assert reason in response.json()["detail"]
    broken = client.post(
        f"/api/tables/{other['code']}/import",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert broken.status_code == 422
    after = client.get(f"/api/tables/{other['code']}").json()
    assert after["games"] == [] and after["people"] == []


def test_delete_leaves_the_list_and_stats_and_restore_brings_it_back(client):
    table = new_table(client)
    game = play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    deleted = client.delete(f"/api/games/{game['code']}")
    assert deleted.status_code == 200
    answer = client.get(f"/api/tables/{table['code']}").json()
    assert answer["games"] == [] and person(answer, "Ann")["stats"]["games"] == 0
    assert client.get(f"/api/games/{game['code']}").status_code == 404
    assert client.post(f"/api/games/{game['watch_code']}/restore").status_code == 403
    restored = client.post(f"/api/games/{game['code']}/restore")
    assert restored.status_code == 200 and restored.json()["totals"] == [0, 13]
    answer = client.get(f"/api/tables/{table['code']}").json()
    assert len(answer["games"]) == 1 and person(answer, "Ann")["stats"]["wins"] == 1
    assert client.delete(f"/api/games/{game['watch_code']}").status_code == 403
    assert client.post("/api/games/nope/restore").status_code == 404


def test_restore_ends_after_30_days(client, app):
    game = client.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
    client.delete(f"/api/games/{game['code']}")
    long_ago = (datetime.now(UTC) - timedelta(days=31)).strftime("%Y-%m-%d %H:%M:%S")
    with app.state.engine.begin() as db:
        db.execute(text("UPDATE game SET deleted_at = :t"), {"t": long_ago})
    response = client.post(f"/api/games/{game['code']}/restore")
    assert response.status_code == 404 and "30 days" in response.json()["detail"]


def test_chart_svg_draws_every_player_escaped(client, new_game):
    game = new_game(["Ann", "<b>Ben</b>", "Cy & Co"])
    play(client, game, [[0, 13, 17], [3, 0, 5]], finish=False)
    response = client.get(f"/g/{game['watch_code']}/chart.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    svg = response.text
    assert svg.startswith("<svg") and "prefers-color-scheme:dark" in svg
    assert "&lt;b&gt;Ben&lt;/b&gt; 13" in svg and "Cy &amp; Co 22" in svg and "<b>" not in svg
    assert svg.count("<polyline") == 3
    assert client.get("/g/nope/chart.svg").status_code == 404


def test_the_database_sums_agree_with_the_rules_on_a_random_table(client):
    """The stats the database adds up match the pure reference in app/rules/stats.py."""
    rng = random.Random(7)
    names = ["Ann", "Ben", "Cy", "Dee", "Eli", "Fay"]
    table = new_table(client)
    finished = []
    for index in range(12):
        players = rng.sample(names, rng.randint(2, 5))
        game = table_game(client, table, players)
        rounds = []
        for _ in range(11 if index % 3 == 0 else rng.randint(1, 4)):
            points = [rng.choice([0, 13, 20, 40, 45]) for _ in players]
            points[rng.randrange(len(players))] = 0
            rounds.append(points)
        state = play(client, game, rounds, finish=index != 5)
        if index == 7:
            client.delete(f"/api/games/{game['code']}")
        elif state["finished"]:
            finished.append(state)
    answer = client.get(f"/api/tables/{table['code']}").json()
    ids = {p["name"]: p["id"] for p in answer["people"]}
    lines = []
    for state in finished:
        saved = [r for r in state["rounds"] if r["scores"] is not None]
        for seat, name in enumerate(state["players"]):
            points = [r["scores"][seat] for r in saved]
            lines.append(
                PersonGameLine(
                    game=hash(state["watch_code"]),
                    person=ids[name],
                    total=state["totals"][seat],
                    rounds=len(saved),
                    went_out=sum(r["went_out"] == seat for r in saved),
                    zero_rounds=points.count(0),
                    full_game=len(saved) == 11,
                    won=seat in state["winners"],
                )
            )
    expected_stats = table_stats(lines)
    expected_versus = head_to_head(lines)
    for entry in answer["people"]:
        expected = asdict(expected_stats.get(entry["id"], PersonStats()))
        # Streaks follow the order games finished in: tests/tables/test_seasons_api.py checks them.
        sums = {k: v for k, v in entry["stats"].items() if not k.endswith("_win_streak")}
        assert sums == expected, entry["name"]
        assert entry["versus"] == {
            str(other): asdict(h) for other, h in expected_versus.get(entry["id"], {}).items()
        }


def _save(client, code, number, results):
    response = client.put(f"/api/games/{code}/rounds/{number}", json={"results": results})
    assert response.status_code == 200, response.text
    return response.json()


def test_stats_follow_players_joining_and_leaving_a_table_game(client):
    table = new_table(client)
    code = table_game(client, table, ["Ann", "Ben", "Cy", "Dee"])["code"]
    # Ben keeps 30 over the first three rounds (a round 1 hand keeps 0 or 3 cards: 13 at least).
    for number, ben in zip((1, 2, 3), (13, 7, 10), strict=True):
        _save(client, code, number, went_out(4, [0, ben, 20, 20]))
    joined = client.post(f"/api/games/{code}/players", json={"name": "Eve", "seat": 1, "start": 42})
    assert joined.status_code == 201, joined.text
    for number in range(4, 11):
        _save(client, code, number, went_out(5, [0, 10, 10, 20, 20]))
    assert client.delete(f"/api/games/{code}/players/0").status_code == 200  # Ann leaves
    state = _save(
        client, code, 11, [None, {"points": 10}, {"went_out": True}, *[{"points": 20}] * 2]
    )
    assert state["finished"] and state["totals"] == [0, 122, 100, 220, 220]
    answer = client.get(f"/api/tables/{table['code']}").json()
    listed = answer["games"][0]
    assert listed["players"] == ["Ann", "Eve", "Ben", "Cy", "Dee"]
    # Eve's total starts from her 42 points; Ann had the lowest total but left: Ben wins.
    assert listed["totals"] == [0, 122, 100, 220, 220] and listed["winners"] == ["Ben"]
    stats = {name: person(answer, name)["stats"] for name in listed["players"]}
    assert [stats[name]["rounds"] for name in listed["players"]] == [10, 8, 11, 11, 11]
    assert [stats[name]["wins"] for name in listed["players"]] == [0, 0, 1, 0, 0]
    assert (stats["Ann"]["went_out"], stats["Ben"]["went_out"]) == (10, 1)
    # Only a seat that played all eleven rounds has a best total from this game.
    assert [stats[name]["best_total"] for name in listed["players"]] == [None, None, 100, 220, 220]
    # Eve's 42 to start were scored in no round: 80 points over her 8 rounds is 10 a round.
    assert stats["Eve"]["average_round"] == 10
    assert stats["Ben"]["average_round"] == 100 / 11


def test_a_tiebreak_picks_the_winner_but_leaves_totals_alone(client):
    table = new_table(client)
    code = table_game(client, table, ["Ann", "Ben", "Cy"])["code"]
    for number in range(1, 12):
        _save(client, code, number, went_out(3, [0, 20, 0]))
    assert client.post(f"/api/games/{code}/tiebreak").status_code == 201
    _save(client, code, 12, [{"points": 40}, None, {"went_out": True}])
    answer = client.get(f"/api/tables/{table['code']}").json()
    ann, cy = person(answer, "Ann")["stats"], person(answer, "Cy")["stats"]
    assert (ann["best_total"], ann["wins"], ann["rounds"]) == (0, 0, 11)
    assert (cy["best_total"], cy["wins"], cy["rounds"]) == (0, 1, 11)
    # A game won in a tie-break played all its rounds: it was not ended early.
    listed = answer["games"][0]
    assert (listed["rounds_saved"], listed["round_count"]) == (11, 11)
    page = client.get(f"/t/{table['code']}").text
    assert "finished: <strong>Cy</strong> wins" in page and "finished after" not in page


def went_out(seat_count, points):
    """Results where the first seat with 0 went out and the others typed their points."""
    out = points.index(0)
    return [
        {"went_out": True} if seat == out else {"points": points[seat]}
        for seat in range(seat_count)
    ]
