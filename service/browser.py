"""GET /v1/lexicons/{id}/browser: a loaded lexicon as the browser file (lexicon.browser).

The bytes never change while the service runs (a new list is a new `.lex` file and a restart),
so they are sent with a strong ETag, the file's own checksum, and cached for a year as
immutable (outside an event; in one, no HTTP cache keeps them: EVENT_CACHE_CONTROL), at the
lexicon id's URL only: a language code (`es`) or another case answers 307 to
that URL, not cached (a language's default may change); compressed on the wire, brotli or gzip as the client accepts (Vary: Accept-Encoding).

Where the bytes come from: `NAME.dawg` beside `NAME.lex` (lexicon.browser.beside), written by
`lexicon build-defaults` for each default lexicon (and by `lexicon export --browser` for any),
read when the app is created (in gunicorn's master, so the workers share it) and
kept if its checksum, header and tile set are right and it was made from this very `.lex` file
(its `lexicon_sha256`): a millisecond or two. Without one, or with a stale or damaged one
(logged), the file is built from the loaded lexicon on the first request for it, in that
worker: about 2 s of CPU for the Spanish default, too slow to add to every start-up and every
token change. Each compressed form is made on its first request (gzip 0.06 s, brotli at its
best quality 0.7 s) and kept.
"""

from __future__ import annotations

import gzip
import logging
import threading

import brotli
from flask import Blueprint, Response, redirect, request, url_for

from lexicon.browser import beside, browser_bytes, verify
from lexicon.errors import LexiconFileError
from lexicon.lexfile import Lexicon

from .problems import Problem
from .registry import Registry

log = logging.getLogger("service")

CACHE_CONTROL = "public, max-age=31536000, immutable"
# In an event no HTTP cache keeps it, not even the phone's own: the judge's page keeps its copy in
# IndexedDB (offline.js, by checksum), which it can delete, and a phone paired later as a table
# device must hold none (the browser's HTTP cache would answer a request without the token).
EVENT_CACHE_CONTROL = "no-store"


def exported(lexicon: Lexicon) -> bytes | None:
    """The browser file beside `lexicon`'s `.lex` file, if there is one made from it."""
    path = beside(lexicon.source)
    if not path.is_file():
        log.info("no browser file beside the lexicon: it will be built on first request",
                 extra={"fields": {"lexicon": lexicon.header.id, "path": str(path)}})
        return None
    try:
        data = path.read_bytes()
        if verify(data, str(path)).lexicon_sha256 == lexicon.checksum:
            return data
        reason = "made from another .lex file"
    except (OSError, LexiconFileError) as error:
        reason = str(error)
    log.warning("browser file ignored: it will be built on first request",
                extra={"fields": {"lexicon": lexicon.header.id, "path": str(path), "reason": reason}})
    return None


class BrowserFile:
    """One lexicon's browser file and its compressed forms."""

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon
        self._lock = threading.Lock()
        self._forms: dict[str, bytes] = {}
        data = exported(lexicon)
        if data is not None:
            self._forms["identity"] = data

    def form(self, encoding: str) -> tuple[bytes, str]:
        """The body in `encoding` (identity, gzip, br) and the file's checksum (hex)."""
        with self._lock:
            raw = self._forms.get("identity")
            if raw is None:
                raw = self._forms["identity"] = browser_bytes(self.lexicon)
            if encoding not in self._forms:
                if encoding == "br":
                    self._forms["br"] = brotli.compress(raw, quality=11)
                elif encoding == "gzip":
                    self._forms["gzip"] = gzip.compress(raw, compresslevel=9, mtime=0)
            return self._forms[encoding], raw[-32:].hex()


def encoding_for(accept) -> str:
    """brotli if accepted at least as well as gzip, else gzip if accepted, else none."""
    br, gz = accept.quality("br"), accept.quality("gzip")
    if br > 0 and br >= gz:
        return "br"
    return "gzip" if gz > 0 else "identity"


def create_browser_blueprint(registry: Registry, event=None) -> Blueprint:
    """The route; `event` (service.event.http.Tournament, in an event) lets only paired judge
    devices have the file: the whole list on a phone is a lookup at any time, which an event gives
    no one else during a round (401 without a device, 403 for a table or lookup device)."""
    files = {item.id: BrowserFile(item.lexicon) for item in registry.served}
    blueprint = Blueprint("browser", __name__)

    @blueprint.get("/v1/lexicons/<lexicon_id>/browser")
    def browser_lexicon(lexicon_id: str) -> Response:
        if event is not None:
            event.offline_device()
        item = registry.find(lexicon_id)  # an id or a language, in any case, as the rest of the API
        if item is None:
            known = sorted(files)
            raise Problem("unknown-lexicon", f"no lexicon {lexicon_id!r} here; known: {', '.join(known)}",
                          lexicon=lexicon_id, known=known)
        if item.id != lexicon_id:  # `es` or `LETTERPRESS-ES`: only the id's URL is cached as immutable
            moved = redirect(url_for("browser.browser_lexicon", lexicon_id=item.id), 307)
            moved.headers["Cache-Control"] = "no-cache"  # the default of a language may change
            return moved
        found = files[item.id]
        encoding = encoding_for(request.accept_encodings)
        body, checksum = found.form(encoding)
        response = Response(body, mimetype="application/octet-stream")
        if encoding != "identity":
            response.headers["Content-Encoding"] = encoding
        response.vary.add("Accept-Encoding")
        response.headers["Cache-Control"] = CACHE_CONTROL if event is None else EVENT_CACHE_CONTROL
        # Strong, and one per representation (RFC 9110 8.8.3): the checksum, then the coding.
        response.set_etag(checksum if encoding == "identity" else f"{checksum}-{encoding}")
        return response.make_conditional(request)

    return blueprint


def register_browser(app, registry: Registry) -> None:
    app.register_blueprint(create_browser_blueprint(registry, app.extensions.get("lexicon_event")))
