"""Tournament mode over HTTP: who asks (the director, a paired device, nobody), what each may do,
and the recording of every verdict before it leaves (docs/tournament.md, "HTTP API").

`Tournament` is made once per app from the settings (`LEXICON_EVENT`). It is the challenge path's
event hook (service.challenge_hook.EventHook): the API calls `admit` before judging a play (POST
/v1/challenge once its body says whether it is a verdict given offline), `allow` once the lexicon
and the number of plays are known, and `record` after the verdicts, before answering;
`service.event.routes.register` adds the director's and the devices' endpoints, each
admitted here (`director`, `device`). Everything it knows is
in the event's store, shared by every worker process: sessions, devices, rounds, the record, and
the rate limits (read from the record inside its write lock), so two workers behave as one.

Secrets: the director's session is an HttpOnly, SameSite=Strict cookie holding a random token
(only its hash is stored); a device's token comes in `Authorization: Bearer`. Neither is ever
logged, written into a page or a record, nor echoed in a problem.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from flask import request
from msgspec import UNSET

from lexicon.tokenizer import tokenizer
from tournament import (
    SECOND_FIELDS,
    Device,
    Entry,
    IdempotencyConflict,
    MalformedRow,
    NotAnEvent,
    PlaysLimited,
    RateLimited,
    Record,
    RoundRefused,
    StorageError,
    Unreadable,
    open_event,
)

from ..challenge_hook import Judged, Mark
from ..config import Settings
from ..problems import Problem
from ..proxies import client_address, same_host, scheme
from ..registry import Registry, Served
from .api_types import DeviceCount, DeviceInfo, EventInfo
from .limits import WrongCodes
from .offline_time import believable
from .pin import pin_lexicon

log = logging.getLogger("service")

COOKIE = "lexicon_director"
OFFLINE_ROLES = ("judge",)  # the devices that get the browser lexicon and judge offline (never a table's)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# Callers the record cannot name (no device, or a lookup kiosk) are limited in what they can make
# it hold: a batch of at most this many plays (a kiosk checks one play at a time), and a budget of
# recorded plays a minute per client address (LEXICON_RATE_PLAYS, tournament/budget.py).
UNNAMED_ROLES = (None, "lookup")
UNNAMED_BATCH = 10
# When each role's online verdicts are answered: a lookup device and nobody only between rounds
# (False), a table device only during one (True); a judge (absent) at any time.
ROUND_RULES = {None: False, "lookup": False, "table": True}


@dataclass(frozen=True)
class Caller:
    """Who sent a challenge: a paired device, or nobody (no Authorization header), and when its
    verdict may be recorded (`round_open`: only in a round, only between rounds, None: any time),
    checked again by the store against the round it reads inside the write lock."""

    device: Device | None
    round_open: bool | None = None

    @property
    def role(self) -> str | None:
        return None if self.device is None else self.device.role


def round_refused(current: int | None) -> Problem:
    """The refusal of a caller whose role is not answered now: a round is open (`current`), so
    lookups are closed, or none is, so a table device waits for the next."""
    if current is not None:
        return Problem(
            "lookups-closed",
            f"lookups are closed during rounds: round {current} is "
            "being played; ask a judge, or check words after the round",
        )
    return Problem(
        "no-round", "a table device challenges only while a round is open; between rounds, use a lookup device"
    )


def storage_problem(error: StorageError) -> Problem:
    log.error("event storage failed", extra={"fields": {"error": type(error).__name__}})
    return Problem(
        "record-unavailable",
        "the event's record cannot be written just now, so no verdict is "
        "given; ask again in a moment, and tell the director if it goes on",
        headers={"Retry-After": "5"},
    )


class Tournament:
    """An event's rules over HTTP, bound to its store; one per app (per worker process)."""

    def __init__(self, settings: Settings, registry: Registry):
        try:
            self.db = open_event(settings.event, synchronous=settings.event_sync.upper())
        except NotAnEvent as error:
            from ..registry import StartError

            raise StartError(f"LEXICON_EVENT: {error}") from None
        self.settings = settings
        self.registry = registry
        self._unreadable: set[str] = set()  # where a stored value could not be read back: logged once each
        event = self.db.event()  # set once by `event init`, never changed
        self.name, self.lexicon = event.name, event.lexicon
        self.event_id = hashlib.sha256(f"{event.created}\n{event.name}".encode()).hexdigest()[:16]
        # the event's lexicon as served (a reload makes a new app, so a new Tournament): pinned
        # by checksum, and its language's default here whatever LEXICON_FILES's order says, so
        # `es` is the same lexicon on every instance of the event
        self.pin = pin_lexicon(self.db, event, registry)
        self.wrong_codes = WrongCodes()  # wrong pairing codes per address, in this worker (limits.py)
        self.event_served = None if self.pin is None else registry.by_checksum(self.pin.checksum)
        if self.event_served is not None:
            registry.make_default(self.event_served)

    # -- who asks ------------------------------------------------------------------------------

    def bearer(self) -> str | None:
        authorization = request.headers.get("Authorization")
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
        """The paired device asking (None without a token); 401 for an unknown or revoked one."""
        token = self.bearer()
        if token is None:
            return None
        try:
            device = self.db.device_by_token(token)
        except StorageError as error:
            raise storage_problem(error) from None
        if device is None:
            raise Problem(
                "device-unknown",
                "this token belongs to no device of the event: pair the device again with a code from the director",
                headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge", error="invalid_token"'},
            )
        if not device.active:
            raise Problem(
                "device-revoked",
                f"this device ({device.name}) is no longer paired: the director "
                "revoked it; ask the director for a new code",
                headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge", error="invalid_token"'},
            )
        return device

    def offline_device(self) -> Device:
        """The paired judge device asking for the browser lexicon (401; 403 for others, a table's too)."""
        device = self.device()
        if device is None:
            raise Problem(
                "device-unknown",
                "in an event the browser lexicon goes only to paired judge devices: pair this device first",
                headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'},
            )
        _judges_offline(device.role)
        return device

    def client(self) -> str:
        """The asking client's address: the socket's, or what a trusted front end says (service.proxies)."""
        return client_address(request.environ, self.settings.trusted_proxies)

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
            same_origin()
        if self.is_director():
            return
        if request.headers.get("Authorization") is not None:
            raise Problem("director-only", "a device cannot do this: only the director's console, logged in")
        raise Problem("director-required", "log in as the director first (POST /v1/director/session)")

    # -- the challenge's hook (service.challenge_hook.EventHook) ------------------------------------

    def admit(self, offline: bool) -> Caller:
        """Before a play is judged: the device and its role's rules for the moment (401, 403).

        A verdict a judge's phone gave offline and sends now is admitted whatever the round is
        now: it was given earlier, perhaps in a round closed since. From anyone else it is refused
        (403 `offline-not-allowed`): only a judge's phone gets the browser lexicon; a table device
        (mesa) never judges without the service, whose record and rate limit are what keep the
        players at a table from using it as a dictionary, nor does a lookup device or an unpaired
        phone.
        """
        device = self.device()
        role = None if device is None else device.role
        if offline:
            _judges_offline(role)
            return Caller(device)
        rule = ROUND_RULES.get(role)
        try:
            current = self.db.current_round()
        except StorageError as error:
            raise storage_problem(error) from None
        if rule is not None and (current is not None) != rule:
            raise round_refused(None if current is None else current.number)
        return Caller(device, rule)

    def allow(self, caller: Caller, served: Served, plays: int) -> None:
        """Once the lexicon asked for and the number of plays are known, before any play is read.

        The event's lexicon: a table device judges with the one `event init --lexicon` named,
        the one its page shows both players in full; asking for another is refused (403
        `event-lexicon`), whatever the phone's language. An event that names none leaves table
        devices free, as judges are.

        A role's rate limit counts plays, not requests: a batch answers every play, so a device
        whose role has a gap gets one play per request (403 `one-play-per-gap`), and the record
        refuses its next row inside the gap (429 `rate-limited`) whatever the route. Otherwise a
        batch of a play and each of its words, one request, would name the word that failed.

        A caller without a device, or a lookup kiosk, sends at most UNNAMED_BATCH plays in one
        request (403 `batch-too-large`); its recorded plays a minute are LEXICON_RATE_PLAYS per
        client address (429 `plays-limited`, counted by the record).
        """
        role = caller.role
        if self.lexicon is not None and role == "table":
            event = self.event_served
            if event is None or event.id != served.id:
                wanted = self.lexicon if event is None else event.id
                where = ", which is not loaded here" if event is None else ""
                raise Problem(
                    "event-lexicon",
                    f"a table device judges with the event's lexicon, {wanted}{where}; not with {served.id}",
                    lexicon=wanted,
                )
        if role in UNNAMED_ROLES and plays > UNNAMED_BATCH:
            who = "a lookup device" if role else "a caller without a device"
            raise Problem(
                "batch-too-large",
                f"{who} sends at most {UNNAMED_BATCH} plays in one request, not {plays}: no verdict is given",
            )
        gap = self.settings.rate(role)
        if gap > 0 and plays > 1:
            raise Problem(
                "one-play-per-gap",
                f"this device gets one verdict every {gap:g} s, so it sends one "
                f"play at a time, not {plays} in one request: no verdict is given",
            )

    def second(self, caller: Caller, asked: bool) -> bool:
        """A table device never gets a second opinion: its page is the event's lexicon only, and
        a verdict from another lexicon beside it (with `lexicon diff` of the two lists) would point
        at the word that failed. Asked for: 403 `second-not-allowed`; given always: left out."""
        if caller.role != "table":
            return True
        if asked:
            raise Problem(
                "second-not-allowed",
                "a table device gets the verdict of the event's lexicon only, never a second opinion: leave out second",
                pointer="/second",
            )
        return False

    def record(
        self, caller: Caller, served: Served, notation: str, plays: Iterable[Judged], second: Served | None
    ) -> list[Mark]:
        """Record every judged play (one row each, one transaction), durably, before any answer
        leaves; their numbers and rounds in order. The words are recorded as typed (trimmed) and
        in engine tiles made from the keys the verdict used: read once."""
        tiles = tile_writer(served.language, notation)
        entries = [
            self._entry(caller, served, notation, words, tiles(keys), valid, other, slip, second)
            for words, keys, valid, other, slip in plays
        ]
        return [(row.seq, row.round) for row in self._append(entries, caller)]

    def identity(self) -> dict[str, str]:
        """What /readyz says of the event: the same on every instance of one event file."""
        return {"event": self.event_id, **({} if self.pin is None else {"event_lexicon": self.pin.checksum})}

    def _entry(
        self,
        caller: Caller,
        served: Served,
        notation: str,
        words: Sequence[str],
        tiles: tuple[str, ...],
        valid: bool,
        other: bool | None,
        slip,
        second: Served | None,
    ) -> Entry:
        """One row to record. `slip`: the decoded body member that carries the play (a
        ChallengeRequest or a batch's Play; None for a GET), read here for what only an event
        uses: a judge's slip table, the idempotency key, and an offline verdict's time and lexicon."""
        table = key = device_time = checksum = None
        offline = False
        if slip is not None:
            table, key = _given(slip.table), _given(slip.idempotency_key)
            offline = getattr(slip, "offline", None) is True
            device_time = _given(getattr(slip, "device_time", UNSET))
            checksum = _given(getattr(slip, "checksum", UNSET))
        device = caller.device
        if table is not None and (device is None or device.role != "judge"):
            raise Problem(
                "slip-not-allowed",
                "only a judge device's challenge carries a slip's table; a table device's records carry its own",
                pointer="/table",
            )
        identity = served.identity
        if not offline and (device_time is not None or checksum is not None):
            # the record's time is the service's: a phone's own clock and lexicon are believed only
            # for a verdict it gave without the service, never stamped on an online row
            given = "device_time" if device_time is not None else "checksum"
            raise Problem(
                "invalid-request",
                f'{given} goes only with a verdict given offline ("offline": true); '
                "an online challenge is judged and timed by the service: leave it out",
                pointer=f"/{given}",
            )
        if offline:
            if key is None or device_time is None or checksum is None:
                raise Problem(
                    "invalid-request",
                    "an offline verdict needs its idempotency_key, device_time and checksum",
                    pointer="/offline",
                )
            # The record holds what the players were told: an offline verdict is the one this service
            # gives only if the phone judged with this very lexicon (the same words, the same answer).
            if checksum != identity.checksum:
                raise Problem(
                    "offline-lexicon-changed",
                    f"this verdict was given with the lexicon of checksum "
                    f"{checksum[:12]}…, and {identity.id} is now {identity.checksum[:12]}…: it is not "
                    "recorded; show the phone to the director",
                    lexicon=identity.id,
                )
        if device_time is not None:
            believable(device_time, device, self.db.now())
        shown = {}
        if second is not None:  # the second opinion the players were shown beside the verdict
            shown = dict(
                zip(
                    SECOND_FIELDS,
                    (second.identity.id, second.identity.version, second.identity.checksum, other),
                    strict=True,
                )
            )
        return Entry.for_device(
            device,
            lexicon_id=identity.id,
            lexicon_version=identity.version,
            lexicon_checksum=identity.checksum,
            notation=notation,
            words=[word.strip() for word in words],
            tiles=tiles,
            valid=valid,
            idempotency_key=key,
            offline=offline,
            device_time=device_time,
            **shown,
            **({"table": table} if table is not None else {}),
        )

    def _append(self, entries: list[Entry], caller: Caller) -> list[Record]:
        try:
            limit = self.settings.rate_plays
            budget = (self.client(), limit) if caller.role in UNNAMED_ROLES and limit > 0 else None
            records = self.db.append_many(entries, self.settings.rate(caller.role), caller.round_open, budget)
        except RoundRefused as error:  # a round opened or closed while this waited for the write lock
            raise round_refused(error.current) from None
        except PlaysLimited as error:
            raise Problem.later(
                "plays-limited",
                f"this address has had {error.limit} plays recorded in the last minute, "
                f"as many as one may without a device: ask again in {error.retry_after} s",
                error.retry_after,
            ) from None
        except RateLimited as error:
            raise Problem.later(
                "rate-limited",
                f"this device may challenge once every "
                f"{self.settings.rate(caller.role):g} s: ask again in {error.retry_after} s",
                error.retry_after,
            ) from None
        except IdempotencyConflict as error:
            raise Problem("idempotency-conflict", str(error)) from None
        except StorageError as error:
            raise storage_problem(error) from None
        return list(records)

    def unreadable(self, error: Unreadable | MalformedRow) -> Problem:
        """A stored value this service cannot read back (the event file edited by hand): a refusal
        that names where, never a value nor a word, logged as an error once per place (here, in
        this process: every request that meets it would otherwise log it again)."""
        where = error.where if isinstance(error, Unreadable) else f"record {error.seq}"
        if where not in self._unreadable:
            self._unreadable.add(where)
            log.error("the event file was edited by hand", extra={"fields": {"where": where}})
        return Problem(
            "record-tampered",
            f"the event file was edited by hand ({where} cannot be read back), so "
            "nothing that depends on it is judged or recorded; tell the director, who runs "
            "`lexicon records verify` on the event file",
        )

    # -- answers -----------------------------------------------------------------------------------

    def counts(self, number: int | None) -> list[DeviceCount]:
        names = {device.id: device.name for device in self.db.devices()}
        return [
            DeviceCount(device, names.get(device), count)
            for device, count in sorted(self.db.counts(number).items(), key=lambda item: item[0] or 0)
        ]

    def event_info(self, device: Device | None, director: bool) -> EventInfo:
        current = self.db.current_round()
        served = self.event_served
        return EventInfo(
            self.name,
            None if current is None else current.number,
            None if served is None else served.identity,
            None if device is None else DeviceInfo.of(device),
            director,
            self.settings.rate(None if device is None else device.role),
        )


def _judges_offline(role: str | None) -> None:
    """Only a paired judge's phone gets the browser lexicon and sends verdicts given offline."""
    if role not in OFFLINE_ROLES:
        raise Problem(
            "offline-not-allowed",
            f"only a paired judge device judges offline (the browser lexicon, "
            f"verdicts sent to the record later); this is {f'a {role} device' if role else 'no device'}",
        )


def _given(value):
    return None if value is UNSET else value


def tile_writer(language: str, notation: str) -> Callable[[Sequence[str]], tuple[str, ...]]:
    """The engine tiles (`CA[RR]O`) of a play's keys, as the record keeps them beside the words:
    made from the keys the verdict looked up, so a recorded play's words are read once."""
    engine_text = tokenizer(language, notation).alphabet.engine_text
    return lambda keys: tuple(engine_text(key) for key in keys)


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
