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
(its `lexicon_sha256`), which is cheap. Without one, or with a stale or damaged one (logged),
the file is built from the loaded lexicon, which costs seconds of CPU for the Spanish default.

Everything is prepared when the app is created, before it serves: the file and both compressed
forms (gzip, for browsers on plain HTTP, which are offered no brotli; brotli at its best quality,
the smallest for a phone on the venue's Wi-Fi). That is in gunicorn's master, so every worker
shares the bytes, and a reload builds its app there too while the old workers serve. Made on a
request instead, in a worker, they would hold that worker's event loop (brotli at its best
quality takes on the order of a second a lexicon), and after a reload the first requests for
the file would stall every challenge of the service ([figures.md](../docs/figures.md#browser)
measures the file's costs). A reload reuses what the app before it
prepared for the same bytes (`_PREPARED`), so that it costs nothing unless a lexicon changed.
"""

from __future__ import annotations

import gzip
import logging

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
        log.info(
            "no browser file beside the lexicon: it is built from the lexicon",
            extra={"fields": {"lexicon": lexicon.header.id, "path": str(path)}},
        )
        return None
    try:
        data = path.read_bytes()
        if verify(data, str(path)).lexicon_sha256 == lexicon.checksum:
            return data
        reason = "made from another .lex file"
    except (OSError, LexiconFileError) as error:
        reason = str(error)
    log.warning(
        "browser file ignored: it is built from the lexicon",
        extra={"fields": {"lexicon": lexicon.header.id, "path": str(path), "reason": reason}},
    )
    return None


# What the latest app prepared, for the next one (a reload) to reuse: a lexicon's checksum -> the
# browser file built from it, and a browser file's checksum -> its compressed forms. Only what that
# app serves is kept, so a reload that drops or replaces a lexicon drops its bytes from here too.
_PREPARED: dict[str, dict] = {"built": {}, "compressed": {}}


class BrowserFile:
    """One lexicon's browser file and its compressed forms, all made when it is created."""

    def __init__(self, lexicon: Lexicon, prepared: dict[str, dict] | None = None):
        prepared = prepared or {"built": {}, "compressed": {}}
        self.lexicon = lexicon
        raw = exported(lexicon)
        if raw is None:
            raw = prepared["built"].get(lexicon.checksum) or browser_bytes(lexicon)
            self.built = raw
        else:
            self.built = None
        self.checksum = raw[-32:].hex()
        compressed = prepared["compressed"].get(self.checksum)
        if compressed is None:
            compressed = {"br": brotli.compress(raw, quality=11), "gzip": gzip.compress(raw, compresslevel=9, mtime=0)}
        self.compressed = compressed
        self._forms = {"identity": raw, **compressed}

    def form(self, encoding: str) -> tuple[bytes, str]:
        """The body in `encoding` (identity, gzip, br) and the file's checksum (hex)."""
        return self._forms[encoding], self.checksum


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
    files = {item.id: BrowserFile(item.lexicon, _PREPARED) for item in registry.served}
    _PREPARED["built"] = {found.lexicon.checksum: found.built for found in files.values() if found.built}
    _PREPARED["compressed"] = {found.checksum: found.compressed for found in files.values()}
    blueprint = Blueprint("browser", __name__)

    @blueprint.get("/v1/lexicons/<lexicon_id>/browser")
    def browser_lexicon(lexicon_id: str) -> Response:
        if event is not None:
            event.offline_device()
        item = registry.find(lexicon_id)  # an id or a language, in any case, as the rest of the API
        if item is None:
            known = sorted(files)
            raise Problem(
                "unknown-lexicon",
                f"no lexicon {lexicon_id!r} here; known: {', '.join(known)}",
                lexicon=lexicon_id,
                known=known,
            )
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
