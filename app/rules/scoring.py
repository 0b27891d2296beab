"""What leftover cards cost, and which round results the decks make possible."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import RANK_PLURALS, RANKS, Card, Decks

JOKER_POINTS = 50
WILD_POINTS = 20


def card_points(card: Card, *, wild_rank: int) -> int:
    """Joker 50, the round's wild rank 20, J 11, Q 12, K 13, others face value."""
    if card.rank is None:
        return JOKER_POINTS
    if card.rank == wild_rank:
        return WILD_POINTS
    return card.rank


def leftover_points(cards: Sequence[Card], *, wild_rank: int) -> int:
    """The penalty for the cards left in a hand."""
    return sum(card_points(card, wild_rank=wild_rank) for card in cards)


def max_leftover_points(*, cards_dealt: int, wild_rank: int, decks: Decks) -> int:
    """The most a hand of cards_dealt leftover cards can cost: jokers, then wilds, then high."""
    values = [JOKER_POINTS] * decks.jokers
    for rank in sorted(RANKS, key=lambda r: WILD_POINTS if r == wild_rank else r, reverse=True):
        points = WILD_POINTS if rank == wild_rank else rank
        values.extend([points] * decks.copies_of_rank)
    return sum(values[:cards_dealt])


@dataclass(frozen=True)
class SeatResult:
    """What the scorekeeper entered for one seat: went out, the cards left, or a typed number."""

    went_out: bool = False
    cards: tuple[Card, ...] | None = None
    points: int | None = None


@dataclass(frozen=True)
class RoundOutcome:
    """A valid round: the points of every seat and who went out."""

    scores: list[int]
    went_out: int


@dataclass
class RoundError(ValueError):
    """A round that cannot have happened, with a message per seat and for the whole table."""

    seat_errors: dict[int, str] = field(default_factory=dict)
    table_errors: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return " ".join([*self.table_errors, *self.seat_errors.values()])


def score_round(
    results: Sequence[SeatResult],
    *,
    seat_names: Sequence[str],
    cards_dealt: int,
    wild_rank: int,
    decks: Decks,
) -> RoundOutcome:
    """Check a round's results against the rules and the decks, and score them."""
    error = RoundError()
    if len(results) != len(seat_names):
        error.table_errors.append(
            f"Enter a result for each of the {len(seat_names)} players, in seat order."
        )
        raise error
    went_out = [seat for seat, result in enumerate(results) if result.went_out]
    if not went_out:
        error.table_errors.append("Choose the player who went out first.")
    elif len(went_out) > 1:
        names = ", ".join(seat_names[seat] for seat in went_out)
        error.table_errors.append(
            f"Only one player goes out first, not {names}. Others who laid down everything "
            "score 0 with no cards."
        )
    scores: list[int] = []
    for seat, result in enumerate(results):
        name = seat_names[seat]
        if result.went_out:
            if result.cards or result.points:
                error.seat_errors[seat] = f"{name} went out, so {name} has no cards left."
            scores.append(0)
        elif result.points is not None:
            scores.append(result.points)
            message = _typed_points_error(result.points, cards_dealt, wild_rank, decks)
            if message:
                error.seat_errors[seat] = message
        else:
            cards = result.cards or ()
            scores.append(leftover_points(cards, wild_rank=wild_rank))
            if len(cards) > cards_dealt:
                error.seat_errors[seat] = (
                    f"{name} has {len(cards)} cards, but only {cards_dealt} were dealt this round."
                )
    error.table_errors.extend(_deck_errors(results, decks))
    if error.seat_errors or error.table_errors:
        raise error
    return RoundOutcome(scores=scores, went_out=went_out[0])


def _typed_points_error(points: int, cards_dealt: int, wild_rank: int, decks: Decks) -> str:
    if points < 0:
        return "Points cannot be negative."
    if points in (1, 2):
        return "No card is worth 1 or 2 points: the lowest card is a 3."
    most = max_leftover_points(cards_dealt=cards_dealt, wild_rank=wild_rank, decks=decks)
    if points > most:
        return f"{points} is too many: {cards_dealt} leftover cards cost at most {most} this round."
    return ""


def _deck_errors(results: Sequence[SeatResult], decks: Decks) -> list[str]:
    cards = [card for result in results if not result.went_out for card in result.cards or ()]
    errors = []
    jokers = sum(card.is_joker for card in cards)
    if jokers > decks.jokers:
        errors.append(f"{jokers} jokers across the table, but the decks hold only {decks.jokers}.")
    ranks = Counter(card.rank for card in cards if card.rank is not None)
    for rank, count in sorted(ranks.items()):
        if count > decks.copies_of_rank:
            errors.append(
                f"{count} {RANK_PLURALS[rank]} across the table, but the decks hold only "
                f"{decks.copies_of_rank}."
            )
    exact = Counter(card for card in cards if card.rank is not None and card.suit is not None)
    for card, count in sorted(exact.items()):
        if count > decks.copies_of_card:
            errors.append(
                f"{count} of the {card.name}, but the decks hold only {decks.copies_of_card}."
            )
    return errors
