"""Where the phones at the table reach this server: never a loopback address."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Mapping
from typing import TextIO

import segno

from . import i18n
from .config import Settings
from .i18n import fill
from .i18n import gettext as _

# Any address outside this machine will do: connecting a UDP socket only picks the route
# (and so the local address on the home network); nothing is sent.
_ROUTE_PROBE = ("10.254.254.254", 1)


def is_loopback(host: str) -> bool:
    """host names this machine only (localhost, 127.x.x.x, ::1)."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This machine's address on the local network, as the phones would use it."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_ROUTE_PROBE)
            found = str(probe.getsockname()[0])
        if not is_loopback(found) and found != "0.0.0.0":
            return found
    except OSError:
        pass
    hostname = socket.gethostname()
    try:
        infos = socket.getaddrinfo(hostname, None, socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        infos = []
    for info in infos:
        address = str(info[4][0])
        if not is_loopback(address):
            return address
    return hostname  # no address found: the machine's name is the best left to offer


def shared_base(settings: Settings, *, scheme: str, host: str, port: int | None) -> str:
    """scheme://host:port for links other phones open: PUBLIC_URL when set, else this
    request's own address, with the LAN address instead of a loopback one."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    if is_loopback(host):
        host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    default_port = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" if port in (None, default_port) else f"{scheme}://{host}:{port}"


def start_address(settings: Settings) -> str:
    """The address to open on the phones, for the message printed on start."""
    if settings.public_url:
        return settings.public_url.rstrip("/") + settings.root_path
    host = settings.host
    if is_loopback(host):
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{settings.port}{settings.root_path}"
    if host in ("0.0.0.0", "::", ""):
        host = lan_address()
    base = shared_base(settings, scheme="http", host=host, port=settings.port)
    return base + settings.root_path


def announce(settings: Settings, out: TextIO = sys.stdout) -> None:
    """Print where the phones go, and its QR code when out is a terminal."""
    address = start_address(settings)
    with i18n.using(server_language()):
        if is_loopback(settings.host) and not settings.public_url:
            said = _("Open %(address)s in this computer's browser (HOST keeps phones out).")
            print(fill(said, address=address), file=out)
            return
        print(fill(_("Open %(address)s on the phones at the table"), address=address), file=out)

    if out.isatty():
        segno.make(address, error="m").terminal(out=out, compact=True, border=2)
    out.flush()


def server_language(environ: Mapping[str, str] = os.environ) -> str:
    """The language of whoever starts the server, from LANGUAGE or LANG ("de_DE.UTF-8"),
    if it is one of ours; else English."""
    for variable in ("LANGUAGE", "LANG"):
        first = environ.get(variable, "").split(":")[0].split(".")[0]
        code = i18n.known(first)
        if code is not None:
            return code
    return i18n.DEFAULT
