"""Tournament mode over HTTP: who asks (the director, a paired device, nobody), what each may do,
and the recording of every verdict before it leaves (docs/tournament.md, "HTTP API").

`Tournament` is made once per app from the settings (`LEXICON_EVENT`); the challenge routes
(service.api) call `admit` before judging a play (POST /v1/challenge once its body says whether
it is a verdict given offline, issue 11) and `record_one` / `record_many` after the verdict, and `register` adds the director's and the devices' endpoints. Everything it knows is
in the event's store, shared by every worker process: sessions, devices, rounds, the record, and
the rate limits (read from the record inside its write lock), so two workers behave as one.

Secrets: the director's session is an HttpOnly, SameSite=Strict cookie holding a random token
(only its hash is stored); a device's token comes in `Authorization: Bearer`. Neither is ever
logged, written into a page or a record, nor echoed in a problem.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Sequence
from urllib.parse import urlsplit

import msgspec
from flask import Blueprint, Flask, Response, request

from lexicon.errors import show_word

from ..config import Settings
from ..problems import Problem
from ..registry import Registry, Served, dumps
from . import (Device, Entry, IdempotencyConflict, MalformedRow, PairingRefused, RateLimited, RoundError,
               StorageError, UnknownDevice, open_event)
from .api_types import (DeviceCount, DeviceInfo, DeviceList, DeviceRequest, EventInfo, LoginRequest, NewDevice,
                        PairRequest, Paired, RecordInfo, RecordList, RoundInfo, RoundList, RoundRequest, SessionInfo)
from .errors import NotAnEvent
from .export import export as export_records
from .model import Record, engine_tiles
from .sqlite import CODE_LIFETIME, SESSION_LIFETIME

log = logging.getLogger("service")

COOKIE = "lexicon_director"
OFFLINE_ROLES = ("judge", "table")  # the devices that get the browser lexicon and judge offline (issue 11)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class Caller:
    """Who sent a challenge: a paired device, or nobody (no Authorization header)."""

    device: Device | None

    @property
    def role(self) -> str | None:
        return None if self.device is None else self.device.role


def _storage_problem(error: StorageError) -> Problem:
    log.error("event storage failed", extra={"fields": {"error": type(error).__name__}})
    return Problem("record-unavailable", "the event's record cannot be written just now, so no verdict is "
                   "given; ask again in a moment, and tell the director if it goes on",
                   headers={"Retry-After": "5"})


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
        event = self.db.event()  # set once by `event init`, never changed
        self.name, self.lexicon = event.name, event.lexicon

    # -- who asks ------------------------------------------------------------------------------

    def bearer(self) -> str | None:
        authorization = request.headers.get("Authorization")
        if authorization is None:
            return None
        if authorization[:7].lower() != "bearer ":
            raise Problem("device-unknown", "send the device's token as 'Authorization: Bearer TOKEN'",
                          headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'})
        return authorization[7:].strip()

    def device(self) -> Device | None:
        """The paired device asking (None without a token); 401 for an unknown or revoked one."""
        token = self.bearer()
        if token is None:
            return None
        try:
            device = self.db.device_by_token(token)
        except StorageError as error:
            raise _storage_problem(error) from None
        if device is None:
            raise Problem("device-unknown", "this token belongs to no device of the event: pair the device "
                          "again with a code from the director",
                          headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge", error="invalid_token"'})
        if not device.active:
            raise Problem("device-revoked", f"this device ({device.name}) is no longer paired: the director "
                          "revoked it; ask the director for a new code",
                          headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge", error="invalid_token"'})
        return device

    def offline_device(self) -> Device:
        """The paired judge or table device asking for the browser lexicon (401, 403 for others)."""
        device = self.device()
        if device is None:
            raise Problem("device-unknown", "in an event the browser lexicon goes only to paired judge and table "
                          "devices: pair this device first",
                          headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'})
        if device.role not in OFFLINE_ROLES:
            raise Problem("offline-not-allowed", f"a {device.role} device does not judge offline, so it does not "
                          "get the browser lexicon")
        return device

    def is_director(self) -> bool:
        token = request.cookies.get(COOKIE)
        return bool(token) and self.db.session_active(token)

    def director(self) -> None:
        """The director's session, or 403 for a device and 401 for nobody; same-origin for writes."""
        if request.method not in SAFE_METHODS:
            same_origin()
        if self.is_director():
            return
        if request.headers.get("Authorization") is not None:
            raise Problem("director-only", "a device cannot do this: only the director's console, logged in")
        raise Problem("director-required", "log in as the director first (POST /v1/director/session)")

    # -- the challenge routes' hooks -------------------------------------------------------------

    def admit(self, offline: bool = False) -> Caller:
        """Before a play is judged: the device and its role's rules for the moment (401, 403).

        A verdict a device gave offline (issue 11) and sends now is admitted from a paired judge
        or table device whatever the round is now: it was given earlier, perhaps in a round closed
        since. From anyone else it is refused (403 `offline-not-allowed`): only those two roles get
        the browser lexicon, and the page never judges offline for a lookup device or an unpaired
        phone, which could not have been told a verdict during a round.
        """
        device = self.device()
        role = None if device is None else device.role
        if offline:
            if role not in OFFLINE_ROLES:
                raise Problem("offline-not-allowed", "only a paired judge or table device judges offline and "
                              "sends its verdicts to the record")
            return Caller(device)
        try:
            current = self.db.current_round()
        except StorageError as error:
            raise _storage_problem(error) from None
        if current is not None and role in (None, "lookup"):
            raise Problem("lookups-closed", f"lookups are closed during rounds: round {current.number} is "
                          "being played; ask a judge, or check words after the round")
        if current is None and role == "table":
            raise Problem("no-round", "a table device challenges only while a round is open; between "
                          "rounds, use a lookup device")
        return Caller(device)

    def _entry(self, caller: Caller, served: Served, words: Sequence[str], notation: str, valid: bool,
               table: str | None, key: str | None, offline: bool, device_time: str | None,
               checksum: str | None = None, second: tuple[Served, bool] | None = None) -> Entry:
        device = caller.device
        if device is not None and device.role == "table":
            self.event_lexicon(served)
        if table is not None and (device is None or device.role != "judge"):
            raise Problem("slip-not-allowed", "only a judge device's challenge carries a slip's table; a table "
                          "device's records carry its own", pointer="/table")
        if offline and (key is None or device_time is None or checksum is None):
            raise Problem("invalid-request", "an offline verdict needs its idempotency_key, device_time and "
                          "checksum", pointer="/offline")
        identity = served.identity
        # The record holds what the players were told: an offline verdict is the one this service
        # gives only if the phone judged with this very lexicon (the same words, the same answer).
        if offline and checksum != identity.checksum:
            raise Problem("offline-lexicon-changed", f"this verdict was given with the lexicon of checksum "
                          f"{checksum[:12]}…, and {identity.id} is now {identity.checksum[:12]}…: it is not "
                          "recorded; show the phone to the director", lexicon=identity.id)
        words = [word.strip() for word in words]
        shown = {}
        if second is not None:  # the second opinion the players were shown beside the verdict
            other, other_valid = second
            shown = {"second_lexicon_id": other.identity.id, "second_lexicon_version": other.identity.version,
                     "second_lexicon_checksum": other.identity.checksum, "second_valid": other_valid}
        return Entry.for_device(
            device, lexicon_id=identity.id, lexicon_version=identity.version, lexicon_checksum=identity.checksum,
            notation=notation, words=words, tiles=engine_tiles(served.language, words, notation), valid=valid,
            idempotency_key=key, offline=offline, device_time=device_time, **shown,
            **({"table": table} if table is not None else {}))

    def event_lexicon(self, served: Served) -> None:
        """A table device judges with the event's lexicon (`event init --lexicon`), the one its page
        shows both players in full: asking for another is refused (403 `event-lexicon`), whatever
        the phone's language. An event that names none leaves table devices free, as judges are."""
        if self.lexicon is None:
            return
        event = self.registry.find(self.lexicon)
        if event is None or event.id != served.id:
            wanted = self.lexicon if event is None else event.id
            where = ", which is not loaded here" if event is None else ""
            raise Problem("event-lexicon", f"a table device judges with the event's lexicon, {wanted}{where}; "
                          f"not with {served.id}", lexicon=wanted)

    def record_one(self, caller: Caller, served: Served, words: Sequence[str], notation: str, valid: bool,
                   table: str | None = None, key: str | None = None, offline: bool = False,
                   device_time: str | None = None, checksum: str | None = None,
                   second: tuple[Served, bool] | None = None) -> Record:
        """Record one verdict, durably; its row (number and round). No answer leaves before this returns.
        `checksum`: the lexicon an offline verdict was given with; `second`: the second opinion's
        lexicon and verdict, when the answer shows one."""
        entry = self._entry(caller, served, words, notation, valid, table, key, offline, device_time, checksum,
                            second)
        return self._append([entry], caller)[0]

    def record_many(self, caller: Caller, served: Served, plays: Sequence[tuple[list[str], str | None, str | None]],
                    notation: str, verdicts: Sequence[bool], second: Served | None = None,
                    second_verdicts: Sequence[bool] = ()) -> list[Record]:
        """Record a batch (one row per play, one transaction); the rows in order.
        `second` and `second_verdicts`: the second opinion shown for each play, when there is one."""
        shown = [None] * len(verdicts) if second is None else [(second, v) for v in second_verdicts]
        entries = [self._entry(caller, served, words, notation, valid, table, key, False, None,
                                  second=other)
                   for (words, table, key), valid, other in zip(plays, verdicts, shown, strict=True)]
        return self._append(entries, caller)

    def _append(self, entries: list[Entry], caller: Caller) -> list[Record]:
        try:
            records = self.db.append_many(entries, self.settings.rate(caller.role))
        except RateLimited as error:
            raise Problem("rate-limited", f"this device may challenge once every "
                          f"{self.settings.rate(caller.role):g} s: ask again in {error.retry_after} s",
                          headers={"Retry-After": str(error.retry_after)}, retry_after=error.retry_after) from None
        except IdempotencyConflict as error:
            raise Problem("idempotency-conflict", str(error)) from None
        except StorageError as error:
            raise _storage_problem(error) from None
        return list(records)

    # -- answers -----------------------------------------------------------------------------------

    def counts(self, number: int | None) -> list[DeviceCount]:
        names = {device.id: device.name for device in self.db.devices()}
        return [DeviceCount(device, names.get(device), count)
                for device, count in sorted(self.db.counts(number).items(), key=lambda item: item[0] or 0)]

    def event_info(self, device: Device | None, director: bool) -> EventInfo:
        current = self.db.current_round()
        served = self.registry.find(self.lexicon) if self.lexicon else None
        return EventInfo(self.name, None if current is None else current.number,
                         None if served is None else served.identity,
                         None if device is None else DeviceInfo.of(device), director)


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
    if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != request.host.lower()):
        raise Problem("cross-origin", "a request from another origin cannot change the event")


