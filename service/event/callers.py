"""Who asks in an event: the director (a session cookie), a paired device (a bearer token) or
nobody, and what comes with each (docs/tournament.md, "HTTP API").

Secrets: the director's session is an HttpOnly, SameSite=Strict cookie holding a random token
(only its hash is stored); a device's token comes in `Authorization: Bearer`. Neither is ever
logged, written into a page or a record, nor echoed in a problem.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import request

from tournament import Device, StorageError, token_hash

from ..challenge_hook import ASKING
from ..problems import Problem
from ..proxies import client_address, foreign_host, from_this_computer, same_host, scheme
from .refusals import storage_problem

COOKIE = "lexicon_director"
# In the environ of a request whose device came from the worker's cache and that the store has not
# checked since (neither the record's write nor a read): the Caller, for the refusal to read it first.
UNCHECKED = "lexicon_judge.unchecked_device"
OFFLINE_ROLES = ("judge",)  # the devices that get the browser lexicon and judge offline (never a table's)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class Caller:
    """Who sent a challenge: a paired device, or nobody (no Authorization header), and when its
    verdict may be recorded (`round_open`: only in a round, only between rounds, None: any time),
    checked again by the store against the round it reads inside the write lock.

    `token_hash`: the hash of the device's token, which the write checks it still holds, not
    revoked (tournament/record.py, `holder`). A device read from this worker's cache of live
    devices (live_devices.py), not from the store, is marked in its request's environ instead
    (UNCHECKED), one mark until the store checks it: any refusal of its request before the write
    reads the store first (service.event.recording, `refusal`), and the write's check notes its contact."""

    device: Device | None
    round_open: bool | None = None
    token_hash: str | None = None
    offline: bool = False  # a verdict the device gave without the service, sent now (a judge's)

    @property
    def role(self) -> str | None:
        return None if self.device is None else self.device.role


class Callers:
    """Who asks, as Tournament (service.event.http) sees it: its `db` (the event's store),
    `settings` (the trusted proxies), `contacts` (each device's last request) and `live` (this
    worker's cache of live devices, for a verdict to record only) are what these use."""

    def bearer(self) -> str | None:
        authorization = asking().get("HTTP_AUTHORIZATION")  # what request.headers.get("Authorization") reads
        if authorization is None:
            return None
        if authorization[:7].lower() != "bearer ":
            raise Problem(
                "device-unknown",
                "send the device's token as 'Authorization: Bearer TOKEN'",
                headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'},
            )
        return authorization[7:].strip()

    def device(self) -> Device | None:
        """The paired device asking (None without a token), read from the store; 401 for an
        unknown or revoked one. Every request that is not a verdict to record reads it so."""
        token = self.bearer()
        return None if token is None else self.stored_device(token_hash(token))

    def stored_device(self, token_hash: str) -> Device:
        """The live device whose token has this hash, read from the store now, its contact noted;
        401 for an unknown or revoked one."""
        try:
            device = self.db.device_by_token_hash(token_hash)
        except StorageError as error:
            raise storage_problem(error) from None
        if device is None:
            raise unknown_token()
        if not device.active:
            raise revoked(device)
        self.contacts.seen(device.id)  # its last contact, for the console (contacts.py: no write per request)
        return device

    def recorder(self) -> Caller:
        """Who asks for a verdict to record (a challenge): the device from this worker's cache of
        live devices (live_devices.py; its contact is noted once the write has checked it), or
        read from the store and kept there, with its token's hash for the write to check; 401
        for an unknown or revoked one read from the store."""
        token = self.bearer()
        if token is None:
            return NOBODY
        hashed = token_hash(token)
        device = self.live.get(hashed)
        if device is not None:
            caller = Caller(device, None, hashed)
            asking()[UNCHECKED] = caller  # until the store checks it: any refusal before reads it first
            return caller
        device = self.stored_device(hashed)
        self.live.add(hashed, device)
        return Caller(device, None, hashed)

    def offline_device(self) -> Device:
        """The paired judge device asking for the browser lexicon (401; 403 for others, a table's too)."""
        device = self.device()
        if device is None:
            raise Problem(
                "device-unknown",
                "in an event the browser lexicon goes only to paired judge devices: pair this device first",
                headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'},
            )
        judges_offline(device.role)
        return device

    def client(self) -> str:
        """The asking client's address: the socket's, or what a trusted front end says (service.proxies)."""
        return client_address(asking(), self.settings.trusted_proxies)

    def from_this_computer(self) -> bool:
        """Whether the laptop's own browser asks: a loopback client naming this computer (service.proxies)."""
        return from_this_computer(asking(), self.settings.trusted_proxies)

    def same_origin(self) -> None:
        """Refuse a state-changing request another site's page sent: 403 `cross-origin` from
        another origin (`same_origin`), 403 `foreign-host` from this computer under another
        site's name. The browser counts a page whose name was pointed at 127.0.0.1 (DNS
        rebinding) as the service's own origin, so only the Host it names tells it apart; its
        wrong passwords would lock the laptop's own login, and pass the hall's limit as the laptop."""
        same_origin()
        host = foreign_host(asking(), self.settings.trusted_proxies)
        if host is not None:
            raise Problem(
                "foreign-host",
                f"this request comes from this computer but names another host ({host}): a page of another "
                "site, its name pointed at this computer, cannot change the event; open the console at "
                "127.0.0.1 or localhost, as `lexicon serve` prints it (behind a front end on this computer, "
                "add its address to LEXICON_TRUSTED_PROXIES)",
            )

    def secure(self) -> bool:
        """Whether the browser reached the service over https (a cookie is then Secure)."""
        return scheme(request, self.settings.trusted_proxies) == "https"

    def is_director(self) -> bool:
        token = request.cookies.get(COOKIE)
        return bool(token) and self.db.session_active(token)

    def signed_in(self) -> bool:
        """Whether this request carries a live director's session, for the console's page, which
        is rendered signed in or out (service.director); a failing store is a problem, as in the API."""
        try:
            return self.is_director()
        except StorageError as error:
            raise storage_problem(error) from None

    def director(self) -> None:
        """The director's session, or 403 for a device and 401 for nobody; same-origin for writes."""
        if request.method not in SAFE_METHODS:
            self.same_origin()
        if self.is_director():
            return
        if request.headers.get("Authorization") is not None:
            raise Problem("director-only", "a device cannot do this: only the director's console, logged in")
        raise Problem("director-required", "log in as the director first (POST /v1/director/session)")


