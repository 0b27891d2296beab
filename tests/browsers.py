"""A real server on 127.0.0.1 and Debian's Chromium at a phone's size, for each test module."""

import pytest

from tests.conftest import CHROMIUM
from tests.server import LiveServer

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PHONE = {"width": 390, "height": 844}
# The phone, and the same phone at 200% zoom (half as many CSS pixels each way), each in
# light and dark: where issue 28 checks that nothing is hidden or covered.
SCREENS = {
    "390-light": (PHONE, "light"),
    "390-dark": (PHONE, "dark"),
    "195-light": ({"width": 195, "height": 422}, "light"),
    "195-dark": ({"width": 195, "height": 422}, "dark"),
}


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory):
    """A temporary folder for screenshots (its path is printed by pytest -v --basetemp)."""
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture
def live_server(database_url):
    server = LiveServer(database_url).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def phone(browser, live_server):
    """A fresh phone-sized browser page; any request off 127.0.0.1 fails the test."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    outside = []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(live_server.url)
            else (outside.append(route.request.url), route.abort())
        ),
    )
    page = context.new_page()
    page.set_default_timeout(5000)
    yield page
    context.close()
    assert outside == [], f"the page asked for things outside the server: {outside}"


@pytest.fixture(params=list(SCREENS))
def screen(request, browser, live_server):
    """A fresh page at each of SCREENS (its name in page.label); any request off 127.0.0.1
    fails the test."""
    viewport, scheme = SCREENS[request.param]
    context = browser.new_context(
        viewport=viewport, color_scheme=scheme, device_scale_factor=2, has_touch=True
    )
    outside = []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(live_server.url)
            else (outside.append(route.request.url), route.abort())
        ),
    )
    page = context.new_page()
    page.set_default_timeout(5000)
    page.label = request.param
    yield page
    context.close()
    assert outside == [], f"the page asked for things outside the server: {outside}"
