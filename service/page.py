"""The judge's page at `/`: a phone-first challenge screen served by the service itself.

One HTML document and three static files (`static/`: judge.css, tiles.js, judge.js), written by
hand, no build step, nothing fetched from anywhere but this service. Everything the page needs
is rendered into the HTML (`templates/judge.html`, through Flask's own Jinja environment) when
the app starts, so a judge's phone on a poor venue Wi-Fi needs one HTML load (revalidated, 304
when nothing changed) and three cached files (`assets`), and then exactly one request a verdict
(POST /v1/challenge):

- the loaded lexicons (id, name, language, version, short checksum, whether it is its language's
  default), from the same registry that answers the verdicts;
- each of their languages' alphabet data and Python's Unicode facts, for the live tile preview
  (`tiles_data`);
- the interface texts, one file a language in `texts/` (`page_texts`); which language and
  lexicon a phone starts with is judge.js's choice (the browser's languages, then what that
  phone chose last);
- how long a verdict stays on screen, LEXICON_VERDICT_SECONDS, and whether the
  service wants the venue token (never the token itself: the page is served without one);
- `later`: the scripts judge.js adds once the page has painted, to judge offline: lexicon.js,
  offline-data.js and offline.js, which fetch the browser lexicon of the lexicon in use, keep it
  in IndexedDB and judge on the phone when the service is out of reach. They are not in the
  50 KiB the page weighs before first paint. offline-data.js is made here, at start: offline.js's
  texts (`texts/offline/`) and each lexicon's full checksum, the key the phone keeps its copy by
  (a new `.lex` file is a new checksum, so a new offline-data.js URL and a new download).

Like every LEXICON_* setting, LEXICON_VERDICT_SECONDS is read, checked and documented (its range
and default) by service.config, once, into the app's Settings; a tap or a key clears a verdict
sooner.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, render_template

from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS

from .assets import Asset
from .config import Settings
from .page_texts import event_texts, interface_texts, offline_texts
from .tiles_data import alphabet_data, unicode_facts

STATIC = Path(__file__).resolve().parent / "static"
ASSETS = ("judge.css", "tiles.js", "judge.js")  # everything the page loads besides itself
EVENT_ASSETS = ("event.css", "event.js")  # and in an event (LEXICON_EVENT): the paired device
LATER = ("lexicon.js", "offline-data.js", "offline.js")  # added after first paint, in this order
TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
IMMUTABLE = "public, max-age=31536000, immutable"  # the page links its files with ?v=digest

DEFAULT_VERDICT_SECONDS = Settings().verdict_seconds  # the setting itself: service.config

# Nothing but this service: no CDN, no font, no frame, no form posted elsewhere. The web manifest
# and the service worker (service.installable) are this service's too.
def _policy(scripts: str) -> str:
    return (f"default-src 'none'; script-src {scripts}; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'")


CSP = _policy("'self'")  # the director's console and its QR codes
# The judge's page: 'wasm-unsafe-eval' lets lexicon.js compile the WebAssembly it carries
# (dawg.wat, its fast path); it allows no JavaScript eval.
JUDGE_CSP = _policy("'self' 'wasm-unsafe-eval'")
PAGE_HEADERS = {"Content-Security-Policy": CSP, "Referrer-Policy": "no-referrer",
                "X-Frame-Options": "DENY"}

blueprint = Blueprint("page", __name__)


# -- what the page embeds ------------------------------------------------------------------------


def unindented(body: bytes) -> bytes:
    """A script's or style sheet's lines without their indentation: the same code to a browser,
    a few KiB less to weigh (the page pays for what it loads before first paint, at most 50 KiB).
    Left whole if a line may continue a string (an odd number of backquotes, or a backslash at
    its end), where the indentation would be part of the text.

    >>> unindented(b"if (a) {\\n  b();\\n}\\n"), unindented(b"x = `one\\n  two`;\\n")
    (b'if (a) {\\nb();\\n}\\n', b'x = `one\\n  two`;\\n')
    """
    lines = body.split(b"\n")
    if any(line.count(b"`") % 2 or line.endswith(b"\\") for line in lines):
        return body
    return b"\n".join(line.lstrip(b" ") for line in lines)


def full_checksums(app: Flask) -> dict[str, str]:
    """Each served lexicon's full checksum by its id: the key offline.js keeps a phone's copy by,
    and what a table device shows (LEXICON_EVENT)."""
    return {item.id: item.lexicon.checksum for item in app.extensions["lexicon_registry"].served}


def offline_data(app: Flask, standalone: bool = False) -> bytes:
    """offline-data.js: what offline.js needs that the page does not (texts, full checksums);
    `standalone` for the single-file judge (service.single_file), which no service is behind."""
    data = {"texts": offline_texts(), "checksums": full_checksums(app),
            **({"standalone": True} if standalone else {})}
    return f"window.LexiconOfflineData = {script_json(data)};\n".encode("utf-8")


def page_data(app: Flask, seconds: float, later: list[str] | None = None) -> dict[str, Any]:
    registry = app.extensions["lexicon_registry"]
    settings = app.extensions["lexicon_settings"]
    lexicons = [{
        "id": item.id,
        "name": item.lexicon.header.name,
        "language": item.language,
        "version": item.lexicon.header.version,
        "short": item.lexicon.checksum[:8],  # the verdict shows the answer's own checksum
        "default": item.default,
        **({"second": item.second.id} if item.second else {}),  # LEXICON_SECOND: the page asks for it
    } for item in registry.served]
    languages = sorted({item["language"] for item in lexicons})
    return {
        "lexicons": lexicons,
        "alphabets": {language: alphabet_data(language) for language in languages},
        "unicode": unicode_facts(),
        "limits": {"minTiles": MIN_TILES, "maxTiles": MAX_TILES,
                   "minWords": MIN_WORDS, "maxWords": MAX_WORDS},
        "verdictSeconds": seconds,
        "tokenRequired": settings.token is not None,
        "challenge": "v1/challenge",  # relative: the page works behind a path prefix too
        # In an event (LEXICON_EVENT): where the page pairs itself and reads the event's state,
        # and event.js's texts (texts/event/); outside one, none of it is in the page.
        # A table device shows its lexicon's checksum in full.
        "event": {"state": "v1/event", "pair": "v1/devices/pair", "texts": event_texts(),
                  "checksums": full_checksums(app)}
        if getattr(settings, "event", None) is not None else None,
        "texts": interface_texts(),
        "later": later or [],
    }


def script_json(value: Any) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' as such.

    >>> print(script_json({"name": "</script>&"}))
    {"name":"\\u003c/script\\u003e\\u0026"}
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# -- rendering and serving -----------------------------------------------------------------------


def served_language(app: Flask) -> str:
    """The language the page is served in: its first default lexicon's, if the page has its texts."""
    texts = interface_texts()
    first = next((item for item in app.extensions["lexicon_registry"].served if item.default), None)
    return first.language if first and first.language in texts else next(iter(texts))


