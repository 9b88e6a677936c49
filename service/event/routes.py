"""Tournament mode's own endpoints (docs/tournament.md, "HTTP API"): the director's session, devices
and their pairing, rounds, the record and its export, and `/v1/event`, each admitted by
`Tournament` (service.event.http), which also records the challenges' verdicts.

Every refusal is problem+json, and a refusal of a request's body quotes what it held, except a
password or a pairing code (`_SECRETS`): never echoed, even to its sender. Writes from a browser
must come from this site's own pages (`same_origin`).
"""

from __future__ import annotations

import re

import msgspec
from flask import Blueprint, Flask, Response, request

from lexicon.errors import show_word
from tournament import (
    CODE_LIFETIME,
    LINK_LIFETIME,
    LOCKOUT,
    MAX_FAILURES,
    MAX_NUMBER,
    SESSION_LIFETIME,
    DeviceNameTaken,
    MalformedRow,
    PairingRefused,
    RoundError,
    StorageError,
    UnknownDevice,
    Unreadable,
    export_records,
)

from ..addresses import public_base
from ..api import problem_response, read_body, respond
from ..decoding import TOO_DEEP
from ..problems import Problem
from ..registry import dumps
from .api_types import (
    RECORDS_MAX,
    RECORDS_PAGE,
    ChainInfo,
    DeviceInfo,
    DeviceList,
    DeviceRequest,
    LinkRequest,
    LoginRequest,
    NewDevice,
    Paired,
    PairRequest,
    RecordInfo,
    RecordList,
    RoundInfo,
    RoundList,
    RoundRequest,
    SessionInfo,
)
from .callers import COOKIE, same_origin
from .http import Tournament
from .refusals import storage_problem


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
        raise Problem(
            "invalid-request",
            f"the body does not fit {kind.__name__}: {message}{_given(data, pointer)}",
            pointer=pointer,
        ) from None
    except msgspec.DecodeError as error:
        raise Problem("invalid-json", f"the body is not JSON: {error}") from None
    except RecursionError:
        raise Problem("invalid-json", TOO_DEEP) from None


_SECRETS = ("password", "code", "token")  # never sent back, even to their sender: a page may show the detail


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
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, ValueError, RecursionError):
        return ""
    shown = value if isinstance(value, str) and len(value) <= 40 else msgspec.json.encode(value).decode()[:40]
    return f", not {show_word(shown)}" if isinstance(value, str) else f", not {shown}"


