"""Seasons, win streaks, records and the skill rating on hand-made tables: ties, tie-breaks,
players who left, games ended early and solitaire."""

from datetime import UTC, date, datetime

import pytest
from openskill.models import PlackettLuce

from app.rules.seasons import (
    FinishedGame,
    FinishedSeat,
    PeriodError,
    game_ranks,
    in_order,
    period_from,
    skill_ratings,
    table_records,
    win_streaks,
)

ANN, BEN, CY, DEE = 1, 2, 3, 4


def seat(person, total, *, won=False, rounds=11, went_out=0, seated=True, high=None, at=None):
    return FinishedSeat(
        person=person,
        total=total,
        won=won,
        rounds=rounds,
        went_out=went_out,
        full_game=rounds == 11 and seated,
        seated=seated,
        highest_round=high,
        highest_rounds=(at,) if isinstance(at, int) else tuple(at or ()),
    )


def game(number, day, *seats, solitaire=False):
    when = datetime(*day, 20, 0, tzinfo=UTC)
    return FinishedGame(number, f"watch-{number}", when, solitaire, tuple(seats))


def test_a_season_is_a_year_or_two_dates_both_inclusive():
    year = period_from("2026", None, None)
    assert year.label == "2026"
    assert year.covers(datetime(2026, 12, 31, 23, 59, tzinfo=UTC))
    assert not year.covers(datetime(2027, 1, 1, 0, 0, tzinfo=UTC))
    assert year.covers(datetime(2026, 1, 1, 0, 0, tzinfo=UTC))
    spring = period_from(None, "2026-03-01", "2026-05-31")
    assert spring.start == date(2026, 3, 1) and spring.end == date(2026, 5, 31)
    assert spring.covers(datetime(2026, 5, 31, 22, 0, tzinfo=UTC))
    assert period_from(None, None, None).all_time
    assert period_from("", "", "").label == "All time"


@pytest.mark.parametrize(
    ("year", "start", "end", "message"),
    [
        ("26", None, None, "four digits"),
        ("0000", None, None, "from 1 to 9999"),
        ("2026", "2026-01-01", None, "not both"),
        (None, "2026-13-01", None, "from must be a date"),
        (None, None, "yesterday", "to must be a date"),
        (None, "2026-05-01", "2026-04-01", "comes after"),
    ],
)
def test_a_season_that_cannot_be_read_says_why(year, start, end, message):
    with pytest.raises(PeriodError, match=message):
        period_from(year, start, end)


def test_streaks_count_wins_in_a_row_shared_wins_too_solitaire_apart():
    games = in_order(
        [
            game(1, (2026, 1, 2), seat(ANN, 50, won=True), seat(BEN, 80)),
            game(2, (2026, 1, 9), seat(ANN, 60, won=True), seat(BEN, 60, won=True)),  # shared
            game(3, (2026, 1, 10), seat(ANN, 99, won=True), solitaire=True),  # apart
            game(4, (2026, 1, 16), seat(ANN, 70, won=True), seat(BEN, 90)),
            game(5, (2026, 1, 23), seat(ANN, 90), seat(BEN, 40, won=True)),
            game(6, (2026, 1, 30), seat(ANN, 20, won=True), seat(BEN, 40)),
            # Ben left after two rounds: a game he lost, which breaks nothing of Ann's.
            game(7, (2026, 2, 6), seat(ANN, 30, won=True), seat(BEN, 10, rounds=2, seated=False)),
        ]
    )
    streaks = win_streaks(games)
    assert (streaks[ANN].longest, streaks[ANN].current) == (3, 2)
    assert streaks[ANN].longest_ended.watch_code == "watch-4"
    assert (streaks[BEN].longest, streaks[BEN].current) == (1, 0)


def test_a_person_who_played_no_round_has_no_game_to_win_or_lose():
    games = [
        game(1, (2026, 1, 2), seat(ANN, 50, won=True), seat(BEN, 80)),
        game(2, (2026, 1, 9), seat(ANN, 0, rounds=0, seated=False), seat(BEN, 80, won=True)),
        game(3, (2026, 1, 16), seat(ANN, 40, won=True), seat(BEN, 80)),
    ]
    assert win_streaks(in_order(games))[ANN].current == 2


