"""The bodies of tournament mode's endpoints of who takes part (docs/tournament.md, "HTTP API"):
the director's session, the devices (pairing, listing, revoking), and the event as a device
sees it; declared once.

As for the challenge API (service/types.py), msgspec reads every request body into these types
and writes every answer from them, and the OpenAPI document takes its schemas from them
(service/event/openapi_paths.py lists them). What the storage keeps (tournament.model) is turned
into these here, so that no storage detail (a token's hash, a pairing code's hash) can reach an
answer by accident.

The rounds' bodies (service/event/round_types.py) and the record's (service/event/record_types.py)
are apart: each is a concept of the event of its own, with endpoints of its own, and they use
the device's role, its counts and the time as declared here.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from lexicon.verdict import Identity
from tournament import REFUSED_LEXICON, REFUSED_VERDICT, Device, RefusedOffline

Role = Annotated[
    Literal["judge", "table", "lookup"],
    Meta(
        description="`judge`: challenges at any time. `table`: a device at a table, only while a round "
        "is open; its records carry its table. `lookup`: a kiosk, only while no round is open.",
    ),
]
Time = Annotated[str, Meta(description="UTC, e.g. 2026-11-22T10:31:07.120034Z.")]


# -- requests -------------------------------------------------------------------------------------


class LoginRequest(Struct, forbid_unknown_fields=True):
    """The director's password (`lexicon event init` printed it)."""

    password: Annotated[str, Meta(max_length=1024)]


class LinkRequest(Struct, forbid_unknown_fields=True):
    """A one-time login link's token (`lexicon event login` printed the link, the console sends it)."""

    token: Annotated[str, Meta(max_length=256)]


class DeviceRequest(Struct, forbid_unknown_fields=True, kw_only=True):
    """A device to pair: its name as the director calls it, its role, and a table device's table."""

    name: Annotated[str, Meta(min_length=1, max_length=60, examples=["Mesa 12"])]
    role: Role
    table: (
        Annotated[str, Meta(min_length=1, max_length=60, description="Only for a `table` device, which needs it.")]
        | None
    ) = None


class PairRequest(Struct, forbid_unknown_fields=True):
    """The short code shown under the QR code; case, spaces and dashes do not matter."""

    code: Annotated[str, Meta(max_length=64, examples=["K7QH-3MXP"])]


# -- answers ---------------------------------------------------------------------------------------


class Split(Struct):
    """A device refused because another file of the event had answered it (service/event/witness.py)."""

    seen: Annotated[str, Meta(description="The identity of the file it had seen.")]
    served: Annotated[str, Meta(description="The identity of the file that refused it.")]
    missing: Annotated[
        bool, Meta(description="True: it named this file, whose record lacks its last recorded verdict (a copy).")
    ]
    time: Time


class RefusedOfflineInfo(Struct):
    """A judge's offline verdicts the record refused for one reason (its phone showed another
    verdict than the service gives, 409 `offline-verdict-differs`; or judged with another list than
    the event's, 409 `offline-lexicon-changed`): never which words, nor which verdicts."""

    count: Annotated[int, Meta(description="How many (one sent again with its key counts once).")]
    shown_round: Annotated[
        int | None, Meta(description="The latest one's round as its phone showed it (0: none; null: it did not say).")
    ]
    device_time: Annotated[Time | None, Meta(description="When its phone judged it (its own clock).")]
    time: Annotated[Time, Meta(description="When the service refused it.")]


