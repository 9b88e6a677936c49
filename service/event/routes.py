"""Tournament mode's own endpoints (docs/tournament.md, "HTTP API"): the director's session, devices
and their pairing, rounds, the record and its export (service.event.record_routes), and
`/v1/event`, each admitted by `Tournament` (service.event.http), which also records the
challenges' verdicts.

Every refusal is problem+json, and a refusal of a request's body quotes what it held, except a
password or a pairing code (service.event.bodies): never echoed, even to its sender. Writes from a browser
must come from this site's own pages (`same_origin`).
"""

from __future__ import annotations

import msgspec
from flask import Blueprint, Flask, Response, request

from tournament import (
    CODE_LIFETIME,
    LINK_LIFETIME,
    LOCKOUT,
    MAX_FAILURES,
    SESSION_LIFETIME,
    DeviceFieldRefused,
    DeviceNameTaken,
    MalformedRow,
    PairingRefused,
    RoundError,
    StorageError,
    UnknownDevice,
    Unreadable,
)

from ..addresses import public_base
from ..api import problem_response, read_body
from ..problems import Problem
from .api_types import (
    DeviceInfo,
    DeviceList,
    DeviceRequest,
    LinkRequest,
    LoginRequest,
    NewDevice,
    Paired,
    PairRequest,
    SessionInfo,
)
from .bodies import json_response, read_as
from .callers import COOKIE, cookie_path
from .http import Tournament
from .record_routes import register_records
from .refusals import storage_problem
from .round_types import RoundInfo, RoundList, RoundRequest
from .witness import heard


