"""The HTTP API, version 1: joint verdicts, batches of plays, the loaded lexicons, health.

Every verdict is one of two byte strings prepared when the lexicon was loaded (see
`registry.Served`): the request path reads the body into its type (`decoding`), turns the words
into keys (or names the first input error), looks every key up with `lookup_all` and picks a
body. Nothing on that path depends on which word is missing, and nothing on it logs.

A second opinion (LEXICON_SECOND) is the same path twice over the same keys: every key is looked
up in both lexicons, and the body is one of four, picked by the two verdicts.
"""

from __future__ import annotations

import dataclasses
from urllib.parse import unquote_to_bytes

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

from .config import MAX_BODY
from .decoding import BATCH, CHALLENGE, PLAY, as_parameter, decode, id_of, members, misfit, parse
from .problems import MEDIA_TYPE, Problem, from_input_error
from .registry import Registry, Served, dumps
from .tournament.http import record_number
from .types import (BatchEnvelope, BatchResult, ChallengeRequest, LexiconList, Play, PlayResult, Ready,
                    SecondLexicon, SecondResult, given)

JSON = "application/json"
NO_STORE = "no-store"
GET_PARAMETERS = ("lexicon", "word", "notation", "second", "token")
FLAGS = {"1": True, "true": True, "0": False, "false": False}  # the GET's second=1


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
    The environ is taken from the request object itself (Flask's documented way past its proxy):
    `request.environ` makes the proxy fail an attribute lookup first, 0.7 µs of each challenge.
    """
    environ = request._get_current_object().environ
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
    except TimeoutError:  # a read that timed out (a server with a socket timeout): a stalled client
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


def _served(registry: Registry, name: str) -> Served:
    served = registry.find(name)
    if served is None:
        known = registry.names()
        raise Problem("unknown-lexicon", f"no lexicon {show_word(name)} here; known: {', '.join(known)}",
                      lexicon=name, known=known)
    return served


def _second(served: Served, asked: bool | msgspec.UnsetType, always: bool) -> Served | None:
    """The lexicon of the second opinion this request gets: asked for, or always when so set."""
    if asked is msgspec.UNSET:
        return served.second if always else None
    if asked and served.second is None:
        raise Problem("no-second-opinion", f"the lexicon {served.id!r} has no second opinion here "
                      "(LEXICON_SECOND names none for its language): leave out second", lexicon=served.id)
    return served.second if asked else None


def _verdict(served: Served, words: list[str], notation: str,
             second: Served | None = None) -> tuple[bool, bool | None]:
    """The joint verdict, and the second opinion's (None when none is given)."""
    try:
        keys = play_keys(served.lexicon, words, notation)
    except InputError as error:
        raise from_input_error(error) from None
    valid = lookup_all(served.lexicon, keys)
    if second is None:
        return valid, None
    return valid, lookup_all(second.lexicon, keys)  # always, whatever the main verdict


# -- the routes ------------------------------------------------------------------------------------


def _batch_error(problem: Problem, index: int, play_id: str | None) -> dict:
    """One play's problem, told which play: an entry of `errors`, and the answer if it is the first."""
    prefix = f"play {index}" + (f" ({play_id!r})" if play_id is not None else "")
    problem.detail = f"{prefix}: {problem.detail}"
    problem.extensions = {"play": index, "id": play_id, **problem.extensions}
    return {"type": problem.type, "detail": problem.detail, **problem.extensions}


def _not_utf8(query: bytes) -> str | None:
    """The first parameter of a query string whose name or value is no UTF-8 once percent-decoded.

    >>> _not_utf8(b"lexicon=es&word=%C3%91U&word=%FF"), _not_utf8(b"word=CASA"), _not_utf8(b"%FF=1")
    ('word', None, 'a name')
    """
    for pair in query.split(b"&"):
        name, _, value = pair.partition(b"=")
        try:
            text = unquote_to_bytes(name.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            return "a name"
        try:
            unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            return text
    return None


def _given(value):
    return None if value is msgspec.UNSET else value


def _slip(body: ChallengeRequest) -> dict:
    """What an event records of a challenge's slip members: built only in an event, since outside
    one nothing reads it and a challenge is cheaper without it."""
    return {"table": _given(body.table), "key": _given(body.idempotency_key),
            "offline": bool(_given(body.offline)), "device_time": _given(body.device_time),
            "checksum": _given(body.checksum)}


def create_blueprint(registry: Registry, lexicon_list: bytes, openapi: bytes, event=None,
                     second_always: bool = False) -> Blueprint:
    """The routes of one app, bound to its lexicons (no lookup of app state on the request path).

    `event` (a service.tournament.http.Tournament, in tournament mode) admits each challenge by
    its device's role before the play is read, and records each verdict before it is answered:
    the answer then carries the record's number and round (`record`, `round`), appended to the
    same fixed bytes.

    `second_always`: LEXICON_SECOND_ALWAYS, a second opinion in every answer that can have one
    (in tournament mode the record keeps it beside the verdict: what the players were shown).
    """
    blueprint = Blueprint("api", __name__)

    def lexicon_for(caller, name: str) -> Served:
        """The lexicon asked for; in an event, refused to a table device before its play is read
        unless it is the event's (Tournament.event_lexicon)."""
        served = _served(registry, name)
        return served if event is None else event.event_lexicon(caller, name, served)

    def answer(served: Served, valid: bool, caller, words: list[str], notation: str,
               body: ChallengeRequest | None = None, other: bool | None = None) -> Response:
        """The verdict's fixed bytes; in an event, recorded first (with the slip of a POST's `body`)."""
        fixed = (served.valid_body if valid else served.invalid_body) if other is None \
            else served.pair_bodies[2 * valid + other]
        if event is None:
            return respond(fixed)
        shown = None if other is None else (served.second, other)
        slip = {} if body is None else _slip(body)
        return respond(record_number(fixed, event.record_one(caller, served, words, notation, valid, **slip,
                                                              second=shown)))

    @blueprint.post("/v1/challenge")
    def challenge_post() -> Response:
        data = _body()
        body: ChallengeRequest = decode(CHALLENGE, data)
        # In an event, admitted once the body says whether it is a verdict given offline.
        caller = None if event is None else event.admit(offline=body.offline is True)
        if members(data) != given(body):
            parse(data)  # a member given twice is refused; an escaped quote and colon in a word is not
        served = lexicon_for(caller, body.lexicon)
        notation = "spelling" if body.notation is msgspec.UNSET else body.notation
        valid, other = _verdict(served, body.words, notation, _second(served, body.second, second_always))
        return answer(served, valid, caller, body.words, notation, body, other)

    @blueprint.get("/v1/challenge")
    def challenge_get() -> Response:
        caller = None if event is None else event.admit()
        not_utf8 = _not_utf8(request.query_string)
        if not_utf8 is not None:  # Werkzeug would keep its escapes as typed: '%' is no tile
            raise Problem("invalid-request", f"the parameter {not_utf8} is not UTF-8 once percent-decoded: "
                          "send the UTF-8 bytes of the text (Ñ is %C3%91)", parameter=not_utf8)
        args = request.args
        for name in args:
            if name not in GET_PARAMETERS:
                raise Problem("invalid-request", f"unknown parameter {name!r}; known: {', '.join(GET_PARAMETERS)}",
                              parameter=name)
        for name in ("lexicon", "notation", "second"):
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
        if "second" in args:
            if args["second"].lower() not in FLAGS:
                raise Problem("invalid-request", f"second must be 1 or 0 (true or false), not "
                              f"{show_word(args['second'])}", parameter="second")
            query["second"] = FLAGS[args["second"].lower()]
        try:  # the query is the same request as the body of a POST: the same type checks it
            play = msgspec.convert(query, ChallengeRequest)
        except msgspec.ValidationError as error:
            raise as_parameter(misfit(str(error), ChallengeRequest, query, "", None)) from None
        served = lexicon_for(caller, play.lexicon)
        notation = "spelling" if play.notation is msgspec.UNSET else play.notation
        valid, other = _verdict(served, play.words, notation, _second(served, play.second, second_always))
        return answer(served, valid, caller, play.words, notation, other=other)

    @blueprint.post("/v1/challenges")
    def challenges_post() -> Response:
        caller = None if event is None else event.admit()
        data = _body()
        batch: BatchEnvelope = decode(BATCH, data)
        in_plays = [members(bytes(raw)) for raw in batch.plays]
        if members(data) - sum(in_plays) != given(batch):
            parse(data)
        served = lexicon_for(caller, batch.lexicon)
        notation = "spelling" if batch.notation is msgspec.UNSET else batch.notation
        second = _second(served, batch.second, second_always)

        # Every play is read before any is judged: a batch with a typing error gets no verdict.
        read: list[tuple[str | None, list[str]]] = []
        slips: list[tuple[list[str], str | None, str | None]] = []
        errors: list[tuple[Problem, dict]] = []
        for index, (raw, count) in enumerate(zip(batch.plays, in_plays, strict=True), 1):
            play_id = None
            try:
                play: Play = decode(PLAY, raw, f"/plays/{index - 1}", index)
                play_id = None if play.id is msgspec.UNSET else play.id
                if count != given(play):
                    parse(raw, f"/plays/{index - 1}")
                read.append((play_id, play_keys(served.lexicon, play.words, notation)))
                slips.append((play.words, _given(play.table), _given(play.idempotency_key)))
            except InputError as error:
                problem = from_input_error(error)
                errors.append((problem, _batch_error(problem, index, play_id)))
            except Problem as problem:
                play_id = play_id if play_id is not None else id_of(raw)
                errors.append((problem, _batch_error(problem, index, play_id)))
        if errors:
            first = errors[0][0]
            first.extensions["errors"] = [entry for _, entry in errors]
            if len(errors) > 1:
                more = len(errors) - 1
                first.detail += f" (and {more} more play{'s' if more > 1 else ''}: see errors)"
            raise first

        lexicon = served.lexicon
        if second is None:
            results = [PlayResult(play_id, lookup_all(lexicon, keys)) for play_id, keys in read]
        else:
            results = [PlayResult(play_id, lookup_all(lexicon, keys), second=SecondResult(lookup_all(second.lexicon, keys)))
                       for play_id, keys in read]
        if event is not None:
            rows = event.record_many(caller, served, slips, notation, [result.valid for result in results], second,
                                     [] if second is None else [result.second.valid for result in results])
            for result, row in zip(results, rows, strict=True):
                result.record, result.round = row.seq, row.round
        if second is None:
            return respond(dumps(BatchResult(results, served.identity)))
        return respond(dumps(BatchResult(results, served.identity, SecondLexicon(second.identity))))

    @blueprint.get("/v1/lexicons")
    def lexicons() -> Response:
        stale = registry.stale()  # a file changed on disk since it was verified (service.registry)
        if not stale:
            return respond(lexicon_list, cache="private, max-age=60")
        return respond(dumps(LexiconList([
            dataclasses.replace(item, state="stale", file=stale[item.id]) if item.id in stale else item
            for item in registry.describe()])))

    @blueprint.get("/healthz")
    def healthz() -> Response:
        return respond(b'{"status":"ok"}')

    @blueprint.get("/readyz")
    def readyz() -> Response:
        if not registry.ready:
            raise Problem("not-ready", "no lexicon is loaded and verified")
        stale = registry.stale()  # files changed on disk since they were verified (service.registry)
        same = {} if event is None else event.identity()  # which event: the same on every instance of it
        if stale:
            return respond(dumps(Ready("stale", [item.id for item in registry.served], sorted(stale.values()), **same)))
        return respond(dumps(Ready("ready", [item.id for item in registry.served], **same)))

    @blueprint.get("/openapi.json")
    def openapi_document() -> Response:
        return respond(openapi, cache="public, max-age=300")

    return blueprint
