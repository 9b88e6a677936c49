"""GET /v1/lexicons/{id}/browser: a loaded lexicon as the browser file (lexicon.browser).

The bytes never change while the service runs (a new list is a new `.lex` file and a restart),
so they are sent with a strong ETag, the file's own checksum, and cached for a year as
immutable; compressed on the wire, brotli or gzip as the client accepts (Vary: Accept-Encoding).

When: not at start-up. Building the automaton of a 600,000-word list takes a few seconds of
Python (`make bench`), which would make every restart, and every worker, that much slower for a
file a page fetches in the background. So each worker makes it on the first request for that
lexicon: from `ID.dawg` beside the `.lex` file when `lexicon export --browser` wrote one (read,
verified, and checked to come from this very `.lex`: a tenth of a second), else from the loaded
lexicon; then it keeps the bytes and each compressed form it was asked for.
"""

from __future__ import annotations

import gzip
import logging
import threading

import brotli
from flask import Blueprint, Response, request

from lexicon.browser import BrowserLexicon, beside, browser_bytes
from lexicon.errors import LexiconFileError
from lexicon.lexfile import Lexicon

from .problems import Problem
from .registry import Registry

log = logging.getLogger("service")

CACHE_CONTROL = "public, max-age=31536000, immutable"


class BrowserFile:
    """One lexicon's browser file and its compressed forms, made once, on first use."""

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon
        self._lock = threading.Lock()
        self._forms: dict[str, bytes] = {}
        self.etag = ""

    def form(self, encoding: str) -> bytes:
        with self._lock:
            if encoding not in self._forms:
                raw = self._forms.get("identity") or self._make()
                self._forms["identity"] = raw
                self.etag = raw[-32:].hex()
                if encoding == "br":
                    self._forms["br"] = brotli.compress(raw, quality=11)
                elif encoding == "gzip":
                    self._forms["gzip"] = gzip.compress(raw, compresslevel=9, mtime=0)
            return self._forms[encoding]

    def _make(self) -> bytes:
        path = beside(self.lexicon.source)
        if path.is_file():
            try:
                data = path.read_bytes()
                if BrowserLexicon(data, str(path)).header.lexicon_sha256 == self.lexicon.checksum:
                    return data
                log.warning("browser file of another lexicon ignored", extra={"fields": {"path": str(path)}})
            except (OSError, LexiconFileError) as error:
                log.warning("browser file ignored", extra={"fields": {"path": str(path), "reason": str(error)}})
        return browser_bytes(self.lexicon)


def encoding_for(accept) -> str:
    """brotli if accepted at least as well as gzip, else gzip if accepted, else none."""
    br, gz = accept.quality("br"), accept.quality("gzip")
    if br > 0 and br >= gz:
        return "br"
    return "gzip" if gz > 0 else "identity"


def create_browser_blueprint(registry: Registry) -> Blueprint:
    files = {item.id: BrowserFile(item.lexicon) for item in registry.served}
    blueprint = Blueprint("browser", __name__)

    @blueprint.get("/v1/lexicons/<lexicon_id>/browser")
    def browser_lexicon(lexicon_id: str) -> Response:
        found = files.get(lexicon_id)
        if found is None:
            known = sorted(files)
            raise Problem("unknown-lexicon", f"no lexicon {lexicon_id!r} here; known: {', '.join(known)}",
                          lexicon=lexicon_id, known=known)
        encoding = encoding_for(request.accept_encodings)
        body = found.form(encoding)
        response = Response(body, mimetype="application/octet-stream")
        if encoding != "identity":
            response.headers["Content-Encoding"] = encoding
        response.vary.add("Accept-Encoding")
        response.headers["Cache-Control"] = CACHE_CONTROL
        # Strong, and one per representation (RFC 9110 8.8.3): the checksum, then the coding.
        response.set_etag(found.etag if encoding == "identity" else f"{found.etag}-{encoding}")
        return response.make_conditional(request)

    return blueprint


def register_browser(app, registry: Registry) -> None:
    app.register_blueprint(create_browser_blueprint(registry))
