"""Reading a request body into its type (service/types.py), and what does not fit as a Problem.

msgspec decodes and validates in one pass; its error says what and where (`$.words[2]`), which
becomes the `pointer` and a detail that quotes the input. Two more kinds of bad input are 422
here, though msgspec takes the one and calls the other no JSON: a member given twice (msgspec
keeps the last, so the member names are counted), and a lone surrogate (`"\\ud800"`: JSON, but
no Unicode text). Only a body that does not fit is read again, by Python's json, to tell which.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote_to_bytes

import msgspec

from lexicon.board import MAX_WORDS, MIN_WORDS
from lexicon.errors import show_word

from .config import MAX_PLAY_ID, MAX_PLAYS, NOTATIONS
from .problems import Problem
from .types import MAX_WORD_CHARS, BatchEnvelope, ChallengeRequest, Play

# Decoding a body into its type (service.types) is the validation; the decoders are made once.
CHALLENGE = msgspec.json.Decoder(ChallengeRequest)
BATCH = msgspec.json.Decoder(BatchEnvelope)
PLAY = msgspec.json.Decoder(Play)

# The end of a member name: a quote, then a colon. Outside strings nothing else has it, and a
# string holds a quote only escaped (\"), so a body has at least as many of these as members.
# msgspec keeps the last of a repeated member: when this count is more than the members decoded,
# the body is read again, slowly, to find the member given twice (or an escaped quote).
_MEMBER_END = re.compile(rb'"[ \t\r\n]*:')

# A body nested deeper than the interpreter's recursion limit (about a thousand arrays or objects,
# less the frames of the request): no request of this API nests more than four deep.
TOO_DEEP = "the body is not JSON this service reads: nested too deeply"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a pair is decoded to one character: what is left is alone
# An event's members of a challenge (service.event_members), and what each must be: a refusal's words
# for a body's member here, and for the heartbeat's last_key (service/event/witness.py).
SLIP = {
    "table": "a table of 1 to 60 characters, none a control character",
    "idempotency_key": "a string of 1 to 64 characters, none a control character",
    "last_key": "an idempotency key, 1 to 64 characters, none a control character",
    "offline": "true or false",
    "device_time": "an RFC 3339 time like 2026-11-22T10:31:07.120Z or 2026-11-22T11:31:07+01:00",
    "checksum": "a lexicon's checksum, 64 hexadecimal digits in lower case",
    "round": "the number of the round the phone showed (a whole number from 1), or null",
    "shown_valid": "true or false: the verdict the phone showed",
}
_KINDS = {str: "a string", float: "a number", bool: "a boolean", type(None): "null", list: "an array"}


def members(data: bytes) -> int:
    """At least as many as the member names in the body, and exactly as many unless a string
    holds an escaped quote before a colon. When every colon follows a quote at once (no white
    space before a colon, no colon in a string: nearly every body), counting those is enough."""
    quoted = data.count(b'":')
    if quoted == data.count(b":"):
        return quoted
    return len(_MEMBER_END.findall(data))


def decode(decoder: msgspec.json.Decoder, data: bytes | msgspec.Raw, pointer: str = "", play: int | None = None):
    """The body (or one play of a batch) as its type, or the Problem saying what does not fit."""
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as error:
        raise misfit(str(error), decoder.type, parse(data, pointer), pointer, play) from None
    except UnicodeDecodeError as error:
        raise not_utf8(error) from None
    except msgspec.DecodeError as error:
        parse(data, pointer)  # a lone surrogate is a 422 of its own (what msgspec refuses, Python reads)
        raise Problem("invalid-json", f"the body is not JSON: {error}") from None
    except RecursionError:  # msgspec, like Python's json, stops at the interpreter's recursion limit
        raise Problem("invalid-json", TOO_DEEP) from None


BOM = (
    "the body is not JSON: it begins with a byte-order mark (the bytes EF BB BF), which JSON sent "
    "over a network may not have (RFC 8259, 8.1): send the body without it"
)


def not_json(error: json.JSONDecodeError) -> Problem:
    """A body that is text but no JSON: 400 quoting it where it stops being JSON (a few
    characters from there), besides Python's line and column. Only a challenge's or a batch's
    body, and the console's QR text (service/director.py), is quoted so: a tournament body may
    hold a password (service/event/bodies.py). A body that begins with a byte-order mark (a file
    saved by Windows tools, sent as it is) is told so in words for any client, not Python's advice
    to decode with utf-8-sig.

    >>> not_json(json.JSONDecodeError("Expecting value", '{"words": [SOL]}', 11)).detail
    "the body is not JSON: Expecting value: line 1 column 12 (char 11), at 'SOL]}'"
    """
    if error.doc.startswith("\ufeff"):
        return Problem("invalid-json", BOM)
    rest = error.doc[error.pos :]
    shown = "the end of the body" if not rest else repr(rest if len(rest) <= QUOTED else rest[: QUOTED - 1] + "…")
    return Problem("invalid-json", f"the body is not JSON: {error}, at {shown}")


QUOTED = 20  # characters of a body quoted where it stops being JSON


def not_utf8(error: UnicodeDecodeError) -> Problem:
    """A body that is not UTF-8 text is no JSON (RFC 8259): 400, saying which byte and where.

    >>> not_utf8(UnicodeDecodeError("utf-8", b'{"a":"\\xff"}', 6, 7, "invalid start byte")).detail
    'the body is not JSON: it is not UTF-8 text (byte 0xff at offset 6: invalid start byte)'
    """
    byte = error.object[error.start : error.start + 1].hex()
    return Problem(
        "invalid-json",
        f"the body is not JSON: it is not UTF-8 text (byte 0x{byte} at offset {error.start}: {error.reason})",
    )


def query_not_utf8(query: bytes) -> Problem | None:
    """A query string with a parameter whose name or value is no UTF-8 once percent-decoded: a
    400 naming it (`parameter`), the byte and where, as for a body; None when it is all text.
    Werkzeug would read such bytes as U+FFFD: `?table=%FF` was a table named U+FFFD.

    >>> query_not_utf8(b"lexicon=es&word=%C3%91U&word=CAS%FF").detail
    "the parameter word is not UTF-8 once percent-decoded ('word=CAS%FF': byte 0xff at 3: invalid start byte): send the UTF-8 bytes of the text (Ñ is %C3%91)"
    >>> query_not_utf8(b"%FF=1").extensions["parameter"], query_not_utf8(b"table=Mesa%209&word=%C3%91U")
    ('a name', None)
    """
    if query.isascii() and b"%" not in query:
        return None
    for pair in query.split(b"&"):
        name, _, value = pair.partition(b"=")
        parameter = "a name"
        try:
            parameter = unquote_to_bytes(name.replace(b"+", b" ")).decode("utf-8")[:60]
            unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError as error:
            shown = pair.decode("ascii", "backslashreplace")
            shown = shown if len(shown) <= 80 else shown[:79] + "\u2026"
            byte = error.object[error.start : error.start + 1].hex()
            return Problem(
                None,
                f"the parameter {parameter} is not UTF-8 once percent-decoded ({shown!r}: byte 0x{byte} at "
                f"{error.start}: {error.reason}): send the UTF-8 bytes of the text (Ñ is %C3%91)",
                status=400,
                parameter=parameter,
            )
    return None


class _Object(dict):
    """A JSON object as Python reads it, remembering the first member given twice."""

    repeated: str | None = None


def _object_pairs(pairs: list[tuple[str, Any]]) -> _Object:
    value = _Object(pairs)
    if len(value) < len(pairs):
        seen: set[str] = set()
        value.repeated = next(name for name, _ in pairs if name in seen or seen.add(name))
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON value")


def parse(data: bytes | msgspec.Raw, pointer: str = "") -> Any:
    """The body as Python values, read only when msgspec refused it or a member may be repeated.

    400 if it is not JSON; 422 for what is JSON but no request: a member given twice, or a lone
    surrogate (JSON's `"\\ud800"`, which is no Unicode text) in a string or a member name.
    """
    try:
        value = json.loads(
            bytes(data).decode("utf-8"), parse_int=float, parse_constant=_no_constant, object_pairs_hook=_object_pairs
        )
        defect = _defect(value, pointer)
    except RecursionError:
        raise Problem("invalid-json", TOO_DEEP) from None
    except UnicodeDecodeError as error:
        raise not_utf8(error) from None
    except json.JSONDecodeError as error:
        raise not_json(error) from None
    except ValueError as error:  # a constant JSON has not (NaN, Infinity): no place to quote
        raise Problem("invalid-json", f"the body is not JSON: {error}") from None
    if defect is not None:
        raise Problem("invalid-request", defect[1], pointer=defect[0])
    return value


def _pointer_step(name: str) -> str:
    """A member's name as one step of a JSON pointer (RFC 6901)."""
    return name.replace("~", "~0").replace("/", "~1")


def _defect(value: Any, pointer: str) -> tuple[str, str] | None:
    """(pointer, detail) of the first member given twice or lone surrogate in the value."""
    if isinstance(value, str):
        if _LONE_SURROGATE.search(value):
            return pointer, f"{show_word(value)} at {pointer or '/'} is no Unicode text: it holds a lone surrogate"
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _defect(item, f"{pointer}/{index}")
            if found:
                return found
    elif isinstance(value, _Object):
        for name, item in value.items():
            if _LONE_SURROGATE.search(name):
                return pointer, (
                    f"the member name {show_word(name)} in {pointer or 'the body'} is no "
                    "Unicode text: it holds a lone surrogate"
                )
            found = _defect(item, f"{pointer}/{_pointer_step(name)}")
            if found:
                return found
        if value.repeated is not None:
            return (
                f"{pointer}/{_pointer_step(value.repeated)}",
                f"the member {value.repeated!r} is given twice in {pointer or 'the body'}: give it once",
            )
    return None


# msgspec's error: what, then where (`$`, `$.words[2]`, `$.plays[0].id`); the path is its last part.
_PATH = re.compile(r" - at `\$((?:\.\w+|\[\d+\])*)`$")
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]")
_MISSING = re.compile(r"^Object missing required field `(\w+)`")


