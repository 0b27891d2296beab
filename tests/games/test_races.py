"""Every race decided, on both engines: requests that meet at the same moment (fired together
from threads at one app, whose sync routes run side by side in its thread pool, each on a
connection of its own) leave one winner and losers told why in words, or, where asking
twice means the same thing, the same answer for all. Never a 5xx, never a duplicate game
or person, never a table past TABLE_MAX_PEOPLE. Each burst is fired over several rounds,
each round on a table of its own."""

import os
import threading
import time
from collections import Counter
from functools import partial

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlmodel import col, func, select

from app.main import create_app
from app.models import Game, Person, PersonGame, PlayTable, TableGame
from app.tables import seasons
from tests.conftest import test_settings
from tests.databases import wired_session
from tests.html import visible_text
from tests.tables_helpers import new_table, person, play, table_game

# More for a long hunt: RACE_ROUNDS=50 pytest tests/games/test_races.py
ROUNDS = int(os.environ.get("RACE_ROUNDS", "3"))


def racing_client(migrated_database_url, **settings):
    """A client whose app lets a burst through the rate limit (the races are the point)."""
    chosen = {"create_rate_limit": "off", **settings}
    return TestClient(create_app(test_settings(migrated_database_url, **chosen)))


@pytest.fixture
def client(migrated_database_url):
    with racing_client(migrated_database_url) as test_client:
        yield test_client


@pytest.fixture
def limited(migrated_database_url):
    """At most five people a table."""
    with racing_client(migrated_database_url, table_max_people=5) as test_client:
        yield test_client


def together(*sends):
    """Call every send at the same moment, each from a thread of its own: their answers,
    in order. A thread's exception (a 500 the app raised) fails the test."""
    start = threading.Barrier(len(sends))
    answers = [None] * len(sends)
    failures = []

    def run(index, send):
        try:
            start.wait(timeout=10)
            answers[index] = send()
        except BaseException as error:  # noqa: BLE001 - reported below, with its trace
            failures.append(error)

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(sends)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a request never finished"
    if failures:
        raise failures[0]
    for answer in answers:
        assert answer.status_code < 500, (answer.status_code, answer.text[:500])
    return answers


def says_why(answer, *words):
    """A refusal in words (a sentence, not a trace), naming what it is about."""
    if answer.headers["content-type"].startswith("application/json"):
        text = answer.json()["detail"]
    else:
        text = visible_text(answer.text)
    assert isinstance(text, str) and len(text.split()) >= 4, text
    for sign_of_a_crash in ("Traceback", "Error:", "sqlalchemy", "psycopg", "IntegrityError"):
        assert sign_of_a_crash not in text, text
    for word in words:
        assert word in text, (word, text)
    return text


def table_people(client, table):
    return client.get(f"/api/tables/{table['code']}").json()["people"]


def check_table(client, table, *, max_people=None):
    """The rules the database must hold whatever raced: one person a name at a table, every
    game's seat a person of the table, the limit kept, and no game at a table twice."""
    engine = client.app.state.engine
    with wired_session(engine) as session:
        table_id = session.exec(select(PlayTable.id).where(PlayTable.code == table["code"])).one()
        names = session.exec(select(Person.name).where(Person.table_id == table_id)).all()
        folded = Counter(" ".join(name.split()).casefold() for name in names)
        assert all(count == 1 for count in folded.values()), folded
        if max_people is not None:
            assert len(names) <= max_people, names
        seated = session.exec(select(PersonGame.person_id).distinct()).all()
        people = set(session.exec(select(Person.id)).all())
        assert set(seated) <= people, "a game's seat names a person who is gone"
        games = session.exec(select(TableGame.game_id)).all()
        assert len(games) == len(set(games))
    listed = table_people(client, table)
    assert len(listed) == len({p["name"].casefold() for p in listed})
    # What the server kept of the table's figures agrees with the games: worked out afresh
    # from the rows, nothing changes.
    seasons._tables.clear()
    assert table_people(client, table) == listed
    return listed


