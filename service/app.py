"""The WSGI app of the challenge service: `create_app` (re-exported by `service`).

    from service import create_app
    app = create_app()                       # the manifest's lexicons, settings from LEXICON_*
    app = create_app({"LEXICON_FILES": ["es.lex", "ca.lex"], "TESTING": True})

`create_app` loads and verifies every lexicon before it returns (see `registry`), so an app
that exists is ready; a lexicon that cannot be trusted is a `StartError`. Settings: `config`,
the one place that reads LEXICON_* variables. Under gunicorn, "service ready" is logged once the
socket listens (`gunicorn_conf.when_ready`).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from flask import Flask, Response, request
from jinja2 import BytecodeCache
from werkzeug.exceptions import HTTPException

from tournament import database_of, database_url, is_database_url, shown_database, with_event

from . import fast_challenge, logs
from .addresses import proxies_over_hall
from .api import Challenges, create_blueprint, not_allowed, problem_response, usable_names
from .browser import prepare as prepare_browser_files
from .browser import register_browser
from .challenge_hook import NO_EVENT, EventHook
from .config import MAX_BODY, Settings, SettingsError, load_settings
from .decoding import query_not_utf8
from .director import register_director
from .event import openapi_paths as event_openapi
from .event.limits import WrongCodes
from .federation import EVENT_PATHS, EVENTS, Events, OtherRounds, Playing, root_blueprint, unserved
from .installable import register_installable
from .line_page import line_page
from .openapi import document
from .page import register_page
from .problems import Problem
from .registry import Registry, StartError, dumps, load_registry

__all__ = ["Settings", "SettingsError", "StartError", "check_event", "create_app", "load_settings"]

log = logging.getLogger("service")


class _CompiledTemplates(BytecodeCache):
    """The pages' templates compiled once a process, not once an app: each app has a Jinja
    environment of its own, which would parse and compile judge.html and director.html again (about
    half of making an app), and a service of every event makes an app an event, again after letting
    one go (service.federation). Jinja's own bytecode cache, kept in memory: what it keeps is
    checked against the template's source, so a template changed on disk is compiled again."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        code = self.compiled.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


_TEMPLATES = _CompiledTemplates()


