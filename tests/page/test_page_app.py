"""The judge's page as the service serves it (Flask test client): data, weight, headers, setting."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from html.parser import HTMLParser

import pytest

from lexicon.alphabet import load_alphabet
from service import SettingsError, create_app
from service.page import ASSETS, DEFAULT_VERDICT_SECONDS, JUDGE_CSP, LATER
from service.page_texts import interface_texts, offline_texts
from service.static_files import PARTS, STATIC, source, unindented
from service.tiles_data import alphabet_data, unicode_facts

from .conftest import REPO, page_config

LIMIT = 56 * 1024  # bytes: the page and what it loads before first paint, uncompressed
LATER_LIMIT = 40 * 1024  # bytes: what judge.js adds after first paint, to judge offline


class Links(HTMLParser):
    """Every URL the HTML refers to, and the embedded data.

    The web manifest is apart: browsers read it to install the app, not to paint the page
    (service/installable.py, tested in tests/service/test_installable.py)."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.manifests: list[str] = []
        self.data_json = None
        self._in_data = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("rel") == "manifest":
            self.manifests.append(attrs["href"])
            return
        for name in ("src", "href", "action", "poster", "srcset", "data"):
            if attrs.get(name) is not None and not (tag == "button" or (name == "data" and tag != "object")):
                self.urls.append(attrs[name])
        self._in_data = tag == "script" and attrs.get("id") == "judge-data"

    def handle_data(self, data):
        if self._in_data:
            self.data_json = (self.data_json or "") + data

    def handle_endtag(self, tag):
        self._in_data = False


@pytest.fixture(scope="module")
def app(page_lexicons):
    return create_app(page_config(page_lexicons))


@pytest.fixture
def client(app):
    return app.test_client()


def parse(client):
    response = client.get("/")
    assert response.status_code == 200
    links = Links()
    links.feed(response.get_data(as_text=True))
    return response, links, json.loads(links.data_json)


def test_the_page_is_served_at_the_root_with_everything_it_needs(client):
    response, _, data = parse(client)
    assert response.content_type == "text/html; charset=utf-8"
    listed = client.get("/v1/lexicons").get_json()["lexicons"]
    assert data["lexicons"] == [
        {
            "id": item["id"],
            "name": item["name"],
            "language": item["language"],
            "version": item["version"],
            "short": item["checksum"][:8],
            "default": item["default"],
        }
        for item in listed
    ]
    assert [item["id"] for item in data["lexicons"]] == ["es-page", "es-alt", "ca-page"]
    assert set(data["alphabets"]) == {"es", "ca"}
    assert data["alphabets"]["es"] == alphabet_data("es")
    assert data["verdictSeconds"] == DEFAULT_VERDICT_SECONDS == 0  # stays until Borrar
    assert data["tokenRequired"] is False
    assert data["limits"] == {"minTiles": 2, "maxTiles": 15, "minWords": 1, "maxWords": 8}
    assert data["challenge"] == "v1/challenge"
    assert data["texts"] == interface_texts() and set(data["texts"]) == {"es", "ca"}
    html = response.get_data(as_text=True)
    assert '<select id="lexicon" name="lexicon"' in html and 'name="word-1"' in html
    assert '<option value="es-page" data-language="es" selected>' in html  # the first default
    assert '<button type="button" class="lang" data-lang="ca" lang="ca" aria-pressed="false">Català</button>' in html
    # The texts as written: {{ t.keys }} or {{ t.clear }} would be a dict's methods, not its texts.
    rendered = re.findall(r'data-t="(\w+)"[^>]*>([^<]*)<', html)
    assert len(rendered) == 12 and all(text == data["texts"]["es"][key] for key, text in rendered), rendered
    assert "built-in method" not in html


def test_the_alphabet_data_is_the_toml_data():
    for language in ("es", "ca"):
        alphabet, data = load_alphabet(language), alphabet_data(language)
        notation = alphabet.notation("spelling")
        assert set(data["spellings"].values()) == set(alphabet.tiles)
        assert data["spellings"] == dict(notation.spellings)
        assert data["equivalents"] == dict(alphabet.equivalents)
        assert data["hints"] == dict(alphabet.hints) and data["notationHints"] == dict(notation.hints)
        assert data["distinct"] == sorted(alphabet.distinct)
    assert [k["tile"] for k in alphabet_data("es")["keys"]] == ["CH", "LL", "RR", "Ñ"]
    assert [k["tile"] for k in alphabet_data("ca")["keys"]] == ["L·L", "NY", "QU", "Ç"]
    assert {k["tile"]: k["bracketed"] for k in alphabet_data("es")["keys"]} == {
        "CH": "[CH]",
        "LL": "[LL]",
        "RR": "[RR]",
        "Ñ": None,
    }


