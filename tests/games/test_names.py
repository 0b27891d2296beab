"""names.folded, the one rule games and tables match names by."""

import sys

import pytest

from app.games import NAME_LENGTH
from app.models import Person
from app.names import UnreadableText, folded


@pytest.mark.parametrize(
    "spelling", ["Ann", "ANN", "Ａｎｎ", "\u0410nn", "A\u200bnn", "  Ann ", "A nn", "\u0391nn"]
)
def test_spellings_of_one_name_fold_alike(spelling):
    assert folded(spelling) == folded("Ann") == "ann"


def test_names_that_only_share_letters_fold_apart():
    assert len({folded(name) for name in ("Ann", "Anna", "Jose", "José")}) == 4


def test_text_no_encoding_can_hold_is_refused():
    with pytest.raises(UnreadableText):
        folded("Ann\ud800")


def test_the_longest_name_folded_fits_in_its_column():
    longest = max(
        len(folded(chr(code))) for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF
    )
    assert longest * NAME_LENGTH <= Person.__table__.c.folded_name.type.length
