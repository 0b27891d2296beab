"""Table stats from hand-computed small tables: every number the issue names."""

from dataclasses import replace

import pytest

from app.rules.stats import (
    HeadToHead,
    PersonGameLine,
    PersonStats,
    SolitaireStats,
    game_outcomes,
    head_to_head,
    person_stats,
    result_line,
    table_stats,
)

ANN, BEN, CY = 1, 2, 3


def line(game, person, total, rounds=11, went_out=0, zero_rounds=0, won=False, **extra):
    return PersonGameLine(
        game=game,
        person=person,
        total=total,
        rounds=rounds,
        went_out=went_out,
        zero_rounds=zero_rounds,
        full_game=rounds == 11,
        won=won,
        **extra,
    )


def test_a_game_ended_early_leaves_totals_rounds_went_out_and_zero_rounds():
    rounds = [[0, 10, 0], [7, 0, 12], None, None]
    outcomes = game_outcomes(rounds, [0, 1, None, None], seat_count=3, winners=[0])
    ann, ben, cy = outcomes
    assert (ann.total, ann.rounds, ann.went_out, ann.zero_rounds) == (7, 2, 1, 1)
    assert (ben.total, ben.rounds, ben.went_out, ben.zero_rounds) == (10, 2, 1, 1)
    # Cy scored 0 without going out: still a zero round.
    assert (cy.total, cy.rounds, cy.went_out, cy.zero_rounds) == (12, 2, 0, 1)
    assert [o.full_game for o in outcomes] == [False, False, False]
    assert [o.won for o in outcomes] == [True, False, False]


def test_a_game_of_every_round_is_a_full_game():
    rounds = [[0, 5]] * 11
    outcomes = game_outcomes(rounds, [0] * 11, seat_count=2, winners=[0])
    assert outcomes[0].full_game and outcomes[1].full_game
    assert outcomes[1].total == 55 and outcomes[0].went_out == 11


# A small table, worked out by hand:
#   game 1 (11 rounds): Ann 100 (won), Ben 150, Cy 100 (won too: a shared win)
#   game 2 (ended after 4 rounds): Ann 30, Ben 12 (won)
#   game 3 (11 rounds): Ann 80 (won), Cy 90
TABLE = [
    line(1, ANN, 100, went_out=3, zero_rounds=4, won=True),
    line(1, BEN, 150, went_out=2, zero_rounds=2),
    line(1, CY, 100, went_out=6, zero_rounds=6, won=True),
    line(2, ANN, 30, rounds=4, went_out=1, zero_rounds=1),
    line(2, BEN, 12, rounds=4, went_out=3, zero_rounds=3, won=True),
    line(3, ANN, 80, went_out=5, zero_rounds=5, won=True),
    line(3, CY, 90, went_out=6, zero_rounds=7),
]


def test_stats_of_each_person_over_the_table():
    stats = table_stats(TABLE)
    ann = stats[ANN]
    assert (ann.games, ann.wins) == (3, 2)
    assert ann.win_rate == pytest.approx(2 / 3)
    # Totals only over games of all 11 rounds: 100 and 80.
    assert ann.average_total == 90
    assert (ann.best_total, ann.worst_total) == (80, 100)
    assert ann.rounds == 26
    assert ann.went_out == 9
    assert ann.went_out_rate == pytest.approx(9 / 26)
    assert ann.average_round == pytest.approx(210 / 26)
    assert ann.zero_rounds == 10

    ben = stats[BEN]
    assert (ben.games, ben.wins, ben.win_rate) == (2, 1, 0.5)
    assert (ben.average_total, ben.best_total, ben.worst_total) == (150, 150, 150)
    assert (ben.rounds, ben.went_out, ben.zero_rounds) == (15, 5, 5)
    assert ben.average_round == pytest.approx(162 / 15)

    cy = stats[CY]
    assert (cy.games, cy.wins, cy.win_rate) == (2, 1, 0.5)  # the shared win counts for Cy
    assert cy.average_total == 95


def test_someone_with_only_an_ended_early_game_has_no_totals():
    stats = person_stats([line(2, BEN, 12, rounds=4, went_out=3, zero_rounds=3, won=True)])
    assert stats.average_total is None and stats.best_total is None and stats.worst_total is None
    assert stats.average_round == 3 and stats.went_out_rate == 0.75


def test_nobody_has_divided_by_zero():
    assert person_stats([]) == PersonStats()
    assert PersonStats().win_rate is None and PersonStats().went_out_rate is None


