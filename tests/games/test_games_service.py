"""The games service on a real SQLite database, called directly: what the pages and the API
stand on, checked without them."""

import pytest
from sqlalchemy import text
from sqlmodel import Session

from app import games
from app.db import make_engine
from app.games import (
    GameError,
    GameEvents,
    GameNotFound,
    NoSuchRound,
    ReadOnlyLink,
    StaleVersion,
    Unwired,
    add_player,
    add_tiebreak,
    create_game,
    finish_game,
    load_game,
    load_games,
    parse_cards,
    remove_player,
    replace_keeper_code,
    save_round,
)
from app.migrate import upgrade_to_head
from app.rules.scoring import RoundError, SeatResult

OUT = SeatResult(went_out=True)


def typed(points):
    return SeatResult(points=points)


def held(*codes):
    return SeatResult(cards=parse_cards(codes))


@pytest.fixture
def session(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path}/service.db")
    upgrade_to_head(engine)
    # The game service on its own: changes heard by nobody else (no table, no open page).
    with games.sessions(engine, GameEvents())() as db:
        yield db
    engine.dispose()


@pytest.fixture
def game(session):
    return create_game(session, players=["Ann", "Ben", "Cy"])


def play_rounds(session, code, count, seat_count=3):
    state = None
    for number in range(1, count + 1):
        # 16 in round 1 up to 26 in round 11: totals a leftover hand can reach in every round.
        results = [OUT] + [typed(number + 15)] * (seat_count - 1)
        state = save_round(session, code=code, number=number, results=results)
    return state


# --- read-only codes ---


def test_a_new_game_has_two_different_unguessable_codes(game):
    assert game.code != game.watch_code
    assert len(game.code) >= 22 and len(game.watch_code) >= 22
    assert game.can_edit


def test_the_watch_code_reads_the_game_but_shows_no_scorekeeper_code(session, game):
    seen = load_game(session, code=game.watch_code)
    assert not seen.can_edit
    assert seen.code == game.watch_code
    assert game.code not in repr(seen)
    assert seen.players == game.players


@pytest.mark.parametrize(
    "change",
    [
        lambda s, code: save_round(s, code=code, number=1, results=[OUT, typed(17), typed(20)]),
        lambda s, code: finish_game(s, code=code),
        lambda s, code: replace_keeper_code(s, code=code),
    ],
    ids=["save", "finish", "replace-code"],
)
def test_the_service_refuses_every_change_asked_with_the_watch_code(session, game, change):
    with pytest.raises(ReadOnlyLink) as refused:
        change(session, game.watch_code)
    assert str(refused.value) == ReadOnlyLink.message
    assert ReadOnlyLink.message.startswith("This is a watch link: it shows the game but cannot")
    session.rollback()
    after = load_game(session, code=game.code)
    assert after.version == game.version
    assert after.code == game.code
    assert after.rounds_saved == 0 and not after.finished


def test_an_unknown_code_is_not_found(session, game):
    with pytest.raises(GameNotFound):
        load_game(session, code="no-such-game")
    with pytest.raises(GameNotFound):
        save_round(session, code="no-such-game", number=1, results=[OUT, typed(20), typed(20)])


def test_a_replaced_scorekeeper_code_stops_working_and_the_watch_code_stays(session, game):
    fresh = replace_keeper_code(session, code=game.code)
    assert fresh.code != game.code
    assert fresh.watch_code == game.watch_code
    assert fresh.version == game.version + 1
    with pytest.raises(GameNotFound):
        load_game(session, code=game.code)
    assert load_game(session, code=fresh.code).can_edit


# --- versions ---


def test_a_save_with_a_stale_version_is_refused_and_changes_nothing(session, game):
    saved = save_round(
        session, code=game.code, number=1, results=[OUT, typed(17), typed(20)], version=game.version
    )
    assert saved.version == game.version + 1
    with pytest.raises(StaleVersion) as refused:
        save_round(
            session,
            code=game.code,
            number=1,
            results=[typed(19), OUT, typed(20)],
            version=game.version,
        )
    assert str(refused.value) == (
        "Someone else changed this game a moment ago. Check the sheet, then save again."
    )
    session.rollback()
    assert load_game(session, code=game.code).rounds[0].scores == [0, 17, 20]
    again = save_round(
        session,
        code=game.code,
        number=1,
        results=[typed(19), OUT, typed(20)],
        version=saved.version,
    )
    assert again.rounds[0].scores == [19, 0, 20]


# --- round order ---