def render(app: Flask, seconds: float, assets: Mapping[str, Asset]) -> bytes:
    """The page's HTML, in the language of the first default lexicon until judge.js chooses."""
    data = page_data(app, seconds, [f"static/{name}?v={assets[name].digest}" for name in LATER if name in assets])
    texts = data["texts"]
    first = next((item for item in data["lexicons"] if item["default"]), None)
    language = served_language(app)
    with app.app_context():
        html = render_template(
            "judge.html", lang=language, t=texts[language], texts=texts, data=data,
            e=data["event"]["texts"][language] if data["event"] else {},
            data_json=script_json(data), selected=first["id"] if first else None,
            asset={name: f"static/{name}?v={asset.digest}" for name, asset in assets.items()},
        )
    # Lines without their template indentation, as the assets (`unindented`). Split at "\n" only:
    # str.splitlines also breaks at U+2028, U+0085 or a form feed, which the data's JSON may hold.
    return "\n".join(line.lstrip(" ") for line in html.split("\n")).encode("utf-8")


def register_page(app: Flask) -> None:
    """Serve the judge's page on `app` (after its lexicons are loaded: the page lists them)."""
    seconds = app.extensions["lexicon_settings"].verdict_seconds
    assets = {name: Asset(offline_data(app) if name == "offline-data.js" else unindented((STATIC / name).read_bytes()),
                          TYPES[Path(name).suffix], IMMUTABLE)
              for name in ASSETS + EVENT_ASSETS + LATER}
    page = Asset(render(app, seconds, assets), "text/html; charset=utf-8", "no-cache",
                 {**PAGE_HEADERS, "Content-Security-Policy": JUDGE_CSP})
    app.extensions["judge_page"] = {"page": page, "assets": assets}
    app.register_blueprint(blueprint)


@blueprint.get("/")
def judge_page() -> Response:
    return current_app.extensions["judge_page"]["page"].response()


@blueprint.get("/static/<name>")
def judge_asset(name: str) -> Response:
    asset = current_app.extensions["judge_page"]["assets"].get(name)
    if asset is None:
        abort(404)
    return asset.response()


__all__ = ["blueprint", "register_page", "page_data", "offline_data", "script_json", "served_language", "ASSETS", "LATER",
           "DEFAULT_VERDICT_SECONDS"]
