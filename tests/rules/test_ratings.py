"""The lean Plackett-Luce rating agrees with openskill itself (the reference) on hand-made
games and on random tables, ties and all."""

import random

import pytest
from openskill.models import PlackettLuce

from app.rules.ratings import MU, SIGMA, ordinal, rate_game


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
