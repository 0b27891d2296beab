"""The eleven rounds: cards dealt, the wild rank, who deals and who plays first."""

from __future__ import annotations

from dataclasses import dataclass

ROUND_COUNT = 11


@dataclass(frozen=True)
class RoundPlan:
    """One round as planned before it is played."""

    number: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    first_player: int


def cards_dealt(round_number: int) -> int:
    """Round r deals r + 2 cards."""
    _check_round(round_number)
    return round_number + 2


def wild_rank(round_number: int) -> int:
    """The wild rank always equals the number of cards dealt (J 11, Q 12, K 13)."""
    return cards_dealt(round_number)


def dealer_seat(round_number: int, *, first_dealer: int, seat_count: int) -> int:
    """The deal passes one seat clockwise each round."""
    _check_round(round_number)
    return (first_dealer + round_number - 1) % seat_count


def first_player_seat(dealer: int, *, seat_count: int) -> int:
    """The player on the dealer's left plays first."""
    return (dealer + 1) % seat_count


def plan_rounds(*, seat_count: int, first_dealer: int = 0) -> list[RoundPlan]:
    """The standard eleven rounds for a table of seat_count players."""
    if seat_count < 1:
        raise ValueError("a game needs at least one player")
    if not 0 <= first_dealer < seat_count:
        raise ValueError(f"the first dealer must be a seat from 0 to {seat_count - 1}")
    plans = []
    for number in range(1, ROUND_COUNT + 1):
        dealer = dealer_seat(number, first_dealer=first_dealer, seat_count=seat_count)
        plans.append(
            RoundPlan(
                number=number,
                cards_dealt=cards_dealt(number),
                wild_rank=wild_rank(number),
                dealer=dealer,
                first_player=first_player_seat(dealer, seat_count=seat_count),
            )
        )
    return plans


def _check_round(round_number: int) -> None:
    if not 1 <= round_number <= ROUND_COUNT:
        raise ValueError(f"there is no round {round_number}: rounds run from 1 to {ROUND_COUNT}")