def misfit(message: str, kind: type, tree: Any, base: str, play: int | None) -> Problem:
    """The Problem of a body that is JSON but does not fit its type, from msgspec's message.

    msgspec says what and where; the body read as Python values says what was there instead
    (a string, an array of 9), so the detail quotes the input as the contract asks.
    """
    found = _PATH.search(message)
    steps: list[str | int] = []
    if found:
        steps = [name if name else int(index) for name, index in _STEP.findall(found.group(1))]
        message = message[: found.start()]
    value = tree
    for step in steps:
        value = value[step]
    pointer = base + "".join(f"/{step}" for step in steps)
    what = ("the body" if play is None else f"play {play}") if not steps else steps[0]
    got = "an object" if isinstance(value, dict) else _KINDS.get(type(value), "a value")

    if message.startswith("Expected `object`"):
        return invalid(f"{what} must be a JSON object, not {got}", pointer)
    if message.startswith("Object contains unknown field"):
        known = kind.__struct_fields__
        return unknown_member(what, next(name for name in value if name not in known), pointer, known)
    missing = _MISSING.match(message)
    if missing:
        return missing_member(what, missing.group(1), pointer)
    if steps == ["words"]:
        if isinstance(value, list):
            return Problem(
                "play-size",
                f"a play has {MIN_WORDS} to {MAX_WORDS} words, not {len(value)}",
                count=len(value),
                pointer=pointer,
            )
        return invalid(f"words must be an array of {MIN_WORDS} to {MAX_WORDS} strings, not {got}", pointer)
    if len(steps) == 2 and steps[0] == "words":
        if isinstance(value, str):
            return invalid(f"word {steps[1] + 1} has {len(value)} characters; at most {MAX_WORD_CHARS}", pointer)
        return invalid(f"word {steps[1] + 1} must be a string, not {got}", pointer)
    if steps == ["notation"]:
        return invalid(
            f"notation must be one of {', '.join(NOTATIONS)}, not "
            f"{show_word(value) if isinstance(value, str) else got}",
            pointer,
        )
    if steps == ["second"]:
        return invalid(f"second must be true or false, not {got}", pointer)
    if steps == ["plays"]:
        if isinstance(value, list):
            return invalid(f"a batch has 1 to {MAX_PLAYS} plays, not {len(value)}", pointer)
        return invalid(f"plays must be an array of 1 to {MAX_PLAYS} plays, not {got}", pointer)
    if steps == ["id"]:
        if isinstance(value, str):
            return invalid(f"the id of play {play} has {len(value)} characters; at most {MAX_PLAY_ID}", pointer)
        return invalid(f"the id of play {play} must be a string or null, not {got}", pointer)
    if steps and steps[-1] in SLIP:
        return invalid(
            f"{steps[-1]} must be {SLIP[steps[-1]]}, not {show_word(value) if isinstance(value, str) else got}",
            pointer,
        )
    return invalid(f"{what} must be a string, not {got}", pointer)  # lexicon: a string of any length


