"""The API's refusals in the reader's language: a `detail` follows Accept-Language (the
field names stay), the app's own sentences and Pydantic's alike, and English stays as it was.

The first tests bring their own small German catalogue, so they check the way a sentence
travels (marked where it is raised, translated in the request's language), whatever the
catalogues under app/locale hold; the last ones read the real German catalogue."""

import gettext
import io

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from app import i18n
from app.addresses import server_language
from app.rules.card_words import card_name, wild_sentence
from app.rules.cards import Card
from app.web.errors import validation_words
from tests.conftest import went_out_first

GERMAN = {
    "No game has the code %(code)s. Check the link, or start a new game.": (
        "Kein Spiel hat den Code %(code)s. Prüf den Link oder starte ein neues Spiel."
    ),
    "Points cannot be negative.": "Punkte können nicht negativ sein.",
    "Input should be a valid integer": "Erwartet: eine ganze Zahl",
    "%(where)s: %(problem)s.": "%(where)s: %(problem)s.",
}


@pytest.fixture
def german(monkeypatch):
    """A German catalogue of a few of the API's sentences, in place of app/locale's."""
    catalog = Catalog(locale="de")
    for english, german_words in GERMAN.items():
        catalog.add(english, german_words)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    translations = gettext.GNUTranslations(compiled)
    english = i18n.translations

    def chosen(code):
        return translations if code == "de" else english(code)

    monkeypatch.setattr(i18n, "translations", chosen)


def test_an_unknown_game_is_refused_in_the_readers_language(client, german):
    asked = client.get("/api/games/nosuchgame", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert asked.status_code == 404
    assert asked.json()["detail"] == (
        "Kein Spiel hat den Code nosuchgame. Prüf den Link oder starte ein neues Spiel."
    )
    plain = client.get("/api/games/nosuchgame")
    assert plain.json()["detail"] == (
        "No game has the code nosuchgame. Check the link, or start a new game."
    )


def test_a_bad_score_is_refused_in_the_readers_language(client, new_game, german):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    results = went_out_first(3, points=[0, -5, 20])
    saved = client.put(
        f"/api/games/{code}/rounds/1", json={"results": results}, headers={"Accept-Language": "de"}
    )
    assert saved.status_code == 422
    body = saved.json()
    assert body["seat_errors"] == {"1": "Punkte können nicht negativ sein."}
    assert "Punkte können nicht negativ sein." in body["detail"]
    english = client.put(f"/api/games/{code}/rounds/1", json={"results": results})
    assert english.json()["seat_errors"] == {"1": "Points cannot be negative."}


def test_pydantics_words_follow_the_reader_and_the_field_names_stay(client, new_game, german):
    code = new_game(["Ann", "Ben", "Cy"])["code"]
    results = [{"went_out": True}, {"points": "lots"}, {"points": 20}]
    saved = client.put(
        f"/api/games/{code}/rounds/1", json={"results": results}, headers={"Accept-Language": "de"}
    )
    assert saved.status_code == 422
    assert "results.1.points: Erwartet: eine ganze Zahl." in saved.json()["detail"]
    english = client.put(f"/api/games/{code}/rounds/1", json={"results": results})
    assert "results.1.points: Input should be a valid integer." in english.json()["detail"]


def test_pydantics_words_stay_as_pydantic_says_them_when_they_read_otherwise():
    # A kind this app does not say again, or a sentence a Pydantic version words otherwise,
    # is left as Pydantic gave it: never a sentence that says something else.
    unknown = {"type": "uuid_parsing", "msg": "Input should be a valid UUID", "ctx": {}}
    assert validation_words(unknown) == "Input should be a valid UUID"
    reworded = {"type": "int_type", "msg": "Input must be a whole number", "ctx": {}}
    assert validation_words(reworded) == "Input must be a whole number"
    counted = {
        "type": "string_too_long",
        "msg": "String should have at most 1 character",
        "ctx": {"max_length": 1},
    }
    assert validation_words(counted) == "String should have at most 1 character"


def test_the_start_address_is_said_in_the_servers_language():
    assert server_language({"LANG": "de_DE.UTF-8"}) == "de"
    assert server_language({"LANGUAGE": "nl:en", "LANG": "fr_FR.UTF-8"}) == "nl"
    assert server_language({"LANG": "C.UTF-8"}) == "en"
    assert server_language({}) == "en"


# The real catalogue: these pass once the translations are in app/locale (`make i18n`).


def test_the_german_catalogue_says_the_api_refusals(client):
    asked = client.get("/api/games/nosuchgame", headers={"Accept-Language": "de"})
    assert asked.json()["detail"] == (
        "Kein Spiel hat den Code nosuchgame. Prüf den Link oder starte ein neues Spiel."
    )
    french = client.get("/api/games/nosuchgame", headers={"Accept-Language": "fr"})
    assert french.json()["detail"] == (
        "Aucune partie n’a le code nosuchgame. Vérifie le lien, ou lance une nouvelle partie."
    )


def test_the_cards_spoken_names_and_wild_sentences_are_whole_in_each_language():
    with i18n.using("de"):
        assert card_name(Card(12, "H")) == "Herz-Dame"
        assert wild_sentence(4) == "Vieren sind wild"
    with i18n.using("fr"):
        assert wild_sentence(4) == "Les quatre sont des frimes"
    with i18n.using("es"):
        assert card_name(Card(12, "H")) == "Reina de corazones"
    with i18n.using("nl"):
        assert card_name(Card(11, "D")) == "Ruitenboer"
    assert card_name(Card(12, "H")) == "Queen of hearts"
    assert wild_sentence(13) == "Kings are wild"
