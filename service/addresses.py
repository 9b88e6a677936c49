"""The address phones open to reach this service: where a pairing QR code points.

The director often opens the console on the laptop itself (http://127.0.0.1:8000/director), an
address no phone can reach; a QR code of it pairs nothing. `public_base` is the one place that
chooses the address instead, in this order:

1. LEXICON_PUBLIC_URL, when set: a name, or a front end (nginx, TLS) the service cannot see.
2. The address the console was opened at, when it is not this computer's own (loopback): the
   director's browser reached the service there, so a phone on the same network can too.
3. The address the service listens on (LEXICON_HOST, `serve --host`), when it is one address
   and not loopback; with the scheme and port the console was opened at (no port: the scheme's).
4. Listening on every address (0.0.0.0, ::): this computer's address on its network, the one
   its default route leaves from (asked of the system, no packet sent).
5. Otherwise none is known (the service listens only on this computer, or the computer has no
   network): the console's own address, with `reachable` false and the reason, which the
   console says.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import Request

from .config import Settings
from .proxies import base_url, canonical, scheme

EVERY_ADDRESS = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class PublicBase:
    """Where phones reach the service (ends in `/`), and whether it is known to be reachable."""

    url: str
    reachable: bool
    reason: str | None = None  # when not: "loopback-only" (listens on this computer alone) or "no-network"


def is_loopback(host: str) -> bool:
    """`localhost`, 127.x.x.x and ::1 (and a name ending in .localhost), 127.x.x.x as IPv6 writes it too.

    >>> [is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "::ffff:127.0.0.1", "192.168.1.10", "juez.lan")]
    [True, True, True, True, False, False]
    """
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(canonical(host)).is_loopback
    except ValueError:
        return False


def network_address() -> str | None:
    """This computer's address on its network: the source of its default route, or None.

    A UDP socket's connect sends nothing; it only asks the system which address it would use."""
    for family, target in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as probe:
                probe.connect((target, 9))
                address = probe.getsockname()[0]
        except OSError:
            continue
        if not is_loopback(address) and not ipaddress.ip_address(address).is_unspecified:
            return address
    return None


def _url(scheme: str, host: str, port: int | None, root: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{shown}{'' if port in (None, default) else f':{port}'}{root}/"


def public_base(settings: Settings, request: Request) -> PublicBase:
    """The base URL phones open (see the module's docstring), for a request to this service."""
    if settings.public_url:
        return PublicBase(settings.public_url, True)
    # the browser's scheme, host and port, also through a trusted front end (service.proxies)
    own, browser = base_url(request, settings.trusted_proxies), scheme(request, settings.trusted_proxies)
    parts = urlsplit("//" + request.host)
    try:
        host, port = parts.hostname or "", parts.port
    except ValueError:  # a Host header with a port that is no number
        host, port = parts.hostname or "", None
    if not is_loopback(host):
        return PublicBase(own, True)
    # the port the browser reached: none in its URL is its scheme's default (https://localhost
    # through a front end on 443), never the port the service listens on behind that front end
    root = request.script_root.rstrip("/")
    listening = settings.host.strip("[]")
    if listening not in EVERY_ADDRESS:
        if is_loopback(listening):
            return PublicBase(own, False, "loopback-only")
        return PublicBase(_url(browser, listening, port, root), True)
    address = network_address()
    if address is None:
        return PublicBase(own, False, "no-network")
    return PublicBase(_url(browser, address, port, root), True)