def create_app(
    test_config: Mapping[str, Any] | None = None,
    *,
    settings: Settings | None = None,
    registry: Registry | None = None,
    prefix: str = "",
    elsewhere: Callable[[], frozenset[tuple[str, str]]] | None = None,
    wrong_codes: WrongCodes | None = None,
    remember: bool = False,
) -> Flask:
    """The WSGI app: settings from defaults, then LEXICON_* variables, then `test_config`.

    `settings`, when given, are used as they are (`lexicon serve` has read them already).
    LEXICON_EVENT naming a whole database (a `postgresql://` URL without `?event=`) makes the
    service of every event in it (service.federation): this app answers its root, and each event
    is an app of its own made here, with its `prefix` (/e/ID), the service's lexicons (`registry`)
    and `elsewhere`, the lexicons (checksum and id) of the other events with a round open; an event of
    a database served on its own (`?event=ID`) asks its database the same (`_rounds_elsewhere`);
    and `wrong_codes`, the event's wrong pairing codes in this process, which outlive its app, as
    what the process verified of its record does (`remember`).
    """
    started = time.perf_counter()
    if settings is None:
        settings = load_settings(test_config)
    logs.configure(settings.log_level)

    app = Flask(__name__, static_folder=None)
    app.jinja_options = {**app.jinja_options, "bytecode_cache": _TEMPLATES}
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.before_request(_query_is_text)  # first: no hook reads a query Werkzeug decoded with U+FFFD
    if test_config:
        app.config.update({k: v for k, v in test_config.items() if not k.startswith("LEXICON_")})

    overlap = proxies_over_hall(settings.trusted_proxies, settings.host)
    if overlap is not None:
        raise SettingsError(overlap)
    registry = load_registry(settings) if registry is None else registry
    registry.announce()  # what loading it said, now that the log is configured (once: a copy says nothing)
    app.extensions["lexicon_settings"] = settings
    app.extensions["lexicon_registry"] = registry
    app.extensions["lexicon_prefix"] = prefix  # an event's path in a service of many: its storage's names too
    if is_database_url(settings.event) and database_url(str(settings.event)) is not None:
        return _federation(app, settings, registry)
    event = None
    if settings.event is not None:  # tournament mode (service.event.http)
        from .event.http import Tournament
        from .event.routes import register

        rounds = elsewhere or _rounds_elsewhere(settings.event, registry)
        event = Tournament(settings, registry, rounds, wrong_codes, remember)
        app.extensions["lexicon_event"] = event
    challenges = Challenges(registry, NO_EVENT if event is None else event, settings.second_always)
    app.register_blueprint(
        create_blueprint(
            challenges,
            dumps({"lexicons": registry.describe()}),
            dumps(_openapi_document(settings, usable_names(registry, challenges.event.event_served), prefix)),
        )
    )
    if event is not None:
        register(app, event)
    register_page(app)  # the judge's page at / (service.page)
    register_installable(app)  # its web manifests, icons and service worker (service.installable)
    register_browser(app, registry)  # GET /v1/lexicons/{id}/browser (service.browser)
    register_director(app)  # the director's console at /director, in an event (service.director)
    _register_errors(app, challenges.event, federation=bool(prefix))
    if settings.token is not None:
        app.before_request(_token_check(settings.token))
    if settings.cors_origins:
        app.after_request(_cors(settings))
    app.after_request(_options_no_content)
    logs.register_routes(app)  # the access log names a request by its route, never by its path
    fast_challenge.install(app, challenges, settings)  # last: a challenge without Flask, if it may

    app.extensions["lexicon_summary"] = {  # logged again by gunicorn_conf.when_ready: "service ready"
        "lexicons": [item.id for item in registry.served],
        "token": settings.token is not None,
        "cors": list(settings.cors_origins),
        **({"event": event.name} if event is not None else {}),
    }
    log.info(
        "app loaded",
        extra={"fields": {**app.extensions["lexicon_summary"], "ms": round((time.perf_counter() - started) * 1000, 1)}},
    )
    return app


def check_event(settings: Settings) -> None:
    """StartError when the settings' event could not be served (no event there, its database not
    answering, a backup copy, a role that could switch the record's guard off: service.event.opening),
    found before any app is made (read only, so a lock another program holds is found later, by the
    app): `lexicon serve` asks before it says where the phones go. Nothing to check without an
    event; of a whole database, only its role (its events are opened at their first request)."""
    from .event.opening import check, check_database

    if settings.event is None:
        return
    if is_database_url(settings.event) and database_url(str(settings.event)) is not None:
        check_database(settings)
    else:
        check(settings)


def _federation(app: Flask, settings: Settings, registry: Registry) -> Flask:
    """The root of a service of every event in a database: /healthz, /readyz, and every event at
    /e/ID/ (service.federation), each an app of this factory bound to its event, made at its first
    request; nothing else, and no list of the events."""
    database = str(settings.event)
    from .event.opening import check_database

    check_database(settings)  # as `lexicon serve` did (gunicorn, a reload: the app refuses it too)

    # Each event's wrong pairing codes in this process, made with its first app: an app is closed
    # to make room for others (service.federation, MAX_APPS), and whoever asks other events' paths
    # would otherwise have the guessed event's count start afresh with the app made again; so too
    # what the process verified of its record (`remember`: the rows deleted since stay a break).
    wrong_codes: dict[str, WrongCodes] = {}

    def event_app(event_id: str) -> Flask:
        public = None if settings.public_url is None else f"{settings.public_url.rstrip('/')}/e/{event_id}/"
        bound = replace(settings, event=with_event(database, event_id), public_url=public)
        return create_app(
            settings=bound,
            registry=registry.copy(),
            prefix=f"{EVENTS}/{event_id}",
            elsewhere=lambda: events.played_elsewhere(event_id),
            wrong_codes=wrong_codes.setdefault(event_id, WrongCodes()),
            remember=True,
        )

    prepare_browser_files(registry)  # once, here (before gunicorn forks), not in each event's app
    events = Events(
        app.wsgi_app, database, event_app, lambda made: made.extensions["lexicon_event"].db.close(), registry=registry
    )
    app.wsgi_app = events  # type: ignore[method-assign]
    app.register_blueprint(root_blueprint(registry, events, settings.trusted_proxies))
    _register_errors(app, NO_EVENT, federation=True)
    if settings.cors_origins:
        app.after_request(_cors(settings))
    app.after_request(_options_no_content)
    logs.register_routes(app)
    app.extensions["lexicon_summary"] = {
        "lexicons": [item.id for item in registry.served],
        "token": settings.token is not None,
        "cors": list(settings.cors_origins),
        "database": shown_database(database),
    }
    log.info("app loaded", extra={"fields": app.extensions["lexicon_summary"]})
    app.extensions["lexicon_warnings"] = unserved(database, registry)  # `lexicon reload` prints them
    for warning in app.extensions["lexicon_warnings"]:
        log.warning(warning)
    return app


