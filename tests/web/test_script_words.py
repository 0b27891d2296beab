"""The page scripts' words come with the page, in its language (templates/_words.html: only
app.js's own), the words of the scripts fetched later in a script of their own
(/static/words-{lang}.js, templates/_words_later.js), and the service worker's in the phone's
(templates/sw.js): the scripts under static/ keep no English sentence of their own, and every
word they ask for is sent."""

import json
import re

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.config import STATIC_DIR
from app.main import create_app
from tests.conftest import test_settings

SCRIPTS = sorted(STATIC_DIR.glob("*.js"))
# Sentences the scripts used to write themselves: none may come back.
OLD_SENTENCES = [
    "no cards",
    "cannot have more than",
    "The decks hold only",
    "Reconnecting…",
    "Not live: reload the page",
    "Busy: totals refresh",
    "Offline since",
    "showing round",
    "Copied.",
    "The link is selected",
    "keep the screen on",
    "The screen stays on",
    "The screen turns off",
    "is kept on this phone",
    "is not saved",
    "not sent yet",
    "All rounds sent",
    "needs a look",
    "cannot be sent",
    "Let the kept rounds go",
    "are back.",
    "Saving…",
    "Try again",
    "a moment ago",
    "Saved by the other phone",
    "whole hand",
    "Use for ",
    "went out",
    "laid everything down",
    '" points"',
    "add cards",
    "of hearts",
]
# Keys the scripts choose at run time (a live state, a suit letter, one of two sentences).
CHOSEN_KEYS = {
    "open",
    "reconnecting",
    "closed",
    "polling",
    "S",
    "H",
    "C",
    "D",
    "R",
    "w0",
    "w1",
    "err",
    "err0",
    "backR",
    "backR0",
    "backT",
    "backT0",
    "other",
    "other0",
}


# Of those, the ones round-entry.js chooses (its words come later, with it).
CHOSEN_LATER = {"err", "err0", "backR", "backR0", "backT", "backT0", "other", "other0"}
CHOSEN_LATER |= {"S", "H", "C", "D", "R"}  # a card's spoken name in round-entry.js


def words_of(html: str) -> dict:
    held = re.search(r'<script type="application/json" id="words">(.*?)</script>', html, re.S)
    assert held is not None, "the page sends no words"
    return json.loads(held.group(1))


def later_words(response) -> dict:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/javascript")
    held = re.fullmatch(r"self\.crownkeeperWords = (\{.*\});\n?", response.text, re.S)
    assert held is not None, response.text[:200]
    return json.loads(held.group(1))


def asked_by(*names: str) -> set[str]:
    """The keys scripts name in word("...") and words("...") calls (comments aside)."""
    asked = set()
    for name in names:
        code = (STATIC_DIR / name).read_text()
        code = "\n".join(line for line in code.splitlines() if not line.strip().startswith("//"))
        asked |= set(re.findall(r"\bwords?\(\"(\w+)\"", code))
    return asked


def test_no_script_keeps_an_english_sentence() -> None:
    for script in SCRIPTS:
        code = "\n".join(
            line for line in script.read_text().splitlines() if not line.strip().startswith("//")
        )
        left = [sentence for sentence in OLD_SENTENCES if sentence in code]
        assert left == [], f"{script.name} writes its own words: {left}"


def test_every_word_a_script_asks_for_is_sent(client, new_game) -> None:
    game = new_game(players=[f"P{i}" for i in range(9)])  # many-players.js's words too
    sent = words_of(client.get(f"/g/{game['code']}").text)
    later = later_words(client.get("/static/words-en.js"))
    asked = set(CHOSEN_KEYS)
    for script in SCRIPTS:
        asked |= set(re.findall(r"\bwords?\(\"(\w+)\"", script.read_text()))
    assert asked - set(sent) - set(later) == set()
    assert len(sent["pts"]) == 2
    assert all(len(later[key]) == 2 for key in ("many", "jokers", "ranks"))
    # The scripts app.js fetches later find theirs in the later words, app.js its own in
    # the page (a word both ask for is in the page): none of the later ones weighs on the
    # first load.
    fetched_later = asked_by("round-entry.js", "kept-rounds.js", "picker.js") | CHOSEN_LATER
    only_later = fetched_later - asked_by("app.js")
    assert only_later <= set(later)
    assert only_later & set(sent) == set()
    assert asked_by("app.js") | (CHOSEN_KEYS - CHOSEN_LATER) | {"plural"} <= set(sent)


def test_only_a_game_of_many_players_gets_their_words(client, new_game) -> None:
    few = words_of(client.get(f"/g/{new_game()['code']}").text)
    assert "seat" not in few and "offR" in few
    assert "kept" not in few and "saved" not in few  # in the later words


def test_the_words_follow_the_page_language(client, new_game) -> None:
    code = new_game()["code"]
    german = words_of(client.get(f"/g/{code}?lang=de").text)
    assert german["plural"] == "n!=1"
    assert german["offR"] == "Offline seit %(time)s, zeigt Runde %(round)s"
    assert later_words(client.get("/static/words-de.js"))["many"] == [
        "%(name)s kann höchstens %(num)s Karte übrig haben: %(num)s wurde diese Runde gegeben.",
        "%(name)s kann höchstens %(num)s Karten übrig haben: %(num)s wurden diese Runde gegeben.",
    ]
    french = words_of(client.get(f"/g/{code}", headers={"Accept-Language": "fr"}).text)
    assert french["plural"] == "n>1"
    french_later = later_words(client.get("/static/words-fr.js"))
    assert french_later["jokers"][0] == "Il n'y a que %(num)s joker, et il est déjà saisi."
    english = words_of(client.get(f"/g/{code}").text)
    assert english["offE"] == "Offline since %(time)s, showing the result"


