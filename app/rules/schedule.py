"""The rounds as planned: cards dealt, the wild rank, who plays, who deals and who starts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

ROUND_COUNT = 11
TIEBREAK_CARDS = 6
"""The rulebook's tie-break: one more round of 6 cards (sixes wild) for the tied players."""

RoundKind = Literal["round", "tiebreak"]
RoundOrder = Literal["up", "down", "shuffled"]
ROUND_ORDERS: tuple[RoundOrder, ...] = ("up", "down", "shuffled")
"""The rulebook's order (3 cards first), and two house rules: Kings first, or shuffled."""


@dataclass(frozen=True)
class RoundPlan:
    """One round as planned before it is played."""

    number: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    first_player: int
    kind: RoundKind = "round"
    players_in: tuple[int, ...] = ()


def cards_dealt(round_number: int) -> int:
    """Round r of the rulebook's order deals r + 2 cards."""
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


def next_seat(after: int, *, among: Sequence[int], seat_count: int) -> int:
    """The first seat of `among` clockwise after seat `after` (itself if it is the only one)."""
    if not among:
        raise ValueError("nobody is left at the table")
    for step in range(1, seat_count + 1):
        seat = (after + step) % seat_count
        if seat in among:
            return seat
    raise ValueError(f"no seat of {list(among)} sits at a table of {seat_count}")


def cards_in_order(order: RoundOrder, rng: random.Random | None = None) -> list[int]:
    """Cards dealt in each of the eleven rounds: 3 first (the rulebook), 13 first, or
    shuffled once with rng when the game starts (house rules)."""
    rulebook = [cards_dealt(number) for number in range(1, ROUND_COUNT + 1)]
    if order == "up":
        return rulebook
    if order == "down":
        return rulebook[::-1]
    if order == "shuffled":
        return (rng or random.Random()).sample(rulebook, len(rulebook))
    raise ValueError(f"{order!r} is not an order of rounds: use up, down or shuffled")


def plan_rounds(
    *,
    seat_count: int,
    first_dealer: int = 0,
    order: RoundOrder = "up",
    rng: random.Random | None = None,
) -> list[RoundPlan]:
    """The eleven rounds for a table of seat_count players, everyone in every round."""
    if seat_count < 1:
        raise ValueError("a game needs at least one player")
    if not 0 <= first_dealer < seat_count:
        raise ValueError(f"the first dealer must be a seat from 0 to {seat_count - 1}")
    seats = tuple(range(seat_count))
    plans = []
    for number, dealt in enumerate(cards_in_order(order, rng), start=1):
        dealer = dealer_seat(number, first_dealer=first_dealer, seat_count=seat_count)
        plans.append(
            RoundPlan(
                number=number,
                cards_dealt=dealt,
                # The wild rank matches the cards dealt in every order.
                wild_rank=dealt,
                dealer=dealer,
                first_player=first_player_seat(dealer, seat_count=seat_count),
                players_in=seats,
            )
        )
    return plans


def solitaire_piles() -> list[RoundPlan]:
    """Solitaire's eleven piles of 3 to 13 cards; each pile's size is its wild rank."""
    return [
        RoundPlan(
            number=number,
            cards_dealt=cards_dealt(number),
            wild_rank=wild_rank(number),
            dealer=0,
            first_player=0,
            players_in=(0,),
        )
        for number in range(1, ROUND_COUNT + 1)
    ]


def replan(
    unplayed: Sequence[RoundPlan], *, next_dealer: int, seats_in: Sequence[int], seat_count: int
) -> list[RoundPlan]:
    """The unplayed rounds for a changed table: next_dealer deals the first of them (or, if
    they have left, the next player clockwise who is still in), then the deal moves left
    around the players still in. Cards and wild ranks stay as planned."""
    players = tuple(sorted(seats_in))
    dealer = next_dealer if next_dealer in players else None
    plans = []
    for plan in unplayed:
        if dealer is None:
            dealer = next_seat(next_dealer, among=players, seat_count=seat_count)
        plans.append(
            RoundPlan(
                number=plan.number,
                cards_dealt=plan.cards_dealt,
                wild_rank=plan.wild_rank,
                dealer=dealer,
                first_player=next_seat(dealer, among=players, seat_count=seat_count),
                kind=plan.kind,
                players_in=players,
            )
        )
        dealer = next_seat(dealer, among=players, seat_count=seat_count)
    return plans


def plan_tiebreak(
    *,
    number: int,
    tied: Sequence[int],
    last_dealer: int,
    dealing_seats: Sequence[int],
    seat_count: int,
) -> RoundPlan:
    """The 6-card tie-break for the tied seats: the deal passes on as usual (the next seat
    still at the table deals, whether or not it plays); the first tied player on the
    dealer's left starts."""
    if len(tied) < 2:
        raise ValueError("a tie-break needs at least two tied players")
    dealer = next_seat(last_dealer, among=dealing_seats, seat_count=seat_count)
    return RoundPlan(
        number=number,
        cards_dealt=TIEBREAK_CARDS,
        wild_rank=TIEBREAK_CARDS,
        dealer=dealer,
        first_player=next_seat(dealer, among=tied, seat_count=seat_count),
        kind="tiebreak",
        players_in=tuple(sorted(tied)),
    )


def _check_round(round_number: int) -> None:
    if not 1 <= round_number <= ROUND_COUNT:
        raise ValueError(f"there is no round {round_number}: rounds run from 1 to {ROUND_COUNT}")
