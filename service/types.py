"""The challenge's bodies, declared once: what a play to judge (one, or a batch of them) may hold,
and what its verdict holds.

The service reads every challenge and batch into these types with msgspec (that is the
validation: types, members, lengths, counts), writes their verdicts from them, and the OpenAPI
document takes its schema components from them (`msgspec.json.schema_components`): what is
checked and what is documented cannot drift apart.

What a type cannot say is said in its description and checked by the core after decoding:
whether a string is a word of tiles depends on the lexicon's language and on the notation.

The lexicon's identity is `lexicon.verdict.Identity`, a dataclass of the core (which knows
nothing of msgspec); msgspec encodes it and derives its schema as it is.

The other bodies of the API have modules of their own, as concepts of their own: the members
only an event reads or writes (service/event_members.py), the lexicon listing and the probes
(service/status_types.py), a problem's details (service/problems.py), tournament mode's
endpoints (service/event/api_types.py and its siblings).
"""

from typing import Annotated, Literal

from msgspec import UNSET, Meta, Raw, Struct, UnsetType
from msgspec.structs import astuple

from lexicon.alphabet import NOTATIONS, longest_spelling
from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS
from lexicon.verdict import Identity

from .config import MAX_PLAY_ID, MAX_PLAYS
from .event_members import (
    DeviceTime,
    EventFileSeen,
    IdempotencyKey,
    LastKey,
    LexiconChecksum,
    RecordNumber,
    RecordRound,
    ShownRound,
    ShownValid,
    SlipTable,
)

# A word is at most MAX_TILES tiles, each written in at most longest_spelling() characters (`[L·L]`
# in the tiles notation), each of which may come decomposed (NFD: a letter and its accent); the
# core ignores white space around a word, of which WHITE_SPACE_CHARS are allowed. No longer string
# can be a word the core accepts, and every word it accepts fits.
WHITE_SPACE_CHARS = 64
MAX_WORD_CHARS = 2 * longest_spelling() * MAX_TILES + WHITE_SPACE_CHARS

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
    shown_valid: ShownValid | UnsetType = UNSET
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


def given(value: Struct) -> int:
    """How many members of a decoded body were given (not left UNSET): a member given twice makes
    the body's count of member names larger (service.decoding.members).

    Counted on msgspec's tuple of the values, in C: a generator over the fields cost 0.8 µs of
    each challenge, this 0.1 µs. `tuple.count` tests identity first, and no member's type
    (strings, booleans, lists, Raw, None) equals UNSET otherwise.
    """
    values = astuple(value)
    return len(values) - values.count(UNSET)
