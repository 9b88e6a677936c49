"""GET /v1/lexicons/{id}/browser: a loaded lexicon as the browser file (lexicon.browser).

The bytes never change while the service runs (a new list is a new `.lex` file and a restart),
so they are sent with a strong ETag, the file's own checksum, and cached for a year as
immutable (outside an event; in one, no HTTP cache keeps them: EVENT_CACHE_CONTROL), at the
lexicon id's URL only: a language code (`es`) or another case answers 307 to
that URL, not cached (a language's default may change); compressed on the wire, brotli or gzip as the client accepts (Vary: Accept-Encoding).

Where the bytes come from: the files beside `NAME.lex` (build_tools.browser_files): the browser
file `NAME.dawg` and its compressed forms `NAME.dawg.br` and `NAME.dawg.gz`, written by
`lexicon build-defaults` for each default lexicon (and by `lexicon export --browser` for any),
read when the app is created and kept only if they follow from this very `.lex` file (the
`.dawg`'s checksum and `lexicon_sha256`; each form decompressed to exactly the `.dawg`), which
takes milliseconds. What is missing, stale or damaged (logged, with the command that writes it)
is made from the loaded lexicon instead, in memory: seconds of CPU for the Spanish default's
browser file, about a second for its brotli form at its best quality (the smallest for a phone
on the venue's Wi-Fi; gzip is for browsers on plain HTTP, which are offered no brotli). The
service writes nothing beside the lexicons: the operator's commands do.

Everything is prepared when the app is created, before it serves. That is in gunicorn's master
(`preload_app`), so it is done once and every worker shares the bytes, and a reload builds its
app there too while the old workers serve. Made on a request instead, in a worker, they would
hold that worker's event loop, and after a reload the first requests for the file would stall
every challenge of the service ([figures.md](../docs/figures.md#browser) measures the file's
costs). A reload reuses what the app before it prepared for the same bytes (`_PREPARED`), so
that it costs nothing unless a lexicon changed; a changed one is read and checked again.
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, redirect, request, url_for

from build_tools.browser_files import compress, read_beside
from lexicon.browser import browser_bytes
from lexicon.errors import show_word
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
    return read_beside(lexicon, forms=False).raw


def _say_ignored(lexicon: Lexicon, ignored) -> None:
    """One log line per file beside the lexicon that was not used: an operator whose service
    starts slowly sees which file to write (a missing one is usual for a list of one's own: info;
    a stale or damaged one is not: warning)."""
    for path, reason in ignored:
        log.log(
            logging.INFO if reason == "missing" else logging.WARNING,
            "file beside the lexicon not used: made from the lexicon instead, at start "
            "(`lexicon export --browser` writes it once)",
            extra={"fields": {"lexicon": lexicon.header.id, "path": str(path), "reason": reason}},
        )


# What the latest app prepared, for the next one (a reload) to reuse: a lexicon's checksum -> the
# browser file built from it, and a browser file's checksum -> its compressed forms. Only what that
# app serves is kept, so a reload that drops or replaces a lexicon drops its bytes from here too.
_PREPARED: dict[str, dict] = {"built": {}, "compressed": {}}


class BrowserFile:
    """One lexicon's browser file and its compressed forms, all read or made when it is created."""

    def __init__(self, lexicon: Lexicon, prepared: dict[str, dict] | None = None):
        prepared = prepared or {"built": {}, "compressed": {}}
        self.lexicon = lexicon
        found = read_beside(lexicon)
        raw, self.built = found.raw, None
        if raw is None:  # none beside it fits: made from the lexicon (or reused from the last app)
            raw = self.built = prepared["built"].get(lexicon.checksum) or browser_bytes(lexicon)
        self.checksum = raw[-32:].hex()
        compressed = prepared["compressed"].get(self.checksum)
        if compressed is None:
            _say_ignored(lexicon, found.ignored)
            compressed = compress(raw, found.forms)
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


def prepare(registry: Registry) -> dict[str, BrowserFile]:
    """Each served lexicon's browser file, read or made, and kept for the next app of these lexicons:
    a service of many events prepares them once, in gunicorn's master, for every event's app."""
    files = {item.id: BrowserFile(item.lexicon, _PREPARED) for item in registry.served}
    _PREPARED["built"] = {found.lexicon.checksum: found.built for found in files.values() if found.built}
    _PREPARED["compressed"] = {found.checksum: found.compressed for found in files.values()}
    return files


def create_browser_blueprint(registry: Registry, event=None) -> Blueprint:
    """The route; `event` (service.event.http.Tournament, in an event) lets only paired judge
    devices have the file: the whole list on a phone is a lookup at any time, which an event gives
    no one else during a round (401 without a device, 403 for a table or lookup device)."""
    files = prepare(registry)
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
                f"no lexicon {show_word(lexicon_id)} here; known: {', '.join(known)}",
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
