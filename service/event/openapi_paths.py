"""The tournament endpoints in the OpenAPI document: `add_to` is what service.openapi.document
calls in tournament mode (the app factory passes it).

The schemas come from the types of the bodies (`COMPONENTS`: service/event/api_types.py,
round_types.py, record_types.py); the statuses from what http.py, admission.py and recording.py
raise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tournament import CODE_LIFETIME, GLOBAL_FAILURES, LOCKOUT, MAX_FAILURES, MAX_NUMBER

from ..event_members import EVENT_FILE
from ..openapi import CODED_BODY
from .api_types import (
    DeviceCount,
    DeviceInfo,
    DeviceList,
    DeviceRequest,
    EventInfo,
    LinkRequest,
    LoginRequest,
    NewDevice,
    Paired,
    PairRequest,
    SessionInfo,
)
from .limits import NETWORK_CODES, WINDOW, WRONG_CODES
from .openapi_challenge import STORAGE_UNAVAILABLE, amend_challenges
from .record_types import RECORDS_MAX, RECORDS_PAGE, ChainBreak, ChainInfo, FilterInfo, RecordInfo, RecordList
from .round_types import RoundInfo, RoundList, RoundRequest

# The schema components tournament mode adds to the document, in the order they are listed there.
COMPONENTS = (
    LoginRequest,
    LinkRequest,
    SessionInfo,
    DeviceRequest,
    DeviceInfo,
    DeviceList,
    NewDevice,
    PairRequest,
    Paired,
    RoundRequest,
    RoundInfo,
    RoundList,
    DeviceCount,
    RecordInfo,
    ChainBreak,
    ChainInfo,
    RecordList,
    FilterInfo,
    EventInfo,
)

# a device's id in a path: what the store can hold (a larger number is no device, 404)
DEVICE_ID = {
    "name": "device_id",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_NUMBER},
}

DIRECTOR = [{"directorSession": []}]
DEVICE = [{"deviceToken": []}]

SECURITY_SCHEMES = {
    "directorSession": {
        "type": "apiKey",
        "in": "cookie",
        "name": "lexicon_director",
        "description": "The director's session (POST /v1/director/session sets it: "
        "HttpOnly, SameSite=Strict). Requests that change the event "
        "must come from the same origin (Origin, Sec-Fetch-Site).",
    },
    "deviceToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "A paired device's token (POST /v1/devices/pair).",
    },
}


# a write the same-origin checks refuse (service.event.callers, `same_origin`)
FOREIGN = "From another origin (`cross-origin`), or this computer under another site's name (`foreign-host`)."


def paths(ref: Callable[[str], dict], problem: Callable[..., dict], json: Callable[..., dict]) -> dict[str, Any]:
    def body(name: str, required: bool = True) -> dict:
        return {"required": required, "content": {"application/json": {"schema": ref(name)}}}

    # every operation that reads or writes the event's store: the console's, and the login, the
    # logout, the pairing and a device's look at the event, which write or read it too
    storage = {"503": problem(STORAGE_UNAVAILABLE, retry_after=True)}
    director = {
        "401": problem("Not logged in (`director-required`)."),
        "403": problem(f"A device's token (`director-only`). A write: {FOREIGN}"),
        **storage,
    }
    with_body = {
        "400": problem("The body is not JSON (`invalid-json`)."),
        "415": problem(CODED_BODY),
        "422": problem("The body does not fit (`invalid-request`)."),
    }

    def op(op_id: str, summary: str, responses: dict, security=DIRECTOR, **more) -> dict:
        return {"operationId": op_id, "summary": summary, "responses": responses, "security": security, **more}

    return {
        "/v1/director/session": {
            "post": op(
                "directorLogin",
                "Log in with the director's password; sets the session cookie",
                {
                    "201": json("Logged in.", "SessionInfo"),
                    **with_body,
                    "401": problem("Wrong password (`wrong-password`)."),
                    "403": problem(FOREIGN),
                    "429": problem(
                        f"{MAX_FAILURES} wrong passwords in a row lock the login from that "
                        f"address for {LOCKOUT.total_seconds() / 60:g} minute(s); {GLOBAL_FAILURES} "
                        "in that time from all, every address but the laptop's (`login-locked`, "
                        "`Retry-After`).",
                        retry_after=True,
                    ),
                    **storage,
                },
                security=[],
                requestBody=body("LoginRequest"),
            ),
            "get": op(
                "directorSession",
                "Whether the session cookie is a live session, and how long it has left",
                {"200": json("Logged in; `expires_in`: the seconds this session has left.", "SessionInfo"), **director},
            ),
            "delete": op(
                "directorLogout",
                "Log out: the session stops working in every worker",
                {"204": {"description": "Logged out; the cookie is cleared."}, "403": director["403"], **storage},
                security=[],
            ),
        },
        "/v1/director/link": {
            "post": op(
                "directorLink",
                "Log in with a one-time login link's token (`lexicon event login`), "
                "whatever the limits on wrong passwords; sets the session cookie",
                {
                    "201": json("Logged in.", "SessionInfo"),
                    **with_body,
                    "401": problem("A token used, expired or unknown (`link-refused`)."),
                    "403": problem(FOREIGN),
                    **storage,
                },
                security=[],
                requestBody=body("LinkRequest"),
            ),
        },
        "/v1/devices": {
            "post": op(
                "addDevice",
                "Name a device and its role; its single-use pairing code "
                f"({CODE_LIFETIME.total_seconds() / 60:g} minutes)",
                {
                    "201": json("The device and its code.", "NewDevice"),
                    **with_body,
                    **director,
                    "409": problem(
                        "A device not revoked has this name, compared without case and surrounding "
                        "spaces (`device-name-taken`)."
                    ),
                },
                requestBody=body("DeviceRequest"),
            ),
            "get": op("devices", "Every device of the event", {"200": json("The devices.", "DeviceList"), **director}),
        },
        "/v1/devices/{device_id}": {
            "delete": op(
                "revokeDevice",
                "Revoke a device: its next request gets 401 `device-revoked`",
                {
                    "200": json("The device, revoked.", "DeviceInfo"),
                    **director,
                    "404": problem("No such device (`unknown-device`)."),
                },
                parameters=[DEVICE_ID],
            ),
        },
        "/v1/devices/{device_id}/code": {
            "post": op(
                "newCode",
                "A new pairing code for a device (a phone replaced)",
                {
                    "201": json("The device and its new code.", "NewDevice"),
                    **director,
                    "400": problem("The device was revoked (`pairing-refused`)."),
                    "404": problem("No such device (`unknown-device`)."),
                },
                parameters=[DEVICE_ID],
            ),
        },
        "/v1/devices/pair": {
            "post": op(
                "pair",
                "Pair this device with a code: its token, shown once",
                {
                    "201": json("Paired.", "Paired"),
                    **with_body,
                    "400": problem("Unknown, used, expired or revoked code: one answer for all (`pairing-refused`)."),
                    "429": problem(
                        f"{WRONG_CODES} wrong codes in {WINDOW:g} s from one address, or {NETWORK_CODES} from "
                        "the addresses of one IPv6 /64: it waits (`pairing-limited`, `Retry-After`).",
                        retry_after=True,
                    ),
                    "403": problem(FOREIGN),
                    **storage,
                },
                security=[],
                requestBody=body("PairRequest"),
            ),
        },
        "/v1/rounds": {
            "post": op(
                "openRound",
                "Open round N (or the next); at most one is open",
                {
                    "201": json("The round.", "RoundInfo"),
                    **with_body,
                    **director,
                    "409": problem("A round is open, or N was played (`round-conflict`)."),
                },
                requestBody=body("RoundRequest", required=False),
            ),
            "get": op(
                "rounds",
                "The rounds, and how many challenges each device made in each",
                {"200": json("The rounds.", "RoundList"), **director},
            ),
        },
        "/v1/rounds/close": {
            "post": op(
                "closeRound",
                "Close the open round, keeping the record's head with it",
                {
                    "200": json(
                        "The round, closed, with its head, and the judges' devices not in touch for a minute "
                        "(`pending`): the head is final once they have synced, or the director confirms it.",
                        "RoundInfo",
                    ),
                    **director,
                    "409": problem("No round is open (`round-conflict`)."),
                },
            ),
        },
        "/v1/rounds/{number}/final": {
            "post": op(
                "confirmRound",
                "Confirm a closed round's head although devices it waits for have not synced",
                {
                    "200": json("The round, its head taken again now and final.", "RoundInfo"),
                    **director,
                    "409": problem("The round is not played, still open, or its head is final (`round-conflict`)."),
                },
                parameters=[
                    {"name": "number", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
                ],
            ),
        },
        "/v1/records": {
            "get": op(
                "records",
                "The record (the director only), filtered; JSON or CSV",
                {
                    "200": {
                        "description": "The rows, in order.",
                        "content": {
                            "application/json": {"schema": ref("RecordList")},
                            "text/csv": {"schema": {"type": "string"}},
                        },
                    },
                    "409": problem("A row was edited by hand (`record-tampered`)."),
                    "422": problem(
                        "A parameter that is no number, a round the event never had (not an empty "
                        "list or sheet: 33 typed for 3), a limit over the maximum, before with after, "
                        "or paging with an export (`invalid-request`)."
                    ),
                    **director,
                },
                parameters=[
                    {
                        "name": "round",
                        "in": "query",
                        "description": "Only this round's rows: one the event has had (GET /v1/rounds lists them).",
                        "schema": {"type": "integer", "minimum": 1},
                    },
                    {
                        "name": "table",
                        "in": "query",
                        "description": "Only the rows of this table, as rows hold it: 1 to 60 characters, none a "
                        "control character, given once (another value is 422 `invalid-request`).",
                        "schema": {"type": "string", "maxLength": 60},
                    },
                    {"name": "device", "in": "query", "schema": {"type": "integer", "minimum": 1}},
                    {
                        "name": "format",
                        "in": "query",
                        "description": "An export, as a file: every row that fits the filters (no paging), saying "
                        "which filters (`filter`: in JSON a member, in CSV the last column), so that "
                        "`lexicon records verify` tells a whole record's export with rows deleted from a filtered one.",
                        "schema": {"enum": ["json", "csv"], "default": "json"},
                    },
                    {
                        "name": "limit",
                        "in": "query",
                        "description": "Rows in the page (without format): the last ones, or the first after `after`.",
                        "schema": {"type": "integer", "minimum": 1, "maximum": RECORDS_MAX, "default": RECORDS_PAGE},
                    },
                    {
                        "name": "before",
                        "in": "query",
                        "description": "Only rows numbered below this one.",
                        "schema": {"type": "integer", "minimum": 1},
                    },
                    {
                        "name": "after",
                        "in": "query",
                        "description": "Only rows numbered above this one.",
                        "schema": {"type": "integer", "minimum": 1},
                    },
                ],
            ),
        },
        "/v1/records/{seq}": {
            "get": op(
                "record",
                "One record, for the printable slip of an appeal",
                {
                    "200": json("The row.", "RecordInfo"),
                    **director,
                    "404": problem("No such record (`unknown-record`)."),
                    "409": problem("The row was edited by hand (`record-tampered`)."),
                },
                parameters=[
                    {"name": "seq", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
                ],
            ),
        },
        "/v1/event": {
            "get": op(
                "event",
                "The event, its open round, and who asks (a device or the director)",
                {
                    "200": json("The event.", "EventInfo"),
                    "401": problem("Neither a paired device nor the director (`device-unknown`, `device-revoked`)."),
                    "409": problem(
                        "The device as stored was edited by hand into what no row holds (`record-tampered`), "
                        "or is a table device without its table (`table-missing`)."
                    ),
                    "422": problem("`waiting` is not a whole number (`invalid-request`)."),
                    **storage,
                },
                security=DEVICE + DIRECTOR,
                parameters=[
                    {
                        "name": "waiting",
                        "in": "query",
                        "required": False,
                        "description": "From a device's page: how many offline verdicts it holds (0 settles the "
                        "closed rounds that wait for it).",
                        "schema": {"type": "integer", "minimum": 0, "maximum": 999999999},
                    },
                    {
                        "name": "event_file",
                        "in": "query",
                        "required": False,
                        "description": "From a device's page: the event file that first answered it (`file`); "
                        "another file's is noted for the console (its list of devices: `split`).",
                        "schema": {"type": "string", "pattern": EVENT_FILE},
                    },
                    {
                        "name": "last_key",
                        "in": "query",
                        "required": False,
                        "description": "From a device's page: its last recorded verdict's `idempotency_key`, "
                        "noted for the console when this file does not hold it.",
                        "schema": {"type": "string", "minLength": 1, "maxLength": 64},
                    },
                ],
            ),
        },
    }


def add_to(
    operations: dict[str, Any],
    components: dict[str, Any],
    ref: Callable[[str], dict],
    problem: Callable[..., dict],
    json: Callable[..., dict],
) -> None:
    """Tournament mode's part of the document: the challenge operations' answers for devices,
    the browser lexicon for paired judges only, the event's own operations and security schemes.
    In an event a challenge is only ever POSTed: a GET is 405 (it may be sent again, and each
    would be recorded)."""
    amend_challenges(operations, problem, DEVICE)
    operations.update(paths(ref, problem, json))
    for item in operations.values():  # every write, once `lexicon event move` took the event elsewhere
        for method, operation in item.items():
            if method in ("post", "delete"):
                operation["responses"]["410"] = problem(
                    "The event was moved elsewhere (`lexicon event move`): nothing is written here any more, "
                    "and no verdict given (`event-moved`); its director gives the new address."
                )
    components["securitySchemes"] = dict(SECURITY_SCHEMES)


__all__ = ["COMPONENTS", "SECURITY_SCHEMES", "add_to", "paths"]
