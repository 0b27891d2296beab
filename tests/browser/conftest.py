"""A real server on 127.0.0.1 and Debian's Chromium at a phone's size, for each test module."""

import os
import shutil
import socket
import threading
import time

import pytest
import uvicorn

from app.config import Settings
from app.main import create_app

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
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


def pytest_collection_modifyitems(config, items):
    if os.path.exists(CHROMIUM):
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(f"CI is set but Chromium is missing at {CHROMIUM}: install it.")
    reason = f"Chromium not found at {CHROMIUM}: browser tests skipped (apt-get install chromium)"
    print(f"\nNOTICE: {reason}")
    for item in items:
        if "browser" in str(item.fspath):
            item.add_marker(pytest.mark.skip(reason=reason))


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """uvicorn in a thread, on 127.0.0.1, started and stopped by the test."""

    def __init__(self, database_url, port=None):
        self.database_url = database_url
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = None
        self.thread = None

    def start(self):
        app = create_app(Settings(database_url=self.database_url))
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self):
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(timeout=10)


@pytest.fixture
def live_server(tmp_path):
    server = LiveServer(f"sqlite:///{tmp_path}/browser.db").start()
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
