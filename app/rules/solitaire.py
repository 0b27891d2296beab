"""Solitaire: eleven piles of 3 to 13 cards, each wild at its own size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..i18n import fill
from ..i18n import gettext as _
from .cards import Card, Decks
from .scoring import typed_points_error
from .solver import Solution, solve

SOLITAIRE_DECKS = Decks(games=1)
"""Solitaire shuffles the two decks of one game."""


class PileError(ValueError):
    """A pile result no deal could give."""


@dataclass(frozen=True)
class PileScore:
    """A pile's points and, when its cards were given, the best books and runs."""

    points: int
    solution: Solution | None = None


def score_pile(
    *,
    cards_dealt: int,
    wild_rank: int,
    closed: bool = False,
    cards: Sequence[Card] | None = None,
    points: int | None = None,
    pile_name: str | None = None,
    recorded: bool = False,
) -> PileScore:
    """A pile is closed (0), typed points it could score, or exactly its cards, laid out in
    the best books and runs: what is left scores. Typed points of a recorded game (an import)
    are taken if some cards a pile of that size holds cost them: it was played so."""
    pile_name = pile_name or _("this pile")
    if closed:
        return PileScore(points=0)
    if cards is not None:
        if len(cards) != cards_dealt:
            raise PileError(
                fill(
                    _("%(pile)s holds %(dealt)s cards: tap exactly %(dealt)s, not %(count)s."),
                    pile=pile_name.capitalize(),
                    dealt=cards_dealt,
                    count=len(cards),
                )
            )
        solution = solve([card.code for card in cards], wild_rank, decks=SOLITAIRE_DECKS)
        return PileScore(points=solution.points, solution=solution)
    if points is None:
        raise PileError(
            fill(_("Say whether %(pile)s closed, or give its cards or its points."), pile=pile_name)
        )

    message = typed_points_error(
        points,
        cards_dealt=cards_dealt,
        wild_rank=wild_rank,
        decks=SOLITAIRE_DECKS,
        round_name=pile_name,
        confirmable=recorded,
        confirmed=recorded,
    )
    if message:
        raise PileError(message)
    return PileScore(points=points)


@dataclass(frozen=True)
class SolitaireResult:
    """Where a solitaire game stands: finished once every pile is saved; won if all closed."""

    finished: bool
    won: bool | None
    total: int


def solitaire_result(pile_points: Sequence[int | None]) -> SolitaireResult:
    """The game is won when every pile closed (scored 0); otherwise the leftover total
    counts, lower being better."""
    saved = [points for points in pile_points if points is not None]
    finished = len(saved) == len(pile_points)
    total = sum(saved)
    return SolitaireResult(finished=finished, won=(total == 0) if finished else None, total=total)
