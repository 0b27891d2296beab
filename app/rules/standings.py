"""Running totals, the leaders and the winners."""

from __future__ import annotations

from collections.abc import Sequence


def totals(round_scores: Sequence[Sequence[int] | None], *, seat_count: int) -> list[int]:
    """Each seat's total over the rounds saved so far (None is a round not yet played)."""
    sums = [0] * seat_count
    for scores in round_scores:
        if scores is not None:
            for seat, points in enumerate(scores):
                sums[seat] += points
    return sums


def leaders(seat_totals: Sequence[int]) -> list[int]:
    """Every seat with the lowest total; all of them while nothing is saved."""
    if not seat_totals:
        return []
    lowest = min(seat_totals)
    return [seat for seat, total in enumerate(seat_totals) if total == lowest]


def ranking(seat_totals: Sequence[int]) -> list[int]:
    """Seats from the lowest total to the highest (seat order among equal totals)."""
    return sorted(range(len(seat_totals)), key=lambda seat: (seat_totals[seat], seat))
