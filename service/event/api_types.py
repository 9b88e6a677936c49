"""The bodies of tournament mode's endpoints (docs/tournament.md, "HTTP API"), declared once.

As for the challenge API (service/types.py), msgspec reads every request body into these types
and writes every answer from them, and the OpenAPI document takes its schemas from them. What
the storage keeps (tournament.model) is turned into these here, so that no storage
detail (a token's hash, a pairing code's hash) can reach an answer by accident.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from lexicon.verdict import Identity
from tournament import BREAK_KINDS, MAX_NUMBER, Break, ChainState, Device, Record, Round, as_dict

Role = Annotated[
    Literal["judge", "table", "lookup"],
    Meta(
        description="`judge`: challenges at any time. `table`: a device at a table, only while a round "
        "is open; its records carry its table. `lookup`: a kiosk, only while no round is open.",
    ),
]
Time = Annotated[str, Meta(description="UTC, e.g. 2026-11-22T10:31:07.120034Z.")]
Hash = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]


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


class RoundRequest(Struct, forbid_unknown_fields=True):
    """Open a round: its number, or the next one when absent."""

    number: Annotated[int, Meta(ge=1, le=MAX_NUMBER)] | UnsetType = UNSET


# -- answers ---------------------------------------------------------------------------------------


class Split(Struct):
    """A device refused because another file of the event had answered it (service/event/witness.py)."""

    seen: Annotated[str, Meta(description="The identity of the file it had seen.")]
    served: Annotated[str, Meta(description="The identity of the file that refused it.")]
    missing: Annotated[
        bool, Meta(description="True: it named this file, whose record lacks its last recorded verdict (a copy).")
    ]
    time: Time


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

    @classmethod
    def of(
        cls,
        device: Device,
        verdict: tuple[str, str, str, bool, int | None] | None = None,
        contact: str | None = None,
        split: tuple[str, str, str | None, str] | None = None,
    ) -> DeviceInfo:
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


class PendingDevice(Struct):
    id: int
    name: str | None


class RoundInfo(Struct):
    number: int
    opened: Time
    closed: Time | None
    head_seq: Annotated[int | None, Meta(description="When closed: the last record's number (0: none).")]
    head_hash: Annotated[Hash | None, Meta(description="When closed: that record's hash, for the round's sheet.")]
    challenges: Annotated[
        list[DeviceCount],
        Meta(description="Records per device in the round (`device` null: requests without a device)."),
    ]
    head_final: Annotated[
        bool,
        Meta(
            description="Closed, and its head final: no judge's device that may hold its offline verdicts "
            "is still awaited (`pending`), or the director confirmed it. Until then the head is the record's "
            "at closing, taken again when it becomes final: write it on the sheet only then."
        ),
    ] = False
    pending: Annotated[
        list[PendingDevice],
        Meta(
            description="The judges' devices not in touch for a minute when it closed that have not synced "
            "since: they may hold verdicts judged offline in it."
        ),
    ] = []
    final: Annotated[Time | None, Meta(description="When its head became final after waiting.")] = None

    @classmethod
    def of(cls, round_: Round, counts: list[DeviceCount], names: dict[int, str] | None = None) -> RoundInfo:
        pending = [PendingDevice(device, (names or {}).get(device)) for device in round_.pending or ()]
        return cls(
            round_.number,
            round_.opened,
            round_.closed,
            round_.head_seq,
            round_.head_hash,
            counts,
            round_.head_final,
            pending,
            round_.final,
        )


class RoundList(Struct):
    current: int | None
    rounds: list[RoundInfo]
    outside_rounds: Annotated[list[DeviceCount], Meta(description="Records made while no round was open.")]


class RecordInfo(Struct):
    """One row of the record as it is stored (the chain included); what an export holds."""

    seq: int
    time: Time
    round: int | None
    table: str | None
    device_id: int | None
    device_name: str | None
    role: Role | None
    lexicon_id: str
    lexicon_version: str
    lexicon_checksum: str
    notation: Literal["spelling", "tiles"]
    words: list[str]
    tiles: Annotated[list[str], Meta(description="The words in engine tile notation (CA[RR]O).")]
    valid: Annotated[bool, Meta(description="The joint verdict the players were told.")]
    second_lexicon_id: Annotated[
        str | None, Meta(description="The second opinion's lexicon, when the players were shown one (LEXICON_SECOND).")
    ]
    second_lexicon_version: str | None
    second_lexicon_checksum: str | None
    second_valid: Annotated[bool | None, Meta(description="The second opinion's joint verdict they were shown.")]
    offline: bool
    device_time: Time | None
    shown_round: Annotated[
        int | None,
        Meta(
            description="An offline verdict's round as its phone showed it (0: none; null: an online verdict, "
            "or a phone that did not say). `round` is where the record filed it: the shown round when it was "
            "open at `device_time`, else none."
        ),
    ]
    idempotency_key: str | None
    format: int
    prev: Hash
    hash: Hash
    intact: Annotated[
        bool,
        Meta(
            description=(
                "The row as it was recorded: its contents match its hash and it chains to the row before it "
                "(false: it was changed, or the row before it was, or removed). `chain` says where the whole "
                "record breaks."
            )
        ),
    ]

    @classmethod
    def of(cls, record: Record, intact: bool) -> RecordInfo:
        return cls(**as_dict(record), intact=intact)


class ChainBreak(Struct):
    seq: Annotated[int, Meta(description="The first row that does not chain.")]
    reason: Annotated[str, Meta(description="Why, in English (for tools and logs; a page says `kind`).")]
    kind: Annotated[
        Literal[tuple(BREAK_KINDS)],
        Meta(description="What was found, for a page to say in its reader's language (tournament.model.BREAK_KINDS)."),
    ] = "changed"
    facts: Annotated[
        dict[str, int], Meta(description="The row numbers (and round) the kind names: e.g. `first` and `last` deleted.")
    ] = {}

    @classmethod
    def of(cls, found: Break) -> ChainBreak:
        return cls(found.seq, found.reason, found.kind, dict(found.facts))


class ChainInfo(Struct):
    """The whole record's state, verified by the service (only the rows added since its last
    verification are hashed again, and all of them every few minutes, off the request path)."""

    intact: Annotated[
        bool,
        Meta(
            description="The record as it is now verified up to its last row, no break found, its guards in "
            "place. False with `broken` null: not confirmed (yet): `checking`, `failed` or `guarded` false."
        ),
    ]
    last: Annotated[int, Meta(description="The record's last row now (0: none).")]
    last_hash: Hash
    verified: Annotated[int, Meta(description="Rows 1 to this one chain from the start.")]
    broken: ChainBreak | None
    checking: Annotated[
        bool,
        Meta(description="A verification of every row is running: ask again for its result (meanwhile not `intact`)."),
    ] = False
    checked: Annotated[
        str | None, Meta(description="When the last verification of every row ended (UTC); null: none yet.")
    ] = None
    guarded: Annotated[
        bool,
        Meta(
            description="The record's append-only guards (SQLite triggers) are in place; false: they were "
            "removed, which only an edit of the event file by hand does."
        ),
    ] = True
    failed: Annotated[
        bool,
        Meta(description="The last verification of every row could not be completed; it is tried again in a minute."),
    ] = False
    replaced: Annotated[
        bool,
        Meta(
            description="The file at the event's path is not the one this service opened (moved, deleted or another "
            "moved over it): no verdict can be recorded until it is put back or the service reloaded."
        ),
    ] = False
    moved: Annotated[
        str | UnsetType,
        Meta(
            description="When the director moved the event elsewhere (`lexicon event move`; absent: never): "
            "nothing more is recorded here, every write refused (410 `event-moved`)."
        ),
    ] = UNSET
    moved_to: Annotated[
        str | UnsetType, Meta(description="The identity of the event's live copy since the move (absent: never moved).")
    ] = UNSET

    @classmethod
    def of(cls, state: ChainState, moved: tuple[str, str] | None = None) -> ChainInfo:
        broken = None if state.broken is None else ChainBreak.of(state.broken)
        return cls(
            state.intact,
            state.last,
            state.last_hash,
            state.verified,
            broken,
            state.checking,
            state.checked,
            state.guarded,
            state.failed,
            state.replaced,
            *(moved or (UNSET, UNSET)),
        )


# GET /v1/records without format= is a page: the last RECORDS_PAGE rows unless a limit (at most
# RECORDS_MAX) is given, older ones with before=SEQ, newer with after=SEQ. No request builds the
# whole record for the console: a hall's phones can fill it faster than one page is read.
RECORDS_PAGE = 100
RECORDS_MAX = 1000


class RecordList(Struct):
    event: str
    round: int | None
    records: Annotated[
        list[RecordInfo],
        Meta(
            description=(
                "The rows, in order: a page of them (the last `limit`, or those before or after a number) "
                "unless the request asked for an export with `format`."
            )
        ),
    ]
    chain: ChainInfo
    more: Annotated[
        bool,
        Meta(
            description=(
                "Whether rows that fit the filters lie beyond this page: older ones (ask with `before` = the "
                "first row's number), or with `after`, newer ones (`after` = the last row's number)."
            )
        ),
    ] = False


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
    EventInfo,
)
