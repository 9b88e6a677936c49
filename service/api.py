"""The HTTP API, version 1: joint verdicts, batches of plays, the loaded lexicons, health.

Every verdict is one of two byte strings prepared when the lexicon was loaded (see
`registry.Served`): the request path reads the words, turns them into keys (or names the first
input error), looks every key up with `lookup_all` and picks a body. Nothing on that path
depends on which word is missing, and nothing on it logs.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from lexicon.board import MAX_WORDS, MIN_WORDS
from lexicon.errors import InputError
from lexicon.verdict import lookup_all, play_keys

try:  # what gunicorn raises for a broken chunked body, read by the app
    from gunicorn.http.errors import ParseException as _FramingError
except ImportError:  # pragma: no cover - another WSGI server
    _FramingError = ValueError

from .config import MAX_BODY, MAX_PLAY_ID, MAX_PLAYS, NOTATIONS
from .problems import MEDIA_TYPE, Problem, from_input_error
from .registry import Registry, Served, dumps

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


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _invalid(detail: str, pointer: str | None = None, parameter: str | None = None) -> Problem:
    if parameter is not None:
        return Problem("invalid-request", detail, parameter=parameter)
    return Problem("invalid-request", detail, pointer=pointer)


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


# No member of the API is an integer: reading integers as floats types them all the same and
# spares the 4300-digit limit of int(); one decoder, not one a request as json.loads(**kw) makes.
_DECODER = json.JSONDecoder(parse_int=float)


def _json_body() -> Any:
    data = _read_body()
    if not data.strip():
        raise Problem("invalid-json", "the body is empty: send a JSON object")
    try:
        return _DECODER.decode(data.decode("utf-8"))
    except RecursionError:
        raise Problem("invalid-json", "the body is not JSON this service reads: nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise Problem("invalid-json", f"the body is not JSON: {error}") from None


def _object(value: Any, pointer: str, what: str, allowed: tuple[str, ...], required: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise _invalid(f"{what} must be a JSON object, not {_type_name(value)}", pointer or "")
    for name in value:
        if name not in allowed:
            raise _invalid(f"{what} has an unknown member {name!r}; known: {', '.join(allowed)}",
                           f"{pointer}/{_escape(name)}")
    for name in required:
        if name not in value:
            raise _invalid(f"{what} lacks {name!r}", f"{pointer}/{name}")
    return value


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _string(value: Any, what: str, pointer: str | None, parameter: str | None = None) -> str:
    if not isinstance(value, str):
        raise _invalid(f"{what} must be a string, not {_type_name(value)}", pointer, parameter)
    return value


def _lexicon(registry: Registry, value: Any, pointer: str | None = "/lexicon",
             parameter: str | None = None) -> Served:
    name = _string(value, "lexicon", pointer, parameter)
    served = registry.find(name)
    if served is None:
        known = registry.names()
        raise Problem("unknown-lexicon", f"no lexicon {name!r} here; known: {', '.join(known)}",
                      lexicon=name, known=known)
    return served


def _notation(value: Any, pointer: str | None = "/notation", parameter: str | None = None) -> str:
    if value is None and parameter is None:
        raise _invalid(f"notation must be one of {', '.join(NOTATIONS)}, not null", pointer)
    notation = _string(value, "notation", pointer, parameter)
    if notation not in NOTATIONS:
        raise _invalid(f"notation must be one of {', '.join(NOTATIONS)}, not {notation!r}", pointer, parameter)
    return notation


def _words(value: Any, pointer: str) -> list[str]:
    if not isinstance(value, list):
        raise _invalid(f"words must be an array of {MIN_WORDS} to {MAX_WORDS} strings, "
                       f"not {_type_name(value)}", pointer)
    if not MIN_WORDS <= len(value) <= MAX_WORDS:
        raise Problem("play-size", f"a play has {MIN_WORDS} to {MAX_WORDS} words, not {len(value)}",
                      count=len(value), pointer=pointer)
    for index, word in enumerate(value):
        if not isinstance(word, str):
            raise _invalid(f"word {index + 1} must be a string, not {_type_name(word)}",
                           f"{pointer}/{index}")
    return value


def _verdict(served: Served, words: list[str], notation: str) -> bool:
    try:
        keys = play_keys(served.lexicon, words, notation)
    except InputError as error:
        raise from_input_error(error) from None
    return lookup_all(served.lexicon, keys)


def _verdict_response(served: Served, valid: bool) -> Response:
    return respond(served.valid_body if valid else served.invalid_body)


# -- the routes ------------------------------------------------------------------------------------

CHALLENGE_MEMBERS = ("lexicon", "words", "notation")
BATCH_MEMBERS = ("lexicon", "plays", "notation")
PLAY_MEMBERS = ("id", "words")


def _play(value: Any, index: int) -> tuple[str | None, list[str]]:
    pointer = f"/plays/{index - 1}"
    play = _object(value, pointer, f"play {index}", PLAY_MEMBERS, ("words",))
    play_id = play.get("id")
    if play_id is not None:
        _string(play_id, f"the id of play {index}", f"{pointer}/id")
        if len(play_id) > MAX_PLAY_ID:
            raise _invalid(f"the id of play {index} has {len(play_id)} characters; at most {MAX_PLAY_ID}",
                           f"{pointer}/id")
    return play_id, _words(play["words"], f"{pointer}/words")


def _batch_error(problem: Problem, index: int, play_id: str | None) -> dict:
    """One play's problem, told which play: an entry of `errors`, and the answer if it is the first."""
    prefix = f"play {index}" + (f" ({play_id!r})" if play_id is not None else "")
    problem.detail = f"{prefix}: {problem.detail}"
    problem.extensions = {"play": index, "id": play_id, **problem.extensions}
    return {"type": problem.type, "detail": problem.detail, **problem.extensions}