def invalid(detail: str, pointer: str) -> Problem:
    return Problem("invalid-request", detail, pointer=pointer)


def unknown_member(what: str, name: str, pointer: str, known: Sequence[str] = ()) -> Problem:
    """A member no field has, pointed at and named (its value never quoted: it may be a password
    sent misnamed), with the members `known` there when given."""
    listed = f"; known: {', '.join(known)}" if known else ""
    return invalid(f"{what} has an unknown member {name!r}{listed}", f"{pointer}/{_pointer_step(name)}")


def missing_member(what: str, name: str, pointer: str) -> Problem:
    """A required member not given, pointed at where it goes."""
    return invalid(f"{what} lacks {name!r}", f"{pointer}/{_pointer_step(name)}")


def as_parameter(problem: Problem) -> Problem:
    """A problem of the query: the same, naming the parameter instead of a member of a body."""
    name = problem.extensions.pop("pointer").split("/")[1]
    problem.extensions["parameter"] = "word" if name == "words" else name
    return problem


def id_of(raw: msgspec.Raw) -> str | None:
    """The id of a play that does not fit its type, if it has one to quote."""
    try:
        value = json.loads(bytes(raw))
    except (ValueError, RecursionError):
        return None
    play_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(play_id, str) and len(play_id) <= MAX_PLAY_ID and not _LONE_SURROGATE.search(play_id):
        return play_id
    return None