def _read(kind: type, data: bytes):
    """A tournament body as its type; 400 / 422 naming what does not fit."""
    try:
        return msgspec.json.decode(data or b"{}", type=kind)
    except msgspec.ValidationError as error:
        message = str(error)
        pointer = ""
        if " - at `$." in message:
            message, where = message.split(" - at `$.", 1)
            pointer = "/" + where.rstrip("`").replace(".", "/")
        raise Problem("invalid-request", f"the body does not fit {kind.__name__}: {message}{_given(data, pointer)}",
                      pointer=pointer) from None
    except msgspec.DecodeError as error:
        raise Problem("invalid-json", f"the body is not JSON: {error}") from None


_SECRETS = ("password", "code")  # never sent back, even to their sender: a page may show the detail


def _given(data: bytes, pointer: str) -> str:
    """`, not VALUE`: what the body held where it does not fit, as errors quote the input.

    msgspec says what it expected ("Expected `int` >= 1") but not what came; the body is
    read again, untyped, only on this path. Nothing is quoted for a secret or a missing member."""
    steps = [step for step in pointer.split("/") if step]
    if steps and steps[-1] in _SECRETS:
        return ""
    try:
        value = msgspec.json.decode(data)
        for step in steps:
            value = value[int(step)] if isinstance(value, list) else value[step]
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, ValueError):
        return ""
    shown = value if isinstance(value, str) and len(value) <= 40 else msgspec.json.encode(value).decode()[:40]
    return f", not {show_word(shown)}" if isinstance(value, str) else f", not {shown}"


