"""The bodies of the HTTP API, declared once: what a request may hold and what an answer holds.

The service reads every request body into these types with msgspec (that is the validation:
types, members, lengths, counts), writes its answers from them, and the OpenAPI document takes
its schema components from them (`msgspec.json.schema_components`): what is checked and what is
documented cannot drift apart.

What a type cannot say is said in its description and checked by the core after decoding:
whether a string is a word of tiles depends on the lexicon's language and on the notation.

The lexicon's identity is `lexicon.verdict.Identity`, a dataclass of the core (which knows
nothing of msgspec); msgspec encodes it and derives its schema as it is.
"""

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Raw, Struct, UnsetType
from msgspec.structs import astuple

from lexicon.alphabet import NOTATIONS, longest_spelling
from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS
from lexicon.verdict import Identity

from .config import MAX_PLAY_ID, MAX_PLAYS

# A word is at most MAX_TILES tiles, each written in at most longest_spelling() characters (`[L·L]`
# in the tiles notation), each of which may come decomposed (NFD: a letter and its accent); the
# core ignores white space around a word, of which WHITE_SPACE_CHARS are allowed. No longer string
# can be a word the core accepts, and every word it accepts fits.
WHITE_SPACE_CHARS = 64
MAX_WORD_CHARS = 2 * longest_spelling() * MAX_TILES + WHITE_SPACE_CHARS

SHA256 = Meta(pattern="^[0-9a-f]{64}$")

Word = Annotated[
    str,
    Meta(
        max_length=MAX_WORD_CHARS,
        description=f"A word of {MIN_TILES} to {MAX_TILES} tiles of the lexicon's language, at most "
        f"{MAX_WORD_CHARS} characters; surrounding white space is ignored. Which characters "
        "are tiles depends on the language and the notation, which no schema can say: a "
        "string that is no word of tiles gets 422 `empty-word`, `not-a-tile` or `word-length`.",
    ),
]

Words = Annotated[
    list[Word],
    Meta(
        min_length=MIN_WORDS,
        max_length=MAX_WORDS,
        description=f"All the words formed by one play, {MIN_WORDS} to {MAX_WORDS}.",
        examples=[["CARRO", "CHICO"]],
    ),
]

Notation = Annotated[
    Literal[NOTATIONS],
    Meta(  # Literal of a tuple: each of its members
        description="`spelling`: natural spelling (CARRO, COL·LEGI, camión; CH, LL, RR, L·L, NY, QU "
        "read as one tile). `tiles`: engine tile notation ([CH], [LL], [RR] or 1 2 3; "
        "L·L or W, NY or Y, QU or Q, Ç or K; plain CH is two tiles).",
        extra_json_schema={"default": "spelling"},
    ),
]

LexiconName = Annotated[
    str,
    Meta(
        description="A lexicon's id, or a language code (`es`, `ca`) for that language's default.",
        examples=["es"],
    ),
]

PlayId = Annotated[
    str,
    Meta(
        max_length=MAX_PLAY_ID,
        description="Anything that names the slip, e.g. table and round; echoed back.",
    ),
]

# A key or a table is text a person could type: no control character (C0, DEL, C1), which the
# record could not hold (PostgreSQL refuses a NUL) or would show garbled; a lookahead, so that a
# trailing newline is caught too (`$` of Python's re matches before one).
NO_CONTROL = r"^(?!.*[\x00-\x1f\x7f-\x9f])"

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
        pattern=r"^[0-9a-f]{16}$",
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

