"""Who is asking, seen through trusted front ends: the client's address, and the scheme and host
the browser used (LEXICON_TRUSTED_PROXIES).

Behind nginx every request comes from nginx's address, and what the browser used (its address,
https, its port) is known only from the headers nginx adds. Anyone can send those headers too,
so they are believed only from the front ends named in LEXICON_TRUSTED_PROXIES (none by
default): a client that writes its own X-Forwarded-For to look like many clients is still one
address, the socket's, and cannot dodge a per-client limit (the director's login) nor make one
client's failures fall on another. gunicorn is given the same list (`forwarded_allow_ips`), so
its `wsgi.url_scheme` agrees with `scheme()` here.

- `client_address`: the socket's peer; from a trusted peer, X-Forwarded-For read from the right
  (the entry nginx appended last), skipping trusted hops: the first address not trusted. An IPv4
  address as an IPv6 socket shows it (`::ffff:192.168.1.20`, from `serve --host ::`) is given as
  IPv4 (`canonical`): one client is one address whichever socket it came in on, and the laptop's
  own browser (`::ffff:127.0.0.1`) is loopback.
- `scheme`: X-Forwarded-Proto from a trusted peer, else the server's own (`wsgi.url_scheme`).
- The host and port come from the `Host` header: nginx must pass the browser's own
  (`proxy_set_header Host $http_host`), port included, or a page on port 8243 is told it is
  on 443 (deploy/nginx.conf).
- `network_of`: the /64 an IPv6 client's address is in. One host is given a /64 (SLAAC, a
  hosting provider's least) and may take any address of it, a new one for each request, so a
  limit per address alone bounds nothing for it; the phones of one hall share one /64 too, so a
  limit per /64 is looser (service/event/limits.py, recording.py). IPv4 has no such key: one host
  has one address, and a hall's phones behind one NAT address share its limit already.
- `from_this_computer`: the laptop's own browser, which is the director's (the login's limits
  spare it): a loopback client that opened the service by one of this computer's own names
  (`localhost`, 127.0.0.1, [::1], any port). A loopback address alone is not enough: a page of
  another site that a browser on this computer opened can point its name at 127.0.0.1 (DNS
  rebinding), and its requests then come from loopback, same-origin to the browser, under that
  site's name (`Host: evil.example:8000`), which no page can change. `foreign_host` names it.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Request

DEFAULT_PORTS = {"http": 80, "https": 443}


@functools.lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(item, strict=False) for item in trusted)


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address as IPv4 when it is an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`), or None."""
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return None
    return ip.ipv4_mapped or ip if ip.version == 6 else ip


@functools.lru_cache(maxsize=1024)
def canonical(address: str) -> str:
    """One spelling of a client's address: an IPv4-mapped IPv6 address as its IPv4 one.

    >>> canonical("::ffff:127.0.0.1"), canonical("::FFFF:c0a8:114"), canonical("::1"), canonical("not-an-ip")
    ('127.0.0.1', '192.168.1.20', '::1', 'not-an-ip')
    """
    ip = _ip(address)
    return address if ip is None else str(ip)


def _is_loopback(address: str) -> bool:
    ip = _ip(address)
    return ip is not None and ip.is_loopback


NETWORK_PREFIX = 64  # an IPv6 client's network: what one host may rotate through, and a LAN shares


def network_of(client: str) -> str | None:
    """The IPv6 network of NETWORK_PREFIX bits a client's address is in, as the key of the limits
    its addresses share; None for an IPv4 address (as IPv6 writes it too) or no address.

    >>> network_of("2001:db8:1:2:a:b:c:d"), network_of("::ffff:192.168.1.20"), network_of("192.168.1.20")
    ('2001:db8:1:2::/64', None, None)
    """
    ip = _ip(client)
    if ip is None or ip.version == 4:
        return None
    return str(ipaddress.ip_network(f"{ip}/{NETWORK_PREFIX}", strict=False))


def limit_keys(client: str, limit: int, network_limit: int) -> tuple[tuple[str, int], ...]:
    """The keys a client's limit is counted under, each with its limit: its address, and for an
    IPv6 one its /64 (`network_of`) with the looser `network_limit`, which every address of that
    network counts against together. The rule of every limit kept per client (wrong pairing codes,
    recorded plays of callers without a device).

    >>> limit_keys("2001:db8:1:2::7", 10, 30), limit_keys("192.168.1.20", 10, 30)
    ((('2001:db8:1:2::7', 10), ('2001:db8:1:2::/64', 30)), (('192.168.1.20', 10),))
    """
    network = network_of(client)
    return ((client, limit),) + (() if network is None else ((network, network_limit),))


def names_this_computer(host: str) -> bool:
    """Whether a `Host` header names this computer by a name only it can be reached by: `localhost`
    or a loopback address, with any port. Not a name ending in `.localhost`, which some resolvers
    send on to DNS, nor this computer's host name or its address on the network: a browser here
    opening those comes from that address, not loopback (or through a front end, is vouched for).

    >>> [names_this_computer(h) for h in ("127.0.0.1:8000", "localhost", "LOCALHOST:80", "[::1]:8000", "127.0.0.2")]
    [True, True, True, True, True]
    >>> [names_this_computer(h) for h in ("evil.example:8000", "a.localhost", "10.42.0.1:8000", "[::1", "::1", "")]
    [False, False, False, False, False, False]
    """
    try:
        parts = urlsplit(f"//{host}")
        parts.port  # a port that is no number: no name of this computer  # noqa: B018
    except ValueError:
        return False
    name = parts.hostname or ""
    if name == "localhost":
        return True
    if ":" in name and not parts.netloc.startswith("["):  # an IPv6 address is written in brackets
        return False
    return _is_loopback(name)