def test_the_unicode_facts_are_pythons_over_all_of_unicode():
    facts = unicode_facts()
    assert facts["unicode"] == unicodedata.unidata_version
    everything = range(sys.maxunicode + 1)
    combining = [cp for cp in everything if unicodedata.combining(chr(cp))]
    space = [cp for cp in everything if chr(cp).isspace()]

    def expand(text):
        out = []
        for span in text.split(","):
            low, _, high = span.partition("-")
            out.extend(range(int(low, 16), int(high or low, 16) + 1))
        return out

    assert expand(facts["combining"]) == combining
    assert expand(facts["space"]) == space


def test_the_page_and_what_it_loads_before_first_paint_weigh_at_most_56_kib(client, page_weight):
    """What the HTML links (loaded before first paint) is weighed against 56 KiB; the offline
    scripts judge.js adds after the page has painted (data.later) are not linked, and are weighed
    apart."""
    response, links, data = parse(client)
    bodies = {"/": response.get_data()}
    for url in links.urls:
        if url.startswith("data:"):
            continue
        assert url.startswith("static/"), f"{url}: the page may only load its own static files"
        asset = client.get("/" + url)
        assert asset.status_code == 200, url
        bodies[url.split("?")[0]] = asset.get_data()
    assert sorted(bodies) == sorted(["/"] + [f"static/{name}" for name in ASSETS])
    later = {url.split("?")[0]: client.get("/" + url).get_data() for url in data["later"]}
    assert sorted(later) == sorted(f"static/{name}" for name in LATER) and not set(later) & set(bodies)
    assert all(body for body in later.values())
    total, after = sum(map(len, bodies.values())), sum(map(len, later.values()))
    gzipped = sum(len(gzip.compress(body, 9, mtime=0)) for body in bodies.values())  # as assets.py sends them
    later_gzipped = sum(len(gzip.compress(body, 9, mtime=0)) for body in later.values())
    row = "{:>8,} B {:>6.1f} KiB  {}".format
    page_weight(
        "\n".join(
            [row(len(body), len(body) / 1024, name) for name, body in bodies.items()]
            + [
                row(total, total / 1024, f"before first paint, uncompressed (at most {LIMIT // 1024} KiB)"),
                row(gzipped, gzipped / 1024, "before first paint, gzipped (what a phone downloads once)"),
            ]
            + [row(len(body), len(body) / 1024, f"{name} (after first paint)") for name, body in later.items()]
            + [
                row(after, after / 1024, f"after first paint, uncompressed (at most {LATER_LIMIT // 1024} KiB)"),
                row(later_gzipped, later_gzipped / 1024, "after first paint, gzipped"),
            ]
        )
    )
    assert total <= LIMIT
    assert after <= LATER_LIMIT


def test_nothing_is_loaded_from_anywhere_else(client):
    response, links, _ = parse(client)
    # its own scripts, and the WebAssembly lexicon.js compiles: no eval, no other origin
    assert (
        response.headers["Content-Security-Policy"]
        == JUDGE_CSP
        == (
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'"
        )
    )
    assert links.urls and all(u.startswith(("static/", "data:")) for u in links.urls), links.urls
    for url in [u for u in links.urls if u.startswith("static/")]:
        text = client.get("/" + url).get_data(as_text=True)
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.IGNORECASE), f"{url} names a host"
        assert "@import" not in text and "url(" not in text
    assert re.search(r"https?://", response.get_data(as_text=True)) is None


def test_zoom_is_allowed(client):
    html = client.get("/").get_data(as_text=True)
    viewport = re.search(r'<meta name="viewport" content="([^"]+)"', html).group(1)
    assert "width=device-width" in viewport
    assert "user-scalable" not in viewport and "maximum-scale" not in viewport