NOBODY = Caller(None)


def unknown_token() -> Problem:
    """401 `device-unknown`: the token is no device's (never paired, or paired again since)."""
    return Problem(
        "device-unknown",
        "this token belongs to no device of the event: pair the device again with a code from the director",
        headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge", error="invalid_token"'},
    )


def revoked(device: Device) -> Problem:
    """401 `device-revoked`, naming the device."""
    return Problem(
        "device-revoked",
        f"this device ({device.name}) is no longer paired: the director revoked it; ask the director for a new code",
        headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge", error="invalid_token"'},
    )


def asking() -> dict:
    """The WSGI environ of the request asking: the challenge answered in front of Flask
    (service.challenge_hook.ASKING), or Flask's request."""
    environ = ASKING.get()
    return request.environ if environ is None else environ


def judges_offline(role: str | None) -> None:
    """Only a paired judge's phone gets the browser lexicon and sends verdicts given offline."""
    if role not in OFFLINE_ROLES:
        raise Problem(
            "offline-not-allowed",
            f"only a paired judge device judges offline (the browser lexicon, "
            f"verdicts sent to the record later); this is {f'a {role} device' if role else 'no device'}",
        )


def cookie_path() -> str:
    """The session cookie's path: the service's root, or an event's (/e/ID/) in a service of many,
    whose browser then never sends one event's session to another's pages.

    >>> from flask import Flask
    >>> with Flask(__name__).test_request_context("/v1/director/session", base_url="http://x/e/open/"):
    ...     cookie_path()
    '/e/open/'
    """
    return request.script_root + "/"


def same_origin() -> None:
    """Refuse a state-changing request another site's page sent (403 `cross-origin`).

    Browsers say where a request comes from: `Sec-Fetch-Site` (same-origin, or none for one the
    user typed), and `Origin` on every POST and DELETE. A tool without a browser sends neither and
    is let through: it has to hold the session cookie, which SameSite=Strict keeps away from any
    other site's requests anyway. The origin's host and port are compared with the request's
    `Host`, so the check holds behind a TLS front end too.
    """
    site = request.headers.get("Sec-Fetch-Site")
    origin = request.headers.get("Origin")
    if site is not None and site not in ("same-origin", "none"):
        raise Problem("cross-origin", f"a request from another site ({site}) cannot change the event")
    if origin is not None and not same_host(origin, request.host):
        raise Problem("cross-origin", "a request from another origin cannot change the event")