def foreign_host(environ: dict, trusted: tuple[str, ...]) -> str | None:
    """The `Host` a request from this computer names when it is not one of this computer's own
    names (`names_this_computer`): a page of that site, its name pointed at this computer, or a
    front end on this computer left out of LEXICON_TRUSTED_PROXIES. None for any other request.
    A request with no `Host` (no browser sends one without) is a tool's on this computer.

    >>> foreign_host({"REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "evil.example:8000"}, ())
    'evil.example:8000'
    >>> foreign_host({"REMOTE_ADDR": "::1", "HTTP_HOST": "[::1]:8000"}, ())  # the laptop, by its own name
    >>> foreign_host({"REMOTE_ADDR": "10.42.0.7", "HTTP_HOST": "evil.example"}, ())  # a phone: not this computer
    """
    host = environ.get("HTTP_HOST")
    if host is None or names_this_computer(host) or not _is_loopback(client_address(environ, trusted)):
        return None
    return host


def from_this_computer(environ: dict, trusted: tuple[str, ...]) -> bool:
    """Whether a request comes from a browser (or a tool) on this computer that opened the service
    by one of this computer's own names: the laptop's, the director's own.

    >>> from_this_computer({"REMOTE_ADDR": "::ffff:127.0.0.1", "HTTP_HOST": "localhost:8000"}, ())
    True
    >>> from_this_computer({"REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "evil.example:8000"}, ())
    False
    """
    return _is_loopback(client_address(environ, trusted)) and foreign_host(environ, trusted) is None


def is_trusted(address: str | None, trusted: tuple[str, ...]) -> bool:
    if not address or not trusted:
        return False
    ip = _ip(address)
    return ip is not None and any(ip in network for network in _networks(trusted))


def client_address(environ: dict, trusted: tuple[str, ...]) -> str:
    """The address of the client that sent this request, as far as trusted front ends vouch for it.

    >>> environ = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 192.168.1.20"}
    >>> client_address(environ, ())
    '127.0.0.1'
    >>> client_address(environ, ("127.0.0.1/32",))
    '192.168.1.20'
    >>> client_address({**environ, "REMOTE_ADDR": "192.168.1.9"}, ("127.0.0.1/32",))
    '192.168.1.9'
    >>> client_address({"REMOTE_ADDR": "::ffff:127.0.0.1"}, ())
    '127.0.0.1'
    """
    peer = environ.get("REMOTE_ADDR") or ""
    if not is_trusted(peer, trusted):
        return canonical(peer)
    hops = [hop.strip() for hop in environ.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    address = peer
    for hop in reversed(hops):
        address = hop
        if not is_trusted(hop, trusted):
            break
    return canonical(address)


def scheme(request: Request, trusted: tuple[str, ...]) -> str:
    """http or https: the browser's, from a trusted front end's X-Forwarded-Proto, else the server's."""
    forwarded = request.headers.get("X-Forwarded-Proto")
    if forwarded is not None and is_trusted(request.remote_addr, trusted):
        value = forwarded.split(",")[-1].strip().lower()
        if value in DEFAULT_PORTS:
            return value
    return request.scheme


def base_url(request: Request, trusted: tuple[str, ...]) -> str:
    """The address of this service as the browser reached it, e.g. https://judge.lan:8243/ (with
    the path prefix it is served under): what a pairing URL or a login link is built on."""
    return f"{scheme(request, trusted)}://{request.host}{request.script_root}/"


def _host_port(netloc: str, default: int | None) -> tuple[str, int | None]:
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:  # a port that is no number, or a bracket not closed ('[::1'): matches nothing
        return netloc.lower(), -1
    return (parts.hostname or "").lower(), default if port is None else port


def same_host(origin: str, host: str) -> bool:
    """Whether a browser's Origin names this host and port (`Host`), a default port written or not.

    >>> same_host("https://judge.lan:8243", "judge.lan:8243"), same_host("https://judge.lan", "judge.lan:443")
    (True, True)
    >>> same_host("https://judge.lan:8243", "judge.lan"), same_host("http://evil.lan", "judge.lan")
    (False, False)

    An Origin that is no URL (a bracket not closed, which urlsplit refuses) names no host: not this one.

    >>> same_host("http://[::1", "[::1]"), same_host("http://a]b", "a]b")
    (False, False)
    """
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    default = DEFAULT_PORTS.get(parts.scheme)
    if default is None or not parts.netloc:
        return False
    return _host_port(parts.netloc, default) == _host_port(host, default)


def gunicorn_allow_ips(trusted: Iterable[str]) -> str:
    """gunicorn's `forwarded_allow_ips` for the same front ends ('' trusts none)."""
    return ",".join(trusted)