def test_records_hold_every_holder_of_a_tie_in_games_of_two_or_more():
    games = in_order(
        [
            game(
                1,
                (2026, 1, 2),
                seat(ANN, 90, won=True, high=60, at=9, went_out=3),
                seat(BEN, 140, high=75, at=11, went_out=2),
            ),  # fmt: skip
            game(
                2,
                (2026, 1, 9),
                seat(ANN, 90, won=True, high=40, at=2, went_out=3),
                seat(CY, 210, high=75, at=10, went_out=1),
            ),  # fmt: skip
            # Ended early: no total record, but its rounds and goings-out count.
            game(
                3,
                (2026, 1, 16),
                seat(ANN, 5, won=True, rounds=3, went_out=3),
                seat(BEN, 60, rounds=3, high=30, at=3),
            ),  # fmt: skip
            game(
                4, (2026, 1, 17), seat(DEE, 3, won=True, high=99, at=1, went_out=9), solitaire=True
            ),  # fmt: skip
        ]
    )
    records = table_records(games)
    assert [(h.person, h.figure, h.watch_code) for h in records.lowest_total] == [
        (ANN, 90, "watch-1"),
        (ANN, 90, "watch-2"),
    ]
    assert [(h.person, h.figure) for h in records.highest_total] == [(CY, 210)]
    assert [(h.person, h.figure, h.round) for h in records.highest_round] == [
        (BEN, 75, 11),
        (CY, 75, 10),
    ]
    assert [(h.person, h.figure, h.watch_code) for h in records.most_went_out] == [
        (ANN, 3, "watch-1"),
        (ANN, 3, "watch-2"),
        (ANN, 3, "watch-3"),
    ]
    assert [(h.person, h.figure) for h in records.longest_win_streak] == [(ANN, 3)]


def test_ranks_share_a_tie_unless_a_tie_break_decided_it():
    assert game_ranks([seat(ANN, 50), seat(BEN, 80), seat(CY, 50)]) == [1, 2, 1]
    shared_win = [seat(ANN, 50, won=True), seat(BEN, 50, won=True), seat(CY, 70)]
    assert game_ranks(shared_win) == [1, 1, 2]
    tie_break = [seat(ANN, 50), seat(BEN, 50, won=True), seat(CY, 70)]
    assert game_ranks(tie_break) == [2, 1, 3]


def reference_ratings(games):
    """openskill itself, driven by hand: the rated players of each game and their ranks."""
    model = PlackettLuce()
    ratings = {}
    for played in games:
        teams = [[ratings.get(person, model.rating())] for person, _ in played]
        ranks = [rank for _, rank in played]
        for (person, _), (rating,) in zip(played, model.rate(teams, ranks=ranks), strict=True):
            ratings[person] = rating
    return {person: (r.mu, r.sigma, r.ordinal()) for person, r in ratings.items()}


def test_ratings_are_openskills_plackett_luce_over_the_games_in_order():
    games = in_order(
        [
            game(2, (2026, 2, 1), seat(ANN, 50), seat(BEN, 50, won=True), seat(CY, 90)),
            game(1, (2026, 1, 1), seat(ANN, 40, won=True), seat(BEN, 70), seat(CY, 70)),
            # Cy left (the lowest total): rated behind the two still seated; Dee played
            # alone: not rated.
            game(
                3,
                (2026, 3, 1),
                seat(ANN, 90),
                seat(BEN, 60, won=True),
                seat(CY, 5, rounds=2, seated=False),
            ),  # fmt: skip
            game(4, (2026, 3, 2), seat(DEE, 10, won=True), solitaire=True),
            # Ended early: rated all the same.
            game(5, (2026, 3, 3), seat(CY, 20, won=True, rounds=4), seat(DEE, 35, rounds=4)),
        ]
    )
    expected = reference_ratings(
        [
            [(ANN, 1), (BEN, 2), (CY, 2)],
            [(ANN, 2), (BEN, 1), (CY, 3)],
            [(ANN, 2), (BEN, 1), (CY, 3)],
            [(CY, 1), (DEE, 2)],
        ]
    )
    rated = skill_ratings(games)
    assert {p: (r.mu, r.sigma, r.ordinal) for p, r in rated.now.items()} == expected
    assert rated.now[ANN].ordinal == pytest.approx(rated.now[ANN].mu - 3 * rated.now[ANN].sigma)
    assert [point.watch_code for point in rated.history[CY]] == [
        "watch-1",
        "watch-2",
        "watch-3",
        "watch-5",
    ]
    # Afresh from the start of a season: February on only.
    spring = skill_ratings(in_order(games, period_from(None, "2026-02-01", None)))
    assert spring.now[ANN].mu != rated.now[ANN].mu
    assert len(spring.history[ANN]) == 2


