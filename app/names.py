"""Player names as people see them: one normal form, no invisible tricks, and a folded form
that makes look-alike spellings ("Ann", "Ａｎｎ", "Аnn" with a Cyrillic A) the same name."""

import unicodedata

from .i18n import gettext as _

# Joiners are kept: they hold joined emoji (👨‍👩‍👧) and some scripts' letters together.
KEPT_FORMAT_CHARS = frozenset("\u200c\u200d")

# Characters that draw nothing (or nothing but space) although Unicode calls them letters or
# symbols: Hangul fillers, the braille blank, and a few fillers and separators.
BLANK_LOOKING = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5\u034f\u2061\u2062\u2063\u2064\ufeff"
)
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me", "Co", "Cn"})

# Latin look-alikes from the Cyrillic and Greek alphabets: the letters a phone keyboard in
# another layout gives that look just like the Latin ones. Capitals first (Greek Ν is an N,
# its small ν a v), then small letters after case folding.
CONFUSABLE_CAPITALS = str.maketrans(
    {
        **dict.fromkeys("АΑ", "a"),
        **dict.fromkeys("ВΒ", "b"),
        "С": "c",
        **dict.fromkeys("ЕΕ", "e"),
        **dict.fromkeys("НΗ", "h"),
        **dict.fromkeys("ІΙ", "i"),
        "Ј": "j",
        **dict.fromkeys("КΚ", "k"),
        **dict.fromkeys("МΜ", "m"),
        "Ν": "n",
        **dict.fromkeys("ОΟ", "o"),
        **dict.fromkeys("РΡ", "p"),
        "Ѕ": "s",
        **dict.fromkeys("ТΤ", "t"),
        **dict.fromkeys("ХΧ", "x"),
        **dict.fromkeys("УΥ", "y"),
        "Ζ": "z",
    }
)
CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "с": "c",
        "ԁ": "d",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "і": "i",
        "ј": "j",
        "к": "k",
        "ӏ": "l",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "ԛ": "q",
        "ѕ": "s",
        "т": "t",
        "у": "y",
        "ѡ": "w",
        "ԝ": "w",
        "х": "x",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "γ": "y",
        "ζ": "z",
        "ı": "i",  # the dotless i, which case folding leaves alone
    }
)


class UnreadableText(ValueError):
    """Text holding lone surrogates: no encoding can store or send it."""


def check_encodable(text: str) -> str:
    """text, or UnreadableText when it cannot be written as UTF-8 (a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UnreadableText(_("holds characters that are not text (lone surrogates)")) from error

    return text


def plain_name(name: str) -> str:
    """name in one normal form, without control or invisible characters, spaces folded."""
    check_encodable(name)
    visible = "".join(
        char
        for char in unicodedata.normalize("NFC", str(name))
        if unicodedata.category(char) not in ("Cc", "Cf") or char in KEPT_FORMAT_CHARS
    )
    return " ".join(visible.split())


def looks_blank(name: str) -> bool:
    """True when name shows nothing a person could read: only spaces, fillers, joiners or
    marks with nothing to sit on."""
    return all(
        char in BLANK_LOOKING or unicodedata.category(char) in _INVISIBLE_CATEGORIES
        for char in name
    )


def folded(name: str) -> str:
    """The form two names are compared in, by games and tables alike (a table's people are
    matched on it, held in person.folded_name): the plain name without spaces, joiners or
    marks left alone, compatibility forms (full-width letters) and case folded, accents kept,
    and Cyrillic or Greek look-alikes read as the Latin letters they copy. UnreadableText
    as plain_name."""
    text = unicodedata.normalize("NFKC", plain_name(name)).translate(CONFUSABLE_CAPITALS)
    text = text.casefold().translate(CONFUSABLES)
    return "".join(char for char in text if not looks_blank(char) and char not in KEPT_FORMAT_CHARS)