def people_of(table):
    return f"/api/tables/{table['code']}/people"


def page_merge(client, table, who, *, data):
    """The table page's form for one person (rename, or merge into another)."""
    return client.post(f"/t/{table['code']}/people/{who['id']}", data=data, follow_redirects=False)


def start(client, table, players):
    return client.post("/api/games", json={"players": players, "table": table["code"]})


def start_on_page(client, table, players):
    fields = {f"name_{seat}": name for seat, name in enumerate(players)}
    return client.post(
        f"/t/{table['code']}/games", data={**fields, "first_dealer": "0"}, follow_redirects=False
    )


def join(client, game, name):
    return client.post(f"/api/games/{game['code']}/players", json={"name": name})


def join_on_page(client, game, name):
    return client.post(
        f"/g/{game['code']}/players",
        data={"name": name, "seat": "", "start": "zero"},
        follow_redirects=False,
    )


def seated(client, code):
    """The people in a table's game, seat by seat."""
    with client.app.state.sessions() as session:
        return list(
            session.exec(
                select(PersonGame.person_id)
                .join(TableGame, col(TableGame.game_id) == col(PersonGame.game_id))
                .where(TableGame.code == code)
                .order_by(col(PersonGame.position))
            ).all()
        )


def rematches_of(client, game):
    with client.app.state.sessions() as session:
        old = session.exec(select(Game.id).where(Game.code == game["code"])).one()
        return session.exec(select(func.count()).where(Game.rematch_of == old)).one()


# Two people merged into each other at once: one merge wins.


def two_to_merge(client):
    table = new_table(client)
    table_game(client, table, ["Ann", "Cy"])
    table_game(client, table, ["Anne", "Dee"])
    people = table_people(client, table)
    return table, person({"people": people}, "Ann"), person({"people": people}, "Anne")


def check_merged(client, table):
    people = check_table(client, table)
    assert sorted(p["name"] for p in people if p["name"] in ("Ann", "Anne")) in (
        ["Ann"],
        ["Anne"],
    )
    kept = next(p for p in people if p["name"] in ("Ann", "Anne"))
    with client.app.state.sessions() as session:
        games = session.exec(select(func.count()).where(PersonGame.person_id == kept["id"])).one()
    assert games == 2  # both games are the one person's
    assert len(people) == 3


def test_two_people_merged_into_each_other_at_once_one_merge_wins(client):
    for _ in range(ROUNDS):
        table, ann, anne = two_to_merge(client)
        answers = together(
            partial(
                client.post, f"{people_of(table)}/{ann['id']}/merge", json={"into": anne["id"]}
            ),
            partial(
                client.post, f"{people_of(table)}/{anne['id']}/merge", json={"into": ann["id"]}
            ),
        )
        assert sorted(a.status_code for a in answers)[0] == 200
        loser = max(answers, key=lambda a: a.status_code)
        assert loser.status_code in (404, 409, 422), loser.text
        says_why(loser, "merged")
        check_merged(client, table)


def test_two_people_merged_into_each_other_through_the_page_one_merge_wins(client):
    for _ in range(ROUNDS):
        table, ann, anne = two_to_merge(client)
        answers = together(
            partial(page_merge, client, table, ann, data={"into": str(anne["id"])}),
            partial(page_merge, client, table, anne, data={"into": str(ann["id"])}),
        )
        statuses = sorted(a.status_code for a in answers)
        assert statuses[0] == 303, statuses
        loser = max(answers, key=lambda a: a.status_code)
        assert loser.status_code in (404, 409, 422), loser.text
        says_why(loser, "merged")
        check_merged(client, table)


