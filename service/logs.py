"""Structured logs: one JSON object a line, for the Flask app and for gunicorn alike.

What a log line may hold is decided here, once:
- never a word of a challenge, nor a query string (GET /v1/challenge carries the words in it),
  nor a request body;
- never the size of a verdict's response (true and false differ by one byte), so an access
  line of a challenge says as much whether the play was valid or not: nothing;
- never an exception's message (it may quote input): its type and where it happened only.

So no log line pairs a word with its validity, and the access log does not even hold validity.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import traceback
from typing import Any

from gunicorn.glogging import Logger as _GunicornLogger

# Responses whose size would tell a verdict: their access lines carry no size.
VERDICT_PATHS = ("/v1/challenge", "/v1/challenges")
_QUERY = re.compile(r"\?[^\s'\"]*")


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
            message = _QUERY.sub("?[query removed]", message)  # request lines of bad requests
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


class GunicornLogger(_GunicornLogger):
    """gunicorn's logger, writing its error and access logs as JSON lines.

    The access line has the method, the path without its query string, the status, the time
    taken, the client's address and the response size except for verdicts.
    """

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(JSONFormatter())

    def access(self, resp, req, environ, request_time) -> None:
        if not self.access_log_enabled:
            return
        path = environ.get("PATH_INFO", "")
        fields = {
            "method": environ.get("REQUEST_METHOD"),
            "path": path,
            "status": getattr(resp, "status_code", None),
            "ms": round(request_time.total_seconds() * 1000, 2),
            "remote": environ.get("REMOTE_ADDR"),
            "protocol": environ.get("SERVER_PROTOCOL"),
        }
        if path.rstrip("/") not in VERDICT_PATHS:
            fields["bytes"] = getattr(resp, "sent", None)
        try:
            self.access_log.info("request", extra={"fields": fields})
        except Exception:  # pragma: no cover - a broken log must not break a response
            self.error("access log failed")
