"""The words people read, in their language: English, German, French, Spanish or Dutch.

Every sentence a page, an error or a script shows is marked with `_()` (or `ngettext` for
counts, `pgettext` where one English word has two meanings) and translated in the catalogues
under app/locale (`make i18n` extracts and updates them; docs/DEVELOPING.md says how to add a
language). The language of the request being answered is a context variable: the language
middleware sets it (the address's `?lang=`, then the phone's cookie, then the browser's
Accept-Language), a table's pages prefer the table's language over the browser's, and code
that draws for someone else (a live update for a watcher) says whose language with `using()`.

Placeholders are named, `%(name)s` (Python's and Jinja's gettext convention, which Babel
checks on compiling), filled after translation (`fill()`), so a translation may put them in its
own order.
"""

from __future__ import annotations

import functools
import gettext as gettext_module
import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from pathlib import Path
from typing import Any

from babel import Locale, dates, numbers
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LANGUAGES = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "nl": "Nederlands",
}
"""Each language's code and its own name for itself (what the language switch shows)."""

DEFAULT = "en"
COOKIE = "crownkeeper_lang"
COOKIE_MAX_AGE_S = 365 * 24 * 3600
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "messages"

LONGEST_HEADER = 1000
"""An Accept-Language longer than this is ignored (browsers send a few dozen characters)."""
LONGEST_TAG = 35
"""A language tag longer than this is no language (BCP 47's longest useful tags are shorter)."""

INSTALL_SLACK_S = 5
"""How much older than its .po a .mo may be and still count as compiled from it."""

_language: ContextVar[str] = ContextVar("language", default=DEFAULT)
_chosen: ContextVar[bool] = ContextVar("language_chosen", default=False)


def language() -> str:
    """The language of whatever is being drawn now."""
    return _language.get()


def known(tag: str | None) -> str | None:
    """The language of tag ('de', 'de-AT', 'DE_ch'...) if it is one of ours, else None."""
    if not tag or len(tag) > LONGEST_TAG:
        return None
    code = tag.strip().replace("_", "-").split("-", 1)[0].lower()
    return code if code in LANGUAGES else None


def from_accept_language(header: str | None) -> str | None:
    """The first of ours the browser asks for, by its q-values (None when none is ours)."""
    if not header or len(header) > LONGEST_HEADER:
        return None
    ranked = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                continue
        code = known(tag)
        if code is not None and quality > 0:
            ranked.append((-quality, position, code))
    return min(ranked)[2] if ranked else None


def start(*, chosen: str | None, accepted: str | None) -> None:
    """Set the language of the request being answered: the reader's own choice, else their
    browser's, else English."""
    _chosen.set(chosen is not None)
    _language.set(chosen or accepted or DEFAULT)


def chosen() -> bool:
    """Whether the reader chose the language (address or cookie): a table's then gives way."""
    return _chosen.get()


def prefer(table_language: str | None) -> None:
    """A table's pages are in the table's language unless the reader chose their own."""
    if table_language in LANGUAGES and not _chosen.get():
        _language.set(str(table_language))


