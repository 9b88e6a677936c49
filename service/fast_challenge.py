"""POST /v1/challenge answered in front of Flask, byte for byte the route's answer.

A plain 3-word challenge did about 10 µs of its own work inside 50 µs of Flask's (the request
context, routing, the hooks, a Response object: docs/figures.md, quick), and a recorded one paid
the same on top of its event's work. So the app's WSGI callable is wrapped (`app.wsgi_app`,
Flask's documented place for a middleware) by one of two classes, which answer the one request
they can answer exactly as the route in `service.api` would: a POST to /v1/challenge, with no
query string, no Content-Encoding and a Content-Length of 1 to MAX_BODY bytes, read here.

Both send every such body through the route's own call, service.api.Challenges.post (the
decoding, the lexicon, the verdict, and in an event admit, its lexicon and rate limits, the record
and its refusals: every rule written once). A verdict is answered here; a refusal (a Problem, or
anything else raised) is answered by Flask's own error handlers and hooks, in a request context of
this request (Flask's documented `request_context`, `handle_user_exception`, `finalize_request`
and `handle_exception`), as the route's would be.

- Outside an event, `FastChallenge`: no one asks to be read (service.challenge_hook.NO_EVENT).
- In an event, `RecordedChallenge`: the request's environ is in service.challenge_hook.ASKING
  while the call runs, for the event to read who asks.

Either way the answer is the route's: status, headers in the same order, the same bytes, and the
route left in the environ for the access log (service.logs); a verdict's bytes never depend on
which word failed. A request not read here goes to the app unchanged: a body whose read failed
here raises its read's error again to the app's read, so every such refusal is the app's own
problem+json, status and log line, and the body's deadline (service.deadline) is the same one.

Installed only without a venue token or CORS, outside an event only without LEXICON_SECOND_ALWAYS,
and only while the app's request hooks are the ones it stands in for (`STANDS_IN_FOR`); an app
with any other hook answers every request itself. tests/service/test_fast_challenge.py compares
both paths' bytes over the API's examples and random requests, and
tests/service/event/test_fast_recorded.py over an event's verdicts and refusals.
"""

from __future__ import annotations

from .api import JSON, NO_STORE, Challenges
from .challenge_hook import ASKING, NO_EVENT
from .config import MAX_BODY
from .deadline import read_within
from .logs import ROUTE_KEY

PATH = "/v1/challenge"
# The app's request hooks whose work on a plain POST /v1/challenge without a query this path does
# (by qualified name): the query's UTF-8 check (no query), OPTIONS' 204 (not OPTIONS), the route
# left for the access log (left here).
STANDS_IN_FOR = frozenset({"_query_is_text", "_options_no_content", "register_routes.<locals>.leave_route"})


def install(app, challenges: Challenges, settings) -> bool:
    """Put FastChallenge, or RecordedChallenge in an event, in front of `app` where it answers as
    the app would; whether it did."""
    if settings.token is not None or settings.cors_origins:
        return False
    if _hooks(app) - STANDS_IN_FOR:
        return False
    if challenges.event is not NO_EVENT:
        app.wsgi_app = RecordedChallenge(app.wsgi_app, app, challenges)
        return True
    if settings.second_always:
        return False
    app.wsgi_app = FastChallenge(app.wsgi_app, app, challenges)
    return True


def _hooks(app) -> set[str]:
    hooks = set()
    for registered in (
        app.before_request_funcs,
        app.after_request_funcs,
        app.teardown_request_funcs,
        app.url_value_preprocessors,
        {None: app.teardown_appcontext_funcs},  # one list, not a dict by blueprint
    ):
        for functions in registered.values():
            hooks.update(function.__qualname__ for function in functions)
    return hooks


class _ReadAgain:
    """A body whose read failed here, for the app to read: its read's error again."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def read(self, size: int = -1) -> bytes:
        raise self.error


def _read(environ) -> bytes | None:
    """The body of a POST /v1/challenge this path may answer, or None for a request the app
    answers: another one, one without a length this path reads, or a body whose read failed
    (then handed to the app to raise again)."""
    if (
        environ.get("PATH_INFO") != PATH
        or environ.get("REQUEST_METHOD") != "POST"
        or environ.get("QUERY_STRING")
        or "HTTP_CONTENT_ENCODING" in environ  # identity or a coding the app refuses (service.api.coded_body)
    ):
        return None
    length = environ.get("CONTENT_LENGTH")
    try:
        length = int(length)
    except (TypeError, ValueError):
        return None
    if not 0 < length <= MAX_BODY:
        return None
    try:
        return read_within(environ["wsgi.input"], length)
    except Exception as error:  # the app reads the same error, and answers it (service.api.read_body)
        environ["wsgi.input"] = _ReadAgain(error)
        return None


def _verdict_answer(environ, start_response, body: bytes) -> list[bytes]:
    """The route's 200 with a verdict's bytes (service.api.respond), its route left for the log."""
    environ[ROUTE_KEY] = PATH
    start_response(
        "200 OK",
        [
            ("Cache-Control", NO_STORE),
            ("X-Content-Type-Options", "nosniff"),
            ("Content-Type", JSON),
            ("Content-Length", str(len(body))),
        ],
    )
    return [body]


class _InFront:
    """A WSGI app in front of Flask's: every POST /v1/challenge this path reads goes through the
    route's own call (`challenges.post`); a verdict is answered here, a refusal by Flask's error
    handlers (`flask`: the app), every other request by `app` (Flask's WSGI callable)."""

    __slots__ = ("app", "challenges", "flask")

    def __init__(self, app, flask, challenges: Challenges) -> None:
        self.app = app
        self.flask = flask
        self.challenges = challenges

    def _refused(self, environ, start_response, error: Exception):
        """The route's answer to what the challenge raised: Flask's error handler for it (a
        Problem's problem+json and its log line, an unexpected error's 500), the after-request
        hooks (the route left for the access log), as Flask's own dispatch does."""
        flask = self.flask
        with flask.request_context(environ):
            try:
                response = flask.finalize_request(flask.handle_user_exception(error))
            except Exception as unhandled:  # no handler, or one (or a hook) that raised: Flask's 500,
                response = flask.handle_exception(unhandled)  # finalized by Flask once, as Flask's wsgi_app does
            return response(environ, start_response)


class FastChallenge(_InFront):
    """Outside an event: the route's call, no one asking to be read (service.challenge_hook NO_EVENT)."""

    __slots__ = ()

    def __call__(self, environ, start_response):
        data = _read(environ)
        if data is None:
            return self.app(environ, start_response)
        try:
            body = self.challenges.post(data)
        except Exception as error:
            return self._refused(environ, start_response, error)
        return _verdict_answer(environ, start_response, body)


class RecordedChallenge(_InFront):
    """In an event: the route's call, with the request's environ in ASKING for the event to read
    who asks."""

    __slots__ = ()

    def __call__(self, environ, start_response):
        data = _read(environ)
        if data is None:
            return self.app(environ, start_response)
        asking = ASKING.set(environ)
        try:
            body = self.challenges.post(data)
        except Exception as error:
            ASKING.reset(asking)
            return self._refused(environ, start_response, error)
        except BaseException:  # the worker stopping this greenlet: nothing to answer
            ASKING.reset(asking)
            raise
        ASKING.reset(asking)
        return _verdict_answer(environ, start_response, body)