DeviceTime = Annotated[
    str,
    Meta(
        pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$",
        description="In an event, with `offline`: when the device gave the verdict, by its clock (UTC, "
        "2026-11-22T10:31:07.120034Z).",
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
        pattern=r"^[0-9a-f]{64}$",
        description="In an event, with `offline`: the checksum of the lexicon the device judged with "
        "(its `lexicon.checksum`); the verdict is recorded only if the service judges with "
        "that very lexicon (else 409 `offline-lexicon-changed`).",
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

Second = Annotated[
    bool,
    Meta(
        description="Ask for the second opinion too (the lexicon LEXICON_SECOND names for this "
        "lexicon's language): the answer then carries `second`, the joint verdict of that "
        "lexicon on the same words. Without it, the server's LEXICON_SECOND_ALWAYS decides. "
        "`true` for a lexicon without a second opinion is refused (422 `no-second-opinion`).",
    ),
]

PLAYS = Meta(min_length=1, max_length=MAX_PLAYS, description=f"1 to {MAX_PLAYS} plays, judged in order.")


# -- requests -------------------------------------------------------------------------------------


class ChallengeRequest(Struct, forbid_unknown_fields=True):
    """One play to judge."""

    lexicon: LexiconName
    words: Words
    notation: Notation | UnsetType = UNSET
    table: SlipTable | UnsetType = UNSET
    idempotency_key: IdempotencyKey | UnsetType = UNSET
    offline: (
        Annotated[
            bool,
            Meta(
                description="In an event: a verdict the device gave without the "
                "server, sent now (needs `idempotency_key`, `device_time` "
                "and `checksum`); only from a paired judge device."
            ),
        ]
        | UnsetType
    ) = UNSET
    device_time: DeviceTime | UnsetType = UNSET
    checksum: LexiconChecksum | UnsetType = UNSET
    second: Second | UnsetType = UNSET
    round: ShownRound | None | UnsetType = UNSET
    event_file: EventFileSeen | UnsetType = UNSET
    last_key: LastKey | UnsetType = UNSET


class Play(Struct, forbid_unknown_fields=True, kw_only=True):
    """One play of a batch."""

    id: PlayId | None | UnsetType = UNSET
    words: Words
    table: SlipTable | UnsetType = UNSET
    idempotency_key: IdempotencyKey | UnsetType = UNSET


class BatchRequest(Struct, forbid_unknown_fields=True):
    """A stack of slips: plays of one lexicon, one joint verdict each."""

    lexicon: LexiconName
    plays: Annotated[list[Play], PLAYS]
    notation: Notation | UnsetType = UNSET
    second: Second | UnsetType = UNSET
    event_file: EventFileSeen | UnsetType = UNSET
    last_key: LastKey | UnsetType = UNSET


class BatchEnvelope(BatchRequest, forbid_unknown_fields=True):
    """How the service reads a BatchRequest: the plays apart, so an error in each is listed."""

    plays: Annotated[list[Raw], PLAYS]


# -- answers ---------------------------------------------------------------------------------------


class SecondVerdict(Struct):
    """The second opinion: the joint verdict of another lexicon of the language on the same words.
    It never changes `valid`, and never says which word either."""

    valid: bool
    lexicon: Identity


class Verdict(Struct):
    """The joint verdict on one play, and which list gave it."""

    valid: bool
    lexicon: Identity
    second: SecondVerdict | UnsetType = UNSET
    record: RecordNumber | UnsetType = UNSET
    round: RecordRound | None | UnsetType = UNSET


class SecondResult(Struct):
    """A play's second opinion in a batch (the lexicon is the batch's `second.lexicon`)."""

    valid: bool


class PlayResult(Struct):
    id: str | None
    valid: bool
    record: RecordNumber | UnsetType = UNSET
    round: RecordRound | None | UnsetType = UNSET
    second: SecondResult | UnsetType = UNSET


class SecondLexicon(Struct):
    """Which lexicon gave a batch's second opinions."""

    lexicon: Identity


class BatchResult(Struct):
    """One verdict per play, in the order of the request."""

    results: list[PlayResult]
    lexicon: Identity
    second: SecondLexicon | UnsetType = UNSET


@dataclass(frozen=True)
class LexiconInfo(Identity):
    """A loaded lexicon: its identity, and what a director checks before an event."""

    language: str
    words: Annotated[int, Meta(ge=0)]
    words_sha256: Annotated[str, SHA256, Meta(description="SHA-256 of `lexicon dump`: the words themselves.")]
    default: Annotated[bool, Meta(description="Whether the language code names this lexicon.")]
    source: str
    licence: str
    state: (
        Annotated[
            Literal["stale"],
            Meta(
                description=(
                    "Present when the file on disk no longer holds the bytes verified and served; answers "
                    "still come from those."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    file: Annotated[str, Meta(description="With `state`: the name of that file.")] | UnsetType = UNSET


class LexiconList(Struct):
    lexicons: list[LexiconInfo]


class Health(Struct):
    status: Literal["ok"]


class Ready(Struct):
    status: Literal["ready", "stale"]
    lexicons: list[str]
    stale: (
        Annotated[
            list[str],
            Meta(
                description=(
                    "Files changed on disk since they were verified: still ready, answering from the verified copy."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    event: (
        Annotated[
            str,
            Meta(
                description=(
                    "In tournament mode, the event this instance serves (an opaque id, the same for every "
                    "instance of one event file): a front end or a check compares it across instances."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    event_file: (
        Annotated[
            str,
            Meta(
                description=(
                    "In tournament mode, the identity of the event file this instance serves (16 hex digits): "
                    "no two files share one, a backup copy is not served until `lexicon event restore` gives it "
                    "its own, so two instances showing the same `event` and different `event_file` split the record."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    event_lexicon: (
        Annotated[
            str,
            Meta(
                description=(
                    "In tournament mode, the SHA-256 of the lexicon the event is pinned to (every instance of "
                    "the event serves these very bytes)."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    events: (
        Annotated[
            Literal["database"],
            Meta(
                description=(
                    "A service of every event in a database: each event at /e/ID/ (its own /readyz there), "
                    "none listed here."
                )
            ),
        ]
        | UnsetType
    ) = UNSET


class ProblemDetails(Struct):
    """RFC 9457 problem details. Input errors quote what was typed and never say anything about
    the lexicon. Plain HTTP errors (404 path, 405, 408, 413, 500) are `about:blank`."""

    type: Annotated[str, Meta(extra_json_schema={"format": "uri-reference"})]
    title: str
    status: Annotated[int, Meta(ge=400, le=599)]
    detail: str
    word: Annotated[int, Meta(ge=1, description="The word's 1-based place in its play.")] | UnsetType = UNSET
    input: Annotated[str, Meta(description="The word as typed.")] | UnsetType = UNSET
    character: Annotated[str, Meta(description="The character that is no tile.")] | UnsetType = UNSET
    position: Annotated[int, Meta(ge=1, description="Its 1-based place in the word.")] | UnsetType = UNSET
    reason: str | UnsetType = UNSET
    tiles: Annotated[int, Meta(description="How many tiles the word has.")] | UnsetType = UNSET
    count: Annotated[int, Meta(description="How many words the play has.")] | UnsetType = UNSET
    play: Annotated[int, Meta(ge=1, description="The play's 1-based place in a batch.")] | UnsetType = UNSET
    id: Annotated[str | None, Meta(description="The play's id in a batch.")] | UnsetType = UNSET
    pointer: Annotated[str, Meta(description="JSON Pointer (RFC 6901) to the body member at fault.")] | UnsetType = (
        UNSET
    )
    parameter: Annotated[str, Meta(description="The query parameter at fault.")] | UnsetType = UNSET
    lexicon: Annotated[str, Meta(description="The lexicon name asked for.")] | UnsetType = UNSET
    known: Annotated[list[str], Meta(description="The names this server answers to.")] | UnsetType = UNSET
    limit: Annotated[int, Meta(description="The body limit in bytes.")] | UnsetType = UNSET
    retry_after: Annotated[int, Meta(description="Seconds to wait (as the Retry-After header).")] | UnsetType = UNSET
    record: (
        Annotated[
            int,
            Meta(
                ge=1,
                description="An `idempotency-conflict` answered to the device that recorded the key's row: "
                "that row's number (the verdict is in the record). Never to another device.",
            ),
        ]
        | UnsetType
    ) = UNSET
    errors: (
        Annotated[
            list[dict[str, Any]],
            Meta(
                description="In a batch: one entry per play with an error, each with the members above; "
                "the top-level members are those of the first."
            ),
        ]
        | UnsetType
    ) = UNSET


# The components of the OpenAPI document, in the order they are listed there.
COMPONENTS = (
    Identity,
    Verdict,
    SecondVerdict,
    ChallengeRequest,
    Play,
    BatchRequest,
    BatchResult,
    LexiconList,
    LexiconInfo,
    Health,
    Ready,
    ProblemDetails,
)


def given(value: Struct) -> int:
    """How many members of a decoded body were given (not left UNSET): a member given twice makes
    the body's count of member names larger (service.decoding.members).

    Counted on msgspec's tuple of the values, in C: a generator over the fields cost 0.8 µs of
    each challenge, this 0.1 µs. `tuple.count` tests identity first, and no member's type
    (strings, booleans, lists, Raw, None) equals UNSET otherwise.
    """
    values = astuple(value)
    return len(values) - values.count(UNSET)
