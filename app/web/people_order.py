"""The order of the table page's list of people: by rating (the default), by wins or by win
rate, the choice kept in the address (`?order=wins`) so that each is one link away."""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlencode

from fastapi import HTTPException, Request

from ..i18n import fill, lazy
from ..i18n import gettext as _
from ..tables import PersonView, TableState

ORDERS = {"rating": lazy("Rating"), "wins": lazy("Wins"), "win_rate": lazy("Win rate")}
"""Each order the address may ask for, and its link's words."""
DEFAULT_ORDER = "rating"
KEPT_PARAMS = ("year", "from", "to", "people")
"""What an order link keeps of the address: the season, and everyone listed."""


class OrderLink(NamedTuple):
    label: str
    query: str
    """The address's query for this order ("" or "?..."), the page's path before it."""
    current: bool


def order_asked(request: Request) -> str:
    """The order in the address (rating without one); 422 in words for one that is none."""
    asked = request.query_params.get("order") or DEFAULT_ORDER
    if asked not in ORDERS:
        choices = ", ".join(ORDERS)
        raise HTTPException(
            422,
            fill(
                _("order must be one of %(choices)s, not %(asked)s."),
                choices=choices,
                asked=repr(asked[:40]),
            ),
        )
    return asked


def order_links(request: Request, chosen: str) -> list[OrderLink]:
    """A link for each order, keeping the season and the rest of what the address asks for
    the list; the default order's link is the address without one."""
    kept = {k: v for k, v in request.query_params.items() if k in KEPT_PARAMS and v}
    links = []
    for order, label in ORDERS.items():
        params = kept if order == DEFAULT_ORDER else {**kept, "order": order}
        query = ("?" + urlencode(params)) if params else ""
        links.append(OrderLink(str(label), query, order == chosen))

    return links


def everyone_query(request: Request) -> str:
    """The address's query for the whole list, in the same order and season."""
    kept = {k: v for k, v in request.query_params.items() if k in KEPT_PARAMS and v}
    if "order" in request.query_params:
        kept["order"] = request.query_params["order"]
    return "?" + urlencode({**kept, "people": "all"})


def people_in_order(state: TableState, order: str) -> list[PersonView]:
    """The table's people in the order asked for; people with nothing to order by last.
    By rating: the higher figure first. By wins: more wins first, then the better win rate.
    By win rate: the better rate first, then more games. Equal people keep the rating's
    order, then the table's."""
    ratings = state.season.ratings.now if state.season is not None else {}

    def by_rating(person: PersonView) -> tuple[bool, float]:
        rating = ratings.get(person.id)
        return (rating is None, -rating.ordinal if rating else 0.0)

    people = sorted(state.people, key=by_rating)
    if order == "wins":
        people.sort(key=lambda p: (-p.stats.wins, -(p.stats.win_rate or 0.0)))
    elif order == "win_rate":
        people.sort(
            key=lambda p: (p.stats.win_rate is None, -(p.stats.win_rate or 0.0), -p.stats.games)
        )
    return people