def test_merges_by_name_through_the_page_at_once_one_wins(client):
    """The form's other way to merge: the name typed of who they are the same person as."""
    for _ in range(ROUNDS):
        table, ann, anne = two_to_merge(client)
        answers = together(
            partial(page_merge, client, table, ann, data={"action": "merge", "into_name": "Anne"}),
            partial(page_merge, client, table, anne, data={"action": "merge", "into_name": "Ann"}),
        )
        statuses = sorted(a.status_code for a in answers)
        assert statuses[0] == 303, statuses
        loser = max(answers, key=lambda a: a.status_code)
        assert loser.status_code in (404, 409, 422), loser.text
        says_why(loser)
        check_merged(client, table)


# A rematch while one of its people is merged: both get through, the rematch seated with
# whoever the person is after the merge.


@pytest.mark.parametrize("kept", ["Anne", "Ann"])
def test_a_rematch_while_one_of_its_people_is_merged(client, kept):
    for _ in range(ROUNDS):
        table = new_table(client)
        game = play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
        play(client, table_game(client, table, ["Anne", "Cy"]), [[20, 0]])
        people = {"people": table_people(client, table)}
        gone = person(people, "Ann" if kept == "Anne" else "Anne")
        into = person(people, kept)
        rematch, merge = together(
            partial(client.post, f"/api/games/{game['code']}/rematch"),
            partial(
                client.post, f"{people_of(table)}/{gone['id']}/merge", json={"into": into["id"]}
            ),
        )
        assert rematch.status_code == 201, rematch.text
        assert merge.status_code == 200, merge.text
        people = check_table(client, table)
        assert sorted(p["name"] for p in people) == sorted([kept, "Ben", "Cy"])
        answer = client.get(f"/api/tables/{table['code']}").json()
        assert answer["game_count"] == 3
        assert seated(client, rematch.json()["code"]) == [into["id"], person(answer, "Ben")["id"]]
        assert rematches_of(client, game) == 1


def test_a_rematch_through_the_page_while_one_of_its_people_is_merged(client):
    for _ in range(ROUNDS):
        table = new_table(client)
        game = play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
        play(client, table_game(client, table, ["Anne", "Cy"]), [[20, 0]])
        people = {"people": table_people(client, table)}
        ann, anne = person(people, "Ann"), person(people, "Anne")
        rematch, merge = together(
            partial(client.post, f"/g/{game['code']}/rematch", follow_redirects=False),
            partial(page_merge, client, table, ann, data={"into": str(anne["id"])}),
        )
        assert (rematch.status_code, merge.status_code) == (303, 303)
        people = check_table(client, table)
        assert sorted(p["name"] for p in people) == ["Anne", "Ben", "Cy"]
        new_code = rematch.headers["location"].rsplit("/", 1)[-1]
        assert seated(client, new_code) == [anne["id"], person({"people": people}, "Ben")["id"]]
        assert rematches_of(client, game) == 1


def test_a_round_saved_while_one_of_its_people_is_merged(client):
    """Not among the findings, but the same kind: a save (the game locked) and a merge (the
    table locked) both change the person's rows and sums. Both get through, the sums right."""
    for _ in range(ROUNDS):
        table = new_table(client)
        game = table_game(client, table, ["Ann", "Ben"])
        play(client, table_game(client, table, ["Anne", "Cy"]), [[20, 0]])
        people = {"people": table_people(client, table)}
        ann, anne = person(people, "Ann"), person(people, "Anne")
        results = [{"went_out": True}, {"points": 13}]
        saved, merged = together(
            partial(client.put, f"/api/games/{game['code']}/rounds/1", json={"results": results}),
            partial(
                client.post, f"{people_of(table)}/{ann['id']}/merge", json={"into": anne["id"]}
            ),
        )
        assert (saved.status_code, merged.status_code) == (200, 200), (saved.text, merged.text)
        finished = client.post(f"/api/games/{game['code']}/finish")
        assert finished.status_code == 200
        people = check_table(client, table)
        assert sorted(p["name"] for p in people) == ["Anne", "Ben", "Cy"]
        assert person({"people": people}, "Anne")["stats"]["games"] == 2


