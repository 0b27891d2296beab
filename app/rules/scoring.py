"""What leftover cards cost, and which round results the decks make possible."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..i18n import fill
from ..i18n import gettext as _
from .card_words import card_name, rank_plural
from .cards import Card, Decks, card_points
from .leftovers import held_totals, kept_hand_question, kept_in_words, leftover_totals


def leftover_points(cards: Sequence[Card], *, wild_rank: int) -> int:
    """The penalty for the cards left in a hand."""
    return sum(card_points(card, wild_rank=wild_rank) for card in cards)


@dataclass(frozen=True)
class SeatResult:
    """What the scorekeeper entered for one seat: went out, the cards left, or a typed number.
    confirmed: the cards were kept as entered, though they hold a book or a run or a wild
    kept after laying down (a typed number: one such cards can cost, as a recorded game's)."""

    went_out: bool = False
    cards: tuple[Card, ...] | None = None
    points: int | None = None
    confirmed: bool = False


@dataclass(frozen=True)
class RoundOutcome:
    """A valid round: the points of every seat (None for a seat not in it) and who went out."""

    scores: list[int | None]
    went_out: int


@dataclass
class RoundError(ValueError):
    """A round that cannot have happened, with a message per seat and for the whole table."""

    seat_errors: dict[int, str] = field(default_factory=dict)
    table_errors: list[str] = field(default_factory=list)
    # Seats whose message is a question: saved as entered once the scorekeeper confirms.
    to_confirm: set[int] = field(default_factory=set)

    def __str__(self) -> str:
        return " ".join([*self.table_errors, *self.seat_errors.values()])


def score_round(
    results: Sequence[SeatResult | None],
    *,
    seat_names: Sequence[str],
    cards_dealt: int,
    wild_rank: int,
    decks: Decks,
    players_in: Sequence[int] | None = None,
    round_name: str | None = None,
) -> RoundOutcome:
    """Check a round's results against the rules and the decks, and score them. results has
    one entry per seat: None for each seat not in players_in (default: everyone plays)."""
    round_name = round_name or _("this round")
    error = RoundError()
    if len(results) != len(seat_names):
        error.table_errors.append(
            fill(
                _(
                    "Enter a result for each of the %(count)s players, in seat order "
                    "(null for a seat not in this round)."
                ),
                count=len(seat_names),
            )
        )
        raise error
    playing = set(range(len(seat_names)) if players_in is None else players_in)
    for seat, result in enumerate(results):
        name = seat_names[seat]
        if seat in playing and result is None:
            error.seat_errors[seat] = fill(
                _("%(name)s plays %(round)s: enter %(name)s's result."), name=name, round=round_name
            )
        elif seat not in playing and result is not None:
            error.seat_errors[seat] = fill(
                _("%(name)s is not in %(round)s: leave %(name)s's result empty (null)."),
                name=name,
                round=round_name,
            )
    if error.seat_errors:
        raise error
    played = [(seat, result) for seat, result in enumerate(results) if result is not None]
    went_out = [seat for seat, result in played if result.went_out]
    if not went_out:
        error.table_errors.append(_("Choose the player who went out first."))
    elif len(went_out) > 1:
        names = ", ".join(seat_names[seat] for seat in went_out)
        error.table_errors.append(
            fill(
                _(
                    "Only one player goes out first, not %(names)s. Others who laid down "
                    "everything score 0 with no cards."
                ),
                names=names,
            )
        )
    scores: list[int | None] = [None] * len(results)
    for seat, result in played:
        name = seat_names[seat]
        if result.went_out:
            if result.cards or result.points:
                error.seat_errors[seat] = fill(
                    _("%(name)s went out, so %(name)s has no cards left."), name=name
                )
            scores[seat] = 0
        elif result.points is not None:
            scores[seat] = result.points
            message = typed_points_error(
                result.points,
                cards_dealt=cards_dealt,
                wild_rank=wild_rank,
                decks=decks,
                round_name=round_name,
                name=name,
                confirmed=result.confirmed,
            )
            if message:
                error.seat_errors[seat] = message
        else:
            cards = result.cards or ()
            scores[seat] = leftover_points(cards, wild_rank=wild_rank)
            question = kept_hand_question(
                cards, cards_dealt=cards_dealt, wild_rank=wild_rank, name=name
            )
            if len(cards) > cards_dealt:
                error.seat_errors[seat] = fill(
                    _("%(name)s has %(count)s cards, but only %(dealt)s were dealt this round."),
                    name=name,
                    count=len(cards),
                    dealt=cards_dealt,
                )
            elif question and not result.confirmed:
                error.seat_errors[seat] = question
                error.to_confirm.add(seat)
    error.table_errors.extend(_deck_errors([result for _, result in played], decks))
    if error.seat_errors or error.table_errors:
        raise error
    return RoundOutcome(scores=scores, went_out=went_out[0])


def typed_points_error(
    points: int,
    *,
    cards_dealt: int,
    wild_rank: int,
    decks: Decks,
    round_name: str,
    name: str | None = None,
    confirmed: bool = False,
    confirmable: bool = True,
) -> str:
    """Why no leftover hand of that round can cost points ("" when one can): a player keeps
    all the cards dealt or at least three fewer, holding no book or run, and no wild once
    anything is laid down (leftovers.py). A total only cards held against those rules can
    cost says how to record them (tapped, then confirmed); confirmed, it is taken, unless
    not confirmable (a solitaire pile, whose cards are always laid out at their best)."""
    if points < 0:
        return _("Points cannot be negative.")
    if points in (1, 2):
        return _("No card is worth 1 or 2 points: the lowest card is a 3.")
    possible = leftover_totals(cards_dealt, wild_rank, decks)
    if points in possible:
        return ""
    if confirmable and points in held_totals(cards_dealt, wild_rank, decks):
        if confirmed:
            return ""
        return fill(
            _(
                "In %(round)s, only cards that hold a book or a run, or a wild card kept after "
                "laying down, leave %(points)s points. If %(name)s kept such cards, tap them, "
                "then confirm."
            ),
            round=round_name,
            points=points,
            name=name or _("the player"),
        )
    if points > max(possible):
        return fill(
            _(
                "%(points)s is too many: in %(round)s the cards a player keeps cost at most "
                "%(most)s."
            ),
            points=points,
            round=round_name,
            most=max(possible),
        )
    return fill(
        _("In %(round)s a player keeps %(kept)s cards; %(points)s points cannot be left."),
        round=round_name,
        kept=kept_in_words(cards_dealt),
        points=points,
    )


def _deck_errors(results: Sequence[SeatResult], decks: Decks) -> list[str]:
    cards = [card for result in results if not result.went_out for card in result.cards or ()]
    errors = []
    jokers = sum(card.is_joker for card in cards)
    if jokers > decks.jokers:
        errors.append(
            fill(
                _("%(count)s jokers across the table, but the decks hold only %(most)s."),
                count=jokers,
                most=decks.jokers,
            )
        )
    ranks = Counter(card.rank for card in cards if card.rank is not None)
    for rank, count in sorted(ranks.items()):
        if count > decks.copies_of_rank:
            errors.append(
                fill(
                    _("%(count)s %(ranks)s across the table, but the decks hold only %(most)s."),
                    count=count,
                    ranks=rank_plural(rank),
                    most=decks.copies_of_rank,
                )
            )
    exact = Counter(card for card in cards if card.rank is not None and card.suit is not None)
    for card, count in sorted(exact.items()):
        if count > decks.copies_of_card:
            errors.append(
                fill(
                    _("%(count)s of the %(card)s, but the decks hold only %(most)s."),
                    count=count,
                    card=card_name(card),
                    most=decks.copies_of_card,
                )
            )

    return errors