@pytest.mark.parametrize(
    ("code", "saved"),
    [
        ("en", "Round %(round)s saved"),
        ("de", "Runde %(round)s gespeichert"),
        ("fr", "Manche %(round)s enregistrée"),
        ("es", "Ronda %(round)s guardada"),
        ("nl", "Ronde %(round)s opgeslagen"),
    ],
)
def test_the_later_words_come_in_each_language(client, code, saved) -> None:
    # Whatever the phone asks for, the address says the language.
    words = later_words(client.get(f"/static/words-{code}.js", headers={"Accept-Language": "es"}))
    assert words["saved"] == saved
    assert set(words) == set(later_words(client.get("/static/words-en.js")))


def test_the_later_words_in_german_are_german(client) -> None:
    german = later_words(client.get("/static/words-de.js"))
    english = later_words(client.get("/static/words-en.js"))
    assert german["clear"] == "Leeren"
    assert german["backR"] == "Die Tipps für Runde %(round)s (%(time)s) sind wieder da."
    assert german["use"] == "Für %(name)s übernehmen"
    assert [key for key in german if german[key] == english[key]] == []
    # Letters as themselves, the placeholders left for the scripts.
    assert "ü" in client.get("/static/words-de.js").text


@pytest.mark.parametrize("path", ["words-tlh.js", "words-EN.js", "words-.js", "words-de.json",
                                  "words-de-AT.js", "words-" + "x" * 5000 + ".js"])  # fmt: skip
def test_no_other_words_script_is_found(client, path) -> None:
    assert client.get(f"/static/{path}").status_code == 404


def test_the_later_words_are_cached_like_the_static_files(client) -> None:
    first = client.get("/static/words-de.js")
    etag = first.headers["etag"]
    assert first.headers["last-modified"]
    # Like app.js: an ETag, and no no-store (the static files carry no game code).
    static = client.get("/static/app.js")
    assert "etag" in static.headers
    assert first.headers.get("cache-control") == static.headers.get("cache-control")
    again = client.get("/static/words-de.js", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b"" and again.headers["etag"] == etag
    weak = client.get("/static/words-de.js", headers={"If-None-Match": f'"old", W/{etag}'})
    assert weak.status_code == 304
    since = client.get("/static/words-de.js",
                       headers={"If-Modified-Since": first.headers["last-modified"]})  # fmt: skip
    assert since.status_code == 304
    # Another language is other bytes: its own ETag, the whole script.
    other = client.get("/static/words-fr.js", headers={"If-None-Match": etag})
    assert other.status_code == 200 and other.headers["etag"] != etag
    stale = client.get("/static/words-de.js", headers={"If-None-Match": '"old"'})
    assert stale.status_code == 200 and later_words(stale) == later_words(first)


def test_the_later_words_sit_with_the_static_files_under_a_root_path(database_url) -> None:
    with TestClient(create_app(test_settings(database_url)), root_path="/ck") as proxied:
        dutch = later_words(proxied.get("/static/words-nl.js"))
        assert dutch["saved"] == "Ronde %(round)s opgeslagen"
        game = proxied.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
        forget = proxied.get(f"/g/{game['code']}/forget?lang=nl").text
        assert '<script src="/ck/static/words-nl.js" defer></script>' in forget


def test_the_forget_page_loads_the_words_before_kept_rounds(client, new_game) -> None:
    code = new_game()["code"]
    page = client.get(f"/g/{code}/forget?lang=de").text
    words_at = page.index('src="/static/words-de.js"')
    assert words_at < page.index('src="/static/kept-rounds.js"')


def test_the_worker_keeps_the_words_of_its_language(client) -> None:
    for code in i18n.LANGUAGES:
        worker = client.get("/sw.js", headers={"Accept-Language": code}).text
        config = json.loads(worker.split("var CONFIG = ", 1)[1].split(";\n", 1)[0])
        words = [path for path in config["static"] if path.startswith("words-")]
        assert words == [f"words-{code}.js"]
        assert client.get(f"/static/{words[0]}").status_code == 200


def test_the_service_worker_speaks_the_phones_language(client) -> None:
    english = client.get("/sw.js")
    assert "This phone keeps no copy of this page" in english.text
    assert '"language": "en"' in english.text
    german = client.get("/sw.js", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert "Dieses Handy hat keine Kopie dieser Seite" in german.text
    assert "This phone keeps no copy" not in german.text
    assert '"language": "de"' in german.text
    assert {"cookie", "accept-language"} <= {
        v.strip().lower() for v in german.headers["vary"].split(",")
    }
    client.cookies.set("crownkeeper_lang", "nl")
    dutch = client.get("/sw.js", headers={"Accept-Language": "de"})
    assert "Deze telefoon heeft geen kopie van deze pagina" in dutch.text