def _rounds_elsewhere(location: object, registry: Registry) -> Callable[[], frozenset[Playing]] | None:
    """For an event of a database served by a service of its own (LEXICON_EVENT naming it,
    `?event=ID`): the lexicons its database's other events with a round open judge with
    (service.federation.OtherRounds), so that its lookups close while one of them plays in its
    language, as an event's of a service of every event do. None for an event file."""
    if not is_database_url(location):
        return None
    database, event_id = database_of(str(location))
    rounds = OtherRounds(database, registry=registry)
    return lambda: rounds.besides(event_id)


def _openapi_document(settings: Settings, names: list[str], prefix: str = "") -> dict[str, Any]:
    """/openapi.json: the simple mode's document, with tournament mode's operations in an event.

    Tournament mode's schemas are in every document (one set of components whatever the mode);
    the app factory is the one place of the web package that wires its event part in. An event of
    a service of many names its prefix as the document's server: its paths are below it."""
    extend = event_openapi.add_to if settings.event is not None else None
    made = document(settings, names, more=event_openapi.COMPONENTS, extend=extend)
    if prefix:
        made["servers"] = [
            {
                "url": prefix,
                "description": "this event's path on a service of every event of a database. While the event "
                "cannot be served, every path below it answers 503: `record-unavailable` with `Retry-After` "
                "(its database away, or the instance answering as many events as it serves), or "
                "`event-lexicon-missing` without (the list it is pinned to is not served: until the "
                "federation's operator serves it again).",
            }
        ]
    return made


# -- errors: every one a problem+json, none with a traceback -------------------------------------


def _register_errors(app: Flask, event: EventHook, federation: bool = False) -> None:
    """Every error a problem+json, a Problem as the event answers it (`event.refusal`). In a
    service of many events, an unknown path says the same whether it is under an event's prefix
    or not (service.federation): the whole path, one text."""

    @app.errorhandler(Problem)
    def on_problem(problem: Problem) -> Response:
        problem = event.refusal(problem)
        log.info(
            "problem",
            extra={
                "fields": {
                    "method": logs.method_of(request.method),
                    "path": logs.route_of(request, app.url_map),
                    "status": problem.status,
                    "type": problem.type,
                }
            },
        )
        return problem_response(problem)

    @app.errorhandler(HTTPException)
    def on_http(error: HTTPException) -> Response:
        if error.code is None or error.code < 400:  # a redirect: Werkzeug's own response
            return error.get_response()
        headers: dict[str, str] = {}
        members: dict[str, Any] = {}
        if error.code == 404 and federation:  # the same bytes for /e/ANY/x as for /x: no event told apart
            page = line_page("noEventTitle", "noEvent")  # a person's browser: a line in Spanish or Catalan
            if page is not None:
                return page
            detail = f"no such path {request.script_root + request.path!r}: {EVENT_PATHS}"
        elif error.code == 404 and request.path.rstrip("/") == "/director":  # there only in an event
            page = line_page("noConsoleTitle", "noConsole")  # the director's browser, as above
            if page is not None:
                return page
            detail = (
                "no director's console here: it is served only in tournament mode, "
                "LEXICON_EVENT=EVENT.db lexicon serve (docs/event-guide.md)"
            )
        elif error.code == 404:
            detail = f"no such path {request.path!r}: the API is described at /openapi.json"
        elif error.code == 405:
            allowed = sorted(getattr(error, "valid_methods", None) or [])
            headers["Allow"] = _allow(allowed)
            detail = not_allowed(event, request.method, request.path, allowed)
        elif error.code == 413:
            detail = f"the body is larger than {MAX_BODY} bytes ({MAX_BODY / 1024:g} KiB), the limit of this service"
            members["limit"] = MAX_BODY
        else:
            detail = error.description or ""
        return on_problem(Problem(None, detail, status=error.code, headers=headers, **members))

    @app.errorhandler(Exception)
    def on_error(error: Exception) -> Response:
        # Neither the message nor the request's content: either may quote a word.
        log.error(
            "unexpected error",
            exc_info=(type(error), error, error.__traceback__),
            extra={"fields": {"method": logs.method_of(request.method), "path": logs.route_of(request, app.url_map)}},
        )
        problem = Problem(None, "an unexpected error; it has been logged", status=500)
        try:  # a device revoked since it was cached gets its 401 here too; a failing read leaves the 500
            problem = event.refusal(problem)
        except Exception:
            log.error("unexpected error", exc_info=True, extra={"fields": {"stage": "refusal"}})
        return problem_response(problem)


