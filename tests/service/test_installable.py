"""The installable app as the service serves it (service/installable.py): the web manifest, its
icons, the service worker and what it keeps, and the page's policy that lets them load."""

from __future__ import annotations

import json
import re
import struct

import pytest

from service import create_app
from service.installable import BACKGROUND, ICONS, THEME
from service.page_texts import app_texts, interface_texts
from tournament import create_event

from .conftest import app_config


def shell(client) -> dict:
    """The first line of sw.js: `const SHELL = {...};`."""
    first = client.get("/sw.js").get_data(as_text=True).split("\n", 1)[0]
    match = re.fullmatch(r"const SHELL = (\{.*\});", first)
    assert match, first
    return json.loads(match.group(1))


def test_the_manifest_is_valid_json_and_names_what_it_needs(client):
    response = client.get("/app.webmanifest", headers={"Accept-Language": "es-ES,es;q=0.9"})
    assert response.status_code == 200 and response.content_type == "application/manifest+json"
    assert response.headers["Cache-Control"] == "no-cache" and "Accept-Language" in response.headers["Vary"]
    manifest = json.loads(response.get_data())
    assert manifest["name"] == app_texts()["es"]["name"] and manifest["short_name"] == "Impugnaciones"
    assert manifest["lang"] == "es" and manifest["display"] == "standalone"
    assert manifest["start_url"] == manifest["scope"] == manifest["id"] == "./"  # the page, from /app.webmanifest
    assert manifest["theme_color"] == THEME and manifest["background_color"] == BACKGROUND
    assert {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]} == {
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    }
    for icon in manifest["icons"]:
        served = client.get("/" + icon["src"])
        assert served.status_code == 200 and served.content_type == "image/png" == icon["type"]
        assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        data = served.get_data()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width, height = struct.unpack(">II", data[16:24])
        assert f"{width}x{height}" == icon["sizes"]
        assert len(data) < 10_000  # small: a phone fetches them on the venue Wi-Fi


def test_the_theme_and_background_are_the_pages(client):
    html = client.get("/").get_data(as_text=True)
    assert f'<meta name="theme-color" content="{THEME}">' in html
    assert '<link rel="manifest" href="app.webmanifest">' in html
    css = client.get("/" + re.search(r'href="(static/judge\.css\?v=\w+)"', html).group(1)).get_data(as_text=True)
    assert re.search(r"\.bar ?\{[^}]*background: ?" + THEME, css)
    assert re.search(r"body ?\{[^}]*background: ?" + BACKGROUND + ";", css)


@pytest.mark.parametrize(
    "accept, language",
    [
        ("ca-ES,ca;q=0.9,es;q=0.8", "ca"),
        ("ca", "ca"),
        ("es-419", "es"),
        ("en-GB,ca;q=0.5", "ca"),
        ("en-GB", "es"),
        (None, "es"),
        ("fr;q=0.9, ca;q=0.1, es;q=0", "ca"),
    ],
)
def test_the_manifest_speaks_the_phones_language_else_the_pages(client, accept, language):
    headers = {"Accept-Language": accept} if accept else {}
    manifest = client.get("/app.webmanifest", headers=headers).get_json(force=True)
    assert manifest["lang"] == language and manifest["name"] == app_texts()[language]["name"]


def test_every_language_of_the_page_has_the_apps_texts():
    assert set(app_texts()) == set(interface_texts())


def test_the_page_allows_its_manifest_and_worker_and_nothing_else(client):
    policy = client.get("/").headers["Content-Security-Policy"]
    assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy
    assert policy.startswith("default-src 'none';")


def test_the_worker_is_served_at_the_root_and_always_revalidated(client):
    response = client.get("/sw.js")
    assert response.status_code == 200 and response.content_type == "text/javascript; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-cache"
    assert "Service-Worker-Allowed" not in response.headers  # its scope is its own folder: the page's
    assert client.get("/static/sw.js").status_code == 404  # only at the root


def test_the_worker_keeps_the_shell_at_install_and_the_rest_only_when_asked(client):
    """At install, what the page loads (its files come from the HTTP cache the page filled: no
    second download); the icons and each lexicon's browser file only when the page fetches them
    (a lexicon was downloaded twice on a first visit, and the other language's too)."""
    kept = shell(client)
    assert re.fullmatch(r"lexicon-judge-[0-9a-f]{16}", kept["cache"])
    urls, keep = kept["urls"], kept["keep"]
    html = client.get("/").get_data(as_text=True)
    for link in re.findall(r'(?:src|href)="(static/[^"]+)"', html):
        assert link in urls  # each file at the digest the page links
    assert urls[0] == "./" and "app.webmanifest" in urls
    assert not [url for url in urls if url.startswith("v1/") or "icon-" in url]
    assert {f"static/{name}" for name in ICONS} <= {url.split("?")[0] for url in keep}
    lexicons = [url for url in keep if url.startswith("v1/")]
    assert lexicons == ["v1/lexicons/es-mini/browser", "v1/lexicons/es-alt/browser", "v1/lexicons/ca-mini/browser"]
    for url in urls + keep:
        assert client.get("/" + url.removeprefix("./")).status_code == 200, url
    assert not any("challenge" in url or "token" in url for url in urls + keep)


def test_with_a_venue_token_the_worker_keeps_no_lexicon(lexicon_files):
    client = create_app(app_config(lexicon_files, LEXICON_TOKEN="ronda-1-abc")).test_client()
    urls = shell(client)["urls"] + shell(client)["keep"]
    assert urls[0] == "./" and not [url for url in urls if url.startswith("v1/")]
    assert b"ronda-1-abc" not in client.get("/sw.js").get_data()


def test_in_an_event_the_worker_keeps_no_lexicon(lexicon_files, tmp_path):
    path = tmp_path / "open.db"
    create_event(path, "Open", "correct-horse-battery", lexicon="es").close()
    client = create_app(app_config(lexicon_files, LEXICON_EVENT=str(path))).test_client()
    urls = shell(client)["urls"]
    assert not [url for url in urls + shell(client)["keep"] if url.startswith("v1/")]
    assert any(url.startswith("static/event.js?v=") for url in urls)


def test_a_new_lexicon_is_a_new_cache(lexicon_files, tmp_path):
    from tests.support import compile_list

    first = shell(create_app(app_config(lexicon_files)).test_client())
    again = shell(create_app(app_config(lexicon_files)).test_client())
    assert first == again  # the same service: the same worker, so the browser installs nothing new
    changed = dict(lexicon_files)
    changed["ca-mini"] = compile_list(tmp_path / "ca-mini.lex", ["COL·LEGI", "QUADRE"], "ca", "ca-mini", "Mini català")
    other = shell(create_app(app_config(changed)).test_client())
    paths = [url.split("?")[0] for url in first["urls"]]
    assert [url.split("?")[0] for url in other["urls"]] == paths and other["cache"] != first["cache"]