def random_games(rng, count, people):
    """count finished games among people, a day apart: ties, leavers, solitaire and games
    ended early among them."""
    games = []
    for number in range(1, count + 1):
        day = date(2024, 1, 1).toordinal() + number
        when = date.fromordinal(day)
        if rng.random() < 0.1:
            games.append(
                game(
                    number, (when.year, when.month, when.day), seat(1, 60, won=True), solitaire=True
                )
            )
            continue
        chosen = rng.sample(people, rng.randint(2, min(6, len(people))))
        totals = [rng.choice([30, 45, 45, 60, 90, 120]) for _ in chosen]
        low = min(totals)
        seats = [
            seat(
                person,
                total,
                won=total == low,
                rounds=rng.choice([11, 11, 11, 7, 0]),
                went_out=rng.randint(0, 4),
                seated=rng.random() > 0.1,
                high=rng.choice([None, 20, 50, 50]),
                at=rng.randint(1, 11),
            )
            for person, total in zip(chosen, totals, strict=True)
        ]
        games.append(game(number, (when.year, when.month, when.day), *seats))
    return in_order(games)


@pytest.mark.parametrize("seed", range(8))
def test_games_added_to_a_kept_tally_give_what_all_the_games_give_at_once(seed):
    import random

    from app.rules.seasons import SeasonTally

    rng = random.Random(seed)
    games = random_games(rng, 120, list(range(1, 9)))
    split = rng.randint(1, len(games) - 1)
    kept = SeasonTally(games[:split])
    before = kept.ratings()
    kept.extend(games[split:])
    whole = SeasonTally(games)
    assert kept.records() == whole.records() == table_records(games)
    assert kept.streaks() == whole.streaks() == win_streaks(games)
    assert kept.ratings() == whole.ratings() == skill_ratings(games)
    assert kept.most_played(3) == whole.most_played(3)
    # What was handed out before the later games came is not changed by them.
    assert before == SeasonTally(games[:split]).ratings()


def test_who_leaves_is_rated_behind_everyone_seated_and_leavers_by_their_totals():
    """Ann and Ben stay; Cy leaves with the lowest total of all, Dee leaves with less than
    Eli; Fay leaves before playing a round: not in the game at all."""
    eli, fay = 5, 6
    played = game(
        1,
        (2026, 4, 1),
        seat(ANN, 120, won=True),
        seat(BEN, 150),
        seat(CY, 10, rounds=2, seated=False),
        seat(DEE, 60, rounds=5, seated=False),
        seat(eli, 90, rounds=5, seated=False),
        seat(fay, 0, rounds=0, seated=False),
    )
    assert game_ranks(played.played()) == [1, 2, 3, 4, 5]
    rated = skill_ratings([played])
    assert rated.now.keys() == {ANN, BEN, CY, DEE, eli}
    expected = reference_ratings([[(ANN, 1), (BEN, 2), (CY, 3), (DEE, 4), (eli, 5)]])
    for person, figures in expected.items():
        now = rated.now[person]
        assert (now.mu, now.sigma, now.ordinal) == pytest.approx(figures), person
    assert rated.now[CY].ordinal < rated.now[BEN].ordinal  # the lowest total, yet behind Ben
    # Two who left with the same total share their place.
    tied = game(2, (2026, 4, 2), seat(ANN, 50, won=True), seat(BEN, 30, rounds=3, seated=False),
                seat(CY, 30, rounds=3, seated=False))  # fmt: skip
    assert game_ranks(tied.played()) == [1, 2, 2]


def test_leaving_while_losing_is_a_loss_for_the_rating_and_the_streak():
    """Ben wins two, then leaves the third (lowest so far): his streak ends there, and his
    rating drops as openskill's does for a last place."""
    games = in_order(
        [
            game(1, (2026, 5, 1), seat(ANN, 90), seat(BEN, 40, won=True)),
            game(2, (2026, 5, 2), seat(ANN, 80), seat(BEN, 30, won=True)),
            game(3, (2026, 5, 3), seat(ANN, 70, won=True), seat(BEN, 20, rounds=4, seated=False)),
        ]
    )
    streaks = win_streaks(games)
    assert (streaks[BEN].longest, streaks[BEN].current) == (2, 0)
    rated = skill_ratings(games)
    expected = reference_ratings([[(ANN, 2), (BEN, 1)], [(ANN, 2), (BEN, 1)], [(ANN, 1), (BEN, 2)]])
    assert rated.now[BEN].mu == pytest.approx(expected[BEN][0])
    assert rated.now[BEN].mu < skill_ratings(games[:2]).now[BEN].mu
    assert rated.now[BEN].games == 3 and rated.now[ANN].games == 3


