"""Every page, in every language, says nothing in English (issue 29): each page is drawn in
English and in the other four, and no English sentence is left (the players' names, the
card faces and "Crownkeeper" aside), and every placeholder is filled."""

import re
from html.parser import HTMLParser

import pytest
from babel import Locale
from babel.messages.pofile import read_po

from app import i18n
from tests.tables_helpers import game_at, new_table, play, save_round

NAMES = {"Ann", "Benedict", "Cy", "Grandma", "Dee", "Sol", "Smiths", "The"}
ALWAYS = {"crownkeeper", "joker", "jokers"} | {n.lower() for n in i18n.LANGUAGES.values()}
WORD = re.compile(r"[^\W\d_]{3,}")
SHOWN_ATTRIBUTES = {"aria-label", "title", "alt", "placeholder", "aria-description"}


class Texts(HTMLParser):
    """What a reader sees or hears of a page: its text and its labels, scripts aside."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in {"script", "style", "template"}:
            self.skipping += 1
        for name, value in attrs:
            if name in SHOWN_ATTRIBUTES and value:
                self.texts.append(value)
            if tag == "input" and name == "value" and dict(attrs).get("type") == "submit":
                self.texts.append(value or "")

    def handle_endtag(self, tag):
        if tag in {"script", "style", "template"} and self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping and data.strip():
            self.texts.append(" ".join(data.split()))


def texts(html: str) -> list[str]:
    # The language switch names each language in itself, on every page.
    html = re.sub(r'<footer class="languages">.*?</footer>', "", html, flags=re.S)
    parser = Texts()
    parser.feed(html)
    return parser.texts


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text) if w not in NAMES]


def translated_words(code: str) -> set[str]:
    """Every word the language's own catalogue uses: the same word in English and there
    ("Joker", "Total", "Revanche") is that language's word too."""
    with (i18n.LOCALE_DIR / code / "LC_MESSAGES" / "messages.po").open("rb") as po:
        catalog = read_po(po, locale=code)
    found: set[str] = set()
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in strings:
            found.update(words(string or ""))
    # Dates are Babel's: "5 dec 2026" is Dutch as much as English.
    locale = Locale.parse(code)
    for width in ("abbreviated", "wide"):
        found.update(words(" ".join(locale.months["format"][width].values())))
        found.update(words(" ".join(locale.days["format"][width].values())))
    return found


def game(client, table, players):
    code = game_at(client, table, players)
    return client.get(f"/api/games/{code}").json()


@pytest.fixture
def pages(client):
    """Every page a family meets, by name: the path to draw."""
    found = {
        "home": "/",
        "rules": "/rules",
        "hand checker": "/hand?cards_dealt=3&cards=9H,JH,JOKER,KD&discard=1",
    }
    table = new_table(client)
    players = ["Ann", "Benedict", "Cy", "Grandma Dee"]
    fresh = game(client, table, players)
    found["new game"] = f"/g/{fresh['code']}"
    found["new game, watched"] = f"/g/{fresh['watch_code']}"
    found["round entry"] = f"/g/{fresh['code']}/rounds/1"
    found["players"] = f"/g/{fresh['code']}/players"
    going = game(client, table, players)
    play(client, going, [[0, 20, 30, 13], [13, 0, 20, 30]], finish=False)
    found["game in progress"] = f"/g/{going['code']}"
    found["game in progress, watched"] = f"/g/{going['watch_code']}"
    done = game(client, table, players)
    play(client, done, [[0, 20, 30, 13], [13, 0, 20, 30]])
    found["game over"] = f"/g/{done['code']}"
    tied = game(client, table, ["Ann", "Cy"])
    for number in range(1, 12):  # Cy lays everything down each time Ann goes out: a tie
        save_round(client, tied["code"], number, [{"went_out": True}, {"points": 0}])
    found["tie"] = f"/g/{tied['code']}"
    solo = client.post("/api/games", json={"players": ["Sol"]}).json()
    found["solitaire"] = f"/g/{solo['code']}"
    found["solitaire pile"] = f"/g/{solo['code']}/piles/1"
    found["table"] = f"/t/{table['code']}"
    found["table, watched"] = f"/t/{table['watch_code']}"
    people = client.get(f"/api/tables/{table['code']}").json()["people"]
    found["person"] = f"/t/{table['code']}/people/{people[0]['id']}"
    found["no such game"] = "/g/zq7Xw2Vb9"
    found["no such table"] = "/t/zq7Xw2Vb9"
    return found


def test_no_page_says_anything_in_english_in_another_language(client, pages):
    english_pages = {
        name: texts(client.get(path, params={"lang": "en"}).text) for name, path in pages.items()
    }
    english = {w for page in english_pages.values() for text in page for w in words(text)}
    left: dict[str, list[str]] = {}
    for code in i18n.LANGUAGES:
        if code == i18n.DEFAULT:
            continue
        own = translated_words(code) | ALWAYS
        for name, path in pages.items():
            response = client.get(path, params={"lang": code})
            assert response.status_code < 500, (code, name)
            assert f'<html lang="{code}"' in response.text
            for text in texts(response.text):
                run = 0
                for word in words(text):
                    run = run + 1 if word in english and word not in own else 0
                    if run >= 2 or (word in english and word not in own and len(words(text)) == 1):
                        left.setdefault(f"{code}: {name}", []).append(text)
                        break
                assert "%(" not in text and not re.search(r"\{\w*\}", text), (code, name, text)
    assert left == {}