def _minutes(span) -> str:
    """A lifetime as a person reads it: '10 minutes', '1 minute'."""
    count = int(span.total_seconds() // 60)
    return f"{count} minute{'' if count == 1 else 's'}"


def _json(value, status: int = 200) -> Response:
    return respond(dumps(value), status)


def _new_device(device, code: str, settings) -> Response:
    """A device with its pairing code and URL (the console's QR code), as added or given a new code:
    the URL at an address phones reach (service.addresses), and whether one is known."""
    base = public_base(settings, request)
    return _json(
        NewDevice(
            DeviceInfo.of(device),
            code,
            f"{base.url}#pair={code}",
            int(CODE_LIFETIME.total_seconds()),
            base.reachable,
            base.reason,
        ),
        201,
    )


def export_name(
    event: str, fmt: str, round: int | None = None, table: str | None = None, device: int | None = None
) -> str:
    """An export's file name: the event's, then what it was filtered by, and the format's extension.

    >>> export_name("Open de Lleida 2026", "csv", 3, "12")
    'open-de-lleida-2026-ronda-3-mesa-12.csv'
    >>> export_name("Ç!", "json")
    'c-registro.json'
    """
    import unicodedata

    plain = unicodedata.normalize("NFKD", event).encode("ascii", "ignore").decode().lower()
    parts = ["-".join(re.findall(r"[a-z0-9]+", plain)) or "evento"]
    for word, value in (("ronda", round), ("mesa", table), ("dispositivo", device)):
        if value is not None:
            parts.append(f"{word}-{'-'.join(re.findall(r'[a-z0-9]+', str(value).lower())) or 'x'}")
    if len(parts) == 1:
        parts.append("registro")
    return "-".join(parts) + "." + fmt


def content_disposition(name: str) -> str:
    """`attachment` with the name as ASCII (export_name's are)."""
    return f'attachment; filename="{name}"'


RECORDS_PARAMETERS = ("round", "table", "device", "format", "limit", "before", "after")


def _int_arg(name: str) -> int | None:
    values = request.args.getlist(name)
    if not values:
        return None
    # ASCII digits only: str.isdigit() also takes '²' (which int() refuses) and other scripts' digits
    if (
        len(values) > 1
        or not (values[0].isascii() and values[0].isdigit())
        or len(values[0]) > len(str(MAX_NUMBER))
        or not 0 < int(values[0]) <= MAX_NUMBER
    ):
        raise Problem(
            "invalid-request",
            f"{name} is a whole number from 1 to {MAX_NUMBER}, not {show_word(values[-1])}",
            parameter=name,
        )
    return int(values[0])


def register(app: Flask, tournament: Tournament) -> None:
    """The director's and the devices' endpoints (all under /v1/, all JSON, problems as problem+json)."""

    db = tournament.db
    bp = Blueprint("tournament", __name__)

    def body(kind: type):
        return _read(kind, read_body())

    @bp.errorhandler(MalformedRow)
    def tampered(error: MalformedRow) -> Response:
        return problem_response(Problem("record-tampered", f"{error}; run `lexicon records verify` on the event file"))

    @bp.errorhandler(UnknownDevice)
    def unknown_device(error: UnknownDevice) -> Response:
        return problem_response(Problem("unknown-device", f"there is no device {error.device_id}"))

    @bp.errorhandler(StorageError)
    def storage(error: StorageError) -> Response:
        return problem_response(storage_problem(error))

    # -- the director's session ---------------------------------------------------------------------

    def signed_in() -> Response:
        token = db.start_session()
        lifetime = int(SESSION_LIFETIME.total_seconds())
        response = _json(SessionInfo(tournament.name, lifetime), 201)
        response.set_cookie(
            COOKIE, token, max_age=lifetime, path="/", httponly=True, samesite="Strict", secure=tournament.secure()
        )
        return response

    @bp.post("/v1/director/session")
    def login() -> Response:
        same_origin()
        password = body(LoginRequest).password
        outcome = db.check_password(password, tournament.client())
        if outcome.locked:
            raise Problem.later(
                "login-locked",
                f"too many wrong passwords: the login is locked; try again in "
                f"{outcome.retry_after} s, or sign in with `lexicon event login` on the laptop",
                outcome.retry_after,
            )
        if not outcome.ok:
            raise Problem(
                "wrong-password",
                f"that is not the director's password ({MAX_FAILURES} wrong in a row "
                f"lock the login from this device for {_minutes(LOCKOUT)})",
            )
        return signed_in()

    @bp.post("/v1/director/link")
    def login_link() -> Response:
        """A one-time login link's token (`lexicon event login`), whatever the limits on passwords."""
        same_origin()
        if not db.use_login_link(body(LinkRequest).token):
            raise Problem(
                "link-refused",
                "this login link does not sign in: it is used, expired (links last "
                f"{_minutes(LINK_LIFETIME)}) or mistyped; make another with "
                "`lexicon event login EVENT.db` on the laptop",
            )
        return signed_in()

    @bp.get("/v1/director/session")
    def session() -> Response:
        """The session the cookie holds: its event and the seconds it has left (the console signs
        out by itself then, rather than meet the 401 a browser logs as an error)."""
        tournament.director()
        left = db.session_left(request.cookies.get(COOKIE, ""))
        return _json(SessionInfo(tournament.name, int(left.total_seconds()) if left else 0))

    @bp.delete("/v1/director/session")
    def logout() -> Response:
        same_origin()
        token = request.cookies.get(COOKIE)
        if token:
            db.end_session(token)
        response = Response(status=204)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="Strict", secure=tournament.secure())
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
        except DeviceNameTaken as error:
            raise Problem("device-name-taken", str(error), pointer="/name") from None
        return _new_device(device, code, tournament.settings)

    @bp.get("/v1/devices")
    def devices() -> Response:
        tournament.director()
        contact = db.last_contact()
        return _json(DeviceList([DeviceInfo.of(device, contact.get(device.id)) for device in db.devices()]))

    @bp.post("/v1/devices/<int:device_id>/code")
    def new_code(device_id: int) -> Response:
        tournament.director()
        try:
            code = db.new_code(device_id)
        except PairingRefused as error:
            raise Problem("pairing-refused", str(error)) from None
        return _new_device(db.device(device_id), code, tournament.settings)

    @bp.post("/v1/devices/pair")
    def pair() -> Response:
        same_origin()
        code = body(PairRequest).code
        client = tournament.client()
        wait = tournament.wrong_codes.wait(client)
        if wait:
            raise Problem.later(
                "pairing-limited",
                f"too many wrong pairing codes from this address: try again in "
                f"{wait} s, with the code the director shows",
                wait,
            )
        try:
            device, token = db.pair(code)
        except PairingRefused:  # one message whatever the reason: a guesser learns nothing
            tournament.wrong_codes.wrong(client)
            raise Problem(
                "pairing-refused",
                "this code does not pair any device: it may be mistyped, used "
                f"or expired (codes last {_minutes(CODE_LIFETIME)}); ask the director for a new one",
            ) from None
        return _json(Paired(token, DeviceInfo.of(device), tournament.name), 201)

    @bp.delete("/v1/devices/<int:device_id>")
    def revoke(device_id: int) -> Response:
        tournament.director()
        return _json(DeviceInfo.of(db.revoke(device_id)))

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
        return _json(
            RoundList(current, [RoundInfo.of(r, tournament.counts(r.number)) for r in every], tournament.counts(None))
        )

    # -- the record (the director only) -----------------------------------------------------------

    @bp.get("/v1/records")
    def records() -> Response:
        tournament.director()
        for name in request.args:
            if name not in RECORDS_PARAMETERS:
                raise Problem(
                    "invalid-request",
                    f"unknown parameter {name!r}; known: {', '.join(RECORDS_PARAMETERS)}",
                    parameter=name,
                )
        number, device_id = _int_arg("round"), _int_arg("device")
        table = request.args.get("table") or None
        fmt = request.args.get("format", "json")
        if fmt not in ("json", "csv"):
            raise Problem("invalid-request", f"format is json or csv, not {show_word(fmt)}", parameter="format")
        before, after, limit = _int_arg("before"), _int_arg("after"), _int_arg("limit")
        paged = "format" not in request.args  # an export (format=) is the whole record, as filtered
        if not paged and (before, after, limit) != (None, None, None):
            raise Problem(
                "invalid-request",
                "an export (format=) holds every row that fits the filters: leave out before, after and limit",
                parameter="format",
            )
        if before is not None and after is not None:
            raise Problem(
                "invalid-request", "ask for the rows before a number or after one, not both", parameter="after"
            )
        if limit is not None and limit > RECORDS_MAX:
            raise Problem("invalid-request", f"limit is at most {RECORDS_MAX}, not {limit}", parameter="limit")
        if paged:
            limit = limit or RECORDS_PAGE
            rows = list(db.records(number, table, device_id, before, after, limit + 1))  # one more: is there more?
            more = len(rows) > limit
            rows = (rows[1:] if after is None else rows[:-1]) if more else rows
        else:
            rows, more = list(db.records(number, table, device_id)), False
        intact, chain = db.intact_rows(rows), db.chain_state()
        if fmt == "csv":
            response = respond(
                export_records(rows, "csv", intact=intact).encode("utf-8"), content_type="text/csv; charset=utf-8"
            )
        else:
            response = _json(
                RecordList(
                    tournament.name, number, [RecordInfo.of(r, intact[r.seq]) for r in rows], ChainInfo.of(chain), more
                )
            )
        if "format" in request.args:  # asked for as a file: named for what it holds
            response.headers["Content-Disposition"] = content_disposition(
                export_name(tournament.name, fmt, number, table, device_id)
            )
        return response

    @bp.get("/v1/records/<int:seq>")
    def record(seq: int) -> Response:
        tournament.director()
        found = db.record(seq)
        if found is None:
            raise Problem("unknown-record", f"there is no record {seq}")
        return _json(RecordInfo.of(found, db.intact_rows([found])[found.seq]))

    # -- the event, for a device's page and the console --------------------------------------------

    @bp.get("/v1/event")
    def event() -> Response:
        device = tournament.device()
        director = device is None and tournament.is_director()
        if device is None and not director:
            raise Problem(
                "device-unknown",
                "pair this device first, or log in as the director",
                headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'},
            )
        return _json(tournament.event_info(device, director))

    app.register_blueprint(bp)

    # Elsewhere (a challenge, a device's event): a value read back from an edited file is a
    # refusal naming where, never a word of a play; the record's own routes say more above.
    @app.errorhandler(Unreadable)
    @app.errorhandler(MalformedRow)
    def unreadable(error: Unreadable | MalformedRow) -> Response:
        return problem_response(tournament.unreadable(error))
