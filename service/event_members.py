"""The members of a challenge that only an event reads, and of its answer that only an event writes.

In tournament mode a challenge carries more than a play: the slip's table (mesa), the key that
records it once, what an offline verdict says of itself (when, in which round, with which
lexicon), and which file of the event the device saw; its answer carries the record's number
and round for the slip (papeleta). Outside an event none is given. Each is declared here once,
with what it must be and what it means; the challenge's and the batch's types (service/types.py)
hold them, and service/decoding.py says which of them only an event takes.

They are apart from the challenge's types because they are the event's part of it, read and
written by tournament mode; and in the web package's common part, not in service/event/,
because that part never imports the event's.
"""

from typing import Annotated

from msgspec import Meta

# A key or a table is text a person could type: no control character (C0, DEL, C1), which the
# record could not hold (PostgreSQL refuses a NUL) or would show garbled; a lookahead, so that a
# trailing newline is caught too (`$` of Python's re matches before one).
NO_CONTROL = r"^(?!.*[\x00-\x1f\x7f-\x9f])"
# The end of a member of one fixed form (a time, a checksum, a file's identity): `$` alone lets
# a trailing newline through in Python's re (msgspec's), which then reached the event as a time
# no calendar has, another lexicon, another file; the lookahead refuses it, and reads the same in
# the JSON Schema's (ECMA-262) patterns, where `$` is already the end.
END = r"(?!\n)$"
# An event file's identity (`file` of GET /v1/event), as a device sends it back: in a body
# (EventFileSeen), in the heartbeat's query (service/event/witness.py) and in the document.
EVENT_FILE = r"^[0-9a-f]{16}" + END

SlipTable = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=60,
        pattern=NO_CONTROL,
        description="In an event, a judge's slip: the table (mesa) the play was at. A table device's "
        "records carry its own table; other devices may not give one.",
    ),
]

IdempotencyKey = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=64,
        pattern=NO_CONTROL,
        description="In an event: a key naming this verdict, so that sending it again (an offline "
        "queue, a retry) records it once and answers the same record number. Required in an event: "
        "a verdict to record without it is refused (422 `idempotency-key-required`), nothing recorded.",
    ),
]

EventFileSeen = Annotated[
    str,
    Meta(
        pattern=EVENT_FILE,
        description="In an event, from a paired device: the identity of the event file that first answered "
        "it (`file` of GET /v1/event), as it was when this verdict was judged. Another file's (not the one "
        "this file was restored from) is refused (409 `event-file-split`), nothing recorded: two files "
        "are served for one event.",
    ),
]

LastKey = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=64,
        pattern=NO_CONTROL,
        description="In an event, from a paired device: the `idempotency_key` of its last verdict recorded. "
        "When `event_file` names this file (or the one it was restored from) but it holds no verdict of that "
        "key, a copy of it (or an older backup) is served beside it or in its place: refused (409 "
        "`event-file-split`), nothing recorded.",
    ),
]

# An offline verdict's time as a device may write it: RFC 3339's date-time (ISO 8601's profile),
# with 0 to 9 digits of a second and Z or an offset (JavaScript's toISOString writes 3 digits and
# Z), T and Z in either case as RFC 3339 allows. Its groups are read by
# service/event/offline_time.py, which turns it into the record's one form (`stamp`: 6 digits, Z).
# [0-9], not \d: Python's \d is any decimal digit (Arabic-Indic, full-width), which the record's
# times never hold and the console could not show.
DEVICE_TIME = (
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))" + END
)

DeviceTime = Annotated[
    str,
    Meta(
        pattern=DEVICE_TIME,
        description="In an event, with `offline`: when the device gave the verdict, by its clock: an "
        "RFC 3339 time with Z or an offset and 0 to 9 digits of a second (2026-11-22T10:31:07.120Z, "
        "JavaScript's `toISOString()`; 2026-11-22T11:31:07+01:00). The record keeps it in UTC to the "
        "microsecond (2026-11-22T10:31:07.120000Z), further digits dropped.",
    ),
]

ShownRound = Annotated[
    float,  # a whole number; JSON Schema's integer takes 10.0 too, so the type reads both
    Meta(
        ge=1,
        le=2**53 - 1,
        multiple_of=1,
        description="In an event, with `offline`: the round the phone showed with the verdict, a whole number (null: "
        "none). The record files the verdict in it if that round was open at `device_time`, even if "
        "it has closed since; otherwise outside rounds, the row keeping the round shown (`shown_round`).",
    ),
]

LexiconChecksum = Annotated[
    str,
    Meta(
        pattern=r"^[0-9a-f]{64}" + END,
        description="In an event, with `offline`: the checksum of the lexicon the device judged with "
        "(its `lexicon.checksum`); the verdict is recorded only if the service judges with "
        "that very lexicon (else 409 `offline-lexicon-changed`).",
    ),
]

ShownValid = Annotated[
    bool,
    Meta(
        description="In an event, with `offline`: the joint verdict the phone showed (true: valid). The "
        "verdict is recorded only if the service, judging the same words with the same lexicon, gives "
        "the same one; else it is refused (409 `offline-verdict-differs`), nothing recorded: the phone's "
        "copy of the list and the service's disagree, and the record never holds a verdict no device "
        "showed. Without it (a page older than it) the service's verdict is recorded.",
    ),
]

RecordNumber = Annotated[
    int,
    Meta(
        ge=1,
        description="In an event: the record's number for this verdict, to write on the slip "
        "(papeleta). Absent outside an event.",
    ),
]

RecordRound = Annotated[
    int,
    Meta(
        ge=1,
        description="In an event: the round the record gives this verdict (null: written while no "
        "round was open), the one to write on the slip. Absent outside an event.",
    ),
]
