"""The templates' words in whole phrases: a wild rank is said in a sentence of its own for each
rank, and dates where room is short keep the English form and use each language's own."""

from datetime import date

import pytest

from app import i18n
from app.rules.cards import RANK_PLURALS, RANKS
from app.web.rendering import templates


@pytest.mark.parametrize("rank", RANKS)
def test_every_rank_has_its_own_wild_sentences(rank):
    ranks = templates.env.get_template("_ranks.html").module
    plural = RANK_PLURALS[rank]
    assert str(ranks.plural(rank)) == plural
    assert str(ranks.are_wild(rank)) == f"{plural} are wild"
    assert str(ranks.wild(rank)) == f"{plural} wild"
    assert str(ranks.wild_this_round(rank)) == (
        f"{plural} are wild this round (20 points), jokers 50."
    )


def test_short_dates_keep_the_english_form_and_follow_the_language():
    day = date(2026, 3, 5)
    assert i18n.format_short_date(day) == "5 Mar 2026"
    assert i18n.format_short_date(day, year=False, padded=True) == "05 Mar"
    with i18n.using("de"):
        assert i18n.format_short_date(day) == "5. März 2026"
    with i18n.using("fr"):
        assert i18n.format_short_date(day, year=False) == "5 mars"
