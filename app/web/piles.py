"""Solitaire's pile pages: tap a pile's cards to see its best layout (or, with the card just
drawn, what to discard), and save the pile."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from ..db import SessionDep
from ..games import GameError, GameState, RoundState, parse_cards, save_round
from ..rules.cards import CardError
from ..rules.scoring import RoundError, SeatResult
from ..rules.solitaire import SOLITAIRE_DECKS
from .deps import Code, FormFields, page_game, page_game_for_change, round_or_404
from .forms import HandForm
from .rendering import redirect, render
from .retrying import RetryingRoute

router = APIRouter(include_in_schema=False, route_class=RetryingRoute)


@router.get("/g/{code}/piles/{number}")
def pile_page(request: Request, code: Code, number: int, session: SessionDep) -> Response:
    """One solitaire pile: tap its cards to see the best layout, or the card to discard."""
    state = page_game(session, code)
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
    form = _pile_form(pile, fields)
    typed = fields.get("points", "").strip()
    try:
        if fields.get("closed"):
            result = SeatResult(went_out=True)
        elif typed:
            if not re.fullmatch(r"-?[0-9]{1,6}", typed):
                raise GameError(f"{typed[:10]!r} is not a number of points.")
            result = SeatResult(points=int(typed))
        else:
            result = SeatResult(cards=parse_cards(form.cards))
        save_round(session, game=game, number=number, results=[result])
    except (RoundError, CardError, GameError) as error:
        session.rollback()
        form.error = str(error)
        return _pile_response(request, state, pile, form, status_code=422)
    return redirect(request, request.url_for("game_page", code=code))


def _pile_or_404(state: GameState, number: int) -> RoundState:
    if not state.is_solitaire:
        raise HTTPException(404, "This game has no piles: it is not a solitaire game.")
    return round_or_404(state, number)


def _pile_form(pile: RoundState, fields: Any) -> HandForm:
    form = HandForm.parse(fields)
    form.cards_dealt, form.games = pile.cards_dealt, SOLITAIRE_DECKS.games
    form.error = ""
    return form


def _pile_response(
    request: Request, state: GameState, pile: RoundState, form: HandForm, *, status_code: int = 200
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
    }
    block = "picker" if request.query_params.get("part") == "picker" else "result"
    return render(request, "pile.html", context, block=block, status_code=status_code)
