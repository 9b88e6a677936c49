"""The HTTP API, version 1: joint verdicts, batches of plays, the loaded lexicons, health.

Every verdict is one of two byte strings prepared when the lexicon was loaded (see
`registry.Served`): the request path reads the words, turns them into keys (or names the first
input error), looks every key up with `lookup_all` and picks a body. Nothing on that path
depends on which word is missing, and nothing on it logs.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
from flask import Blueprint, Response, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from lexicon.board import MAX_WORDS, MIN_WORDS
from lexicon.errors import InputError, show_word
from lexicon.verdict import lookup_all, play_keys

try:  # what gunicorn raises for a broken chunked body, read by the app
    from gunicorn.http.errors import ParseException as _FramingError
except ImportError:  # pragma: no cover - another WSGI server
    _FramingError = ValueError

from .config import MAX_BODY, MAX_PLAY_ID, MAX_PLAYS, NOTATIONS
from .problems import MEDIA_TYPE, Problem, from_input_error
from .registry import Registry, Served, dumps
from .types import (MAX_WORD_CHARS, BatchEnvelope, BatchResult, ChallengeRequest, Play, PlayResult,
                    Ready)

JSON = "application/json"
NO_STORE = "no-store"
GET_PARAMETERS = ("lexicon", "word", "notation", "token")


def respond(body: bytes, status: int = 200, cache: str = NO_STORE, content_type: str = JSON) -> Response:
    return Response(body, status, [("Cache-Control", cache), ("X-Content-Type-Options", "nosniff")],
                    content_type=content_type)


def problem_response(problem: Problem) -> Response:
    response = respond(problem.body(), problem.status, content_type=MEDIA_TYPE)
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response


# -- reading requests --------------------------------------------------------------------------


def _read_body() -> bytes:
    """The body, at most MAX_BODY bytes: 413 beyond, whether it says its length or is chunked.

    Read straight from the WSGI input: Werkzeug's stream wrappers cost more than the verdict,
    and alone they would cut a chunked body at the limit without a word (a read stops at the
    limit; only a read past it raises), so the chunked case here reads one byte more.
    """
    environ = request.environ
    length = environ.get("CONTENT_LENGTH")
    try:
        if length:
            try:
                length = int(length)
            except ValueError:
                raise BadRequest("Content-Length is not a number") from None
            if length > MAX_BODY:
                raise RequestEntityTooLarge()
            return environ["wsgi.input"].read(length) if length > 0 else b""
        if not environ.get("wsgi.input_terminated"):
            return b""  # neither a length nor a server that ends the stream: no body (WSGI 1.0)
        data = environ["wsgi.input"].read(MAX_BODY + 1)
    except TimeoutError:  # the worker's read limit (service.workers.READ): a stalled client
        raise Problem(None, "the body did not arrive in time", status=408) from None
    except (OSError, ValueError, _FramingError):  # the client went away, or broke the chunked framing
        raise Problem(None, "the body could not be read", status=400) from None
    if len(data) > MAX_BODY:
        raise RequestEntityTooLarge()
    return data


def _body() -> bytes:
    data = _read_body()
    if not data.strip():
        raise Problem("invalid-json", "the body is empty: send a JSON object")
    return data


# Decoding a body into its type (service.types) is the validation; the decoders are made once.
_CHALLENGE = msgspec.json.Decoder(ChallengeRequest)
_BATCH = msgspec.json.Decoder(BatchEnvelope)
_PLAY = msgspec.json.Decoder(Play)

# The end of a member name: a quote, then a colon. Outside strings nothing else has it, and a
# string holds a quote only escaped (\"), so a body has at least as many of these as members.
# msgspec keeps the last of a repeated member: when this count is more than the members decoded,
# the body is read again, slowly, to find the member given twice (or an escaped quote).
_MEMBER_END = re.compile(rb'"[ \t\r\n]*:')

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a pair is decoded to one character: what is left is alone
_KINDS = {str: "a string", float: "a number", bool: "a boolean", type(None): "null", list: "an array"}


def _members(data: bytes) -> int:
    """At least as many as the member names in the body, and exactly as many unless a string
    holds an escaped quote before a colon. When every colon follows a quote at once (no white
    space before a colon, no colon in a string: nearly every body), counting those is enough."""
    quoted = data.count(b'":')
    if quoted == data.count(b":"):
        return quoted
    return len(_MEMBER_END.findall(data))


def _decode(decoder: msgspec.json.Decoder, data: bytes | msgspec.Raw, pointer: str = "", play: int | None = None):
    """The body (or one play of a batch) as its type, or the Problem saying what does not fit."""
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as error:
        raise _misfit(str(error), decoder.type, _parse(data, pointer), pointer, play) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        _parse(data, pointer)  # a lone surrogate is a 422 of its own (what msgspec refuses, Python reads)
        raise Problem("invalid-json", f"the body is not JSON: {error}") from None


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


def _parse(data: bytes | msgspec.Raw, pointer: str = "") -> Any:
    """The body as Python values, read only when msgspec refused it or a member may be repeated.

    400 if it is not JSON; 422 for what is JSON but no request: a member given twice, or a lone
    surrogate (JSON's `"\\ud800"`, which is no Unicode text) in a string or a member name.
    """
    try:
        value = json.loads(bytes(data).decode("utf-8"), parse_int=float, parse_constant=_no_constant,
                           object_pairs_hook=_object_pairs)
        defect = _defect(value, pointer)
    except RecursionError:
        raise Problem("invalid-json", "the body is not JSON this service reads: nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise Problem("invalid-json", f"the body is not JSON: {error}") from None
    if defect is not None:
        raise Problem("invalid-request", defect[1], pointer=defect[0])
    return value


def _escape(name: str) -> str:
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
                return pointer, (f"the member name {show_word(name)} in {pointer or 'the body'} is no "
                                 "Unicode text: it holds a lone surrogate")
            found = _defect(item, f"{pointer}/{_escape(name)}")
            if found:
                return found
        if value.repeated is not None:
            return (f"{pointer}/{_escape(value.repeated)}",
                    f"the member {value.repeated!r} is given twice in {pointer or 'the body'}: give it once")
    return None


# msgspec's error: what, then where (`$`, `$.words[2]`, `$.plays[0].id`); the path is its last part.
_PATH = re.compile(r" - at `\$((?:\.\w+|\[\d+\])*)`$")
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]")
_MISSING = re.compile(r"^Object missing required field `(\w+)`")


def _misfit(message: str, kind: type, tree: Any, base: str, play: int | None) -> Problem:
    """The Problem of a body that is JSON but does not fit its type, from msgspec's message.

    msgspec says what and where; the body read as Python values says what was there instead
    (a string, an array of 9), so the detail quotes the input as the contract asks.
    """
    found = _PATH.search(message)
    steps: list[str | int] = []
    if found:
        steps = [name if name else int(index) for name, index in _STEP.findall(found.group(1))]
        message = message[:found.start()]
    value = tree
    for step in steps:
        value = value[step]
    pointer = base + "".join(f"/{step}" for step in steps)
    what = ("the body" if play is None else f"play {play}") if not steps else steps[0]
    got = "an object" if isinstance(value, dict) else _KINDS.get(type(value), "a value")

    if message.startswith("Expected `object`"):
        return _invalid(f"{what} must be a JSON object, not {got}", pointer)
    if message.startswith("Object contains unknown field"):
        known = kind.__struct_fields__
        name = next(name for name in value if name not in known)
        return _invalid(f"{what} has an unknown member {name!r}; known: {', '.join(known)}",
                        f"{pointer}/{_escape(name)}")
    missing = _MISSING.match(message)
    if missing:
        return _invalid(f"{what} lacks {missing.group(1)!r}", f"{pointer}/{missing.group(1)}")
    if steps == ["words"]:
        if isinstance(value, list):
            return Problem("play-size", f"a play has {MIN_WORDS} to {MAX_WORDS} words, not {len(value)}",
                           count=len(value), pointer=pointer)
        return _invalid(f"words must be an array of {MIN_WORDS} to {MAX_WORDS} strings, not {got}", pointer)
    if len(steps) == 2 and steps[0] == "words":
        if isinstance(value, str):
            return _invalid(f"word {steps[1] + 1} has {len(value)} characters; at most {MAX_WORD_CHARS}", pointer)
        return _invalid(f"word {steps[1] + 1} must be a string, not {got}", pointer)
    if steps == ["notation"]:
        return _invalid(f"notation must be one of {', '.join(NOTATIONS)}, not "
                        f"{show_word(value) if isinstance(value, str) else got}", pointer)
    if steps == ["plays"]:
        if isinstance(value, list):
            return _invalid(f"a batch has 1 to {MAX_PLAYS} plays, not {len(value)}", pointer)
        return _invalid(f"plays must be an array of 1 to {MAX_PLAYS} plays, not {got}", pointer)
    if steps == ["id"]:
        if isinstance(value, str):
            return _invalid(f"the id of play {play} has {len(value)} characters; at most {MAX_PLAY_ID}", pointer)
        return _invalid(f"the id of play {play} must be a string or null, not {got}", pointer)
    return _invalid(f"{what} must be a string, not {got}", pointer)  # lexicon: a string of any length


def _invalid(detail: str, pointer: str) -> Problem:
    return Problem("invalid-request", detail, pointer=pointer)


def _as_parameter(problem: Problem) -> Problem:
    """A problem of the query: the same, naming the parameter instead of a member of a body."""
    name = problem.extensions.pop("pointer").split("/")[1]
    problem.extensions["parameter"] = "word" if name == "words" else name
    return problem


def _served(registry: Registry, name: str) -> Served:
    served = registry.find(name)
    if served is None:
        known = registry.names()
        raise Problem("unknown-lexicon", f"no lexicon {show_word(name)} here; known: {', '.join(known)}",
                      lexicon=name, known=known)
    return served


def _verdict(served: Served, words: list[str], notation: str) -> bool:
    try:
        keys = play_keys(served.lexicon, words, notation)
    except InputError as error:
        raise from_input_error(error) from None
    return lookup_all(served.lexicon, keys)


def _verdict_response(served: Served, valid: bool) -> Response:
    return respond(served.valid_body if valid else served.invalid_body)


# -- the routes ------------------------------------------------------------------------------------


def _batch_error(problem: Problem, index: int, play_id: str | None) -> dict:
    """One play's problem, told which play: an entry of `errors`, and the answer if it is the first."""
    prefix = f"play {index}" + (f" ({play_id!r})" if play_id is not None else "")
    problem.detail = f"{prefix}: {problem.detail}"
    problem.extensions = {"play": index, "id": play_id, **problem.extensions}
    return {"type": problem.type, "detail": problem.detail, **problem.extensions}


def _id_of(raw: msgspec.Raw) -> str | None:
    """The id of a play that does not fit its type, if it has one to quote."""
    try:
        value = json.loads(bytes(raw))
    except (ValueError, RecursionError):
        return None
    play_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(play_id, str) and len(play_id) <= MAX_PLAY_ID and not _LONE_SURROGATE.search(play_id):
        return play_id
    return None


def create_blueprint(registry: Registry, lexicon_list: bytes, openapi: bytes) -> Blueprint:
    """The routes of one app, bound to its lexicons (no lookup of app state on the request path)."""
    blueprint = Blueprint("api", __name__)

    @blueprint.post("/v1/challenge")
    def challenge_post() -> Response:
        data = _body()
        body: ChallengeRequest = _decode(_CHALLENGE, data)
        if _members(data) != 2 + (body.notation is not msgspec.UNSET):
            _parse(data)  # a member given twice is refused; an escaped quote and colon in a word is not
        served = _served(registry, body.lexicon)
        notation = "spelling" if body.notation is msgspec.UNSET else body.notation
        return _verdict_response(served, _verdict(served, body.words, notation))

    @blueprint.get("/v1/challenge")
    def challenge_get() -> Response:
        args = request.args
        for name in args:
            if name not in GET_PARAMETERS:
                raise Problem("invalid-request", f"unknown parameter {name!r}; known: {', '.join(GET_PARAMETERS)}",
                              parameter=name)
        for name in ("lexicon", "notation"):
            if len(args.getlist(name)) > 1:
                raise Problem("invalid-request", f"{name} is given {len(args.getlist(name))} times; give it once",
                              parameter=name)
        if "lexicon" not in args:
            raise Problem("invalid-request", "lexicon is missing: add lexicon=es (an id or a language code)",
                          parameter="lexicon")
        words = args.getlist("word")
        if not MIN_WORDS <= len(words) <= MAX_WORDS:
            raise Problem("play-size", f"a play has {MIN_WORDS} to {MAX_WORDS} words, not {len(words)}: "
                          "give each as word=...", count=len(words), parameter="word")
        query = {"lexicon": args["lexicon"], "words": words}
        if "notation" in args:
            query["notation"] = args["notation"]
        try:  # the query is the same request as the body of a POST: the same type checks it
            play = msgspec.convert(query, ChallengeRequest)
        except msgspec.ValidationError as error:
            raise _as_parameter(_misfit(str(error), ChallengeRequest, query, "", None)) from None
        served = _served(registry, play.lexicon)
        notation = "spelling" if play.notation is msgspec.UNSET else play.notation
        return _verdict_response(served, _verdict(served, play.words, notation))

    @blueprint.post("/v1/challenges")
    def challenges_post() -> Response:
        data = _body()
        batch: BatchEnvelope = _decode(_BATCH, data)
        in_plays = [_members(bytes(raw)) for raw in batch.plays]
        if _members(data) - sum(in_plays) != 2 + (batch.notation is not msgspec.UNSET):
            _parse(data)
        served = _served(registry, batch.lexicon)
        notation = "spelling" if batch.notation is msgspec.UNSET else batch.notation

        # Every play is read before any is judged: a batch with a typing error gets no verdict.
        read: list[tuple[str | None, list[str]]] = []
        errors: list[tuple[Problem, dict]] = []
        for index, (raw, members) in enumerate(zip(batch.plays, in_plays, strict=True), 1):
            play_id = None
            try:
                play: Play = _decode(_PLAY, raw, f"/plays/{index - 1}", index)
                play_id = None if play.id is msgspec.UNSET else play.id
                if members != 1 + (play.id is not msgspec.UNSET):
                    _parse(raw, f"/plays/{index - 1}")
                read.append((play_id, play_keys(served.lexicon, play.words, notation)))
            except InputError as error:
                problem = from_input_error(error)
                errors.append((problem, _batch_error(problem, index, play_id)))
            except Problem as problem:
                play_id = play_id if play_id is not None else _id_of(raw)
                errors.append((problem, _batch_error(problem, index, play_id)))
        if errors:
            first = errors[0][0]
            first.extensions["errors"] = [entry for _, entry in errors]
            if len(errors) > 1:
                more = len(errors) - 1
                first.detail += f" (and {more} more play{'s' if more > 1 else ''}: see errors)"
            raise first

        lexicon = served.lexicon
        results = [PlayResult(play_id, lookup_all(lexicon, keys)) for play_id, keys in read]
        return respond(dumps(BatchResult(results, served.identity)))

    @blueprint.get("/v1/lexicons")
    def lexicons() -> Response:
        return respond(lexicon_list, cache="private, max-age=60")

    @blueprint.get("/healthz")
    def healthz() -> Response:
        return respond(b'{"status":"ok"}')

    @blueprint.get("/readyz")
    def readyz() -> Response:
        if not registry.ready:
            raise Problem("not-ready", "no lexicon is loaded and verified")
        return respond(dumps(Ready("ready", [item.id for item in registry.served])))

    @blueprint.get("/openapi.json")
    def openapi_document() -> Response:
        return respond(openapi, cache="public, max-age=300")

    return blueprint