def test_head_to_head_counts_games_together_and_who_finished_lower():
    versus = head_to_head(TABLE)
    assert versus[ANN][BEN] == HeadToHead(games=2, lower=1, higher=1)
    assert versus[BEN][ANN] == HeadToHead(games=2, lower=1, higher=1)
    # Game 1 tied Ann and Cy: neither finished lower.
    assert versus[ANN][CY] == HeadToHead(games=2, lower=1, higher=0)
    assert versus[CY][ANN] == HeadToHead(games=2, lower=0, higher=1)
    assert versus[BEN][CY] == HeadToHead(games=1, lower=0, higher=1)
    assert ANN not in versus[ANN]


def test_merged_people_count_as_one():
    # "Cy" and a misspelt "Ci" were the same person: once merged, their lines share an id.
    ci = 4
    before = [*TABLE, line(4, ci, 70, won=True, went_out=4), line(4, BEN, 90)]
    merged = [x if x.person != ci else replace(x, person=CY) for x in before]
    stats = table_stats(merged)
    assert ci not in stats
    assert (stats[CY].games, stats[CY].wins) == (3, 2)
    assert stats[CY].best_total == 70 and stats[CY].worst_total == 100
    assert head_to_head(merged)[CY][BEN] == HeadToHead(games=2, lower=2, higher=0)


def test_solitaire_games_have_their_own_line():
    lines = [
        *TABLE,
        line(5, ANN, 60, solitaire=True, won=True),
        line(6, ANN, 75, solitaire=True),
    ]
    ann = person_stats(x for x in lines if x.person == ANN)
    assert ann.games == 3  # unchanged by solitaire
    assert ann.solitaire == SolitaireStats(played=2, won=1, best_total=60)
    assert BEN not in head_to_head(lines)[ANN] or head_to_head(lines)[ANN][BEN].games == 2


def test_the_result_to_share_puts_the_winner_first():
    players = ["Ben", "Ann", "Cy", "Dee"]
    totals = [373, 209, 209, 313]
    assert result_line(players, totals, [1]) == "Ann wins with 209 · Cy 209 · Dee 313 · Ben 373"
    assert result_line(players, totals, [1, 2]) == "Ann & Cy win with 209 · Dee 313 · Ben 373"
    assert result_line(players, totals, []) == ""


def test_start_points_of_a_player_who_joined_count_in_the_total_not_per_round():
    # Eve sat down with 42 points and scored 80 in her 8 rounds: 122 in all, 10 a round.
    joined = PersonGameLine(
        game=9, person=7, total=122, rounds=8, went_out=0, zero_rounds=0, full_game=False,
        won=False, start_points=42,
    )  # fmt: skip
    stats = person_stats([joined])
    assert stats.average_round == 10
    assert (stats.games, stats.best_total) == (1, None)


def test_a_game_without_rounds_is_nobodys_full_game():
    outcomes = game_outcomes([], [], seat_count=2, winners=[])
    assert [outcome.full_game for outcome in outcomes] == [False, False]


def test_a_player_who_left_before_playing_has_no_game_there():
    lines = [line(1, ANN, 80, won=True), line(1, BEN, 90), line(1, CY, 0, rounds=0, seated=False)]
    stats = table_stats(lines)
    assert CY not in stats or stats[CY].games == 0
    assert CY not in head_to_head(lines)
    assert CY not in head_to_head(lines)[ANN]


def test_head_to_head_counts_only_people_seated_at_the_end():
    # Cy left after 5 rounds with 63: not "lower" than those who played all 11.
    lines = [
        line(1, ANN, 120, won=True),
        line(1, BEN, 150),
        line(1, CY, 63, rounds=5, seated=False),
    ]
    versus = head_to_head(lines)
    assert versus[ANN] == {BEN: HeadToHead(games=1, lower=1, higher=0)}
    assert CY not in versus and CY not in versus[BEN]
    # Their own game still counts for them: they played 5 rounds of it.
    assert table_stats(lines)[CY].games == 1 and table_stats(lines)[CY].rounds == 5


def test_a_tie_settled_by_a_tie_break_counts_for_its_winner():
    lines = [line(1, ANN, 100, won=True), line(1, BEN, 100), line(1, CY, 130)]
    versus = head_to_head(lines)
    assert versus[ANN][BEN] == HeadToHead(games=1, lower=1, higher=0)
    assert versus[BEN][ANN] == HeadToHead(games=1, lower=0, higher=1)
    # Still tied (both won: the tie was shared): neither is lower.
    shared = [line(2, ANN, 100, won=True), line(2, BEN, 100, won=True)]
    assert head_to_head(shared)[ANN][BEN] == HeadToHead(games=1, lower=0, higher=0)


def test_solitaire_best_counts_games_of_every_pile_only():
    lines = [
        line(1, ANN, 0, rounds=1, solitaire=True),  # ended after one closed pile
        line(2, ANN, 75, solitaire=True),
    ]
    assert person_stats(lines).solitaire == SolitaireStats(played=2, won=0, best_total=75)