def create_blueprint(registry: Registry, lexicon_list: bytes, openapi: bytes) -> Blueprint:
    """The routes of one app, bound to its lexicons (no lookup of app state on the request path)."""
    blueprint = Blueprint("api", __name__)

    @blueprint.post("/v1/challenge")
    def challenge_post() -> Response:
        body = _object(_json_body(), "", "the body", CHALLENGE_MEMBERS, ("lexicon", "words"))
        words = _words(body["words"], "/words")
        served = _lexicon(registry, body["lexicon"])
        notation = _notation(body["notation"]) if "notation" in body else "spelling"
        return _verdict_response(served, _verdict(served, words, notation))

    @blueprint.get("/v1/challenge")
    def challenge_get() -> Response:
        args = request.args
        for name in args:
            if name not in GET_PARAMETERS:
                raise _invalid(f"unknown parameter {name!r}; known: {', '.join(GET_PARAMETERS)}",
                               parameter=name)
        for name in ("lexicon", "notation"):
            if len(args.getlist(name)) > 1:
                raise _invalid(f"{name} is given {len(args.getlist(name))} times; give it once",
                               parameter=name)
        if "lexicon" not in args:
            raise _invalid("lexicon is missing: add lexicon=es (an id or a language code)",
                           parameter="lexicon")
        words = args.getlist("word")
        if not MIN_WORDS <= len(words) <= MAX_WORDS:
            raise Problem("play-size", f"a play has {MIN_WORDS} to {MAX_WORDS} words, not {len(words)}: "
                          "give each as word=...", count=len(words), parameter="word")
        served = _lexicon(registry, args["lexicon"], None, "lexicon")
        notation = _notation(args["notation"], None, "notation") if "notation" in args else "spelling"
        return _verdict_response(served, _verdict(served, words, notation))

    @blueprint.post("/v1/challenges")
    def challenges_post() -> Response:
        body = _object(_json_body(), "", "the body", BATCH_MEMBERS, ("lexicon", "plays"))
        plays = body["plays"]
        if not isinstance(plays, list):
            raise _invalid(f"plays must be an array of 1 to {MAX_PLAYS} plays, not {_type_name(plays)}",
                           "/plays")
        if not 1 <= len(plays) <= MAX_PLAYS:
            raise _invalid(f"a batch has 1 to {MAX_PLAYS} plays, not {len(plays)}", "/plays")
        served = _lexicon(registry, body["lexicon"])
        notation = _notation(body["notation"]) if "notation" in body else "spelling"

        # Every play is read before any is judged: a batch with a typing error gets no verdict.
        read: list[tuple[str | None, list[str]]] = []
        errors: list[tuple[Problem, dict]] = []
        for index, value in enumerate(plays, 1):
            play_id = value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None
            try:
                play_id, words = _play(value, index)
                read.append((play_id, play_keys(served.lexicon, words, notation)))
            except InputError as error:
                problem = from_input_error(error)
                errors.append((problem, _batch_error(problem, index, play_id)))
            except Problem as problem:
                errors.append((problem, _batch_error(problem, index, play_id)))
        if errors:
            first = errors[0][0]
            first.extensions["errors"] = [entry for _, entry in errors]
            if len(errors) > 1:
                more = len(errors) - 1
                first.detail += f" (and {more} more play{'s' if more > 1 else ''}: see errors)"
            raise first

        lexicon = served.lexicon
        results = [
            b'{"id":' + dumps(play_id)
            + (b',"valid":true}' if lookup_all(lexicon, keys) else b',"valid":false}')
            for play_id, keys in read
        ]
        return respond(b'{"results":[' + b",".join(results) + b'],"lexicon":' + served.identity_json + b"}")

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
        return respond(dumps({"status": "ready", "lexicons": [item.id for item in registry.served]}))

    @blueprint.get("/openapi.json")
    def openapi_document() -> Response:
        return respond(openapi, cache="public, max-age=300")

    return blueprint
