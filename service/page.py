"""The judge's page at `/`: a phone-first challenge screen served by the service itself.

One HTML document and four static files (`static/`: judge.css, common.js, tiles.js, judge.js),
written by hand, no build step (service.static_files: as written, as served), nothing fetched
from anywhere but this service. Everything the page needs is rendered into the HTML
(`templates/judge.html`, through Flask's own Jinja environment; what it embeds:
service.page_data) when the app starts, once for every (language, lexicon) a request may open on,
so a judge's phone on a poor venue Wi-Fi needs one HTML load (revalidated, 304 when nothing
changed) and three cached files (`assets`), and then exactly one request a verdict
(POST /v1/challenge). Which of those pages a request gets is judge.js's own rule (`choice`), so
the script has nothing to change when it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, render_template, request

from .assets import Asset
from .config import Settings
from .page_data import event_lexicon, offline_data, page_data, script_json
from .page_texts import accepted, interface_texts
from .static_files import IMMUTABLE, TYPES, served

ASSETS = ("judge.css", "common.js", "tiles.js", "judge.js")  # everything the page loads besides itself
EVENT_ASSETS = ("event.css", "event.js")  # and in an event (LEXICON_EVENT): the paired device
LATER = ("lexicon.js", "offline-data.js", "offline.js")  # added after first paint, in this order

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
    event: str | None = None,
) -> tuple[str, str | None]:
    """The (language, lexicon id) a request's page opens on, by the rule judge.js follows, so the
    script has nothing to change when it runs (no flash of another language): ?lexicon= (and its
    language), else the phone's remembered choice (its cookies), else the first of its
    Accept-Language the page has texts for, with that language's lexicon or, in an event, the
    event's (`event`: the list every verdict of the event is judged with), else the service's
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
    >>> choice(lexicons, texts, "es", None, {}, ["ca-ES", "es"], event="es-a")
    ('ca', 'es-a')
    """
    link = _find(lexicons, linked)
    language = link["language"] if link else cookies.get(UI_COOKIE)
    if language not in texts:
        language = next((code for code in (tag.split("-")[0].lower() for tag in accept) if code in texts), None)
    item = link or _find(lexicons, cookies.get(LEXICON_COOKIE)) or _find(lexicons, event)
    item = item or (offered(lexicons, language) if language else None)
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
            ns=app.extensions.get("lexicon_prefix", ""),  # an event's of many: its storage's names (judge/page.js)
        )
    # Lines without their template indentation, as the assets (`unindented`). Split at "\n" only:
    # str.splitlines also breaks at U+2028, U+0085 or a form feed, which the data's JSON may hold.
    return "\n".join(line.lstrip(" ") for line in html.split("\n")).encode("utf-8")


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
        accepted(request.accept_languages),
        event_lexicon(current_app),
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
    "CSP",
    "DEFAULT_VERDICT_SECONDS",
    "EVENT_ASSETS",
    "JUDGE_CSP",
    "LATER",
    "PAGE_HEADERS",
    "blueprint",
    "choice",
    "register_page",
    "render",
    "served_language",
]
