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

The same addresses decide which front ends may be trusted (`proxies_over_hall`): a trusted
range (LEXICON_TRUSTED_PROXIES) that covers a network phones reach the service on (on every
address: the network of any interface but loopback; on a name: of each address it resolves to) would let
any phone there write `X-Forwarded-For: 127.0.0.1` and be taken for the laptop, so the service
does not start with one (a front end is trusted by its own address, or the service listens on
127.0.0.1 behind it).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import Request

from .config import Settings, SettingsError
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


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _ipv4_routes(text: str) -> list[tuple[str, Network, bool]]:
    """(interface, network, is the default route) of /proc/net/route's lines: on-link networks
    (no gateway) and the default route, in the kernel's little-endian hexadecimal."""
    found = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8:
            continue
        interface, destination, gateway, mask = fields[0], fields[1], fields[2], fields[7]
        address, netmask = (
            ipaddress.IPv4Address(int(value, 16).to_bytes(4, "little")) for value in (destination, mask)
        )
        if int(gateway, 16) == 0 or int(mask, 16) == 0:
            found.append((interface, ipaddress.IPv4Network(f"{address}/{netmask}", strict=False), int(mask, 16) == 0))
    return found


def _ipv6_routes(text: str) -> list[tuple[str, Network, bool]]:
    """The same of /proc/net/ipv6_route's lines (destination, its prefix length, ..., next hop, ..., interface)."""
    found = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 10:
            continue
        destination, length, next_hop, interface = fields[0], int(fields[1], 16), fields[4], fields[9]
        network = ipaddress.IPv6Network((int(destination, 16), length), strict=False)
        if interface != "lo" and (int(next_hop, 16) == 0 or length == 0) and not network.is_multicast:
            found.append((interface, network, length == 0))
    return found


def _routes() -> list[tuple[str, Network, bool]]:
    found = []
    for path, read in (("/proc/net/route", _ipv4_routes), ("/proc/net/ipv6_route", _ipv6_routes)):
        try:
            with open(path, encoding="ascii") as routes:
                found += read(routes.read())
        except (OSError, ValueError):  # another system, or routes this reader does not know
            continue
    return found


def hall_networks(host: str, routes: list[tuple[str, Network, bool]] | None = None) -> list[Network]:
    """The networks phones reach a service listening on `host` from: those on the link of that
    address (a name: of each address it resolves to), or (on every address) of every interface but
    loopback, from the system's routes (Linux). Where the routes say nothing, the address itself, or
    this computer's on its network. None for a service on loopback alone. A name that does not
    resolve is a SettingsError.

    >>> routes = [("eth0", ipaddress.ip_network("0.0.0.0/0"), True), ("eth0", ipaddress.ip_network("192.168.1.0/24"), False),
    ...           ("docker0", ipaddress.ip_network("172.17.0.0/16"), False)]
    >>> [str(n) for n in hall_networks("0.0.0.0", routes)], [str(n) for n in hall_networks("172.17.0.1", routes)]
    (['192.168.1.0/24', '172.17.0.0/16'], ['172.17.0.0/16'])
    >>> hotspot = [("wlan0", ipaddress.ip_network("10.42.0.0/24"), False)]  # the hall's hotspot, no default route
    >>> [str(n) for n in hall_networks("0.0.0.0", hotspot)]
    ['10.42.0.0/24']
    >>> hall_networks("127.0.0.1", routes)
    []
    """
    listening = host.strip("[]")
    if is_loopback(listening):
        return []
    routes = _routes() if routes is None else routes
    if listening in EVERY_ADDRESS:
        found = [network for _, network, default in routes if not default]
        address = network_address()
        return found or ([] if address is None else [ipaddress.ip_network(address)])
    found = []
    for address in resolved(listening):
        ip = ipaddress.ip_address(address)
        if ip.is_loopback:  # a name of this computer alone
            continue
        interfaces = {interface for interface, network, default in routes if not default and ip in network}
        on_link = [network for interface, network, default in routes if interface in interfaces and not default]
        found += [network for network in on_link or [ipaddress.ip_network(address)] if network not in found]
    return found