def test_a_round_one_ahead_of_the_next_is_refused(session, game):
    with pytest.raises(GameError) as refused:
        save_round(session, code=game.code, number=2, results=[OUT, typed(20), typed(20)])
    assert str(refused.value) == "Save round 1 first: rounds are saved in order."
    session.rollback()
    save_round(session, code=game.code, number=1, results=[OUT, typed(20), typed(20)])
    with pytest.raises(GameError, match="Save round 2 first"):
        save_round(session, code=game.code, number=3, results=[OUT, typed(20), typed(20)])
    session.rollback()
    state = load_game(session, code=game.code)
    assert state.rounds_saved == 1
    assert state.current_round.number == 2


@pytest.mark.parametrize("number", [0, 12])
def test_rounds_outside_the_game_do_not_exist(session, game, number):
    with pytest.raises(NoSuchRound):
        save_round(session, code=game.code, number=number, results=[OUT, typed(20), typed(20)])


def test_the_last_round_finishes_the_game_and_no_round_follows(session, game):
    state = play_rounds(session, game.code, 10)
    assert not state.finished and state.current_round.number == 11
    state = save_round(session, code=game.code, number=11, results=[OUT, typed(13), typed(20)])
    assert state.finished and state.current_round is None
    assert state.winners == [0]


def test_a_finished_game_takes_corrections_but_no_new_rounds(session, game):
    play_rounds(session, game.code, 2)
    finished = finish_game(session, code=game.code)
    assert finished.finished
    with pytest.raises(GameError) as refused:
        save_round(session, code=game.code, number=3, results=[OUT, typed(20), typed(20)])
    assert str(refused.value) == (
        "This game is over: no new round can be saved. Corrections still can."
    )
    session.rollback()
    corrected = save_round(
        session,
        code=game.code,
        number=2,
        results=[typed(8), OUT, typed(8)],
        version=finished.version,
    )
    assert corrected.totals == [8, 16, 24]
    assert corrected.finished


def test_a_game_cannot_end_before_any_round(session, game):
    with pytest.raises(GameError) as refused:
        finish_game(session, code=game.code)
    assert str(refused.value) == (
        "Save at least one round before ending the game: nobody has won yet."
    )
    session.rollback()
    assert not load_game(session, code=game.code).finished


def test_finishing_twice_changes_nothing_the_second_time(session, game):
    before = play_rounds(session, game.code, 1)
    first = finish_game(session, code=game.code)
    assert first.version == before.version + 1
    second = finish_game(session, code=game.code)
    assert second.version == first.version and second.finished


# --- corrections keep their history ---


def score_rows(session, game_code):
    """Every score row of round 1 ever saved, oldest first."""
    return session.execute(
        text(
            "SELECT seat_score.position, seat_score.points, seat_score.replaced_at "
            "FROM seat_score JOIN game_round ON game_round.id = seat_score.round_id "
            "JOIN game ON game.id = game_round.game_id "
            "WHERE game.code = :code AND game_round.number = 1 "
            "ORDER BY seat_score.id"
        ),
        {"code": game_code},
    ).all()


def test_a_correction_retires_the_old_scores_and_keeps_them_in_order(session, game):
    first = save_round(session, code=game.code, number=1, results=[OUT, typed(17), typed(14)])
    second = save_round(
        session,
        code=game.code,
        number=1,
        results=[typed(15), OUT, typed(16)],
        version=first.version,
    )
    corrected = save_round(
        session,
        code=game.code,
        number=1,
        results=[typed(17), typed(18), OUT],
        version=second.version,
    )
    assert corrected.rounds[0].scores == [17, 18, 0]
    assert corrected.rounds[0].went_out == 2
    rows = score_rows(session, game.code)
    assert [(r.position, r.points) for r in rows] == [
        (0, 0), (1, 17), (2, 14), (0, 15), (1, 0), (2, 16), (0, 17), (1, 18), (2, 0)
    ]  # fmt: skip
    retired = [r.replaced_at is not None for r in rows]
    assert retired == [True] * 6 + [False] * 3
    assert rows[0].replaced_at <= rows[3].replaced_at


def test_scores_are_read_by_seat_whatever_order_the_rows_were_written_in(session, game):
    state = save_round(session, code=game.code, number=1, results=[OUT, typed(17), typed(14)])
    # Write the current rows again in reverse seat order: the sheet must not follow row order.
    session.execute(
        text(
            "UPDATE seat_score SET position = 2 - position "
            "WHERE round_id = (SELECT id FROM game_round WHERE number = 1)"
        )
    )
    session.commit()
    assert load_game(session, code=game.code).rounds[0].scores == [14, 17, 0]
    assert state.rounds[0].scores == [0, 17, 14]


