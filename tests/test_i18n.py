"""The catalogues: every marked string extracted, every language complete, nothing a
translation could break (placeholders, plural forms), and each one compiles."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from app import i18n

ROOT = Path(__file__).resolve().parent.parent
POT = i18n.LOCALE_DIR / "messages.pot"
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|%[sd]|\{(\w*)\}")


def catalogue(code: str) -> Catalog:
    with (i18n.LOCALE_DIR / code / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=code)


def template_ids() -> set[tuple[object, object]]:
    with POT.open("rb") as pot:
        return {(m.id, m.context) for m in read_po(pot) if m.id}


def placeholders(text: str) -> set[str]:
    return {m.group(0) for m in PLACEHOLDER.finditer(text)}


def test_the_template_holds_every_marked_string(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.pot"
    pybabel = Path(sys.executable).parent / "pybabel"
    subprocess.run(
        [
            str(pybabel),
            "-q",
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "lazy",
            "--no-location",
            "--omit-header",
            "-o",
            str(fresh),
            ".",
        ],
        cwd=ROOT,
        check=True,
        timeout=120,
    )
    with fresh.open("rb") as pot:
        extracted = {(m.id, m.context) for m in read_po(pot) if m.id}
    assert extracted - template_ids() == set(), "run `make i18n`: strings are not extracted"
    assert template_ids() - extracted == set(), "run `make i18n`: strings are gone"


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_string_is_translated(code: str) -> None:
    po = catalogue(code)
    ids = {(m.id, m.context) for m in po if m.id}
    assert template_ids() - ids == set(), f"run `make i18n`: {code} misses strings"
    missing = [m.id for m in po if m.id and (not m.string or not all(m.string))]
    assert missing == [], f"{code}: untranslated"
    fuzzy = [m.id for m in po if m.id and m.fuzzy]
    assert fuzzy == [], f"{code}: fuzzy (check and clear the flag)"


@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_keep_the_placeholders(code: str) -> None:
    for message in catalogue(code):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*(placeholders(i) for i in ids))
        for string in strings:
            # A singular may say "one" in words instead of its number.
            extra = placeholders(string) - wanted
            assert extra == set(), f"{code}: {message.id!r} -> {string!r}"
        found = set().union(*(placeholders(s) for s in strings))
        assert wanted - found <= {"%(num)s", "%(num)d"}, (
            f"{code}: {message.id!r} lost {wanted - found}"
        )
        if len(ids) == 1:
            assert placeholders(strings[0]) == wanted, f"{code}: {message.id!r}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_each_catalogue_compiles_with_its_languages_plurals(code: str) -> None:
    po = catalogue(code)
    assert po.num_plurals == 2
    assert po.plural_expr.replace(" ", "") in {"(n!=1)", "(n>1)"}
    assert list(po.check()) == []
    compiled = io.BytesIO()
    write_mo(compiled, po)
    assert compiled.getvalue()


def test_the_languages_differ_where_french_counts_zero_as_one() -> None:
    assert catalogue("fr").plural_expr.replace(" ", "") == "(n>1)"
    assert catalogue("de").plural_expr.replace(" ", "") == "(n!=1)"