def _query_is_text() -> None:
    """Malformed percent-encoded UTF-8 in the query string is a 400, like a body that is no UTF-8."""
    refused = query_not_utf8(request.query_string)
    if refused is not None:
        raise refused


# -- the venue token and CORS ---------------------------------------------------------------------


def _token_check(token: str):
    expected = token.encode("ascii")

    def check() -> None:
        if not request.path.startswith("/v1/") or request.method == "OPTIONS":
            return None
        supplied = request.args.get("token", "")
        authorization = request.headers.get("Authorization", "")
        if authorization[:7].lower() == "bearer ":
            supplied = authorization[7:].strip()
        if not hmac.compare_digest(supplied.encode("utf-8", "replace"), expected):
            # Missing or not accepted: said apart, nothing said about the right token.
            said = (
                "this token is not accepted: ask the tournament director for the venue token (it may have changed)"
                if supplied
                else "a token is required: this service answers only with the venue token; ask the tournament director"
            )
            raise Problem(
                "token-required",
                f"{said}, then send it as 'Authorization: Bearer TOKEN' or add token=TOKEN to the address",
                headers={"WWW-Authenticate": 'Bearer realm="lexicon-judge"'},
            )
        return None

    return check


def _allow(methods) -> str:
    """The methods a route answers, as Allow lists them: OPTIONS' Allow, a 405's, and a CORS
    preflight's Access-Control-Allow-Methods, all from the route (Flask's url map), in one order
    (sorted). In an event GET /v1/challenge is no route, so none of the three offers it."""
    return ", ".join(sorted(methods))


def _options_no_content(response: Response) -> Response:
    """OPTIONS (Flask's automatic answer: 200, an empty text/html body) as 204 No Content with
    its Allow header, with or without CORS: there is nothing to show, and no body to type."""
    if request.method == "OPTIONS" and response.status_code == 200 and not response.get_data():
        response.status_code = 204
        response.headers["Allow"] = _allow(response.allow)
        for name in ("Content-Type", "Content-Length"):
            response.headers.pop(name, None)
    return response


def _cors(settings: Settings):
    any_origin = settings.cors_any
    allowed = frozenset(settings.cors_origins)

    def add_headers(response: Response) -> Response:
        if not any_origin:
            response.vary.add("Origin")
        origin = request.headers.get("Origin")
        if origin is None or not (any_origin or origin in allowed):
            return response
        response.headers["Access-Control-Allow-Origin"] = "*" if any_origin else origin
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers and response.allow:
            response.headers["Access-Control-Allow-Methods"] = _allow(response.allow)
            response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type"
            response.headers["Access-Control-Max-Age"] = "600"
        return response

    return add_headers