@contextmanager
def using(code: str) -> Iterator[None]:
    """Draw in language code for a while (a live update for watchers who read code)."""
    token = _language.set(code if code in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _language.reset(token)


@functools.cache
def translations(code: str) -> gettext_module.NullTranslations:
    """The catalogue of language code, the first time it is asked for: its messages.mo as
    compiled at install (backend/precompress.py, `make static`), or, when that is missing or
    older than the .po, the .po compiled here (English, the language the strings are written
    in, needs none). Messages marked fuzzy or missing fall back to English."""
    path = LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"
    if code == DEFAULT or not path.exists():
        return gettext_module.NullTranslations()
    compiled_at_install = path.with_suffix(".mo")
    # (An install writes both within moments, in either order: a .mo is stale once its .po
    # was changed later than that.)
    fresh = path.stat().st_mtime - INSTALL_SLACK_S
    if compiled_at_install.exists() and compiled_at_install.stat().st_mtime >= fresh:
        with compiled_at_install.open("rb") as mo:
            return gettext_module.GNUTranslations(mo)
    with path.open("rb") as po:
        catalog = read_po(po, locale=code, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext_module.GNUTranslations(compiled)


def _(message: str) -> str:
    """message in the current language."""
    return translations(_language.get()).gettext(message)


gettext = _


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form for n ('1 card', '2 cards', and each language's own rule)."""
    return translations(_language.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """message, where the English word means one thing here and another elsewhere."""
    return translations(_language.get()).pgettext(context, message)


def fill(text: str, /, **values: Any) -> str:
    """A translated sentence with its %(placeholders)s filled."""
    return text % values


class Lazy(str):
    """A sentence marked where no request is being answered yet (a module's constants): it
    is translated each time it is shown, in the language of that moment."""

    __slots__ = ()

    def __str__(self) -> str:
        return _(str.__str__(self))

    def __mod__(self, values: Any) -> str:
        return str(str(self) % values)


def lazy(message: str) -> Lazy:
    """Mark message for translation, translated later, when shown (`str(...)`)."""
    return Lazy(message)


def now_text(value: Any) -> str:
    """A Lazy sentence (or anything) as text in the current language."""
    return str(value)


def _locale() -> Locale:
    return _locale_of(_language.get())


@functools.cache
def _locale_of(code: str) -> Locale:
    return Locale.parse(code)


@functools.cache
def _number_pattern(code: str, digits: int | None, percent: bool) -> numbers.NumberPattern:
    """The language's pattern for a number (or a percentage) with digits decimals, parsed
    once: a table page shows hundreds of figures, and parsing is most of Babel's work."""
    locale = _locale_of(code)
    if percent:
        pattern = locale.percent_formats[None].pattern
        if digits:
            pattern = pattern.replace("#,##0", "#,##0." + "0" * digits, 1)
    elif digits is None:
        pattern = locale.decimal_formats[None].pattern
    else:
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return numbers.parse_pattern(pattern)


def format_date(value: date | datetime, form: str = "long") -> str:
    """'2 December 2026', '2. Dezember 2026', '2 décembre 2026'..."""
    return dates.format_date(value, format=form, locale=_locale())


def format_short_date(value: date | datetime, year: bool = True, padded: bool = False) -> str:
    """A date where room is short: '5 Dec 2026' in English (the app's own form, '05 Dec' when
    padded), the language's own short form elsewhere ('5. Dez. 2026', '5 déc. 2026')."""
    if _language.get() == DEFAULT:
        pattern = ("dd" if padded else "d") + " MMM" + (" y" if year else "")
        return dates.format_date(value, format=pattern, locale=_locale())
    return dates.format_skeleton("yMMMd" if year else "MMMd", value, locale=_locale())


def format_datetime(value: datetime, form: str = "medium") -> str:
    return dates.format_datetime(value, format=form, locale=_locale())


def format_time(value: datetime, form: str = "short") -> str:
    """'9:41 PM' in English, '21:41' where the 24-hour clock is the custom."""
    return dates.format_time(value, format=form, locale=_locale())


def format_number(value: float | int, digits: int | None = None) -> str:
    """1,234.5 in English, 1.234,5 in German..."""
    code = _language.get()
    return str(_number_pattern(code, digits, False).apply(value, _locale_of(code)))


def format_percent(value: float, digits: int = 0) -> str:
    """0.25 as '25%' in English, '25 %' in German and French."""
    code = _language.get()
    return str(_number_pattern(code, digits, True).apply(value, _locale_of(code)))


def plural_rule() -> str:
    """How the page's scripts choose a plural form: 'n>1' in French (0 is singular there),
    'n!=1' in the other four."""
    return "n>1" if _language.get() == "fr" else "n!=1"
