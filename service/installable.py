"""The judge's page as an installable app: web manifests, icons and a service worker.

Browsers install a page as an app, and let a service worker answer for it with no network, only
in a secure context: HTTPS, or http://localhost and 127.0.0.1 (docs/judge-page.md). Over
plain HTTP on a venue network none of this is used, and the page works as before: judge.js
registers the worker only where the browser offers one.

- `GET /app.webmanifest`: the web manifest, its names in the phone's language when the page has
  texts for it (`texts/app/`; the first of its Accept-Language that does, the rule judge.js
  follows on a first visit), else in the language the page is served in. Relative URLs
  throughout (`start_url` and `scope` are `./`), so a service behind a path prefix installs too.
- The icons, drawn by asset_tools/icons.py into `static/`, served with the page's files
  (`/static/icon-192.png?v=digest`, immutable).
- `GET /sw.js` (`static/sw.js` behind one line written here: the cache's name and what it
  holds), `Cache-Control: no-cache`. At the root, so its scope is the page's without a
  `Service-Worker-Allowed` header. It lists the page, every file the page may load, the
  manifests and icons, and each served lexicon's browser file, unless the service asks for the
  venue token or runs an event: then the browser file needs a token, and a token's answers are
  not the worker's to keep (the page keeps its own copy: offline.js). The cache's name holds a
  digest of all of it, so a new page, file or lexicon is a new sw.js, which the browser installs.
"""

from __future__ import annotations

import json

from flask import Blueprint, Flask, Response, current_app, request

from .assets import Asset, digest
from .page import ASSETS, EVENT_ASSETS, LATER, served_language
from .page_texts import app_texts
from .static_files import IMMUTABLE, STATIC

THEME = "#14213d"  # the page's bar and <meta name="theme-color"> (templates/judge.html, judge.css)
BACKGROUND = "#f3f5fa"  # the page's body (judge.css): the splash screen while the app opens
# name: (size in px, purpose), as the web manifest lists them; asset_tools/icons.py draws them
# from this list (a maskable icon keeps its picture inside the circle every launcher mask keeps).
ICONS = {"icon-192.png": (192, "any"), "icon-512.png": (512, "any"), "icon-maskable.png": (512, "maskable")}
MANIFEST = "app.webmanifest"  # the page links it (templates/judge.html)

blueprint = Blueprint("installable", __name__)


def icon_assets() -> dict[str, Asset]:
    return {name: Asset((STATIC / name).read_bytes(), "image/png", IMMUTABLE) for name in ICONS}


def manifest(language: str, icons: dict[str, Asset]) -> bytes:
    texts = app_texts()[language]
    return json.dumps(
        {
            "name": texts["name"],
            "short_name": texts["shortName"],
            "description": texts["description"],
            "lang": language,
            "dir": "ltr",
            "id": "./",
            "start_url": "./",
            "scope": "./",
            "display": "standalone",
            "theme_color": THEME,
            "background_color": BACKGROUND,
            "icons": [
                {
                    "src": f"static/{name}?v={icons[name].digest}",
                    "sizes": f"{size}x{size}",
                    "type": "image/png",
                    "purpose": purpose,
                }
                for name, (size, purpose) in ICONS.items()
            ],
        },
        ensure_ascii=False,
        indent=1,
    ).encode("utf-8")


def worker(app: Flask) -> bytes:
    """sw.js as served: what the installed app keeps, then the worker's code."""
    pages = app.extensions["judge_page"]
    settings, registry = app.extensions["lexicon_settings"], app.extensions["lexicon_registry"]
    event = getattr(settings, "event", None) is not None
    # The shell: what the page loads (in an event, its event part too), kept at install.
    shell_names = [*ASSETS, *LATER, *(EVENT_ASSETS if event else ())]
    urls = ["./"] + [f"static/{name}?v={pages['assets'][name].digest}" for name in shell_names] + [MANIFEST]
    # Kept only once the page asks for them: the icons, and the browser lexicons (without a token).
    keep = [f"static/{name}?v={asset.digest}" for name, asset in pages["assets"].items() if name not in shell_names]
    tokenless = settings.token is None and not event
    lexicons = list(registry.served) if tokenless else []
    keep += [f"v1/lexicons/{item.id}/browser" for item in lexicons]
    code = (STATIC / "sw.js").read_bytes()
    version = digest(
        b"\n".join(
            [
                code,
                *(page.digest.encode() for page in pages["variants"].values()),
                *(url.encode() for url in urls + keep),
                *(asset.digest.encode() for asset in pages["manifests"].values()),
                *(item.lexicon.checksum.encode() for item in lexicons),
            ]
        )
    )
    # its caches' names: an event's of a service of many apart (a worker deletes its own old ones only)
    event = app.extensions.get("lexicon_prefix", "")
    prefix = f"lexicon-judge{event}/" if event else "lexicon-judge-"  # /e/a/ is no prefix of /e/a-b/
    shell = json.dumps({"cache": prefix + version, "prefix": prefix, "urls": urls, "keep": keep}, separators=(",", ":"))
    return f"const SHELL = {shell};\n".encode() + code


def register_installable(app: Flask) -> None:
    """Serve the manifests, icons and service worker (after the judge's page: sw.js lists its files)."""
    pages = app.extensions["judge_page"]
    icons = icon_assets()
    pages["assets"].update(icons)
    vary = {"Vary": "Accept-Encoding, Accept-Language"}
    pages["manifests"] = {
        language: Asset(manifest(language, icons), "application/manifest+json", "no-cache", vary)
        for language in app_texts()
    }
    pages["language"] = served_language(app)
    pages["worker"] = Asset(worker(app), "text/javascript; charset=utf-8", "no-cache")
    app.register_blueprint(blueprint)


@blueprint.get("/" + MANIFEST)
def web_manifest() -> Response:
    pages = current_app.extensions["judge_page"]
    for tag, _ in request.accept_languages:  # best first; es-419 and ca-ES are es and ca
        language = tag.split("-")[0].lower()
        if language in pages["manifests"]:
            return pages["manifests"][language].response()
    return pages["manifests"][pages["language"]].response()


@blueprint.get("/sw.js")
def service_worker() -> Response:
    return current_app.extensions["judge_page"]["worker"].response()


__all__ = ["BACKGROUND", "ICONS", "MANIFEST", "THEME", "register_installable"]
