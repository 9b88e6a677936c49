"""Problem details (RFC 9457): every error this service answers, as application/problem+json.

A problem has `type`, `title`, `status` and `detail`, and extension members that point at what
was wrong with the input: `word` (its 1-based place in the play), `input` (the word as typed),
`character` and `position` (1-based) for a character that is no tile, `play` and `id` for a
play of a batch, `pointer` (a JSON Pointer into the body) or `parameter` (a query parameter)
for a request that does not fit the API. Input errors are about what was typed, never about the
lexicon: nothing here says whether any word is in it. The body is `ProblemDetails`, declared
here beside the problem types: the type that writes it is the one the OpenAPI document shows.

Types specific to this API are `tag:` URIs (RFC 4151; RFC 9457 allows non-resolvable type URIs);
plain HTTP errors (unknown path, wrong method, body too large or compressed) use `about:blank`
with the status's own title.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Annotated, Any

from msgspec import UNSET, Meta, Struct, UnsetType

from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS
from lexicon.errors import EmptyWordError, InputError, PlaySizeError, TileError, WordLengthError

from .registry import dumps

TYPE_BASE = "tag:lexicon-judge,2026:problem/"
MEDIA_TYPE = "application/problem+json"
# The Retry-After of every 503 `record-unavailable`: mostly one that passes with no one acting (a
# file or a database busy or away for a moment, an instance answering as many events as it serves);
# an event file replaced under the service is one too, which the director mends in a moment (put
# it back, or `lexicon reload`), and a client asking again then is answered. One that lasts until a
# restart or an operator's change (`record-failed`, `record-damaged`, `event-lexicon-missing`) promises no time: a
# client asking again at it would only be refused again.
AGAIN_SOON = 5

# name: (status, title)
TYPES: dict[str, tuple[int, str]] = {
    "invalid-json": (400, "The body is not JSON"),
    "invalid-request": (422, "The request does not fit the API"),
    "play-size": (422, f"A play has {MIN_WORDS} to {MAX_WORDS} words"),
    "empty-word": (422, "A word is empty"),
    "not-a-tile": (422, "A character is not a tile"),
    "word-length": (422, f"A word has {MIN_TILES} to {MAX_TILES} tiles"),
    "no-second-opinion": (422, "This lexicon has no second opinion here"),
    "unknown-lexicon": (404, "No such lexicon here"),
    "token-required": (401, "This service needs the venue token"),
    "not-ready": (503, "The lexicons are not loaded"),
    # tournament mode (service.event.http)
    "device-unknown": (401, "This device is not paired"),
    "device-revoked": (401, "This device is no longer paired"),
    "director-required": (401, "Log in as the director"),
    "wrong-password": (401, "Wrong password"),
    "login-locked": (429, "The login is locked for a minute"),
    "link-refused": (401, "This login link does not sign in"),
    "cross-origin": (403, "A request from another site"),
    "foreign-host": (403, "A request from this computer under another site's name"),
    "director-only": (403, "Only the director reads the record and runs the event"),
    "lookups-closed": (403, "Lookups are closed during rounds"),
    "no-round": (403, "No round is open"),
    "event-lexicon": (403, "Every verdict of the event is judged with its lexicon"),
    "event-lexicon-missing": (503, "The event's lexicon is not served here"),
    "slip-not-allowed": (422, "Only a judge's challenge carries a slip's table"),
    "rate-limited": (429, "Too many challenges from this device"),
    "second-not-allowed": (403, "A table device gets no second opinion"),
    "plays-limited": (429, "Too many plays recorded from this address"),
    "batch-too-large": (403, "Without a device, a batch holds a few plays"),
    "one-play-per-gap": (403, "This device gets one verdict per gap: send one play at a time"),
    "pairing-refused": (400, "This pairing code does not work"),
    "pairing-limited": (429, "Too many wrong pairing codes from this address"),
    "unknown-device": (404, "No such device"),
    "device-name-taken": (409, "Another device of the event has this name"),
    "unknown-record": (404, "No such record"),
    "round-conflict": (409, "The rounds do not allow it"),
    "idempotency-conflict": (409, "This key was used for another verdict"),
    "idempotency-key-required": (422, "In an event a verdict to record needs its idempotency_key"),
    "event-file-split": (409, "This device was answered by another file of the event"),
    "event-moved": (410, "This event was moved elsewhere: nothing more is recorded here"),
    "offline-not-allowed": (403, "Only a paired judge device judges offline"),
    "offline-time": (422, "The time of this offline verdict cannot be believed"),
    "offline-lexicon-changed": (409, "The lexicon changed since this offline verdict"),
    "offline-verdict-differs": (
        409,
        "This offline verdict is not the service's: the phone's list and the service's disagree",
    ),
    "record-tampered": (409, "The record was edited by hand"),
    "table-missing": (409, "This table device has no table"),
    "record-unavailable": (503, "The record cannot be written: no verdict is given"),
    "record-failed": (503, "The disk failed writing the record: nothing is recorded until a restart"),
    "record-damaged": (503, "The event's file is damaged: nothing is recorded in it"),
}


class ProblemDetails(Struct):
    """RFC 9457 problem details. Input errors quote what was typed and never say anything about
    the lexicon. Plain HTTP errors (404 path, 405, 408, 413, 415, 500) are `about:blank`."""

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
    known: (
        Annotated[
            list[str],
            Meta(description="The lexicon names to use here: every one served, or in an event its lexicon's alone."),
        ]
        | UnsetType
    ) = UNSET
    limit: Annotated[int, Meta(description="The body limit in bytes.")] | UnsetType = UNSET
    retry_after: Annotated[int, Meta(description="Seconds to wait (as the Retry-After header).")] | UnsetType = UNSET
    record: (
        Annotated[
            int,
            Meta(
                ge=1,
                description="An `idempotency-conflict` answered to the device that recorded the key's row: "
                "that row's number (the verdict is in the record). An offline verdict refused "
                "(`offline-verdict-differs`, `offline-lexicon-changed`) whose play that device's online "
                "challenge, under the same key, had recorded while its phone waited: that row's number "
                "(a verdict its players may not have been shown). Never to another device.",
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


class Problem(Exception):
    """An answer that is a problem; raise it anywhere in a request, the app renders it.

    Its extension members are fields of `ProblemDetails`, the type that writes the body
    and documents it: a member must be declared there before it can be used here.
    """

    def __init__(
        self,
        kind: str | None,
        detail: str,
        status: int | None = None,
        headers: dict[str, str] | None = None,
        **extensions: Any,
    ):
        if kind is None:  # a plain HTTP problem
            assert status is not None
            self.type = "about:blank"
            self.status = status
            self.title = HTTPStatus(status).phrase
        else:
            self.status, self.title = TYPES[kind]
            self.type = TYPE_BASE + kind
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.headers = headers or {}
        self.extensions = extensions

    def body(self) -> bytes:
        return dumps(ProblemDetails(self.type, self.title, self.status, self.detail, **self.extensions))

    @classmethod
    def later(cls, kind: str, detail: str, seconds: int) -> Problem:
        """A refusal that says when to ask again: in the detail, the `retry_after` member and the
        `Retry-After` header, all three the same number of seconds."""
        return cls(kind, detail, headers={"Retry-After": str(seconds)}, retry_after=seconds)


def input_members(error: InputError) -> tuple[str, dict[str, Any]]:
    """The problem type and extension members of a core input error (word index not included)."""
    if isinstance(error, TileError):
        return "not-a-tile", {
            "input": error.word,
            "character": error.char,
            "position": error.position,
            "reason": error.reason,
        }
    if isinstance(error, WordLengthError):
        return "word-length", {"input": error.word, "tiles": error.tiles}
    if isinstance(error, EmptyWordError):
        return "empty-word", {"input": error.word}
    if isinstance(error, PlaySizeError):
        return "play-size", {"count": error.count}
    return "invalid-request", {"input": error.word}  # pragma: no cover - every core error is above


def from_input_error(error: InputError) -> Problem:
    """A core input error of one play, told which word it is about (when the play has one)."""
    kind, members = input_members(error)
    if isinstance(error, PlaySizeError) or error.index is None:
        return Problem(kind, error.message, **members)
    return Problem(kind, f"word {error.index}: {error.message}", word=error.index, **members)
