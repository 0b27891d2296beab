"""Which language a page is in: chosen without an account (the address, the phone's cookie,
the browser), a table's own for its pages, and nothing a browser sends can break it."""

import re

import pytest

from app import i18n


def page_language(response) -> str:
    assert response.status_code == 200, response.text
    found = re.search(r'<html lang="([a-z]+)"', response.text)
    assert found, response.text[:200]
    return found.group(1)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("fr-CH, fr;q=0.9", "fr"),
        ("en-US;q=0.5, es-MX", "es"),
        ("pt-BR, nl;q=0.3", "nl"),
        ("pt-BR, ja", "en"),
        ("de;q=0, fr;q=0.1", "fr"),
        ("de;q=oops, nl", "nl"),
        ("", "en"),
    ],
)
def test_the_browser_decides_by_default(client, header, expected):
    assert page_language(client.get("/", headers={"Accept-Language": header})) == expected


def test_the_phone_remembers_the_language_chosen_on_any_page(client):
    switch = client.get("/language", params={"to": "nl", "back": "/rules"}, follow_redirects=False)
    assert switch.status_code == 303
    assert switch.headers["location"] == "/rules"
    cookie = switch.headers["set-cookie"]
    assert f"{i18n.COOKIE}=nl" in cookie
    assert "Max-Age=31536000" in cookie and "samesite=lax" in cookie.lower()
    # The phone's choice beats the browser's.
    assert page_language(client.get("/rules", headers={"Accept-Language": "de"})) == "nl"
    # The address beats the phone's choice, for that page.
    assert page_language(client.get("/rules?lang=fr")) == "fr"


def test_every_page_offers_every_language_as_a_link_back_to_itself(client):
    page = client.get("/rules?lang=de").text
    switch = re.search(r'<footer class="languages">(.*?)</footer>', page, re.S)
    assert switch, "no language switch"
    links = re.findall(r'href="([^"]+)"[^>]*>([^<]+)</a>', switch.group(1))
    assert [name for _, name in links] == list(i18n.LANGUAGES.values())
    for href, _ in links:
        back = client.get(href.replace("&amp;", "&"), follow_redirects=False)
        # Back to the rules, without the ?lang= that would outvote the choice.
        assert back.headers["location"] == "/rules"


def test_the_switch_comes_back_to_the_page_without_a_referer(client, new_game):
    # The pages send no Referer (Referrer-Policy no-referrer keeps game links off other
    # sites), so each link says where to come back to: the page's path, slashes as they are.
    code = new_game()["code"]
    response = client.get(f"/g/{code}")
    assert response.headers["referrer-policy"] == "no-referrer"
    assert f'href="/language?to=de&amp;back=/g/{code}"' in response.text
    page = client.get("/hand?round=3&lang=fr&x=a%26b").text
    href = re.search(r'href="([^"]*to=nl[^"]*)"', page).group(1).replace("&amp;", "&")
    back = client.get(href, follow_redirects=False)
    assert back.headers["location"] == "/hand?round=3&x=a%26b"


@pytest.mark.parametrize("back", ["//elsewhere.example/", "https://elsewhere.example/", "/\\x"])
def test_the_switch_never_leads_off_the_site(client, back):
    switch = client.get("/language", params={"to": "de", "back": back}, follow_redirects=False)
    assert switch.status_code == 303
    assert switch.headers["location"] == "/"


def test_unknown_or_absurd_languages_fall_back_and_never_fail(client):
    huge = "de-" + "x" * 10_000
    assert page_language(client.get("/", headers={"Accept-Language": huge})) == "en"
    assert page_language(client.get("/", params={"lang": huge})) == "en"
    assert page_language(client.get("/", params={"lang": "tlh"})) == "en"
    client.cookies.set(i18n.COOKIE, "x" * 5000)
    assert page_language(client.get("/", headers={"Accept-Language": "es"})) == "es"
    client.cookies.set(i18n.COOKIE, "klingon")
    assert page_language(client.get("/")) == "en"
    refused = client.get("/language", params={"to": huge})
    assert refused.status_code == 422


def test_a_table_chooses_the_language_of_its_pages(client):
    table = client.post("/api/tables", json={"name": "Oma"}).json()
    assert table["language"] is None
    chosen = client.patch(f"/api/tables/{table['code']}", json={"language": "de"})
    assert chosen.status_code == 200
    assert chosen.json()["language"] == "de"
    assert client.get(f"/api/tables/{table['watch_code']}").json()["language"] == "de"
    game = client.post("/api/games", json={"players": ["Ann", "Ben"], "table": table["code"]})
    watch = game.json()["watch_code"]
    french_browser = {"Accept-Language": "fr"}
    # Its watchers see it in German whatever their browsers ask for...
    for path in (f"/t/{table['watch_code']}", f"/g/{watch}", f"/g/{game.json()['code']}"):
        assert page_language(client.get(path, headers=french_browser)) == "de", path
    # ...unless they chose their own.
    assert page_language(client.get(f"/g/{watch}?lang=nl", headers=french_browser)) == "nl"
    client.cookies.set(i18n.COOKIE, "es")
    assert page_language(client.get(f"/t/{table['watch_code']}")) == "es"
    client.cookies.clear()
    # A game at no table follows the browser.
    alone = client.post("/api/games", json={"players": ["Ann", "Ben"]}).json()
    assert page_language(client.get(f"/g/{alone['watch_code']}", headers=french_browser)) == "fr"
    # Back to each reader's browser.
    client.patch(f"/api/tables/{table['code']}", json={"language": None})
    assert page_language(client.get(f"/g/{watch}", headers=french_browser)) == "fr"


def test_only_the_scorekeeper_chooses_a_tables_language(client):
    table = client.post("/api/tables", json={"name": "Oma"}).json()
    refused = client.patch(f"/api/tables/{table['watch_code']}", json={"language": "de"})
    assert refused.status_code == 403
    unknown = client.patch(f"/api/tables/{table['code']}", json={"language": "tlh"})
    assert unknown.status_code == 422
    assert "de" in unknown.json()["detail"]
    absurd = client.patch(f"/api/tables/{table['code']}", json={"language": "x" * 10_000})
    assert absurd.status_code == 422
    assert client.get(f"/api/tables/{table['code']}").json()["language"] is None


def test_the_table_page_sets_its_language_without_javascript(client):
    table = client.post("/api/tables", json={"name": "Oma"}).json()
    page = client.get(f"/t/{table['code']}").text
    assert 'name="language"' in page
    saved = client.post(
        f"/t/{table['code']}/language", data={"language": "es"}, follow_redirects=False
    )
    assert saved.status_code == 303
    assert page_language(client.get(f"/t/{table['watch_code']}")) == "es"
    # The watch page shows no form to change it.
    assert 'name="language"' not in client.get(f"/t/{table['watch_code']}").text
