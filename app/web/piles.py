"""Solitaire's pile pages: tap a pile's cards to see its best layout (or, with the card just
drawn, what to discard), and save the pile."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from ..db import SessionDep
from ..games import (
    GameState,
    RoundState,
    StaleVersion,
    VersionRequired,
    load_game,
    parse_cards,
    save_round,
)
from ..i18n import fill
from ..i18n import gettext as _
from ..rules.scoring import SeatResult
from ..rules.solitaire import SOLITAIRE_DECKS
from .deps import Code, FormFields, in_table_language, page_game_for_change
from .errors import show_again
from .forms import HandForm, posted_versions
from .rendering import redirect, render
from .retrying import RetryingRoute

router = APIRouter(include_in_schema=False, route_class=RetryingRoute)


@router.get("/g/{code}/piles/{number}")
def pile_page(request: Request, code: Code, number: int, session: SessionDep) -> Response:
    """One solitaire pile: tap its cards to see the best layout, or the card to discard."""
    state = in_table_language(session, load_game(session, code=code))
    pile = _pile_or_404(state, number)
    form = _pile_form(pile, request.query_params)
    return _pile_response(request, state, pile, form)


@router.post("/g/{code}/piles/{number}")
def save_pile(
    request: Request, code: Code, number: int, session: SessionDep, fields: FormFields
) -> Response:
    """Save a pile: closed, its cards (laid out by the solver) or its points."""
    game = page_game_for_change(session, code)
    state = game.state()
    pile = _pile_or_404(state, number)
    if fields.get("keep"):
        session.rollback()
        return redirect(request, request.url_for("game_page", code=code))
    form = _pile_form(pile, fields)
    save = PileSave.parse(fields)

    def form_again(error: Exception | str) -> Response:
        if isinstance(error, StaleVersion):
            save.conflict = True
        elif isinstance(error, VersionRequired):
            form.error = fill(
                _(
                    "Pile %(number)s is saved already, and this page did not say which copy of "
                    "the game it was filled in on, so nothing was saved; your cards are kept. "
                    "Save again to put yours in place of the pile as it is saved now."
                ),
                number=number,
            )
            # Saving again is based on the game this answer shows.
            save.version = state.version
        else:
            form.error = str(error)
        return _pile_response(request, state, pile, form, save=save, status_code=422)

    if save.unreadable:
        session.rollback()
        save.version = state.version
        return form_again(
            _(
                "This page's copy of the game could not be read, so nothing was saved. "
                "Check the pile, then save again: your cards are kept."
            )
        )
    if save.typed and not re.fullmatch(r"-?[0-9]{1,6}", save.typed):
        session.rollback()
        return form_again(
            fill(_("%(typed)s is not a number of points."), typed=repr(save.typed[:10]))
        )
    show_again(request, form_again)
    if save.closed:
        result = SeatResult(went_out=True)
    elif save.typed:
        result = SeatResult(points=int(save.typed))
    else:
        result = SeatResult(cards=parse_cards(form.cards))
    save_round(session, game=game, number=number, results=[result], version=save.based_on)
    return redirect(request, request.url_for("game_page", code=code))


@dataclass
class PileSave:
    """What the pile's save form sent besides its cards: closed or typed points, and the
    version of the game it was filled in on ("Replace it with mine" names its own)."""

    closed: bool = False
    typed: str = ""
    version: int | None = None
    replace_version: int | None = None
    unreadable: bool = False
    # Saving met a newer game (409): the page shows both piles and asks which to keep.
    conflict: bool = False

    @classmethod
    def parse(cls, fields: Any) -> PileSave:
        version, replace_version, unreadable = posted_versions(fields)
        return cls(
            closed=bool(fields.get("closed")),
            typed=fields.get("points", "").strip()[:10],
            version=version,
            replace_version=replace_version,
            unreadable=unreadable,
        )

    @property
    def based_on(self) -> int | None:
        """The version the save is based on: "Replace it with mine" names its own."""
        return self.replace_version if self.replace_version is not None else self.version


def _pile_or_404(state: GameState, number: int) -> RoundState:
    if not state.is_solitaire:
        raise HTTPException(404, _("This game has no piles: it is not a solitaire game."))

    return state.round(number)


def _pile_form(pile: RoundState, fields: Any) -> HandForm:
    form = HandForm.parse(fields)
    form.cards_dealt, form.games = pile.cards_dealt, SOLITAIRE_DECKS.games
    form.error = ""
    return form


def _pile_response(
    request: Request,
    state: GameState,
    pile: RoundState,
    form: HandForm,
    *,
    save: PileSave | None = None,
    status_code: int = 200,
) -> Response:
    faces, solution = form.check(pile.wild_rank, SOLITAIRE_DECKS)
    if form.error and status_code == 200:
        status_code = 422
    context = {
        "state": state,
        "pile": pile,
        "form": form,
        "faces": faces,
        "solution": solution,
        "save": save or PileSave(version=state.version),
    }
    block = "picker" if request.query_params.get("part") == "picker" else "result"
    return render(request, "pile.html", context, block=block, status_code=status_code)
