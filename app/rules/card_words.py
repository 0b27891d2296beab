"""What people call the cards, in their language: a card's spoken name ("Queen of hearts",
"Herz-Dame"), a rank alone and in the plural, and the sentence that says which rank is
wild ("Queens are wild"), each a whole name or sentence so every language can say it its
own way. The card faces (3 to 10, J, Q, K, Joker) are printed, never translated; the
English words stay in cards.py for str() and the logs."""

from __future__ import annotations

from ..i18n import Lazy, lazy, pgettext
from .cards import Card

RANK_WORDS: dict[int, Lazy] = {
    3: lazy("Three"),
    4: lazy("Four"),
    5: lazy("Five"),
    6: lazy("Six"),
    7: lazy("Seven"),
    8: lazy("Eight"),
    9: lazy("Nine"),
    10: lazy("Ten"),
    11: lazy("Jack"),
    12: lazy("Queen"),
    13: lazy("King"),
}
RANK_PLURAL_WORDS: dict[int, Lazy] = {
    3: lazy("Threes"),
    4: lazy("Fours"),
    5: lazy("Fives"),
    6: lazy("Sixes"),
    7: lazy("Sevens"),
    8: lazy("Eights"),
    9: lazy("Nines"),
    10: lazy("Tens"),
    11: lazy("Jacks"),
    12: lazy("Queens"),
    13: lazy("Kings"),
}
WILD_SENTENCES: dict[int, Lazy] = {
    3: lazy("Threes are wild"),
    4: lazy("Fours are wild"),
    5: lazy("Fives are wild"),
    6: lazy("Sixes are wild"),
    7: lazy("Sevens are wild"),
    8: lazy("Eights are wild"),
    9: lazy("Nines are wild"),
    10: lazy("Tens are wild"),
    11: lazy("Jacks are wild"),
    12: lazy("Queens are wild"),
    13: lazy("Kings are wild"),
}
A_RANK_WORDS: dict[int, Lazy] = {
    3: lazy("a Three"),
    4: lazy("a Four"),
    5: lazy("a Five"),
    6: lazy("a Six"),
    7: lazy("a Seven"),
    8: lazy("an Eight"),
    9: lazy("a Nine"),
    10: lazy("a Ten"),
    11: lazy("a Jack"),
    12: lazy("a Queen"),
    13: lazy("a King"),
}
SUIT_WORDS: dict[str, Lazy] = {
    "R": lazy("stars"),
    "H": lazy("hearts"),
    "C": lazy("clubs"),
    "S": lazy("spades"),
    "D": lazy("diamonds"),
}
CARD_NAMES: dict[tuple[int, str], Lazy] = {
    (3, "R"): lazy("Three of stars"),
    (3, "H"): lazy("Three of hearts"),
    (3, "C"): lazy("Three of clubs"),
    (3, "S"): lazy("Three of spades"),
    (3, "D"): lazy("Three of diamonds"),
    (4, "R"): lazy("Four of stars"),
    (4, "H"): lazy("Four of hearts"),
    (4, "C"): lazy("Four of clubs"),
    (4, "S"): lazy("Four of spades"),
    (4, "D"): lazy("Four of diamonds"),
    (5, "R"): lazy("Five of stars"),
    (5, "H"): lazy("Five of hearts"),
    (5, "C"): lazy("Five of clubs"),
    (5, "S"): lazy("Five of spades"),
    (5, "D"): lazy("Five of diamonds"),
    (6, "R"): lazy("Six of stars"),
    (6, "H"): lazy("Six of hearts"),
    (6, "C"): lazy("Six of clubs"),
    (6, "S"): lazy("Six of spades"),
    (6, "D"): lazy("Six of diamonds"),
    (7, "R"): lazy("Seven of stars"),
    (7, "H"): lazy("Seven of hearts"),
    (7, "C"): lazy("Seven of clubs"),
    (7, "S"): lazy("Seven of spades"),
    (7, "D"): lazy("Seven of diamonds"),
    (8, "R"): lazy("Eight of stars"),
    (8, "H"): lazy("Eight of hearts"),
    (8, "C"): lazy("Eight of clubs"),
    (8, "S"): lazy("Eight of spades"),
    (8, "D"): lazy("Eight of diamonds"),
    (9, "R"): lazy("Nine of stars"),
    (9, "H"): lazy("Nine of hearts"),
    (9, "C"): lazy("Nine of clubs"),
    (9, "S"): lazy("Nine of spades"),
    (9, "D"): lazy("Nine of diamonds"),
    (10, "R"): lazy("Ten of stars"),
    (10, "H"): lazy("Ten of hearts"),
    (10, "C"): lazy("Ten of clubs"),
    (10, "S"): lazy("Ten of spades"),
    (10, "D"): lazy("Ten of diamonds"),
    (11, "R"): lazy("Jack of stars"),
    (11, "H"): lazy("Jack of hearts"),
    (11, "C"): lazy("Jack of clubs"),
    (11, "S"): lazy("Jack of spades"),
    (11, "D"): lazy("Jack of diamonds"),
    (12, "R"): lazy("Queen of stars"),
    (12, "H"): lazy("Queen of hearts"),
    (12, "C"): lazy("Queen of clubs"),
    (12, "S"): lazy("Queen of spades"),
    (12, "D"): lazy("Queen of diamonds"),
    (13, "R"): lazy("King of stars"),
    (13, "H"): lazy("King of hearts"),
    (13, "C"): lazy("King of clubs"),
    (13, "S"): lazy("King of spades"),
    (13, "D"): lazy("King of diamonds"),
}
JOKER_NAME = lazy("Joker")


def rank_name(rank: int) -> str:
    """ "Queen", "Dame", "Reina"..."""
    return str(RANK_WORDS[rank])


def rank_plural(rank: int) -> str:
    """ "Queens", "Damen", "dames"..."""
    return str(RANK_PLURAL_WORDS[rank])


def wild_sentence(rank: int) -> str:
    """ "Queens are wild", "Damen sind wild", "Les dames sont des frimes"..."""
    return str(WILD_SENTENCES[rank])


def suit_name(suit: str) -> str:
    return str(SUIT_WORDS[suit])


def card_name(card: Card) -> str:
    """What a person calls the card: "Queen of hearts" ("Herz-Dame"), "Queen", "Joker"."""
    if card.rank is None:
        return str(JOKER_NAME)
    if card.suit is None:
        return rank_name(card.rank)
    return str(CARD_NAMES[card.rank, card.suit])


def a_rank(rank: int) -> str:
    """One card of rank, said in a sentence: "a Queen", "an Eight"."""
    return str(A_RANK_WORDS[rank])


def number_word(count: int) -> str:
    """How many cards, in words (2 to 13): "two", "zwei", "deux"..."""
    words = {
        2: pgettext("how many", "two"),
        3: pgettext("how many", "three"),
        4: pgettext("how many", "four"),
        5: pgettext("how many", "five"),
        6: pgettext("how many", "six"),
        7: pgettext("how many", "seven"),
        8: pgettext("how many", "eight"),
        9: pgettext("how many", "nine"),
        10: pgettext("how many", "ten"),
        11: pgettext("how many", "eleven"),
        12: pgettext("how many", "twelve"),
        13: pgettext("how many", "thirteen"),
    }
    return words.get(count, str(count))
