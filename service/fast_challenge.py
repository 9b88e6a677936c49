"""The plain challenge answered in front of Flask: POST /v1/challenge, byte for byte the route's answer.

A plain 3-word challenge did about 10 µs of its own work inside 50 µs of Flask's (the request
context, routing, the hooks, a Response object: docs/figures.md, quick). So the app's WSGI callable
is wrapped (`app.wsgi_app`, Flask's documented place for a middleware) by `FastChallenge`, which
answers the one request it can answer exactly as the route in `service.api` would:

- POST to /v1/challenge, with no query string and a Content-Length of 1 to MAX_BODY bytes;
- a body that decodes into a ChallengeRequest, with no member given twice, no `second`, and a
  lexicon served here;
- words the lexicon's judge reads (no input error).

Its answer is the route's: status, headers in the same order, the same fixed verdict bytes, and the
route left in the environ for the access log (service.logs). The verdict is the route's own call
(the lexicon's judge over the words), so nothing here depends on which word failed either.

Anything else goes to the app unchanged: another request, or a challenge the route would refuse or
answer otherwise (an error, a second opinion). The body, once read here, is handed over as it was
read, or the read's error is raised again to the app's read, so every refusal is the app's own
problem+json, status and log line, and the body's deadline (service.deadline) is the same one.

It is installed only outside an event, without a venue token, CORS or LEXICON_SECOND_ALWAYS, and
only while the app's request hooks are the ones it stands in for (`STANDS_IN_FOR`); an app with
any other hook answers every request itself. tests/service/test_fast_challenge.py compares both
paths' bytes over the API's examples and random requests.
"""

from __future__ import annotations

import io

from msgspec import UNSET

from .api import CHALLENGE_REQUIRED, JSON, NO_STORE
from .config import MAX_BODY
from .deadline import read_within
from .decoding import CHALLENGE, members
from .logs import ROUTE_KEY
from .registry import Registry
from .types import given

PATH = "/v1/challenge"
# The app's request hooks whose work on a plain POST /v1/challenge without a query this path does
# (by qualified name): the query's UTF-8 check (no query), OPTIONS' 204 (not OPTIONS), the route
# left for the access log (left here).
STANDS_IN_FOR = frozenset({"_query_is_text", "_options_no_content", "register_routes.<locals>.leave_route"})


def install(app, registry: Registry, settings, event) -> bool:
    """Put FastChallenge in front of `app` where it answers as the app would; whether it did."""
    if event is not None or settings.token is not None or settings.cors_origins or settings.second_always:
        return False
    if _hooks(app) - STANDS_IN_FOR:
        return False
    app.wsgi_app = FastChallenge(app.wsgi_app, registry)
    return True


def _hooks(app) -> set[str]:
    hooks = set()
    for registered in (
        app.before_request_funcs,
        app.after_request_funcs,
        app.teardown_request_funcs,
        app.url_value_preprocessors,
    ):
        for functions in registered.values():
            hooks.update(function.__qualname__ for function in functions)
    return hooks


class _ReadAgain:
    """The body as it was read here, for the app to read: its bytes, or its read's error again."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def read(self, size: int = -1) -> bytes:
        raise self.error


class FastChallenge:
    """The WSGI app: a plain challenge answered here, every other request by `app`."""

    __slots__ = ("app", "registry")

    def __init__(self, app, registry: Registry) -> None:
        self.app = app
        self.registry = registry

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") != PATH or environ.get("REQUEST_METHOD") != "POST" or environ.get("QUERY_STRING"):
            return self.app(environ, start_response)
        length = environ.get("CONTENT_LENGTH")
        try:
            length = int(length)
        except (TypeError, ValueError):
            return self.app(environ, start_response)
        if not 0 < length <= MAX_BODY:
            return self.app(environ, start_response)
        try:
            data = read_within(environ["wsgi.input"], length)
        except Exception as error:  # the app reads the same error, and answers it (service.api.read_body)
            environ["wsgi.input"] = _ReadAgain(error)
            return self.app(environ, start_response)
        body = self._verdict(data)
        if body is None:
            environ["wsgi.input"] = io.BytesIO(data)
            return self.app(environ, start_response)
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

    def _verdict(self, data: bytes) -> bytes | None:
        """The route's verdict body for `data` (service.api challenge_post, outside an event), or
        None when the route would answer anything but a plain verdict."""
        try:
            play = CHALLENGE.decode(data)
        except Exception:
            return None
        count = data.count(b'":')
        if (count != CHALLENGE_REQUIRED or count != data.count(b":")) and members(data) != given(play):
            return None
        if play.second is not UNSET:
            return None
        served = self.registry.find(play.lexicon)
        if served is None:
            return None
        try:
            judge = served.judges["spelling" if play.notation is UNSET else play.notation]
            valid = judge(play.words)
        except Exception:  # an input error (InputError: the route's 4xx), or what the route does not expect either
            return None
        return served.valid_body if valid else served.invalid_body
