"""A tournament endpoint's JSON, in and out: a request's body read as its type
(service.event.api_types), and a value sent as the response. A refusal of a body is 400 / 422
naming what does not fit and quoting what the body held there, except a password, a pairing
code or a token (`_SECRETS`): never echoed, even to its sender, since a page may show the detail.
"""

from __future__ import annotations

import re
import typing

import msgspec
from flask import Response

from lexicon.errors import show_word

from ..api import respond
from ..decoding import BOM, TOO_DEEP, missing_member, not_utf8, unknown_member
from ..problems import Problem
from ..registry import dumps


def read_as(kind: type, data: bytes):
    """A tournament body as its type; 400 / 422 naming what does not fit."""
    try:
        return msgspec.json.decode(data or b"{}", type=kind)
    except msgspec.ValidationError as error:
        message = str(error)
        pointer = ""
        if " - at `$." in message:
            message, where = message.split(" - at `$.", 1)
            pointer = "/" + where.rstrip("`").replace(".", "/")
        member = _MEMBER.match(message)
        if member:  # the member's own pointer and name, as the challenge routes give them (service.decoding)
            raise _member(kind, member, pointer) from None
        raise Problem(
            "invalid-request",
            f"the body does not fit {kind.__name__}: {_plain(message, pointer, kind)}{_given(data, pointer, kind)}",
            pointer=pointer,
        ) from None
    except UnicodeDecodeError as error:  # msgspec checks a string's UTF-8 as it decodes it
        raise not_utf8(error) from None
    except msgspec.DecodeError as error:
        detail = BOM if data.startswith(b"\xef\xbb\xbf") else f"the body is not JSON: {error}"
        raise Problem("invalid-json", detail) from None
    except RecursionError:
        raise Problem("invalid-json", TOO_DEEP) from None


_MEMBER = re.compile(r"Object (contains unknown|missing required) field `(.*)`$")


def _member(kind: type, found: re.Match, pointer: str) -> Problem:
    """An unknown member or a missing one (the members known listed at the body's top level)."""
    what = f"the body does not fit {kind.__name__}: {pointer.rsplit('/', 1)[-1] or 'the body'}"
    if found[1] == "missing required":
        return missing_member(what, found[2], pointer)
    return unknown_member(what, found[2], pointer, () if pointer else kind.__struct_fields__)


_KINDS = {"str": "a string", "int": "a whole number", "float": "a number", "bool": "true or false", "null": "null"}
_KINDS.update(array="an array", object="an object")
_EXPECTED = re.compile(r"Expected `([\w |]+)`, got `\w+`$")


def _plain(message: str, pointer: str, kind: type) -> str:
    """msgspec's "Expected `str | null`, got `int`" said as "table is a string or null", and its
    "Invalid enum value 'juez'" as "role is one of judge, table, lookup" (`_given` then quotes
    what came, once); any other message as msgspec wrote it (it already says what and where)."""
    member = pointer.rsplit("/", 1)[-1] or "the body"
    if message.startswith("Invalid enum value") and (choices := _choices(kind, pointer)):
        return f"{member} is one of {', '.join(choices)}"
    found = _EXPECTED.match(message)
    kinds = found and [_KINDS.get(kind.strip()) for kind in found.group(1).split("|")]
    if not kinds or None in kinds:
        return message
    return f"{member} is {' or '.join(kinds)}"


def _choices(kind: type, pointer: str) -> tuple[str, ...]:
    """The values a top-level member declared as a Literal takes, in the declared order (msgspec's
    own inspection sorts them); () for any other member."""
    steps = [step for step in pointer.split("/") if step]
    if len(steps) != 1:
        return ()
    hint = typing.get_type_hints(kind, include_extras=True).get(steps[0])
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    values = typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else ()
    return tuple(value for value in values if isinstance(value, str))


_SECRETS = ("password", "code", "token")  # never sent back, even to their sender: a page may show the detail


def _given(data: bytes, pointer: str, kind: type) -> str:
    """`, not VALUE`: what the body held where it does not fit, as errors quote the input.

    msgspec says what it expected ("Expected `int` >= 1") but not what came; the body is
    read again, untyped, only on this path. Nothing is quoted for a secret or a missing member,
    nor the whole body of a type that holds a secret (a bare string sent as the body may be one)."""
    steps = [step for step in pointer.split("/") if step]
    if (steps and steps[-1] in _SECRETS) or (not steps and set(kind.__struct_fields__) & set(_SECRETS)):
        return ""
    try:
        value = msgspec.json.decode(data)
        for step in steps:
            value = value[int(step)] if isinstance(value, list) else value[step]
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, ValueError, RecursionError):
        return ""
    shown = value if isinstance(value, str) and len(value) <= 40 else msgspec.json.encode(value).decode()[:40]
    return f", not {show_word(shown)}" if isinstance(value, str) else f", not {shown}"


def json_response(value, status: int = 200) -> Response:
    """`value` (an api_types struct) as the JSON response, with `status`."""
    return respond(dumps(value), status)


__all__ = ["json_response", "read_as"]