def _minutes(span) -> str:
    """A lifetime as a person reads it: '10 minutes', '1 minute'."""
    count = int(span.total_seconds() // 60)
    return f"{count} minute{'' if count == 1 else 's'}"


def _new_device(device, code: str, settings) -> Response:
    """A device with its pairing code and URL (the console's QR code), as added or given a new code:
    the URL at an address phones reach (service.addresses), and whether one is known."""
    base = public_base(settings, request)
    return json_response(
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


def register(app: Flask, tournament: Tournament) -> None:
    """The director's and the devices' endpoints (all under /v1/, all JSON, problems as problem+json)."""

    db = tournament.db
    bp = Blueprint("tournament", __name__)

    def body(kind: type):
        return read_as(kind, read_body())

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
        response = json_response(SessionInfo(tournament.name, lifetime), 201)
        response.set_cookie(
            COOKIE,
            token,
            max_age=lifetime,
            path=cookie_path(),
            httponly=True,
            samesite="Strict",
            secure=tournament.secure(),
        )
        return response

    @bp.post("/v1/director/session")
    def login() -> Response:
        tournament.same_origin()
        password = body(LoginRequest).password
        outcome = db.check_password(password, tournament.client())
        if outcome.locked:
            raise Problem.later(
                "login-locked",
                f"too many wrong passwords: the login is locked; try again in "
                f"{outcome.retry_after} s, or sign in with a link from `lexicon event login` (on the laptop, or ask "
                "whoever runs the service)",
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
        tournament.same_origin()
        if not db.use_login_link(body(LinkRequest).token):
            raise Problem(
                "link-refused",
                "this login link does not sign in: it is used, expired (links last "
                f"{_minutes(LINK_LIFETIME)}) or mistyped; make another with "
                "`lexicon event login` (on the laptop, or ask whoever runs the service)",
            )
        return signed_in()

    @bp.get("/v1/director/session")
    def session() -> Response:
        """The session the cookie holds: its event and the seconds it has left (the console signs
        out by itself then, rather than meet the 401 a browser logs as an error)."""
        tournament.director()
        left = db.session_left(request.cookies.get(COOKIE, ""))
        return json_response(SessionInfo(tournament.name, int(left.total_seconds()) if left else 0))

    @bp.delete("/v1/director/session")
    def logout() -> Response:
        tournament.same_origin()
        token = request.cookies.get(COOKIE)
        if token:
            db.end_session(token)
        response = Response(status=204)
        response.delete_cookie(COOKIE, path=cookie_path(), httponly=True, samesite="Strict", secure=tournament.secure())
        return response

    # -- devices ----------------------------------------------------------------------------------

    @bp.post("/v1/devices")
    def add_device() -> Response:
        tournament.director()
        wanted = body(DeviceRequest)
        try:
            device, code = db.add_device(wanted.name, wanted.role, wanted.table)
        except DeviceFieldRefused as error:  # the member at fault, as msgspec's own refusals point at it
            raise Problem("invalid-request", str(error), pointer=f"/{error.field}") from None
        except DeviceNameTaken as error:
            raise Problem("device-name-taken", str(error), pointer="/name") from None
        return _new_device(device, code, tournament.settings)

    @bp.get("/v1/devices")
    def devices() -> Response:
        tournament.director()
        verdicts, contacts, splits = db.last_contact(), tournament.contacts.known(), db.splits()
        refused = db.refused_offline()
        return json_response(
            DeviceList(
                [
                    DeviceInfo.of(
                        device,
                        verdicts.get(device.id),
                        contacts.get(device.id),
                        splits.get(device.id),
                        refused.get(device.id),
                    )
                    for device in db.devices()
                ]
            )
        )

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
        tournament.same_origin()
        code = body(PairRequest).code
        client = tournament.client()
        wait, held = tournament.wrong_codes.wait(client)
        if wait:
            whom = "this address" if held == client else "the addresses of this IPv6 network (/64) together"
            raise Problem.later(
                "pairing-limited",
                f"too many wrong pairing codes from {whom}: try again in {wait} s, with the code the director shows",
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
        tournament.live.forget(device.id)  # its old token, if it had one, is no device's now
        return json_response(Paired(token, DeviceInfo.of(device), tournament.name), 201)

    @bp.delete("/v1/devices/<int:device_id>")
    def revoke(device_id: int) -> Response:
        tournament.director()
        revoked = db.revoke(device_id)
        tournament.live.forget(device_id)  # refused at its next challenge here without a judging first
        return json_response(DeviceInfo.of(revoked))

    # -- rounds -----------------------------------------------------------------------------------

    @bp.post("/v1/rounds")
    def open_round() -> Response:
        tournament.director()
        wanted = body(RoundRequest)
        try:
            opened = db.open_round(None if wanted.number is msgspec.UNSET else wanted.number)
        except RoundError as error:
            raise Problem("round-conflict", str(error)) from None
        return json_response(RoundInfo.of(opened, []), 201)

    @bp.post("/v1/rounds/close")
    def close_round() -> Response:
        tournament.director()
        tournament.contacts.flush()  # this worker's notes of devices' contacts, before it reads them
        try:
            closed = db.close_round()
        except RoundError as error:
            raise Problem("round-conflict", str(error)) from None
        return json_response(RoundInfo.of(closed, tournament.counts(closed.number), tournament.names()))

    @bp.post("/v1/rounds/<int:number>/final")
    def confirm_round(number: int) -> Response:
        """The director's word that a closed round's head is final, devices it waits for unsynced."""
        tournament.director()
        try:
            confirmed = db.confirm_round(number)
        except RoundError as error:
            raise Problem("round-conflict", str(error)) from None
        return json_response(RoundInfo.of(confirmed, tournament.counts(number), tournament.names()))

    @bp.get("/v1/rounds")
    def rounds() -> Response:
        tournament.director()
        every = db.rounds()
        current = next((r.number for r in every if r.closed is None), None)
        return json_response(
            RoundList(
                current,
                [RoundInfo.of(r, tournament.counts(r.number), tournament.names()) for r in every],
                tournament.counts(None),
            )
        )

    register_records(bp, tournament)  # the record (the director only)

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
        split = False
        if device is not None:  # its page's heartbeat: maybe the offline verdicts it holds, and the file it saw
            seen = heard(request.args)  # read first: a heartbeat refused for it settles no round (held)
            tournament.held(device, request.args.get("waiting"))
            split = tournament.witness.check(device, *seen, refuse=False)
        return json_response(tournament.event_info(device, director, split))

    app.register_blueprint(bp)

    # Elsewhere (a challenge, a device's event): a value read back from an edited file is a
    # refusal naming where, never a word of a play; the record's own routes say more above.
    @app.errorhandler(Unreadable)
    @app.errorhandler(MalformedRow)
    def unreadable(error: Unreadable | MalformedRow) -> Response:
        return problem_response(tournament.refusal(tournament.unreadable(error)))
