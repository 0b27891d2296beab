"""The page scripts' words come with the page, in its language (templates/_words.html), and
the service worker's in the phone's (templates/sw.js): the scripts under static/ keep no
English sentence of their own, and every word they ask for is sent."""

import json
import re

from app.config import STATIC_DIR

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


def words_of(html: str) -> dict:
    held = re.search(r'<script type="application/json" id="words">(.*?)</script>', html, re.S)
    assert held is not None, "the page sends no words"
    return json.loads(held.group(1))


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
    asked = set(CHOSEN_KEYS)
    for script in SCRIPTS:
        asked |= set(re.findall(r"\bwords?\(\"(\w+)\"", script.read_text()))
    assert asked - set(sent) == set()
    assert all(len(sent[key]) == 2 for key in ("many", "jokers", "ranks", "pts"))


def test_only_a_game_of_many_players_gets_their_words(client, new_game) -> None:
    few = words_of(client.get(f"/g/{new_game()['code']}").text)
    assert "seat" not in few and "kept" in few


def test_the_words_follow_the_page_language(client, new_game) -> None:
    code = new_game()["code"]
    german = words_of(client.get(f"/g/{code}?lang=de").text)
    assert german["plural"] == "n!=1"
    assert german["offR"] == "Offline seit %(time)s, zeigt Runde %(round)s"
    assert german["many"] == [
        "%(name)s kann höchstens %(num)s Karte übrig haben: %(num)s wurde diese Runde gegeben.",
        "%(name)s kann höchstens %(num)s Karten übrig haben: %(num)s wurden diese Runde gegeben.",
    ]
    french = words_of(client.get(f"/g/{code}", headers={"Accept-Language": "fr"}).text)
    assert french["plural"] == "n>1"
    assert french["jokers"][0] == "Il n'y a que %(num)s joker, et il est déjà saisi."
    english = words_of(client.get(f"/g/{code}").text)
    assert english["saved"] == "Round %(round)s saved"


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