def _json(value, status: int = 200) -> Response:
    from ..api import respond
    return respond(dumps(value), status)


def _int_arg(name: str) -> int | None:
    values = request.args.getlist(name)
    if not values:
        return None
    if len(values) > 1 or not values[0].isdigit() or not 0 < int(values[0]) < 2**62:
        raise Problem("invalid-request", f"{name} is a whole number from 1, not {show_word(values[-1])}",
                      parameter=name)
    return int(values[0])


def register(app: Flask, tournament: Tournament) -> None:
    """The director's and the devices' endpoints (all under /v1/, all JSON, problems as problem+json)."""
    from ..api import _read_body

    db = tournament.db
    bp = Blueprint("tournament", __name__)

    def body(kind: type):
        return _read(kind, _read_body())

    @bp.errorhandler(MalformedRow)
    def tampered(error: MalformedRow) -> Response:
        from ..api import problem_response
        return problem_response(Problem("record-tampered",
                                        f"{error}; run `lexicon records verify` on the event file"))

    @bp.errorhandler(StorageError)
    def storage(error: StorageError) -> Response:
        from ..api import problem_response
        return problem_response(_storage_problem(error))

    # -- the director's session ---------------------------------------------------------------------

    @bp.post("/v1/director/session")
    def login() -> Response:
        same_origin()
        password = body(LoginRequest).password
        outcome = db.check_password(password)
        if outcome.locked:
            raise Problem("login-locked", f"too many wrong passwords: the login is locked; try again in "
                          f"{outcome.retry_after} s", headers={"Retry-After": str(outcome.retry_after)},
                          retry_after=outcome.retry_after)
        if not outcome.ok:
            raise Problem("wrong-password", "that is not the director's password (5 wrong in a row lock the "
                          "login for a minute)")
        token = db.start_session()
        lifetime = int(SESSION_LIFETIME.total_seconds())
        response = _json(SessionInfo(tournament.name, lifetime), 201)
        response.set_cookie(COOKIE, token, max_age=lifetime, path="/", httponly=True, samesite="Strict",
                            secure=request.is_secure)
        return response

    @bp.get("/v1/director/session")
    def session() -> Response:
        tournament.director()
        return _json(SessionInfo(tournament.name, int(SESSION_LIFETIME.total_seconds())))

    @bp.delete("/v1/director/session")
    def logout() -> Response:
        same_origin()
        token = request.cookies.get(COOKIE)
        if token:
            db.end_session(token)
        response = Response(status=204)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="Strict", secure=request.is_secure)
        return response

    # -- devices ----------------------------------------------------------------------------------

    @bp.post("/v1/devices")
    def add_device() -> Response:
        tournament.director()
        wanted = body(DeviceRequest)
        try:
            device, code = db.add_device(wanted.name, wanted.role, wanted.table)
        except ValueError as error:
            raise Problem("invalid-request", str(error)) from None
        return _json(NewDevice(DeviceInfo.of(device), code, f"{request.host_url}#pair={code}",
                               int(CODE_LIFETIME.total_seconds())), 201)

    @bp.get("/v1/devices")
    def devices() -> Response:
        tournament.director()
        return _json(DeviceList([DeviceInfo.of(device) for device in db.devices()]))

    @bp.post("/v1/devices/<int:device_id>/code")
    def new_code(device_id: int) -> Response:
        tournament.director()
        try:
            code = db.new_code(device_id)
        except UnknownDevice:
            raise Problem("unknown-device", f"there is no device {device_id}") from None
        except PairingRefused as error:
            raise Problem("pairing-refused", str(error)) from None
        return _json(NewDevice(DeviceInfo.of(db.device(device_id)), code, f"{request.host_url}#pair={code}",
                               int(CODE_LIFETIME.total_seconds())), 201)

    @bp.post("/v1/devices/pair")
    def pair() -> Response:
        same_origin()
        code = body(PairRequest).code
        try:
            device, token = db.pair(code)
        except PairingRefused:  # one message whatever the reason: a guesser learns nothing
            raise Problem("pairing-refused", "this code does not pair any device: it may be mistyped, used "
                          "or expired (codes last 10 minutes); ask the director for a new one") from None
        return _json(Paired(token, DeviceInfo.of(device), tournament.name), 201)

    @bp.delete("/v1/devices/<int:device_id>")
    def revoke(device_id: int) -> Response:
        tournament.director()
        try:
            device = db.revoke(device_id)
        except UnknownDevice:
            raise Problem("unknown-device", f"there is no device {device_id}") from None
        return _json(DeviceInfo.of(device))

    # -- rounds -----------------------------------------------------------------------------------

    @bp.post("/v1/rounds")
    def open_round() -> Response:
        tournament.director()
        wanted = body(RoundRequest)
        try:
            opened = db.open_round(None if wanted.number is msgspec.UNSET else wanted.number)
        except RoundError as error:
            raise Problem("round-conflict", str(error)) from None
        return _json(RoundInfo.of(opened, []), 201)

    @bp.post("/v1/rounds/close")
    def close_round() -> Response:
        tournament.director()
        try:
            closed = db.close_round()
        except RoundError as error:
            raise Problem("round-conflict", str(error)) from None
        return _json(RoundInfo.of(closed, tournament.counts(closed.number)))

    @bp.get("/v1/rounds")
    def rounds() -> Response:
        tournament.director()
        every = db.rounds()
        current = next((r.number for r in every if r.closed is None), None)
        return _json(RoundList(current, [RoundInfo.of(r, tournament.counts(r.number)) for r in every],
                               tournament.counts(None)))

    # -- the record (the director only) -----------------------------------------------------------

    @bp.get("/v1/records")
    def records() -> Response:
        tournament.director()
        for name in request.args:
            if name not in ("round", "table", "device", "format"):
                raise Problem("invalid-request", f"unknown parameter {name!r}; known: round, table, device, "
                              "format", parameter=name)
        number, device_id = _int_arg("round"), _int_arg("device")
        table = request.args.get("table") or None
        fmt = request.args.get("format", "json")
        if fmt not in ("json", "csv"):
            raise Problem("invalid-request", f"format is json or csv, not {show_word(fmt)}", parameter="format")
        rows = list(db.records(number, table, device_id))
        if fmt == "csv":
            from ..api import respond
            response = respond(export_records(rows, "csv").encode("utf-8"), content_type="text/csv; charset=utf-8")
            response.headers["Content-Disposition"] = 'attachment; filename="record.csv"'
            return response
        return _json(RecordList(tournament.name, number, [RecordInfo.of(r) for r in rows]))

    @bp.get("/v1/records/<int:seq>")
    def record(seq: int) -> Response:
        tournament.director()
        found = db.record(seq)
        if found is None:
            raise Problem("unknown-record", f"there is no record {seq}")
        return _json(RecordInfo.of(found))

    # -- the event, for a device's page and the console --------------------------------------------

    @bp.get("/v1/event")
    def event() -> Response:
        device = tournament.device()
        director = device is None and tournament.is_director()
        if device is None and not director:
            raise Problem("device-unknown", "pair this device first, or log in as the director",
                          headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'})
        return _json(tournament.event_info(device, director))

    app.register_blueprint(bp)


def record_number(body: bytes, record: Record) -> bytes:
    """A verdict's fixed body with its record's number and round: `...}` becomes
    `...,"record":N,"round":R}` (`null` between rounds), exactly what msgspec writes for
    `Verdict(valid, lexicon, record=N, round=R)` (tested), with the same bytes before it whichever
    word failed. The round is the record's, not the one the page last saw: a round closed since
    is not written on the slip.

    >>> record_number(b'{"valid":false}', Record(12, "", 3, None, "", ""))
    b'{"valid":false,"record":12,"round":3}'
    >>> record_number(b'{"valid":false}', Record(13, "", None, None, "", ""))
    b'{"valid":false,"record":13,"round":null}'
    """
    number = b"null" if record.round is None else b"%d" % record.round
    return b"%s,\"record\":%d,\"round\":%s}" % (body[:-1], record.seq, number)

