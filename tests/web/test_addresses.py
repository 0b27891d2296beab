"""The address phones open: printed on start, never a loopback one when phones need it."""

import io

import pytest

from app import addresses
from tests.conftest import test_settings as settings_for


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("[::1]", True),
        ("192.168.1.20", False),
        ("cards.home", False),
        ("10.0.0.5", False),
    ],
)
def test_loopback_hosts(host, loopback):
    assert addresses.is_loopback(host) is loopback


def test_the_lan_address_found_is_never_a_loopback_one():
    assert not addresses.is_loopback(addresses.lan_address())


def test_start_prints_where_the_phones_go(monkeypatch):
    monkeypatch.setattr(addresses, "lan_address", lambda: "192.168.1.20")
    out = io.StringIO()
    addresses.announce(settings_for("sqlite://", host="0.0.0.0", port=8000), out)
    assert out.getvalue() == "Open http://192.168.1.20:8000 on the phones at the table\n"


def test_start_prints_a_text_qr_code_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(addresses, "lan_address", lambda: "192.168.1.20")
    out = Terminal()
    addresses.announce(settings_for("sqlite://", host="0.0.0.0", port=8000, root_path="/ck"), out)
    first, *qr = out.getvalue().splitlines()
    assert first == "Open http://192.168.1.20:8000/ck on the phones at the table"
    assert len(qr) > 10 and any("█" in line or "▀" in line for line in qr)


def test_public_url_wins_and_a_local_only_host_says_so():
    out = io.StringIO()
    addresses.announce(settings_for("sqlite://", public_url="https://cards.example.org"), out)
    assert out.getvalue().startswith("Open https://cards.example.org on the phones")
    out = io.StringIO()
    addresses.announce(settings_for("sqlite://", host="127.0.0.1", port=9000), out)
    assert out.getvalue().startswith("Open http://127.0.0.1:9000 in this computer's browser")