def resolved(host: str) -> list[str]:
    """The addresses of `host`: itself when it is one, else those its name resolves to.

    >>> resolved("192.168.1.10"), resolved("::ffff:10.0.0.1")
    (['192.168.1.10'], ['10.0.0.1'])
    """
    try:
        return [str(ipaddress.ip_address(canonical(host)))]
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as error:
        raise SettingsError(
            f"LEXICON_HOST: {host!r} is no address, and its name does not resolve here ({error}): give an "
            "address of this computer (like 192.168.1.10), 0.0.0.0 for every one, or a name it can resolve."
        ) from None
    return list(dict.fromkeys(canonical(entry[4][0].split("%")[0]) for entry in found))


def proxies_over_hall(trusted: tuple[str, ...], host: str, routes: list | None = None) -> str | None:
    """Why these trusted front ends cannot be, for a service listening on `host`, or None: a
    trusted range (more than one address) that covers a network phones reach it from.

    >>> routes = [("eth0", ipaddress.ip_network("0.0.0.0/0"), True), ("eth0", ipaddress.ip_network("192.168.1.0/24"), False)]
    >>> proxies_over_hall(("127.0.0.1/32", "192.168.1.5/32", "10.0.0.0/8"), "0.0.0.0", routes) is None
    True
    >>> print(proxies_over_hall(("192.168.0.0/16",), "0.0.0.0", routes))  # doctest: +ELLIPSIS
    LEXICON_TRUSTED_PROXIES: 192.168.0.0/16 covers 192.168.1.0/24, the network phones reach ...
    >>> proxies_over_hall(("0.0.0.0/0",), "127.0.0.1", routes) is None  # behind a front end on this computer
    True

    On every address, every interface's networks count, not only the default route's: the hall on
    wlan0 beside a default route on eth0, or the laptop as the hall's hotspot with no default route.

    >>> hall = ("wlan0", ipaddress.ip_network("10.42.0.0/24"), False)
    >>> for routes in ([*routes, hall], [hall]):
    ...     print(proxies_over_hall(("10.42.0.0/24",), "0.0.0.0", routes))  # doctest: +ELLIPSIS
    LEXICON_TRUSTED_PROXIES: 10.42.0.0/24 covers 10.42.0.0/24, the network phones reach ...
    LEXICON_TRUSTED_PROXIES: 10.42.0.0/24 covers 10.42.0.0/24, the network phones reach ...
    """
    if is_loopback(host.strip("[]")):
        return None
    hall = hall_networks(host, routes)
    if not hall and host.strip("[]") not in EVERY_ADDRESS:  # a name of loopback addresses alone
        return None
    for item in trusted:
        network = ipaddress.ip_network(item)
        if network.num_addresses == 1:  # one front end's own address, on the hall's network or not
            continue
        covered = [str(n) for n in hall if n.version == network.version and n.overlaps(network)]
        if network.prefixlen == 0 or covered:
            where = ", ".join(covered) or "every address"
            return (
                f"LEXICON_TRUSTED_PROXIES: {network} covers {where}, the network phones reach this service "
                f"on (it listens on {host or 'every address'}): any phone there could write "
                "X-Forwarded-For: 127.0.0.1 and be taken for this computer, the director's own. Trust the "
                "front end by its own address (like 192.168.1.5), or serve on 127.0.0.1 behind it."
            )
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


def phone_bases(settings: Settings) -> tuple[list[str], str]:
    """Where `lexicon serve` says to go, before anything is asked: the base URLs phones can reach
    (LEXICON_PUBLIC_URL; else the address listened on when it is one and not loopback; else, on
    every address, this computer's on its network; none when it listens only on this computer or
    has no network), and the one this computer's own browser opens.

    >>> from dataclasses import replace
    >>> from service.config import Settings
    >>> phone_bases(replace(Settings(), host="192.168.1.10", port=8000))
    (['http://192.168.1.10:8000/'], 'http://192.168.1.10:8000/')
    >>> phone_bases(replace(Settings(), host="127.0.0.1", port=8000))
    ([], 'http://127.0.0.1:8000/')
    """
    listening = settings.host.strip("[]")
    own = _url(
        "http", "127.0.0.1" if listening in EVERY_ADDRESS or is_loopback(listening) else listening, settings.port, ""
    )
    if settings.public_url:
        return [settings.public_url.rstrip("/") + "/"], own
    if is_loopback(listening):
        return [], own
    if listening not in EVERY_ADDRESS:
        return [_url("http", listening, settings.port, "")], own
    address = network_address()
    return ([] if address is None else [_url("http", address, settings.port, "")]), own