def test_a_game_finished_while_someone_joins_it_is_no_deadlock(client, database_engine):
    """The finish holds the game and then writes its people's first sums (each naming the
    table); the join holds the table and then waits for the game. On PostgreSQL the table's
    lock must not keep out the finish's foreign-key check, or each waits for the other (a
    deadlock, found a second later). Fired in that order at the service, so it is met every
    time: the finish goes through, the join is told the game is over."""
    from app.games import GameError, add_player, finish_game, open_game
    from app.tables import open_table_game

    table = new_table(client)
    game = table_game(client, table, ["Ann", "Ben"])
    results = [{"went_out": True}, {"points": 13}]
    assert client.put(f"/api/games/{game['code']}/rounds/1", json={"results": results}).is_success
    engine = client.app.state.engine
    game_held = threading.Event()
    outcome = {}

    def joiner_waits():
        if database_engine == "sqlite":  # it waits for the write lock: nothing to see
            time.sleep(0.3)
            return
        with engine.connect() as connection:
            waiting = text("SELECT count(*) FROM pg_locks WHERE NOT granted")
            for _ in range(500):
                if connection.execute(waiting).scalar():
                    return
                time.sleep(0.01)
        raise AssertionError("the join never waited for the game")

    def finish():
        with wired_session(engine) as session:
            opened = open_game(session, code=game["code"])
            game_held.set()
            joiner_waits()
            outcome["finish"] = finish_game(session, game=opened).finished

    def join():
        game_held.wait(timeout=10)
        with wired_session(engine) as session:
            try:
                add_player(session, game=open_table_game(session, code=game["code"]), name="Zed")
            except GameError as error:
                outcome["join"] = str(error)

    threads = [threading.Thread(target=run) for run in (finish, join)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert outcome == {"finish": True, "join": "This game is over: nobody can join it now."}
    assert sorted(p["name"] for p in check_table(client, table)) == ["Ann", "Ben"]


# Ten rematches of one game at once: one game, every answer naming it.


@pytest.mark.parametrize("at_table", [True, False], ids=["at_a_table", "alone"])
def test_ten_rematches_of_one_game_at_once_make_one_game(client, at_table):
    for _ in range(ROUNDS):
        if at_table:
            table = new_table(client)
            game = table_game(client, table, ["Ann", "Ben", "Cy"])
        else:
            game = client.post("/api/games", json={"players": ["Ann", "Ben", "Cy"]}).json()
        game = play(client, game, [[0, 13, 20]])
        answers = together(
            *[partial(client.post, f"/api/games/{game['code']}/rematch") for _ in range(10)]
        )
        statuses = Counter(a.status_code for a in answers)
        assert statuses == {201: 1, 200: 9}, statuses
        codes = {a.json()["code"] for a in answers}
        assert len(codes) == 1, codes
        assert rematches_of(client, game) == 1
        (code,) = codes
        again = client.post(f"/api/games/{game['code']}/rematch")
        assert (again.status_code, again.json()["code"]) == (200, code)
        if at_table:
            check_table(client, table)
            answer = client.get(f"/api/tables/{table['code']}").json()
            assert answer["game_count"] == 2
            first = client.get(f"/api/games/{game['code']}").json()
            assert seated(client, code) == seated(client, first["code"])


def test_ten_rematches_from_the_api_and_the_page_at_once_make_one_game(client):
    for _ in range(ROUNDS):
        table = new_table(client)
        game = play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
        sends = [
            partial(client.post, f"/api/games/{game['code']}/rematch"),
            partial(client.post, f"/g/{game['code']}/rematch", follow_redirects=False),
        ] * 5
        answers = together(*sends)
        api, pages = answers[0::2], answers[1::2]
        assert sorted(a.status_code for a in api) in ([200] * 5, [200] * 4 + [201])
        assert {a.status_code for a in pages} == {303}
        codes = {a.json()["code"] for a in api}
        codes |= {a.headers["location"].rsplit("/", 1)[-1] for a in pages}
        assert len(codes) == 1, codes
        assert rematches_of(client, game) == 1
        assert client.get(f"/api/tables/{table['code']}").json()["game_count"] == 2


# Twelve new games at once, each with the new name Zed: one person Zed.


def test_twelve_new_games_and_joins_at_once_with_a_new_name_make_one_person(client):
    """Eight new games from the API and two from the table page, each with Zed (spelt four
    ways), and Zed joining two games under way: one person Zed, in all twelve."""
    spellings = ["Zed", "zed", "ZED", " Zed"]
    for _ in range(ROUNDS):
        table = new_table(client)
        playing = [table_game(client, table, ["Ann", "Ben"]) for _ in range(2)]
        sends = [partial(start, client, table, ["Ann", spellings[n % 4]]) for n in range(8)]
        sends += [partial(start_on_page, client, table, ["Ben", spellings[n]]) for n in range(2)]
        sends += [
            partial(join, client, playing[0], "zed"),
            partial(join, client, playing[1], "ZED"),
        ]
        answers = together(*sends)
        assert [a.status_code for a in answers] == [201] * 8 + [303] * 2 + [201] * 2
        people = check_table(client, table)
        assert sorted(p["name"].casefold() for p in people) == ["ann", "ben", "zed"]
        answer = client.get(f"/api/tables/{table['code']}").json()
        assert answer["game_count"] == 12
        (zed,) = [p["id"] for p in people if p["name"].casefold() == "zed"]
        with client.app.state.sessions() as session:
            games = session.exec(select(func.count()).where(PersonGame.person_id == zed)).one()
        assert games == 12


# Two renames at once to the same name: one person has it.


def test_two_renames_at_once_to_one_name_leave_one_person_with_it(client):
    for round_number in range(ROUNDS * 2):
        table = new_table(client)
        play(client, table_game(client, table, ["Ann", "Ben", "Cy"]), [[0, 13, 20]])
        people = {"people": table_people(client, table)}
        ann, ben = person(people, "Ann"), person(people, "Ben")
        if round_number % 2:
            sends = [
                partial(client.patch, f"{people_of(table)}/{ann['id']}", json={"name": "Q"}),
                partial(client.patch, f"{people_of(table)}/{ben['id']}", json={"name": "q"}),
            ]
            won = 200
        else:
            sends = [
                partial(page_merge, client, table, who, data={"name": "Q"}) for who in (ann, ben)
            ]
            won = 303
        answers = together(*sends)
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [won, 422], statuses
        says_why(max(answers, key=lambda a: a.status_code), "already at this table")
        people = check_table(client, table)
        assert sorted(p["name"].casefold() for p in people) in (
            ["ben", "cy", "q"],
            ["ann", "cy", "q"],
        )


def test_a_rename_and_a_new_game_with_the_same_new_name_at_once_leave_one_person(client):
    for _ in range(ROUNDS):
        table = new_table(client)
        play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
        ann = person({"people": table_people(client, table)}, "Ann")
        rename, started = together(
            partial(client.patch, f"{people_of(table)}/{ann['id']}", json={"name": "Zed"}),
            partial(start, client, table, ["Ben", "Zed"]),
        )
        assert started.status_code == 201, started.text
        if rename.status_code == 200:  # first: the new game's Zed is the one renamed
            expected = ["ben", "zed"]
        else:
            assert rename.status_code == 422, rename.text
            says_why(rename, "already at this table")
            expected = ["ann", "ben", "zed"]
        people = check_table(client, table)
        assert sorted(p["name"].casefold() for p in people) == expected


# New games and joins at once at a table near TABLE_MAX_PEOPLE: never past it.


def test_new_games_at_once_never_take_a_table_past_its_people_limit(limited):
    client = limited
    for _ in range(ROUNDS):
        table = new_table(client)
        play(client, table_game(client, table, ["Ann", "Ben", "Cy", "Dee"]), [[0, 13, 20, 30]])
        answers = together(
            *[partial(start, client, table, ["Ann", f"New {n}"]) for n in range(6)],
            *[partial(start_on_page, client, table, ["Ben", f"Page {n}"]) for n in range(2)],
        )
        won = [a for a in answers if a.status_code in (201, 303)]
        assert len(won) == 1, [a.status_code for a in answers]
        for answer in answers:
            if answer not in won:
                assert answer.status_code == 422, answer.text
                says_why(answer, "TABLE_MAX_PEOPLE")
        assert len(check_table(client, table, max_people=5)) == 5


def test_new_games_and_joins_at_once_never_take_a_table_past_its_people_limit(limited):
    client = limited
    for _ in range(ROUNDS):
        table = new_table(client)
        playing = table_game(client, table, ["Ann", "Ben", "Cy", "Dee"])
        answers = together(
            *[partial(start, client, table, ["Ann", f"New {n}"]) for n in range(4)],
            *[partial(join, client, playing, f"Join {n}") for n in range(3)],
            partial(join_on_page, client, playing, "Page"),
        )
        won = [a for a in answers if a.status_code in (201, 303)]
        assert len(won) == 1, [(a.status_code, a.text[:80]) for a in answers]
        for answer in answers:
            if answer not in won:
                assert answer.status_code == 422, answer.text
                says_why(answer, "TABLE_MAX_PEOPLE")
        assert len(check_table(client, table, max_people=5)) == 5


# A race lost on PostgreSQL (a deadlock, a serialization failure) is tried again inside
# the server, a bounded number of times, then answered 503 with Retry-After.


class LostRace(Exception):
    """What psycopg raises for a deadlock (40P01) or a serialization failure (40001)."""

    def __init__(self, sqlstate):
        super().__init__(f"{sqlstate}: deadlock detected")
        self.sqlstate = sqlstate


def lost_race(sqlstate="40P01"):
    return OperationalError("UPDATE person SET name = ...", {}, LostRace(sqlstate))


def failing(times, real, sqlstate="40P01"):
    """real, but the first `times` calls lose a race (after doing their work, as a deadlock
    is found mid-transaction: what they wrote must be rolled back). Counts its calls."""
    calls = []

    def fake(*args, **kwargs):
        calls.append(1)
        if len(calls) <= times:
            raise lost_race(sqlstate)
        return real(*args, **kwargs)

    fake.calls = calls
    return fake


def test_a_race_lost_once_is_tried_again_and_answered(client, monkeypatch):
    import app.tables.service as service

    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Cy"]), [[0, 13]])
    play(client, table_game(client, table, ["Anne", "Dee"]), [[20, 0]])
    people = {"people": table_people(client, table)}
    ann, anne = person(people, "Ann"), person(people, "Anne")
    # Found at the end of the merge's transaction, its rows changed and the table locked:
    # the next try must not wait for the first try's locks.
    summing = failing(1, service.advance)
    monkeypatch.setattr(service, "advance", summing)
    merged = client.post(
        f"/api/tables/{table['code']}/people/{ann['id']}/merge", json={"into": anne["id"]}
    )
    assert merged.status_code == 200, merged.text
    assert len(summing.calls) == 2
    assert [p["name"] for p in merged.json()["people"] if p["name"].startswith("Ann")] == ["Anne"]
    assert person(merged.json(), "Anne")["stats"]["games"] == 2
    check_table(client, table)


def test_a_request_tried_again_reads_its_body_again(client, monkeypatch):
    """The JSON of a PATCH and the fields of a form are there for the second try too."""
    import app.web.table_pages as table_pages
    import app.web.tables_api as tables_api

    table = new_table(client)
    table_game(client, table, ["Ann", "Ben"])
    ann = person({"people": table_people(client, table)}, "Ann")
    renaming = failing(1, tables_api.rename_person, "40001")
    monkeypatch.setattr(tables_api, "rename_person", renaming)
    renamed = client.patch(f"{people_of(table)}/{ann['id']}", json={"name": "Q"})
    assert renamed.status_code == 200, renamed.text
    assert len(renaming.calls) == 2
    on_page = failing(1, table_pages.rename_person)
    monkeypatch.setattr(table_pages, "rename_person", on_page)
    renamed = page_merge(client, table, ann, data={"name": "Queenie"})
    assert renamed.status_code == 303, renamed.text
    assert len(on_page.calls) == 2
    assert sorted(p["name"] for p in check_table(client, table)) == ["Ben", "Queenie"]


@pytest.mark.parametrize("sqlstate", ["40P01", "40001"])
def test_a_race_lost_every_time_is_answered_503_with_retry_after(client, monkeypatch, sqlstate):
    import app.web.table_pages as table_pages
    import app.web.tables_api as tables_api
    from app.web import retrying

    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    ann = person({"people": table_people(client, table)}, "Ann")
    renaming = failing(100, tables_api.rename_person, sqlstate)
    monkeypatch.setattr(tables_api, "rename_person", renaming)
    monkeypatch.setattr(table_pages, "rename_person", renaming)
    monkeypatch.setattr(retrying, "WAIT_SECONDS", 0.001)
    answer = client.patch(f"/api/tables/{table['code']}/people/{ann['id']}", json={"name": "Q"})
    assert answer.status_code == 503
    assert int(answer.headers["Retry-After"]) > 0
    assert says_why(answer) == "The score keeper is busy; try again."
    assert len(renaming.calls) == retrying.TRIES
    page = client.post(f"/t/{table['code']}/people/{ann['id']}", data={"name": "Q"})
    assert page.status_code == 503 and int(page.headers["Retry-After"]) > 0
    assert "busy" in says_why(page)
    assert len(renaming.calls) == 2 * retrying.TRIES
    assert sorted(p["name"] for p in table_people(client, table)) == ["Ann", "Ben"]


def test_another_database_error_is_not_tried_again(client, monkeypatch):
    import app.web.tables_api as tables_api

    table = new_table(client)
    play(client, table_game(client, table, ["Ann", "Ben"]), [[0, 13]])
    ann = person({"people": table_people(client, table)}, "Ann")
    renaming = failing(100, tables_api.rename_person, "42601")  # a syntax error: a bug
    monkeypatch.setattr(tables_api, "rename_person", renaming)
    answer = client.patch(f"/api/tables/{table['code']}/people/{ann['id']}", json={"name": "Q"})
    assert answer.status_code == 500 and len(renaming.calls) == 1


@pytest.mark.parametrize("database_engine", ["postgresql"], indirect=True)
def test_a_real_deadlock_is_one_the_server_tries_again(client):
    """What PostgreSQL raises for a deadlock is what the retry looks for (db.is_retryable).
    SQLite's writers take turns: it has none."""
    from app.db import is_retryable

    first, second = new_table(client, "First"), new_table(client, "Second")
    engine = client.app.state.engine
    lock = text("SELECT id FROM play_table WHERE code = :code FOR UPDATE")
    errors = []
    locked_own = threading.Barrier(2)

    def cross(mine, theirs):
        with engine.connect() as connection:
            try:
                connection.execute(lock, {"code": mine["code"]})
                locked_own.wait(timeout=10)
                connection.execute(lock, {"code": theirs["code"]})
            except Exception as error:  # noqa: BLE001 - the deadlock, looked at below
                errors.append(error)
            connection.rollback()

    threads = [
        threading.Thread(target=cross, args=pair) for pair in ((first, second), (second, first))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(errors) == 1, errors
    assert errors[0].orig.sqlstate == "40P01"
    assert is_retryable(errors[0])
