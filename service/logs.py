"""Structured logs: one JSON object a line, for the Flask app and for gunicorn alike.

What a log line may hold is decided here, once:
- never a word, from any part of a request: not its path, its query (GET /v1/challenge carries
  the words in it), its headers (a Referer holds the page's address) or its body. A request the
  app answered is logged by its route, the app's template of it (`/v1/lexicons/<lexicon_id>/browser`,
  `route_of`), never by the path typed: a path is anything a client sends (`/v1/PERA/MANGO`, a
  404), and a route's parameter may be a word too. A path no route has is `[no route]`. What
  gunicorn quotes of a request it could not parse (its request line, version or header) is
  removed, and so is any query left in its messages: `GET /v1/challenge?word=CASA MESA HTTP/1.1`
  is an invalid HTTP version 'MESA ...';
- never the size of a verdict's response (true and false differ by one byte), so an access
  line of a challenge says as much whether the play was valid or not: nothing;
- never an exception's message (it may quote input): its type and where it happened only.

So no log line pairs a word with its validity, and the access log does not even hold validity.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import traceback
from typing import Any

from gunicorn.glogging import Logger as _GunicornLogger

# Responses whose size would tell a verdict: their access lines carry no size.
VERDICT_PATHS = ("/v1/challenge", "/v1/challenges")
ROUTE_KEY = "lexicon.route"  # where the app leaves a request's route in its environ, for the access log
NO_ROUTE = "[no route]"
# The methods a log line names as they are; any other is a client's free text (it may be a word).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"})
OTHER_METHOD = "[other]"
_QUERY = re.compile(r"(\?|%3f)[^\s'\"]*", re.IGNORECASE)
_QUOTED = re.compile(r"'[^']*'?|\"[^\"]*\"?")  # what gunicorn quotes of a bad request


def method_of(method: str) -> str:
    """A request's method as logs may hold it: an HTTP method, else OTHER_METHOD.

    >>> method_of("POST"), method_of("CARROZ")
    ('POST', '[other]')
    """
    return method if method in METHODS else OTHER_METHOD


def safe_path(path: str) -> str:
    """A request path as logs may hold it: without its query, even one encoded in the path.

    >>> safe_path("/v1/challenge?lexicon=es&word=CASA"), safe_path("/v1/challenge%3Flexicon=es")
    ('/v1/challenge[query removed]', '/v1/challenge[query removed]')
    """
    return _QUERY.sub("[query removed]", path)


def safe_server_message(message: str) -> str:
    """A gunicorn message without the query strings or the quoted pieces of a request it refused.

    >>> safe_server_message("Invalid request from ip=10.0.0.7: Invalid HTTP Version: 'MESA HTTP/1.1'")
    'Invalid request from ip=10.0.0.7: Invalid HTTP Version: [removed]'
    """
    return _QUOTED.sub("[removed]", safe_path(message))


def route_of(request, url_map) -> str:
    """The route of a Flask request as logs may hold it: its rule, or for a method the route does
    not allow (405) the rule of that path, else NO_ROUTE; never the path as typed.

    >>> from werkzeug.routing import Map, Rule
    >>> from werkzeug.test import EnvironBuilder
    >>> from flask import Request
    >>> routes = Map([Rule("/v1/records/<int:seq>", methods=["GET"])])
    >>> def routed(method, path):
    ...     request = Request(EnvironBuilder(method=method, path=path).get_environ())
    ...     try:
    ...         request.url_rule, _ = routes.bind("judge").match(path, method, return_rule=True)
    ...     except Exception as error:
    ...         request.routing_exception = error
    ...     return route_of(request, routes)
    >>> routed("GET", "/v1/records/7"), routed("DELETE", "/v1/records/7"), routed("GET", "/v1/PERA/MANGO")
    ('/v1/records/<int:seq>', '/v1/records/<int:seq>', '[no route]')
    """
    rule = request.url_rule
    if rule is not None:
        return rule.rule
    allowed = getattr(request.routing_exception, "valid_methods", None)
    if allowed:
        try:
            rule, _ = url_map.bind("judge").match(request.path, allowed[0], return_rule=True)
            return rule.rule
        except Exception:  # pragma: no cover - it matched a moment ago, for the 405
            pass
    return NO_ROUTE


def register_routes(app) -> None:
    """Every answer of `app` leaves its route in the environ, where the access log reads it."""
    from flask import request

    url_map = app.url_map

    def leave_route(response):
        request.environ[ROUTE_KEY] = route_of(request, url_map)
        return response

    app.after_request(leave_route)


def _now() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def where(exc_info) -> list[str]:
    """The frames of an exception as file:line function, without its message or any value."""
    return [
        f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} {frame.name}"
        for frame in traceback.extract_tb(exc_info[2])
    ][-8:]


class JSONFormatter(logging.Formatter):
    """A record as one JSON line: time, level, logger, message, then the record's `fields`."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.name.startswith("gunicorn"):
            message = safe_server_message(message)  # request lines of bad requests
        line: dict[str, Any] = {
            "time": _now(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "pid": record.process,
            "message": message,
        }
        fields = getattr(record, "fields", None)
        if fields:
            line.update(fields)
            if isinstance(fields.get("path"), str):  # the app's own lines: a 404's path may be a decoded %3F
                line["path"] = safe_path(fields["path"])
        if record.exc_info and record.exc_info[0] is not None:
            line["error"] = record.exc_info[0].__name__
            line["where"] = where(record.exc_info)
        return json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=str)


class StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a record comes (a test's capture, gunicorn's log)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def configure(level: str = "info") -> logging.Logger:
    """The app's logger, `service`, writing JSON lines to standard error; idempotent."""
    logger = logging.getLogger("service")
    logger.setLevel(level.upper())
    logger.propagate = False
    for handler in list(logger.handlers):
        if isinstance(handler, StderrHandler):
            logger.removeHandler(handler)
    handler = StderrHandler()
    handler.setFormatter(JSONFormatter())
    logger.addHandler(handler)
    return logger


class PassThrough(logging.Formatter):
    """For lines that are JSON already (the access log builds its own)."""

    def format(self, record: logging.LogRecord) -> str:
        return record.getMessage()


_string = json.JSONEncoder(ensure_ascii=True).encode  # a JSON string literal, escaped


class GunicornLogger(_GunicornLogger):
    """gunicorn's logger, writing its error and access logs as JSON lines.

    The access line has the method, the path without its query string, the status, the time
    taken, the client's address and the response size except for verdicts. It is built as
    one string here, not through a formatter: it is written for every request, and this way
    costs a third of the time.
    """

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for handler in self.error_log.handlers:
            handler.setFormatter(JSONFormatter())
        for handler in self.access_log.handlers:
            handler.setFormatter(PassThrough())
        self._second = -1
        self._stamp = ""

    def _time(self) -> str:
        now = time.time()
        second = int(now)
        if second != self._second:
            self._second = second
            self._stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._stamp}.{int((now - second) * 1000):03d}Z"

    def access(self, resp, req, environ, request_time) -> None:
        if not self.access_log_enabled:
            return
        path = environ.get(ROUTE_KEY) or NO_ROUTE  # never PATH_INFO: anything a client sends
        size = "" if path.rstrip("/") in VERDICT_PATHS else f',"bytes":{int(getattr(resp, "sent", 0) or 0)}'
        line = (
            f'{{"time":"{self._time()}","level":"info","logger":"gunicorn.access","pid":{os.getpid()},'
            f'"message":"request","method":{_string(method_of(environ.get("REQUEST_METHOD", "")))},'
            f'"path":{_string(path)},"status":{int(getattr(resp, "status_code", 0) or 0)},'
            f'"ms":{request_time.total_seconds() * 1000:.2f},'
            f'"remote":{_string(str(environ.get("REMOTE_ADDR", "")))},'
            f'"protocol":{_string(environ.get("SERVER_PROTOCOL", ""))}{size}}}'
        )
        try:  # a record made directly: Logger.info would look for its caller's frame first
            self.access_log.handle(logging.LogRecord("gunicorn.access", logging.INFO, "", 0, line, None, None))
        except Exception:  # pragma: no cover - a broken log must not break a response
            self.error("access log failed")
