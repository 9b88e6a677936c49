"""The judge's page at `/`: a phone-first challenge screen served by the service itself.

One HTML document and four static files (`static/`: judge.css, common.js, tiles.js, judge.js),
written by hand, no build step (judge.js is its parts, `PARTS`, put together at start), nothing
fetched from anywhere but this service. Everything the page needs
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
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, render_template, request

from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS

from .assets import Asset
from .config import Settings
from .page_texts import event_texts, interface_texts, offline_texts
from .tiles_data import alphabet_data, unicode_facts

STATIC = Path(__file__).resolve().parent / "static"
ASSETS = ("judge.css", "common.js", "tiles.js", "judge.js")  # everything the page loads besides itself
# judge.js is written in parts, one a concept (static/judge/; judge/page.js says which): sent as
# one file, inside one function whose scope they share, as the one file they were did. So the
# split costs the page no byte (its budget is tight) and no request, and the service worker's list
# and the single-file judge see one script, as before.
PARTS = {
    "judge.js": tuple(f"judge/{part}.js" for part in ("page", "words", "verdict", "start")),
    # the director's console's script (service/director.py), the same way
    "director.js": tuple(f"director/{part}.js" for part in ("state", "rounds", "devices", "records", "slip", "start")),
}
EVENT_ASSETS = ("event.css", "event.js")  # and in an event (LEXICON_EVENT): the paired device
LATER = ("lexicon.js", "offline-data.js", "offline.js")  # added after first paint, in this order
TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
IMMUTABLE = "public, max-age=31536000, immutable"  # the page links its files with ?v=digest

DEFAULT_VERDICT_SECONDS = Settings().verdict_seconds  # the setting itself: service.config


# Nothing but this service: no CDN, no font, no frame, no form posted elsewhere. The web manifest
# and the service worker (service.installable) are this service's too.
def _policy(scripts: str) -> str:
    return (
        f"default-src 'none'; script-src {scripts}; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    )


CSP = _policy("'self'")  # the director's console and its QR codes
# The judge's page: 'wasm-unsafe-eval' lets lexicon.js compile the WebAssembly it carries
# (dawg.wat, its fast path); it allows no JavaScript eval.
JUDGE_CSP = _policy("'self' 'wasm-unsafe-eval'")
PAGE_HEADERS = {"Content-Security-Policy": CSP, "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}

blueprint = Blueprint("page", __name__)


# -- what the page embeds ------------------------------------------------------------------------


# A comment after code: two spaces, then `// ` or a `/* … */` that ends the line.
TRAILING = re.compile(rb"  +(?://|/\*) [^\n]*?(?:\*/)?$")


def unindented(body: bytes) -> bytes:
    """A script's or style sheet's lines without their indentation, their blank lines and their
    comments (`// …`, `/* … */` over whole lines, and one after code that ends its line, written
    after two spaces): the same code to a browser, many KiB less to weigh (the page pays for what
    it loads before first paint, at most 50 KiB), while the files keep saying why.
    Left whole if a line may continue a string (an odd number of backquotes, or a backslash at
    its end), where the indentation would be part of the text.

    >>> unindented(b"if (a) {\\n  b();  // why\\n}\\n"), unindented(b"x = `one\\n  two`;\\n")
    (b'if (a) {\\nb();\\n}\\n', b'x = `one\\n  two`;\\n')
    >>> unindented(b"/* a\\n   b */\\n\\n// c\\na { b: c; }\\n")
    b'a { b: c; }\\n'
    """
    lines = body.split(b"\n")
    if any(line.count(b"`") % 2 or line.endswith(b"\\") for line in lines):
        return body
    kept, comment = [], False
    for line in (line.lstrip(b" ") for line in lines):
        if comment:
            comment = b"*/" not in line
            if comment or line.endswith(b"*/"):
                continue
            raise ValueError("unindented: code after a comment's end on its line")  # never in our files
        if line.startswith(b"/*"):
            comment = b"*/" not in line
            if comment or line.endswith(b"*/"):
                continue
        if line.startswith(b"//") or not line.strip():
            continue
        kept.append(TRAILING.sub(b"", line))
    return b"\n".join(kept) + (b"\n" if body.endswith(b"\n") else b"")


def served(name: str) -> bytes:
    """A static file as every page sends it: unindented, and a style sheet compacted."""
    body = unindented(source(name))
    return compact_css(body) if name.endswith(".css") else body


def compact_css(body: bytes) -> bytes:
    """A style sheet without the spaces and line ends after `:`, `;` and `,`, nor around `{`,
    `}` and `>`, nor a rule's last `;`, outside its quoted strings: the same rules, a KiB and a
    half less (a space before `:` stays: in a selector it is the descendant combinator).

    >>> compact_css(b'a > b, .c :focus { color: red; content: " - "; }')
    b'a>b,.c :focus{color:red;content:" - "}'
    """
    parts = body.split(b'"')
    for index in range(0, len(parts), 2):
        part = re.sub(rb"\s*([{}>])\s*", rb"\1", re.sub(rb"([:;,])\s+", rb"\1", parts[index]))
        parts[index] = part.replace(b";}", b"}")
    return b'"'.join(parts)


def full_checksums(app: Flask) -> dict[str, str]:
    """Each served lexicon's full checksum by its id: the key offline.js keeps a phone's copy by,
    and what a table device shows (LEXICON_EVENT)."""
    return {item.id: item.lexicon.checksum for item in app.extensions["lexicon_registry"].served}


def offline_data(app: Flask, standalone: bool = False) -> bytes:
    """offline-data.js: what offline.js needs that the page does not (texts, full checksums);
    `standalone` for the single-file judge (service.single_file), which no service is behind."""
    data = {"texts": offline_texts(), "checksums": full_checksums(app), **({"standalone": True} if standalone else {})}
    return f"window.LexiconOfflineData = {script_json(data)};\n".encode()


def page_data(app: Flask, seconds: float, later: list[str] | None = None) -> dict[str, Any]:
    registry = app.extensions["lexicon_registry"]
    settings = app.extensions["lexicon_settings"]
    lexicons = [
        {
            "id": item.id,
            "name": item.lexicon.header.name,
            "language": item.language,
            "version": item.lexicon.header.version,
            "short": item.lexicon.checksum[:8],  # the verdict shows the answer's own checksum
            "default": item.default,
            **({"second": item.second.id} if item.second else {}),  # LEXICON_SECOND: the page asks for it
        }
        for item in registry.served
    ]
    languages = sorted({item["language"] for item in lexicons})
    return {
        "lexicons": lexicons,
        "alphabets": {language: alphabet_data(language) for language in languages},
        "unicode": unicode_facts(),
        "limits": {"minTiles": MIN_TILES, "maxTiles": MAX_TILES, "minWords": MIN_WORDS, "maxWords": MAX_WORDS},
        "verdictSeconds": seconds,
        "tokenRequired": settings.token is not None,
        "challenge": "v1/challenge",  # relative: the page works behind a path prefix too
        # In an event (LEXICON_EVENT): where the page pairs itself and reads the event's state,
        # and event.js's texts (texts/event/); outside one, none of it is in the page.
        # A table device shows its lexicon's checksum in full.
        "event": {
            "state": "v1/event",
            "pair": "v1/devices/pair",
            "texts": event_texts(),
            "checksums": full_checksums(app),
        }
        if getattr(settings, "event", None) is not None
        else None,
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


# The phone's remembered choice: cookies judge.js sets when the judge picks a language or a
# lexicon (the same choice it keeps in localStorage), so that the next load is served in it.
UI_COOKIE, LEXICON_COOKIE = "lexicon-judge-ui", "lexicon-judge-lexicon"
VARY = "Accept-Encoding, Accept-Language, Cookie"  # the page differs by all three


def _find(lexicons: list[dict[str, Any]], name: str | None) -> dict[str, Any] | None:
    """judge.js's `find`: a lexicon by its id (any case), or a language's default by its code."""
    if not name:
        return None
    name = name.lower()
    return next((item for item in lexicons if item["id"].lower() == name), None) or next(
        (item for item in lexicons if item["default"] and item["language"] == name), None
    )


def offered(lexicons: list[dict[str, Any]], language: str) -> dict[str, Any] | None:
    """A language's lexicon: its default, else its first (judge.js's `offered` on a first visit)."""
    own = [item for item in lexicons if item["language"] == language]
    return next((item for item in own if item["default"]), own[0] if own else None)


def choice(
    lexicons: list[dict[str, Any]],
    texts: Mapping[str, Any],
    served: str,
    linked: str | None,
    cookies: Mapping[str, str],
    accept: list[str],
) -> tuple[str, str | None]:
    """The (language, lexicon id) a request's page opens on, by the rule judge.js follows, so the
    script has nothing to change when it runs (no flash of another language): ?lexicon= (and its
    language), else the phone's remembered choice (its cookies), else the first of its
    Accept-Language the page has texts for and that language's lexicon, else the service's
    default lexicon.

    >>> lexicons = [{"id": "es-a", "language": "es", "default": True},
    ...             {"id": "ca-b", "language": "ca", "default": True}]
    >>> texts = {"ca": {}, "es": {}}
    >>> choice(lexicons, texts, "es", None, {}, ["ca-ES", "es"])
    ('ca', 'ca-b')
    >>> choice(lexicons, texts, "es", None, {"lexicon-judge-ui": "ca", "lexicon-judge-lexicon": "es-a"}, ["es"])
    ('ca', 'es-a')
    >>> choice(lexicons, texts, "es", "ES-A", {"lexicon-judge-ui": "ca"}, ["ca"])
    ('es', 'es-a')
    """
    link = _find(lexicons, linked)
    language = link["language"] if link else cookies.get(UI_COOKIE)
    if language not in texts:
        language = next((code for code in (tag.split("-")[0].lower() for tag in accept) if code in texts), None)
    item = link or _find(lexicons, cookies.get(LEXICON_COOKIE)) or (offered(lexicons, language) if language else None)
    item = item or next((i for i in lexicons if i["default"]), lexicons[0] if lexicons else None)
    if language not in texts:
        language = item["language"] if item and item["language"] in texts else served
    return language, item["id"] if item else None


def render(
    app: Flask,
    seconds: float,
    assets: Mapping[str, Asset],
    language: str | None = None,
    selected: str | None = None,
    data: dict[str, Any] | None = None,
) -> bytes:
    """The page's HTML in `language` with the lexicon `selected` (by default the first default
    lexicon's language and that lexicon): its texts, its lexicon's line and tile keys, drawn."""
    data = data or page_data(
        app, seconds, [f"static/{name}?v={assets[name].digest}" for name in LATER if name in assets]
    )
    texts = data["texts"]
    language = language or served_language(app)
    t = texts[language]
    item = next((i for i in data["lexicons"] if i["id"] == selected), None) or next(
        (i for i in data["lexicons"] if i["default"]), data["lexicons"][0] if data["lexicons"] else None
    )

    def option_label(option: dict[str, Any]) -> str:  # judge.js's localize() writes the same
        label = f"{option['name']} · {t['lang.' + option['language']]} · {option['version']} · {option['short']}"
        return label + (f" ({t['default']})" if option["default"] else "")

    language_name = t["lang." + item["language"]] if item else ""
    details = (
        t["lexiconDetails"].format(
            name=item["name"], language=language_name, version=item["version"], short=item["short"]
        )
        if item
        else ""
    )
    with app.app_context():
        html = render_template(
            "judge.html",
            lang=language,
            t=t,
            texts=texts,
            data=data,
            e=data["event"]["texts"][language] if data["event"] else {},
            data_json=script_json(data),
            item=item or {"name": "", "short": "", "id": None, "language": ""},
            keys=data["alphabets"][item["language"]]["keys"] if item else [],
            option_label=option_label,
            details=details,
            asset={name: f"static/{name}?v={asset.digest}" for name, asset in assets.items()},
        )
    # Lines without their template indentation, as the assets (`unindented`). Split at "\n" only:
    # str.splitlines also breaks at U+2028, U+0085 or a form feed, which the data's JSON may hold.
    return "\n".join(line.lstrip(" ") for line in html.split("\n")).encode("utf-8")


def source(name: str) -> bytes:
    """A static file as written; a script in parts (PARTS), its parts in order, in one strict
    function (what each part declares is seen by the others, and by nothing else on the page)."""
    if name not in PARTS:
        return (STATIC / name).read_bytes()
    parts = b"".join((STATIC / part).read_bytes() for part in PARTS[name])
    return b'(() => {\n"use strict";\n' + parts + b"})();\n"


def register_page(app: Flask) -> None:
    """Serve the judge's page on `app` (after its lexicons are loaded: the page lists them)."""
    seconds = app.extensions["lexicon_settings"].verdict_seconds
    assets = {
        name: Asset(
            offline_data(app) if name == "offline-data.js" else served(name), TYPES[Path(name).suffix], IMMUTABLE
        )
        for name in ASSETS + EVENT_ASSETS + LATER
    }
    headers = {**PAGE_HEADERS, "Content-Security-Policy": JUDGE_CSP, "Vary": VARY}
    # Every (language, lexicon) the page may open on, rendered once, at start.
    data = page_data(app, seconds, [f"static/{name}?v={assets[name].digest}" for name in LATER if name in assets])
    variants = {
        (language, item.id): Asset(
            render(app, seconds, assets, language, item.id, data), "text/html; charset=utf-8", "no-cache", headers
        )
        for language in interface_texts()
        for item in app.extensions["lexicon_registry"].served
    }
    page = Asset(render(app, seconds, assets, data=data), "text/html; charset=utf-8", "no-cache", headers)
    app.extensions["judge_page"] = {"page": page, "variants": variants, "assets": assets}
    app.register_blueprint(blueprint)


@blueprint.get("/")
def judge_page() -> Response:
    pages = current_app.extensions["judge_page"]
    lexicons = [
        {"id": item.id, "language": item.language, "default": item.default}
        for item in current_app.extensions["lexicon_registry"].served
    ]
    key = choice(
        lexicons,
        interface_texts(),
        served_language(current_app),
        request.args.get("lexicon"),
        request.cookies,
        [tag for tag, _ in request.accept_languages],
    )
    return pages["variants"].get(key, pages["page"]).response()


@blueprint.get("/static/<name>")
def judge_asset(name: str) -> Response:
    asset = current_app.extensions["judge_page"]["assets"].get(name)
    if asset is None:
        abort(404)
    return asset.response()


__all__ = [
    "ASSETS",
    "DEFAULT_VERDICT_SECONDS",
    "LATER",
    "PARTS",
    "blueprint",
    "offline_data",
    "page_data",
    "register_page",
    "script_json",
    "served",
    "served_language",
    "source",
]
