"""The HTTP API, version 1: joint verdicts, batches of plays, the loaded lexicons, health.

Every verdict is one of two byte strings prepared when the lexicon was loaded (see
`registry.Served`): the request path reads the body into its type (`decoding`), turns the words
into keys (or names the first input error), looks every key up with `lookup_all` and picks a
body. Nothing on that path depends on which word is missing, and nothing on it logs.

A second opinion (LEXICON_SECOND) is the same path twice over the same keys: every key is looked
up in both lexicons, and the body is one of four, picked by the two verdicts.

An event is a hook on that same path (service.challenge_hook): it admits who asks, allows the
lexicon and the number of plays, and records the verdicts (from the keys the lookup used) before
the answer leaves, which then carries the record's number and round. Outside an event the hook
does nothing, and the answer is the plain one, byte for byte.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import msgspec
from flask import Blueprint, Response, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from lexicon.board import MAX_WORDS, MIN_WORDS
from lexicon.errors import InputError, show_word
from lexicon.verdict import lookup_all

try:  # what gunicorn raises for a broken chunked body, read by the app
    from gunicorn.http.errors import ParseException as _FramingError
except ImportError:  # pragma: no cover - another WSGI server
    _FramingError = ValueError

from .challenge_hook import NO_EVENT, EventHook, Judged, Mark
from .config import BODY_SECONDS, MAX_BODY
from .deadline import BodyStalled, read_within
from .decoding import BATCH, CHALLENGE, PLAY, as_parameter, decode, id_of, members, misfit, parse
from .problems import MEDIA_TYPE, Problem, from_input_error
from .registry import Registry, Served, dumps
from .status_types import LexiconList, Ready
from .types import (
    BatchEnvelope,
    BatchResult,
    ChallengeRequest,
    Play,
    PlayResult,
    SecondLexicon,
    SecondResult,
    given,
)

JSON = "application/json"
NO_STORE = "no-store"
GET_PARAMETERS = ("lexicon", "word", "notation", "second", "token")
FLAGS = {"1": True, "true": True, "0": False, "false": False}  # the GET's second=1
UNSET = msgspec.UNSET
# The members a challenge's body must have (lexicon, words): a body with no more member names
# than these has none given twice, and needs no count of the members decoded.
CHALLENGE_REQUIRED = len(ChallengeRequest.__struct_fields__) - len(ChallengeRequest.__struct_defaults__)
BY_POST = (
    "in an event every verdict is recorded, once: send the challenge as POST /v1/challenge, with an "
    "idempotency_key (a GET may be sent again by a proxy or a browser, and each would be recorded)"
)


def not_allowed(event: EventHook, method: str, path: str, allowed: list[str]) -> str:
    """A 405's detail. In an event GET /v1/challenge is no route (only a POST is answered, so
    OPTIONS' Allow and the 405's list the same methods, from the routes): its 405 says why."""
    if event.recorded and path == "/v1/challenge" and method in ("GET", "HEAD"):
        return BY_POST
    return f"{method} is not allowed on {path}; allowed: {', '.join(allowed)}"


def respond(body: bytes, status: int = 200, cache: str = NO_STORE, content_type: str = JSON) -> Response:
    return Response(
        body, status, [("Cache-Control", cache), ("X-Content-Type-Options", "nosniff")], content_type=content_type
    )


def problem_response(problem: Problem) -> Response:
    response = respond(problem.body(), problem.status, content_type=MEDIA_TYPE)
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response


# -- reading requests --------------------------------------------------------------------------


def coded_body(coding: str) -> Problem | None:
    """The 415 of a body sent in a content coding (a Content-Encoding other than identity, such as
    gzip), which this service does not decode (RFC 9110 §15.5.16; RFC 7694's Accept-Encoding says
    what it reads); None for a body as it is.

    >>> coded_body("identity") is None, coded_body("") is None
    (True, True)
    >>> coded_body("gzip").detail
    "the body's Content-Encoding is 'gzip': this service reads a body only as it is (identity): send it uncompressed"
    """
    if all(part.strip().lower() in ("", "identity") for part in coding.split(",")):
        return None
    return Problem(
        None,
        f"the body's Content-Encoding is {show_word(coding)}: this service reads a body only as it is "
        "(identity): send it uncompressed",
        status=415,
        headers={"Accept-Encoding": "identity"},
    )


def read_body() -> bytes:
    """The body, at most MAX_BODY bytes: 413 beyond, whether it says its length or is chunked;
    408 if it has not arrived within BODY_SECONDS (service.deadline); 415 in a content coding
    (`coded_body`), before any of it is read.

    Read straight from the WSGI input: Werkzeug's stream wrappers cost more than the verdict,
    and alone they would cut a chunked body at the limit without a word (a read stops at the
    limit; only a read past it raises), so the chunked case here reads one byte more.
    The environ is taken from the request object itself (Flask's documented way past its proxy):
    `request.environ` makes the proxy fail an attribute lookup first, 0.7 µs of each challenge.
    """
    environ = request._get_current_object().environ
    coding = environ.get("HTTP_CONTENT_ENCODING")
    if coding is not None:
        refused = coded_body(coding)
        if refused is not None:
            raise refused
    length = environ.get("CONTENT_LENGTH")
    try:
        if length:
            try:
                length = int(length)
            except ValueError:
                raise BadRequest("Content-Length is not a number") from None
            if length > MAX_BODY:
                raise RequestEntityTooLarge()
            return read_within(environ["wsgi.input"], length) if length > 0 else b""
        if not environ.get("wsgi.input_terminated"):
            return b""  # neither a length nor a server that ends the stream: no body (WSGI 1.0)
        data = read_within(environ["wsgi.input"], MAX_BODY + 1)
    except (BodyStalled, TimeoutError):  # past the deadline (service.deadline), or a socket's own timeout
        raise Problem(None, f"the body did not arrive in time (within {BODY_SECONDS} s)", status=408) from None
    except (OSError, ValueError, _FramingError):  # the client went away, or broke the chunked framing
        raise Problem(None, "the body could not be read", status=400) from None
    if len(data) > MAX_BODY:
        raise RequestEntityTooLarge()
    return data


def _body() -> bytes:
    return _not_empty(read_body())


def _not_empty(data: bytes) -> bytes:
    if not data.strip():
        raise Problem("invalid-json", "the body is empty: send a JSON object")
    return data


def usable_names(registry: Registry, only: Served | None = None) -> list[str]:
    """The lexicon names a challenge can use here: those of `only` (an event's lexicon, the one
    its verdicts are judged with: any other is refused) when given, else every served one. What
    an unknown name's 404 lists (`known`), and the `enum` of the document's `lexicon` members."""
    return [name for name in registry.names() if only is None or registry.find(name) is only]


def _served(registry: Registry, name: str, only: Served | None = None) -> Served:
    """The lexicon `name` names; a 404 naming the ones the caller can use (usable_names) if none."""
    served = registry.find(name)
    if served is None:
        known = usable_names(registry, only)
        raise Problem(
            "unknown-lexicon",
            f"no lexicon {show_word(name)} here; known: {', '.join(known)}",
            lexicon=name,
            known=known,
        )
    return served


def _second(served: Served, asked: bool | msgspec.UnsetType, always: bool) -> Served | None:
    """The lexicon of the second opinion this request gets: asked for, or always when so set."""
    if asked is msgspec.UNSET:
        return served.second if always else None
    if asked and served.second is None:
        raise Problem(
            "no-second-opinion",
            f"the lexicon {served.id!r} has no second opinion here "
            "(LEXICON_SECOND names none for its language): leave out second",
            lexicon=served.id,
        )
    return served.second if asked else None


def _verdict(
    served: Served, words: list[str], notation: str, second: Served | None = None
) -> tuple[list[str], bool, bool | None]:
    """The words' keys (what an event records, so they are read once), the joint verdict, and
    the second opinion's (None when none is given)."""
    try:
        keys = served.judges[notation].keys(words)
    except InputError as error:
        raise from_input_error(error) from None
    valid = lookup_all(served.lexicon, keys)
    if second is None:
        return keys, valid, None
    return keys, valid, lookup_all(second.lexicon, keys)  # always, whatever the main verdict


def with_mark(body: bytes, mark: Mark) -> bytes:
    """A verdict's fixed body with its record's number and round: `...}` becomes
    `...,"record":N,"round":R}` (`null` between rounds), exactly what msgspec writes for
    `Verdict(valid, lexicon, record=N, round=R)` (tested), with the same bytes before it whichever
    word failed. The round is the record's, not the one the page last saw: a round closed since
    is not written on the slip.

    >>> with_mark(b'{"valid":false}', (12, 3))
    b'{"valid":false,"record":12,"round":3}'
    >>> with_mark(b'{"valid":false}', (13, None))
    b'{"valid":false,"record":13,"round":null}'
    """
    number, round_number = mark
    return b'%s,"record":%d,"round":%s}' % (
        body[:-1],
        number,
        b"null" if round_number is None else b"%d" % round_number,
    )


# -- the routes ------------------------------------------------------------------------------------


def _batch_error(problem: Problem, index: int, play_id: str | None) -> dict:
    """One play's problem, told which play: an entry of `errors`, and the answer if it is the first."""
    prefix = f"play {index}" + (f" ({play_id!r})" if play_id is not None else "")
    problem.detail = f"{prefix}: {problem.detail}"
    problem.extensions = {"play": index, "id": play_id, **problem.extensions}
    return {"type": problem.type, "detail": problem.detail, **problem.extensions}


class Challenges:
    """The challenge's path, bound to an app's lexicons and event: what the routes below and the
    recorded challenge answered in front of Flask (service.fast_challenge) both call, so that each
    rule is written once.

    `event`: what an event adds to every challenge (service.challenge_hook): in tournament mode a
    service.event.http.Tournament, which admits each challenge by its device's role before
    the play is read and records each verdict before it is answered: the answer then carries the
    record's number and round (`record`, `round`), appended to the same fixed bytes. Outside an
    event, NO_EVENT: every challenge takes the same path, and its hooks do nothing.

    `second_always`: LEXICON_SECOND_ALWAYS, a second opinion in every answer that can have one
    (in tournament mode the record keeps it beside the verdict: what the players were shown).
    """

    __slots__ = ("event", "plain", "registry", "second_always")

    def __init__(self, registry: Registry, event: EventHook = NO_EVENT, second_always: bool = False):
        self.registry = registry
        self.event = event
        self.second_always = second_always
        # Outside an event (decided here, once): a challenge calls no hook, and reads no second
        # opinion when none is asked for; the same answers, without a call that does nothing.
        self.plain = event is NO_EVENT

    def lexicon_for(self, caller, name: str, plays: int) -> Served:
        """The lexicon asked for, once the event allowed the caller `plays` verdicts of it (before
        any play is read: no lookup is wasted on a refusal)."""
        served = _served(self.registry, name, self.event.event_served)
        self.event.allow(caller, name, served, plays)
        return served

    def judge_one(self, caller, served: Served, words: list[str], notation: str, asked, slip) -> bytes:
        """One play's verdict: its fixed bytes, recorded first in an event (with the slip of a POST's body)."""
        if self.plain and asked is UNSET and not self.second_always:  # no second opinion, nothing recorded
            try:
                valid = served.judges[notation](words)
            except InputError as error:
                raise from_input_error(error) from None
            return served.valid_body if valid else served.invalid_body
        event = self.event
        second = _second(served, asked, self.second_always) if event.second(caller, asked is True) else None
        keys, valid, other = _verdict(served, words, notation, second)
        fixed = (
            (served.valid_body if valid else served.invalid_body)
            if other is None
            else served.pair_bodies[2 * valid + other]
        )
        marks = event.record(caller, served, notation, ((words, keys, valid, other, slip),), second, slip)
        return fixed if marks is None else with_mark(fixed, marks[0])

    def post(self, data: bytes) -> bytes:
        """POST /v1/challenge's answer to the body `data`, read: a verdict's bytes, or a Problem raised.

        service.fast_challenge calls it too, in front of Flask (tests/service/test_fast_challenge.py
        and tests/service/event/test_fast_recorded.py compare the two paths' answers)."""
        try:
            body: ChallengeRequest = CHALLENGE.decode(data)
        except Exception:
            body = decode(CHALLENGE, _not_empty(data))  # the Problem that says what does not fit
        plain = self.plain
        # In an event, admitted once the body says whether it is a verdict given offline.
        caller = None if plain else self.event.admit(body.offline is True)
        # At least as many '":' as member names (service.decoding.members): no more than the
        # required ones (every ':' one of them), and none is given twice
        count = data.count(b'":')
        if (count != CHALLENGE_REQUIRED or count != data.count(b":")) and members(data) != given(body):
            parse(data)  # a member given twice is refused; an escaped quote and colon in a word is not
        served = (self.registry.find(body.lexicon) if plain else None) or self.lexicon_for(caller, body.lexicon, 1)
        notation = "spelling" if body.notation is UNSET else body.notation
        return self.judge_one(caller, served, body.words, notation, body.second, body)


def create_blueprint(challenges: Challenges, lexicon_list: bytes, openapi: bytes) -> Blueprint:
    """The routes of one app, bound to its lexicons and event (`challenges`: no lookup of app
    state on the request path)."""
    blueprint = Blueprint("api", __name__)
    registry, event, second_always = challenges.registry, challenges.event, challenges.second_always
    lexicon_for, judge_one = challenges.lexicon_for, challenges.judge_one

    @blueprint.post("/v1/challenge")
    def challenge_post() -> Response:
        return respond(challenges.post(read_body()))

    def challenge_get() -> Response:
        caller = event.admit(False)
        args = request.args
        for name in args:
            if name not in GET_PARAMETERS:
                raise Problem(
                    "invalid-request", f"unknown parameter {name!r}; known: {', '.join(GET_PARAMETERS)}", parameter=name
                )
        for name in ("lexicon", "notation", "second"):
            if len(args.getlist(name)) > 1:
                raise Problem(
                    "invalid-request", f"{name} is given {len(args.getlist(name))} times; give it once", parameter=name
                )
        if "lexicon" not in args:
            raise Problem(
                "invalid-request", "lexicon is missing: add lexicon=es (an id or a language code)", parameter="lexicon"
            )
        words = args.getlist("word")
        if not MIN_WORDS <= len(words) <= MAX_WORDS:
            raise Problem(
                "play-size",
                f"a play has {MIN_WORDS} to {MAX_WORDS} words, not {len(words)}: give each as word=...",
                count=len(words),
                parameter="word",
            )
        query = {"lexicon": args["lexicon"], "words": words}
        if "notation" in args:
            query["notation"] = args["notation"]
        if "second" in args:
            if args["second"].lower() not in FLAGS:
                raise Problem(
                    "invalid-request",
                    f"second must be 1 or 0 (true or false), not {show_word(args['second'])}",
                    parameter="second",
                )
            query["second"] = FLAGS[args["second"].lower()]
        try:  # the query is the same request as the body of a POST: the same type checks it
            play = msgspec.convert(query, ChallengeRequest)
        except msgspec.ValidationError as error:
            raise as_parameter(misfit(str(error), ChallengeRequest, query, "", None)) from None
        served = lexicon_for(caller, play.lexicon, 1)
        notation = "spelling" if play.notation is msgspec.UNSET else play.notation
        return respond(judge_one(caller, served, play.words, notation, play.second, None))

    if not event.recorded:  # in an event GET is 405 (not_allowed): a GET may be sent again, each a row
        blueprint.get("/v1/challenge")(challenge_get)

    @blueprint.post("/v1/challenges")
    def challenges_post() -> Response:
        caller = event.admit(False)
        data = _body()
        batch: BatchEnvelope = decode(BATCH, data)
        in_plays = [members(bytes(raw)) for raw in batch.plays]
        if members(data) - sum(in_plays) != given(batch):
            parse(data)
        served = lexicon_for(caller, batch.lexicon, len(batch.plays))
        notation = "spelling" if batch.notation is msgspec.UNSET else batch.notation
        second = _second(served, batch.second, second_always) if event.second(caller, batch.second is True) else None

        # Every play is read before any is judged: a batch with a typing error gets no verdict.
        read: list[tuple[str | None, list[str], Play]] = []
        errors: list[tuple[Problem, dict]] = []
        for index, (raw, count) in enumerate(zip(batch.plays, in_plays, strict=True), 1):
            play_id = None
            try:
                play: Play = decode(PLAY, raw, f"/plays/{index - 1}", index)
                play_id = None if play.id is msgspec.UNSET else play.id
                if count != given(play):
                    parse(raw, f"/plays/{index - 1}")
                read.append((play_id, served.judges[notation].keys(play.words), play))
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
            results = [PlayResult(play_id, lookup_all(lexicon, keys)) for play_id, keys, _ in read]
        else:
            results = [
                PlayResult(play_id, lookup_all(lexicon, keys), second=SecondResult(lookup_all(second.lexicon, keys)))
                for play_id, keys, _ in read
            ]
        # A generator: outside an event nothing reads it, and nothing is built.
        judged: Iterable[Judged] = (
            (play.words, keys, result.valid, None if second is None else result.second.valid, play)
            for (_, keys, play), result in zip(read, results, strict=True)
        )
        marks = event.record(caller, served, notation, judged, second, batch)
        if marks is not None:
            for result, (number, round_number) in zip(results, marks, strict=True):
                result.record, result.round = number, round_number
        if second is None:
            return respond(dumps(BatchResult(results, served.identity)))
        return respond(dumps(BatchResult(results, served.identity, SecondLexicon(second.identity))))

    @blueprint.get("/v1/lexicons")
    def lexicons() -> Response:
        stale = registry.stale()  # a file changed on disk since it was verified (service.registry)
        if not stale:
            return respond(lexicon_list, cache="private, max-age=60")
        return respond(
            dumps(
                LexiconList(
                    [
                        dataclasses.replace(item, state="stale", file=stale[item.id]) if item.id in stale else item
                        for item in registry.describe()
                    ]
                )
            )
        )

    @blueprint.get("/healthz")
    def healthz() -> Response:
        return respond(b'{"status":"ok"}')

    @blueprint.get("/readyz")
    def readyz() -> Response:
        if not registry.ready:
            raise Problem("not-ready", "no lexicon is loaded and verified")
        unready = event.unready()  # the event's file moved or replaced: no verdict can be recorded
        if unready is not None:
            raise Problem(None, unready, status=503)
        stale = registry.stale()  # files changed on disk since they were verified (service.registry)
        same = event.identity()  # which event: the same on every instance of it
        if stale:
            return respond(dumps(Ready("stale", [item.id for item in registry.served], sorted(stale.values()), **same)))
        return respond(dumps(Ready("ready", [item.id for item in registry.served], **same)))

    @blueprint.get("/openapi.json")
    def openapi_document() -> Response:
        return respond(openapi, cache="public, max-age=300")

    return blueprint
