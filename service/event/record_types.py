"""The bodies of tournament mode's record (docs/tournament.md, "The record"): its rows as stored,
the chain's state as the service verified it, and a page of rows (GET /v1/records); an export
writes the same rows.

Apart from the devices' bodies (service/event/api_types.py) and the rounds'
(service/event/round_types.py): the record is the event's own concept, append-only and chained,
read by the director's console page by page and exported whole, by a process of its own
(service/event/export_process.py) that writes its rows with these types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from tournament import BREAK_KINDS, Break, ChainState, ExportFilter, Record, as_dict, unshown_at

from .api_types import Role, Time

Hash = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]


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
    shown_valid: Annotated[
        bool | None,
        Meta(
            description="An offline verdict's joint verdict as its phone showed it: `valid` (another is never "
            "recorded). Null on an offline row: the phone did not say (a page from before it), so what the "
            "players saw is not on the record, and the console marks the row; null on an online row."
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

    second_not_shown: Annotated[
        Time | None,
        Meta(
            description="An online row with a second opinion whose phone never showed it: having had no answer, "
            "the phone judged the play itself, the same verdict with the event's list, and showed it alone at "
            "this time (its phone's clock). The row is as recorded; the players did not see its second opinion, "
            "and the console marks it. Null: none such."
        ),
    ] = None

    @classmethod
    def of(cls, record: Record, intact: bool, unshown: Mapping[int, tuple[str | None, str]]) -> RecordInfo:
        """The row, its check, and its mark among `unshown` (EventStore.unshown_seconds)."""
        return cls(**as_dict(record), intact=intact, second_not_shown=unshown_at(unshown, record.seq))


class ChainBreak(Struct):
    seq: Annotated[int, Meta(description="The first row that does not chain.")]
    reason: Annotated[str, Meta(description="Why, in English (for tools and logs; a page says `kind`).")]
    kind: Annotated[
        Literal[tuple(BREAK_KINDS)],
        Meta(
            description="What was found, for a page to say in its reader's language (tournament.integrity.BREAK_KINDS)."
        ),
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


class FilterInfo(Struct):
    """What an export was asked for, said in it so that `lexicon records verify` checks it as that:
    a whole record's export (every member null) with a gap has rows deleted; a filtered one is
    checked as filtered, every row of it (tournament/export_filter.py)."""

    round: int | None
    table: str | None
    device: int | None

    @classmethod
    def of(cls, asked: ExportFilter) -> FilterInfo:
        return cls(asked.round, asked.table, asked.device)


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
    filter: Annotated[
        FilterInfo | UnsetType,
        Meta(
            description=(
                "An export's (with `format`) only: the filters it was asked for, null for any (all null: the "
                "whole record), which `lexicon records verify` checks it against. A CSV export says the same "
                "object, as compact JSON, in its last column, `filter`."
            )
        ),
    ] = UNSET