class DeviceInfo(Struct):
    id: int
    name: str
    role: Role
    table: str | None
    created: Time
    paired: Time | None
    revoked: Time | None
    active: Annotated[bool, Meta(description="Paired and not revoked.")]
    last_seen: Annotated[
        Time | None,
        Meta(
            description=(
                "In the director's list: the time of its last recorded verdict (null: none yet). Verdicts a "
                "device gave offline count once it has sent them."
            )
        ),
    ] = None
    last_lexicon: Annotated[
        str | None, Meta(description="The lexicon (id and version) of that verdict.", examples=["es-2026 2026.1"])
    ] = None
    last_valid: Annotated[bool | None, Meta(description="That verdict: valid or not.")] = None
    last_round: Annotated[int | None, Meta(description="The round that verdict was recorded in (null: none).")] = None
    last_contact: Annotated[
        Time | None,
        Meta(
            description=(
                "In the director's list: the time of its last request of any kind (a challenge, or its page "
                "asking the event, every few seconds while in view), a few seconds late at most; null: none since pairing."
            )
        ),
    ] = None
    split: Annotated[
        Split | None,
        Meta(description="In the director's list: the latest time another file of the event had answered it."),
    ] = None
    refused_offline: Annotated[
        RefusedOfflineInfo | None,
        Meta(
            description=(
                "In the director's list: its offline verdicts refused because its phone showed another verdict "
                "than the service gives (`offline-verdict-differs`; null: none)."
            )
        ),
    ] = None
    refused_offline_lexicon: Annotated[
        RefusedOfflineInfo | None,
        Meta(
            description=(
                "In the director's list: its offline verdicts refused because its phone judged with another "
                "list than the event's (`offline-lexicon-changed`; null: none)."
            )
        ),
    ] = None

    @classmethod
    def of(
        cls,
        device: Device,
        verdict: tuple[str, str, str, bool, int | None] | None = None,
        contact: str | None = None,
        split: tuple[str, str, str | None, str] | None = None,
        refused: dict[str, RefusedOffline] | None = None,
    ) -> DeviceInfo:
        refused = refused or {}
        seen, lexicon, valid, number = (
            (None, None, None, None) if verdict is None else (verdict[0], f"{verdict[1]} {verdict[2]}", *verdict[3:])
        )
        return cls(
            device.id,
            device.name,
            device.role,
            device.table,
            device.created,
            device.paired,
            device.revoked,
            device.active,
            seen,
            lexicon,
            valid,
            number,
            contact,
            None if split is None else Split(split[0], split[1], split[2] is not None, split[3]),
            _refused_info(refused.get(REFUSED_VERDICT)),
            _refused_info(refused.get(REFUSED_LEXICON)),
        )


def _refused_info(refused: RefusedOffline | None) -> RefusedOfflineInfo | None:
    return (
        None
        if refused is None
        else RefusedOfflineInfo(refused.count, refused.shown_round, refused.device_time, refused.time)
    )


class DeviceList(Struct):
    devices: list[DeviceInfo]


class NewDevice(Struct):
    """A device and its pairing code: single use, valid for `expires_in` seconds. The code is shown
    once (only its hash is kept); `pairing_url` carries it after `#`, so it never reaches a log."""

    device: DeviceInfo
    code: str
    pairing_url: str
    expires_in: int
    reachable: Annotated[
        bool,
        Meta(
            description=(
                "Whether `pairing_url` is an address phones can reach (LEXICON_PUBLIC_URL, the address the console "
                "was opened at, or this computer's on the network). False: the service knows none, and "
                "`unreachable` says why."
            )
        ),
    ] = True
    unreachable: Annotated[
        Literal["loopback-only", "no-network"] | None,
        Meta(
            description=(
                "`loopback-only`: the service listens only on this computer (serve --host 0.0.0.0, or set "
                "LEXICON_PUBLIC_URL); `no-network`: this computer has no network address."
            )
        ),
    ] = None


class Paired(Struct):
    """The device's token: send it as `Authorization: Bearer TOKEN`. It is shown only this once."""

    token: str
    device: DeviceInfo
    event: str


class SessionInfo(Struct):
    """The director is logged in (the session is the HttpOnly cookie, never in a body).

    `expires_in`: the seconds the session has left (a new one: all of its 12 hours)."""

    event: str
    expires_in: int


class DeviceCount(Struct):
    device: int | None
    name: str | None
    count: int


class EventInfo(Struct):
    """What a paired device (or the director) shows: the event, the round, who it is."""

    name: str
    round: Annotated[int | None, Meta(description="The open round, or null between rounds.")]
    lexicon: Annotated[Identity | None, Meta(description="The event's lexicon, when the event names one.")]
    device: DeviceInfo | None
    director: bool
    wait: Annotated[
        float,
        Meta(
            ge=0,
            description=(
                "Seconds this device waits between challenges (its role's LEXICON_RATE_*; 0: none). The "
                "judge's page keeps the same gap when it judges offline."
            ),
        ),
    ] = 0.0
    file: Annotated[
        str | None,
        Meta(
            description="The identity of the event file that answered (16 hex digits): a paired device's page "
            "remembers the first and sends it with each verdict (`event_file`)."
        ),
    ] = None
    restored_from: Annotated[
        str | None,
        Meta(
            description="The identity of the file this one was restored from (`lexicon event restore`), if any: "
            "a device that knew that one takes this file's."
        ),
    ] = None
    split: Annotated[
        bool,
        Meta(
            description="True when what the device's page said it saw (`event_file`, `last_key`) is another "
            "file's: it was answered by two files of the event (its verdicts here would be refused)."
        ),
    ] = False