def test_cards_are_kept_for_the_seats_that_held_them(session, game):
    state = save_round(
        session, code=game.code, number=1, results=[OUT, held("5R", "JOKER"), typed(19)]
    )
    entries = state.rounds[0].entries
    assert [c.code for c in entries[1].cards] == ["5R", "JOKER"]
    assert entries[1].points == 55
    assert entries[0].cards is None and entries[0].went_out
    assert entries[2].cards is None and entries[2].points == 19
    empty = save_round(
        session, code=game.code, number=1, results=[OUT, held(), typed(19)], version=state.version
    )
    assert empty.rounds[0].entries[1].cards == ()


# --- the rules, through the service ---


def test_a_seat_that_went_out_with_points_is_refused(session, game):
    with pytest.raises(RoundError) as refused:
        save_round(
            session,
            code=game.code,
            number=1,
            results=[SeatResult(went_out=True, points=5), typed(20), typed(20)],
        )
    assert "Ann went out" in str(refused.value)
    session.rollback()
    assert load_game(session, code=game.code).rounds_saved == 0


def test_exactly_ten_of_a_rank_fit_one_box_and_eleven_do_not(session):
    game = create_game(session, players=["Ann", "Ben", "Cy", "Dee"])
    play_rounds(session, game.code, 2, seat_count=4)
    # Five Kings are a book, kept all the same (confirmed): the decks are what is checked.
    kings = SeatResult(cards=parse_cards(["K"] * 5), confirmed=True)
    ten = [OUT, kings, kings, held()]
    state = save_round(session, code=game.code, number=3, results=ten)
    assert state.rounds[2].scores == [0, 65, 65, 0]
    eleven = [OUT, kings, kings, held("K")]
    with pytest.raises(RoundError, match="11 Kings"):
        save_round(session, code=game.code, number=3, results=eleven)


def test_names_are_cleaned_and_checked(session):
    state = create_game(session, players=["  Ann\u200b ", "Ben  Lee"])
    assert state.players == ("Ann", "Ben Lee")
    with pytest.raises(GameError, match="different name"):
        create_game(session, players=["Ann", "ANN"])
    with pytest.raises(GameError, match="2 to 14"):
        create_game(session, players=["Ann"], mode="game")
    with pytest.raises(GameError, match="first dealer"):
        create_game(session, players=["Ann", "Ben"], first_dealer=2)


# --- services that follow every change ---


def test_a_service_following_changes_hears_each_one_before_it_is_committed(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path}/followed.db")
    upgrade_to_head(engine)
    heard = []
    committed = []

    def follow(db, change):
        # Inside the change's own transaction: whatever the follower writes commits with it.
        state = change.after
        heard.append((db.in_transaction(), state.rounds_saved, state.totals, state.finished))

    def published(state):
        committed.append((state.rounds_saved, state.finished))

    events = GameEvents(changed=(follow,), committed=(published,))
    with games.sessions(engine, events)() as session:
        game = create_game(session, players=["Ann", "Ben", "Cy"])
        save_round(session, code=game.code, number=1, results=[OUT, typed(13), typed(20)])
        finish_game(session, code=game.code)
    engine.dispose()
    assert heard == [
        (True, 0, [0, 0, 0], False),
        (True, 1, [0, 13, 20], False),
        (True, 1, [0, 13, 20], True),
    ]
    assert committed == [(0, False), (1, False), (1, True)]


def test_a_change_in_a_session_that_does_not_say_who_hears_of_it_is_refused(tmp_path):
    # A service used without the app's wiring never makes a change the tables miss.
    engine = make_engine(f"sqlite:///{tmp_path}/unwired.db")
    upgrade_to_head(engine)
    with Session(engine) as session, pytest.raises(Unwired, match="who hears of them"):
        create_game(session, players=["Ann", "Ben"])
    with games.sessions(engine, GameEvents())() as session:
        assert load_games(session, game_ids=[1]) == []  # nothing was written
    engine.dispose()


# --- what a finished game refuses, in words ---


def test_nobody_can_join_or_leave_a_game_that_is_over(session, game):
    play_rounds(session, game.code, 11)
    with pytest.raises(GameError) as joining:
        add_player(session, code=game.code, name="Dee")
    assert str(joining.value) == "This game is over: nobody can join it now."
    with pytest.raises(GameError) as leaving:
        remove_player(session, code=game.code, seat=1)
    assert str(leaving.value) == "This game is over: nobody can leave it now."


def test_a_tie_break_is_refused_while_the_game_is_still_going(session, game):
    save_round(session, code=game.code, number=1, results=[OUT, typed(20), typed(20)])
    with pytest.raises(GameError) as refused:
        add_tiebreak(session, code=game.code)
    assert str(refused.value) == "A tie-break round comes after the game is over."