def test_caching_keeps_the_page_fresh_and_the_assets_once(client):
    response = client.get("/")
    assert response.headers["Cache-Control"] == "no-cache" and response.headers["ETag"]
    again = client.get("/", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    _, links, _ = parse(client)
    script = next(u for u in links.urls if u.startswith("static/judge.js"))
    asset = client.get("/" + script)
    assert asset.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert asset.content_type == "text/javascript; charset=utf-8"
    zipped = client.get("/" + script, headers={"Accept-Encoding": "gzip, deflate"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.get_data()) == asset.get_data()
    assert zipped.headers["ETag"] != asset.headers["ETag"] and "Accept-Encoding" in zipped.headers["Vary"]
    again = client.get("/" + script, headers={"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b"" and again.headers["ETag"] == zipped.headers["ETag"]
    stale = client.get("/" + script, headers={"If-None-Match": '"0123456789abcdef"'})
    assert stale.status_code == 200 and stale.get_data() == asset.get_data()
    refused = client.get("/" + script, headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in refused.headers and refused.get_data() == asset.get_data()
    page = client.get("/", headers={"Accept-Encoding": "gzip"})  # the page is sent gzipped too, its headers kept
    assert page.headers["Content-Encoding"] == "gzip" and page.headers["Content-Security-Policy"].startswith(
        "default-src"
    )
    assert gzip.decompress(page.get_data()) == client.get("/").get_data()


def test_an_unknown_asset_is_a_problem_404(client):
    response = client.get("/static/nothing.js")
    assert response.status_code == 404 and response.content_type == "application/problem+json"


@pytest.mark.parametrize("value, seconds", [("4", 4.0), (2.5, 2.5), ("600", 600.0), ("0", 0.0), (None, 0.0)])
def test_verdict_seconds_from_the_test_config(page_lexicons, value, seconds):
    app = create_app(page_config(page_lexicons, LEXICON_VERDICT_SECONDS=value))
    assert parse(app.test_client())[2]["verdictSeconds"] == seconds


def test_verdict_seconds_from_the_environment(page_lexicons, monkeypatch):
    monkeypatch.setenv("LEXICON_VERDICT_SECONDS", "30")
    app = create_app(page_config(page_lexicons))
    assert parse(app.test_client())[2]["verdictSeconds"] == 30.0


@pytest.mark.parametrize("value", ["0.5", "-1", "601", "soon", "nan", "inf"])
def test_a_verdict_time_that_cannot_be_used_stops_the_start(page_lexicons, value):
    with pytest.raises(SettingsError, match="LEXICON_VERDICT_SECONDS"):
        create_app(page_config(page_lexicons, LEXICON_VERDICT_SECONDS=value))


def test_with_a_venue_token_the_page_asks_for_it_but_never_holds_it(page_lexicons):
    client = create_app(page_config(page_lexicons, LEXICON_TOKEN="ronda-7-secreto")).test_client()
    response, links, data = parse(client)  # the page itself needs no token
    assert data["tokenRequired"] is True
    assert b"ronda-7-secreto" not in response.get_data()
    for url in links.urls:
        if url.startswith("static/"):
            assert client.get("/" + url).status_code == 200
    assert client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRO"]}).status_code == 401


def test_lexicon_names_are_escaped(tmp_path):
    from tests.support import compile_list

    path = compile_list(tmp_path / "x.lex", ["CASA"], "es", "x-es", "</script><b>&", "1")
    client = create_app(page_config({"x": path})).test_client()
    html = client.get("/").get_data(as_text=True)
    assert "</script><b>" not in html
    assert "&lt;/script&gt;&lt;b&gt;&amp;" in html  # the option text
    assert parse(client)[2]["lexicons"][0]["name"] == "</script><b>&"


@pytest.mark.slow
def test_every_worker_renders_the_same_page_whatever_its_hash_seed(page_lexicons):
    """gunicorn's workers each render the page: the same bytes, so a 304 from any worker."""
    script = (
        "import json, sys; from service import create_app; "
        "print(create_app(json.loads(sys.argv[1])).test_client().get('/').headers['ETag'])"
    )
    config = json.dumps(page_config(page_lexicons))
    etags = set()
    for seed in range(1, 7):
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run(
            [sys.executable, "-c", script, config], env=env, cwd=REPO, capture_output=True, text=True, check=True
        )
        etags.add(done.stdout.strip())
    assert len(etags) == 1, etags


def test_offline_data_holds_offline_js_texts_and_every_lexicon_s_full_checksum(client, app):
    _, _, data = parse(client)
    url = next(u for u in data["later"] if u.startswith("static/offline-data.js"))
    text = client.get("/" + url).get_data(as_text=True)
    assert text.startswith("window.LexiconOfflineData = ") and text.endswith(";\n")
    offline = json.loads(text.removeprefix("window.LexiconOfflineData = ").removesuffix(";\n"))
    listed = client.get("/v1/lexicons").get_json()["lexicons"]
    assert offline["checksums"] == {item["id"]: item["checksum"] for item in listed}
    assert offline["texts"] == offline_texts() and set(offline["texts"]) == set(data["texts"])
    # the keys offline.js asks for, and no other
    used = set(re.findall(r'\bt\("(\w+)"', (REPO / "service" / "static" / "offline.js").read_text()))
    assert used == set(offline["texts"]["es"]) == set(offline["texts"]["ca"])
    assert "standalone" not in offline  # only a page made to judge without a service sets it


@pytest.mark.node
def test_scripts_are_served_unindented_and_still_parse(client, tmp_path):
    """unindented() takes the indentation off (bytes the page does not pay for), nothing else."""
    _, links, data = parse(client)
    node = shutil.which("node")
    assert node, "Node.js is not installed: `make test` installs it (apt-get install nodejs)"
    for url in [u for u in links.urls if u.endswith(".js") or ".js?" in u] + data["later"]:
        name = url.split("?")[0].removeprefix("static/")
        served = client.get("/" + url).get_data()
        if name != "offline-data.js":
            written = source(name)
            assert served == unindented(written)
            if name == "judge.js":
                assert len(served) < len(written) * 0.9 and b"\n//" not in served and b"\n/*" not in served
        path = tmp_path / name
        path.write_bytes(served)
        checked = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
        assert checked.returncode == 0, (name, checked.stderr)
    assert unindented(b"a = `x\n  y`;\n  b();\n") == b"a = `x\n  y`;\n  b();\n"  # a string over lines: kept whole


def test_a_static_file_changed_is_served_as_it_is_now(tmp_path, monkeypatch):
    """served() makes each content once (every app made sends the same files): a file changed
    between two apps is made anew from what it says now, never the bytes made of what it said."""
    import service.static_files

    monkeypatch.setattr(service.static_files, "STATIC", tmp_path)
    sheet = tmp_path / "odd.css"
    sheet.write_bytes(b"/* why */\na {\n  color: red;\n}\n")
    assert service.static_files.served("odd.css") == b"a{color:red}"
    sheet.write_bytes(b"a {\n  color: blue;\n}\n")
    assert service.static_files.served("odd.css") == b"a{color:blue}"


@pytest.mark.parametrize("script", ["judge.js", "director.js", "lexicon.js"])
def test_a_script_in_parts_is_its_parts_in_one_function_and_every_part_is_sent(script):
    """judge.js, the console's director.js and the browser lexicon's lexicon.js are written in
    parts (static/judge/, static/director/, static/lexicon/), each sent as one file: every part
    there is in PARTS, once, and the file is their bytes in order inside one strict function."""
    parts, folder = PARTS[script], script.removesuffix(".js")
    assert sorted(parts) == sorted(str(path.relative_to(STATIC)) for path in (STATIC / folder).glob("*.js"))
    body = b"".join((STATIC / part).read_bytes() for part in parts)
    assert source(script) == b'(() => {\n"use strict";\n' + body + b"})();\n"
    assert not (STATIC / script).exists()  # one place to edit it


def test_a_line_separator_in_the_page_s_data_leaves_it_whole(page_lexicons, monkeypatch):
    """The HTML is sent without its indentation line by line: a line is what ends in "\\n", not
    every character Python calls a line break (U+2028, U+0085, U+000C), which the page's JSON
    holds as such (ensure_ascii=False), and splitting there broke the JSON."""
    import service.page
    import service.page_data

    texts = interface_texts()
    odd = {
        language: {**strings, "submit": strings["submit"] + "\u2028\x85\x0c  x"} for language, strings in texts.items()
    }
    monkeypatch.setattr(service.page, "interface_texts", lambda: odd)
    monkeypatch.setattr(service.page_data, "interface_texts", lambda: odd)
    _, _, data = parse(create_app(page_config(page_lexicons)).test_client())
    assert data["texts"] == odd


def test_the_pages_scripts_ask_and_speak_through_one_module():
    """common.js asks the service and fills the texts for every page (the judge's page, its
    event and offline parts, the director's console): no other JSON request or placeholder code.
    Left apart: the browser lexicon's download (bytes, not JSON), the console's QR code (an
    image) and the service worker (a cache, not a client)."""
    static = REPO / "service" / "static"
    for name in ("judge.js", "event.js", "offline.js", "director.js", "standalone.js"):
        code = source(name).decode("utf-8")
        assert "/\\{(\\w+)\\}/g" not in code and "application/problem+json" not in code, name
        assert "function ask(" not in code or "LexiconCommon.ask(" in code, name
        expected = {"offline.js": 1, "director.js": 1}.get(name, 0)  # the lexicon's bytes; the QR code
        assert code.count("fetch(") == expected, name
    common = (static / "common.js").read_text(encoding="utf-8")
    assert "async function ask(" in common and "function localize(" in common
    assert b"common.js" in (REPO / "service" / "templates" / "director.html").read_bytes()
