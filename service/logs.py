"""Structured logs: one JSON object a line, for the Flask app and for gunicorn alike.

What a log line may hold is decided here, once:
- never a word of a challenge, nor a query string (GET /v1/challenge carries the words in it),
  nor a request body; a path is cut at its query, even a percent-encoded one (`%3F`), and what
  gunicorn quotes of a request it could not parse (its request line, version or header) is
  removed: `GET /v1/challenge?word=CASA MESA HTTP/1.1` is an invalid HTTP version 'MESA ...';
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
_QUERY = re.compile(r"(\?|%3f)[^\s'\"]*", re.IGNORECASE)
_QUOTED = re.compile(r"'[^']*'?|\"[^\"]*\"?")  # what gunicorn quotes of a bad request


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


def _now() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def where(exc_info) -> list[str]:
    """The frames of an exception as file:line function, without its message or any value."""
    return [f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} {frame.name}"
            for frame in traceback.extract_tb(exc_info[2])][-8:]


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
        path = safe_path(environ.get("PATH_INFO", ""))
        size = "" if path.rstrip("/") in VERDICT_PATHS else f',"bytes":{int(getattr(resp, "sent", 0) or 0)}'
        line = (
            f'{{"time":"{self._time()}","level":"info","logger":"gunicorn.access","pid":{os.getpid()},'
            f'"message":"request","method":{_string(environ.get("REQUEST_METHOD", ""))},'
            f'"path":{_string(path)},"status":{int(getattr(resp, "status_code", 0) or 0)},'
            f'"ms":{request_time.total_seconds() * 1000:.2f},'
            f'"remote":{_string(str(environ.get("REMOTE_ADDR", "")))},'
            f'"protocol":{_string(environ.get("SERVER_PROTOCOL", ""))}{size}}}'
        )
        try:  # a record made directly: Logger.info would look for its caller's frame first
            self.access_log.handle(logging.LogRecord("gunicorn.access", logging.INFO, "", 0, line, None, None))
        except Exception:  # pragma: no cover - a broken log must not break a response
            self.error("access log failed")