def test_every_round_and_every_streak_that_holds_a_record_is_listed():
    """Ben scores 50 in rounds 3 and 5 of one game and Cy 50 in round 2 of another: all three
    hold the round record. Ann wins two in a row twice: both streaks hold that record."""
    games = in_order(
        [
            game(
                1,
                (2026, 1, 1),
                seat(ANN, 40, won=True, high=20, at=1),
                seat(BEN, 160, high=50, at=(3, 5)),
            ),  # fmt: skip
            game(2, (2026, 1, 2), seat(ANN, 45, won=True), seat(CY, 140, high=50, at=2)),
            game(3, (2026, 1, 3), seat(ANN, 90), seat(CY, 30, won=True)),
            game(4, (2026, 1, 4), seat(ANN, 20, won=True), seat(CY, 60)),
            game(5, (2026, 1, 5), seat(ANN, 20, won=True), seat(BEN, 60)),
        ]
    )
    records = table_records(games)
    assert [(h.person, h.figure, h.round, h.watch_code) for h in records.highest_round] == [
        (BEN, 50, 3, "watch-1"),
        (BEN, 50, 5, "watch-1"),
        (CY, 50, 2, "watch-2"),
    ]
    assert [(h.person, h.figure, h.watch_code) for h in records.longest_win_streak] == [
        (ANN, 2, "watch-2"),
        (ANN, 2, "watch-5"),
    ]
    # A longer streak later replaces both.
    later = [*games, game(6, (2026, 1, 6), seat(ANN, 10, won=True), seat(CY, 70))]
    assert [
        (h.person, h.figure, h.watch_code) for h in table_records(later).longest_win_streak
    ] == [(ANN, 3, "watch-6")]


def test_a_new_players_figure_is_held_back_and_marked_until_five_rated_games():
    """The issue's family: Ann wins 1 of 7 but finishes second of five in all the rest;
    Granny wins 3 of her 4 games of two. By rating Ann is above Granny, as openskill's
    ordinal has it: Ann finished ahead of 22 players, Granny of 3, and Granny is new (4
    games), her figure held back. By wins (the table page's other order) Granny leads."""
    granny, ann, ben, cy, dee, eli = 1, 2, 3, 4, 5, 6
    results = [
        [(ann, 1), (ben, 2), (cy, 3), (dee, 4), (eli, 5)],
        [(ben, 1), (ann, 2), (cy, 3), (dee, 4), (eli, 5)],
        [(cy, 1), (ann, 2), (ben, 3), (dee, 4), (eli, 5)],
        [(ben, 1), (ann, 2), (dee, 3), (cy, 4), (eli, 5)],
        [(cy, 1), (ann, 2), (ben, 3), (eli, 4), (dee, 5)],
        [(ben, 1), (ann, 2), (cy, 3), (dee, 4), (eli, 5)],
        [(granny, 1), (dee, 2)],
        [(granny, 1), (eli, 2)],
        [(dee, 1), (granny, 2)],
        [(granny, 1), (eli, 2)],
        [(dee, 1), (ann, 2), (ben, 3), (cy, 4), (eli, 5)],
    ]
    games = [
        game(
            number,
            (2026, 6, number),
            *(seat(person, 20 * rank, won=rank == 1) for person, rank in ranked),
        )  # fmt: skip
        for number, ranked in enumerate(results, start=1)
    ]
    rated = skill_ratings(in_order(games)).now
    expected = reference_ratings(results)
    assert {p: r.ordinal for p, r in rated.items()} == pytest.approx(
        {p: figures[2] for p, figures in expected.items()}
    )
    assert (rated[granny].games, rated[granny].new) == (4, True)
    assert (rated[ann].games, rated[ann].new) == (7, False)
    assert rated[ann].figure > rated[granny].figure > 1000
    wins = {p: sum(ranked[0][0] == p for ranked in results) for p in rated}
    assert wins[granny] == 3 and wins[ann] == 1


def test_games_finishing_at_the_same_moment_are_taken_in_the_order_of_their_ids():
    """Two games imported with one finishing time: the one with the lower id counts first
    (Ben's streak is the later game's, and the rating rates game 7 before game 9)."""
    same = (2026, 7, 1)
    games = in_order(
        [
            game(9, same, seat(ANN, 50), seat(BEN, 20, won=True)),
            game(7, same, seat(ANN, 10, won=True), seat(BEN, 40)),
        ]
    )
    assert [g.game for g in games] == [7, 9]
    assert win_streaks(games)[BEN].current == 1
    expected = reference_ratings([[(ANN, 1), (BEN, 2)], [(ANN, 2), (BEN, 1)]])
    assert skill_ratings(games).now[BEN].mu == pytest.approx(expected[BEN][0])
