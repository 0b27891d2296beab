"""The lean Plackett-Luce rating agrees with openskill itself (the reference) on hand-made
games and on random tables, ties and all; the figure the pages show is openskill's ordinal
on a scale where everyone starts at 1000."""

import random

import pytest
from openskill.models import PlackettLuce

from app.rules.ratings import FLOOR, MU, SCALE, SIGMA, START, ordinal, rate_game, rating_figure


def openskill_table(games):
    """openskill over games of (person, rank) lists, everyone starting afresh."""
    model = PlackettLuce()
    ratings = {}
    for played in games:
        teams = [[ratings.get(person, model.rating())] for person, _ in played]
        rated = model.rate(teams, ranks=[float(rank) for _, rank in played])
        for (person, _), (rating,) in zip(played, rated, strict=True):
            ratings[person] = rating
    return {person: (r.mu, r.sigma, r.ordinal()) for person, r in ratings.items()}


def lean_table(games):
    ratings = {}
    for played in games:
        before = [ratings.get(person, (MU, SIGMA)) for person, _ in played]
        rated = rate_game(before, [float(rank) for _, rank in played])
        for (person, _), after in zip(played, rated, strict=True):
            ratings[person] = after
    return {person: (mu, sigma, ordinal(mu, sigma)) for person, (mu, sigma) in ratings.items()}


def agree(games):
    expected, found = openskill_table(games), lean_table(games)
    assert found.keys() == expected.keys()
    for person, figures in expected.items():
        assert found[person] == pytest.approx(figures, abs=1e-9, rel=0), person


@pytest.mark.parametrize(
    "games",
    [
        [[("Ann", 1), ("Ben", 2)]],
        [[("Ann", 2), ("Ben", 1), ("Cy", 3)], [("Ann", 1), ("Cy", 2)]],
        # Ties: two share first, then everyone the same rank.
        [[("Ann", 1), ("Ben", 1), ("Cy", 3)], [("Ann", 1), ("Ben", 1), ("Cy", 1)]],
        # A tie below the top, listed out of rank order.
        [[("Dee", 3), ("Ann", 2), ("Ben", 2), ("Cy", 1)]],
    ],
)
def test_hand_made_games_rate_as_openskill_rates_them(games):
    agree(games)


@pytest.mark.parametrize("seed", range(6))
def test_random_tables_rate_as_openskill_rates_them(seed):
    rng = random.Random(seed)
    people = [f"P{n}" for n in range(rng.randint(2, 30))]
    games = []
    for _ in range(300):
        players = rng.sample(people, rng.randint(2, min(14, len(people))))
        totals = [rng.choice([0, 20, 40, 60, 80]) for _ in players]
        ranks = [sorted(set(totals)).index(total) + 1 for total in totals]
        games.append(list(zip(players, ranks, strict=True)))
    agree(games)


def test_everyone_starts_at_1000_as_openskills_own_ordinal_scaled():
    model = PlackettLuce()
    fresh = model.rating()
    assert rating_figure(MU, SIGMA) == START == round(fresh.ordinal(alpha=SCALE, target=START))


@pytest.mark.parametrize("seed", range(4))
def test_the_figure_is_openskills_ordinal_scaled_rounded_and_floored(seed):
    """Over random tables the figure is openskill's ordinal(alpha=20, target=1000), rounded,
    never below 100, and it orders people exactly as the ordinal does."""
    rng = random.Random(seed)
    model = PlackettLuce()
    people = [f"P{n}" for n in range(8)]
    ratings = {}
    for _ in range(200):
        players = rng.sample(people, rng.randint(2, 6))
        # P0 always finishes last: the lowest figure a real table could show.
        ranks = [1.0 + (players.index(p) if p != "P0" else len(players)) for p in players]
        teams = [[ratings.get(person, model.rating())] for person in players]
        for person, (rating,) in zip(players, model.rate(teams, ranks=ranks), strict=True):
            ratings[person] = rating
    figures = {p: rating_figure(r.mu, r.sigma) for p, r in ratings.items()}
    for person, rating in ratings.items():
        assert figures[person] == max(FLOOR, round(rating.ordinal(alpha=SCALE, target=START)))
        assert figures[person] >= FLOOR
    by_ordinal = sorted(ratings, key=lambda p: -ratings[p].ordinal())
    assert [figures[p] for p in by_ordinal] == sorted(figures.values(), reverse=True)
    assert min(figures, key=figures.get) == "P0"


def test_a_figure_never_reads_below_the_floor():
    assert rating_figure(0.0, 20.0) == FLOOR  # an ordinal of -60
    assert rating_figure(MU - 3.0, SIGMA) == START - 3 * SCALE
