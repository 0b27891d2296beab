"""The skill rating: openskill's Plackett-Luce model with its defaults, for teams of one,
worked out with plain floats (openskill copies every rating object on each game; this gives
the same numbers, which tests/rules/test_ratings.py checks against openskill itself)."""

from __future__ import annotations

import math
from collections.abc import Sequence

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0


def rate_game(
    ratings: Sequence[tuple[float, float]], ranks: Sequence[float]
) -> list[tuple[float, float]]:
    """Each player's (mu, sigma) after one game, in the order given; ranks: 1 the best,
    equal ranks a tie."""
    # The order of the sums follows openskill's (by rank, ties in the order given), so the
    # floating-point results are its own.
    order = sorted(range(len(ratings)), key=lambda seat: ranks[seat])
    mus = [ratings[seat][0] for seat in order]
    sigmas = [math.sqrt(ratings[seat][1] * ratings[seat][1] + TAU * TAU) for seat in order]
    levels = [int(ranks[seat]) for seat in order]
    variances = [sigma**2 for sigma in sigmas]
    spread = 0.0
    for variance in variances:
        spread += variance + BETA**2
    c = math.sqrt(spread)
    strengths = [math.exp(mu / c) for mu in mus]
    below = [
        sum(strength for strength, level in zip(strengths, levels, strict=True) if level >= q)
        for q in levels
    ]
    tied = [levels.count(q) for q in levels]
    rated: list[tuple[float, float]] = [(0.0, 0.0)] * len(ratings)
    for i, seat in enumerate(order):
        omega = delta = 0.0
        for q, level in enumerate(levels):
            share = strengths[i] / below[q]
            if level <= levels[i]:
                delta += share * (1 - share) / tied[q]
                if q == i:
                    omega += (1 - share) / tied[q]
                else:
                    omega -= share / tied[q]
        omega *= variances[i] / c
        delta *= variances[i] / c**2
        delta *= math.sqrt(variances[i]) / c
        sigma = sigmas[i] * math.sqrt(max(1 - delta, KAPPA))
        rated[seat] = (mus[i] + omega, sigma)
    return rated


def ordinal(mu: float, sigma: float) -> float:
    """What a person is at least, almost surely: mu - 3 sigma."""
    return mu - 3.0 * sigma


START = 1000
"""The figure everyone starts at on the pages: openskill's starting ordinal (0) shown as 1000."""
SCALE = 20
"""Figure points for one point of ordinal: a season's figures spread roughly from 600 to 1500,
as a chess club's do."""
FLOOR = 100
"""The lowest figure shown (an ordinal of -45, hundreds of games lost in a row): nobody reads
a negative number."""
NEW_UNTIL = 5
"""Rated games in the season before a person's figure is no longer marked new: until then
their sigma is still wide, and the ordinal holds their figure back."""


def rating_figure(mu: float, sigma: float) -> int:
    """The figure the pages show: 1000 + 20 x the ordinal, rounded, never below 100
    (openskill's `ordinal(alpha=20, target=1000)`); it orders people as the ordinal does."""
    return max(FLOOR, round(START + SCALE * ordinal(mu, sigma)))
