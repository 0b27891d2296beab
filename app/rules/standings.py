"""Running totals, the leaders, the winners and the tie-break."""

from __future__ import annotations

from collections.abc import Sequence


def totals(
    round_scores: Sequence[Sequence[int | None] | None],
    *,
    seat_count: int,
    start_points: Sequence[int] | None = None,
) -> list[int]:
    """Each seat's total: the points a late arrival started with, plus the rounds saved so
    far (None is a round not yet played, or a seat not in a round)."""
    sums = list(start_points) if start_points is not None else [0] * seat_count
    for scores in round_scores:
        if scores is not None:
            for seat, points in enumerate(scores):
                if points is not None:
                    sums[seat] += points
    return sums


def leaders(seat_totals: Sequence[int], *, still_in: Sequence[int] | None = None) -> list[int]:
    """Every seat still in the game with the lowest total; all of them while nothing is
    saved. A player who left is never a leader."""
    seats = list(range(len(seat_totals))) if still_in is None else sorted(still_in)
    if not seats:
        return []
    lowest = min(seat_totals[seat] for seat in seats)
    return [seat for seat in seats if seat_totals[seat] == lowest]


def ranking(seat_totals: Sequence[int]) -> list[int]:
    """Seats from the lowest total to the highest (seat order among equal totals)."""
    return sorted(range(len(seat_totals)), key=lambda seat: (seat_totals[seat], seat))


def after_tiebreaks(tied: Sequence[int], tiebreaks: Sequence[Sequence[int | None]]) -> list[int]:
    """Who still shares the win after the tie-break rounds played so far: each round keeps
    the players in it with the fewest points; a second tie plays again among those."""
    contenders = sorted(tied)
    for scores in tiebreaks:
        played = [seat for seat in contenders if scores[seat] is not None]
        if not played:
            continue
        fewest = min(scores[seat] or 0 for seat in played)
        contenders = [seat for seat in played if scores[seat] == fewest]
    return contenders


def average_total(seat_totals: Sequence[int]) -> int:
    """The average of the totals, rounded half up (what a late arrival may start with)."""
    if not seat_totals:
        return 0
    return (2 * sum(seat_totals) + len(seat_totals)) // (2 * len(seat_totals))
