"""GET /v1/lexicons/{id}/browser: the browser file of a loaded lexicon, cached and compressed."""

from __future__ import annotations

import gzip
import hashlib
import json

import brotli

from build_tools.browser_files import form_path, write_beside
from lexicon.browser import BrowserLexicon, beside, browser_bytes, compile_browser
from lexicon.lexfile import Lexicon
from service import create_app
from service.browser import CACHE_CONTROL
from tests.support import compile_list

from .conftest import ES_ALT_WORDS, app_config


def test_served_bytes_brotli_gzip_and_plain(client, lexicon_files):
    expected = browser_bytes(Lexicon.open(lexicon_files["ca-mini"]))
    digest = hashlib.sha256(expected[:-32]).hexdigest()
    for accept, coding, decode in [
        ("gzip, deflate, br", "br", brotli.decompress),
        ("gzip", "gzip", gzip.decompress),
        ("br;q=0.5, gzip", "gzip", gzip.decompress),
        ("identity", None, bytes),
    ]:
        response = client.get("/v1/lexicons/ca-mini/browser", headers={"Accept-Encoding": accept})
        assert response.status_code == 200, accept
        assert response.headers.get("Content-Encoding") == coding
        assert decode(response.data) == expected
        assert response.headers["Cache-Control"] == CACHE_CONTROL
        assert "Accept-Encoding" in response.headers["Vary"]
        assert response.headers["ETag"] == (f'"{digest}"' if coding is None else f'"{digest}-{coding}"')
        again = client.get(
            "/v1/lexicons/ca-mini/browser",
            headers={"Accept-Encoding": accept, "If-None-Match": response.headers["ETag"]},
        )
        assert again.status_code == 304 and again.data == b""
    assert BrowserLexicon(expected).header.id == "ca-mini"


def test_unknown_lexicon_is_a_problem(client):
    response = client.get("/v1/lexicons/nope/browser")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    body = json.loads(response.data)
    assert body["lexicon"] == "nope" and "ca-mini" in body["known"]


def test_a_browser_file_beside_the_lex_is_used_only_if_it_is_that_lexicon_s(lexicon_files, tmp_path):
    lex = tmp_path / "es-mini.lex"
    lex.write_bytes(lexicon_files["es-mini"].read_bytes())
    other = browser_bytes(Lexicon.open(lexicon_files["es-alt"]))  # a valid file of another list
    beside(lex).write_bytes(other)
    app = create_app(app_config(lexicon_files, LEXICON_FILES=[str(lex)]))
    served = app.test_client().get("/v1/lexicons/es-mini/browser", headers={"Accept-Encoding": "identity"}).data
    assert served == browser_bytes(Lexicon.open(lex)) != other
    exported = browser_bytes(Lexicon.open(lex))
    mine = Lexicon.open(lex)  # the same lexicon's file, told apart by its name: it is the one served
    marked = compile_browser(
        mine.keys(),
        mine.alphabet,
        id="es-mini",
        name="from disk",
        version="test-1",
        words_sha256=mine.header.words_sha256,
        lexicon_sha256=mine.checksum,
    )
    beside(lex).write_bytes(marked)
    app = create_app(app_config(lexicon_files, LEXICON_FILES=[str(lex)]))
    assert app.test_client().get("/v1/lexicons/es-mini/browser", headers={"Accept-Encoding": "identity"}).data == marked
    beside(lex).write_bytes(exported[:-1] + bytes([exported[-1] ^ 1]))  # corrupt: ignored, rebuilt
    app = create_app(app_config(lexicon_files, LEXICON_FILES=[str(lex)]))
    assert (
        app.test_client().get("/v1/lexicons/es-mini/browser", headers={"Accept-Encoding": "identity"}).data == exported
    )


def test_the_venue_token_guards_it(make_app):
    client = make_app(LEXICON_TOKEN="sesame").test_client()
    assert client.get("/v1/lexicons/es-mini/browser").status_code == 401
    assert client.get("/v1/lexicons/es-mini/browser", headers={"Authorization": "Bearer sesame"}).status_code == 200


def test_a_language_or_another_case_is_redirected_to_the_id_s_url_not_cached(client):
    for name in ("ca", "CA", "CA-MINI", "Ca-Mini"):
        response = client.get(f"/v1/lexicons/{name}/browser")
        assert response.status_code == 307, name
        assert response.headers["Location"].endswith("/v1/lexicons/ca-mini/browser")
        assert response.headers["Cache-Control"] == "no-cache"
    followed = client.get("/v1/lexicons/ca/browser", follow_redirects=True, headers={"Accept-Encoding": "identity"})
    assert followed.status_code == 200 and BrowserLexicon(followed.data).header.id == "ca-mini"
    assert followed.headers["Cache-Control"] == CACHE_CONTROL


def _refuse(*args, **kwargs):
    raise AssertionError("built or compressed on a request")


def _refuse_browser_work(monkeypatch) -> None:
    """The browser file's builder and compressors fail from here on (the page's assets keep theirs)."""
    monkeypatch.setattr("service.browser.browser_bytes", _refuse)
    monkeypatch.setattr("build_tools.browser_files.COMPRESSORS", {"br": _refuse, "gzip": _refuse})


def test_the_file_and_its_compressed_forms_are_made_with_the_app_not_on_a_request(make_app, monkeypatch):
    """Made on a request, in a worker, they held its event loop for seconds (brotli at its best
    quality), and every challenge of that worker waited."""
    client = make_app().test_client()
    _refuse_browser_work(monkeypatch)
    for accept in ("br", "gzip", "identity"):
        assert client.get("/v1/lexicons/ca-mini/browser", headers={"Accept-Encoding": accept}).status_code == 200


def test_an_app_made_again_reuses_what_the_last_one_prepared(make_app, lexicon_files, tmp_path, monkeypatch):
    """A reload builds a new app from the same files: no lexicon unchanged is built or compressed again."""
    make_app()
    _refuse_browser_work(monkeypatch)
    client = make_app().test_client()
    served = client.get("/v1/lexicons/es-mini/browser", headers={"Accept-Encoding": "br"})
    assert brotli.decompress(served.data) == browser_bytes(Lexicon.open(lexicon_files["es-mini"]))
    monkeypatch.undo()
    changed = tmp_path / "ca-mini.lex"  # another lexicon at the same id: its own bytes, made anew
    compile_list(changed, ["CASA", "AIGUA"], "ca", "ca-mini", "Mini català 2", version="test-2")
    client = make_app(LEXICON_FILES=[str(lexicon_files["es-mini"]), str(changed)]).test_client()
    assert gzip.decompress(
        client.get("/v1/lexicons/ca-mini/browser", headers={"Accept-Encoding": "gzip"}).data
    ) == browser_bytes(Lexicon.open(changed))


def _started(lexicon_files, lex, monkeypatch):
    """An app serving `lex` as a service just started makes it: nothing kept from an app before."""
    monkeypatch.setattr("service.browser._PREPARED", {"built": {}, "compressed": {}})
    return create_app(app_config(lexicon_files, LEXICON_FILES=[str(lex)]))


def _served(app, coding: str) -> bytes:
    response = app.test_client().get("/v1/lexicons/es-mini/browser", headers={"Accept-Encoding": coding})
    assert response.status_code == 200 and response.headers.get("Content-Encoding", "identity") == coding
    return response.data


def test_with_the_files_beside_the_lex_nothing_is_built_or_compressed_at_start(lexicon_files, tmp_path, monkeypatch):
    """Compressing at start (brotli at its best quality, about a second a lexicon) was most of the
    service's time from start to ready: the forms written beside the .dawg are served as they are."""
    lex = tmp_path / "es-mini.lex"
    lex.write_bytes(lexicon_files["es-mini"].read_bytes())
    write_beside(lex)
    raw = beside(lex).read_bytes()
    # forms of exactly this file, as another brotli or zlib might make them: the ones on disk are
    # served, not bytes compressed again
    form_path(beside(lex), "br").write_bytes(brotli.compress(raw, quality=4))
    form_path(beside(lex), "gzip").write_bytes(gzip.compress(raw, compresslevel=1, mtime=0))
    _refuse_browser_work(monkeypatch)
    app = _started(lexicon_files, lex, monkeypatch)
    assert _served(app, "identity") == raw
    for coding in ("br", "gzip"):
        assert _served(app, coding) == form_path(beside(lex), coding).read_bytes()


def test_a_stale_damaged_or_missing_form_is_never_served_but_made_again(lexicon_files, tmp_path, capfd, monkeypatch):
    lex = tmp_path / "es-mini.lex"
    lex.write_bytes(lexicon_files["es-mini"].read_bytes())
    write_beside(lex)
    raw = beside(lex).read_bytes()
    stale = browser_bytes(Lexicon.open(lexicon_files["es-alt"]))  # another list's browser file
    damaged = form_path(beside(lex), "gzip").read_bytes()
    for bad in (
        {"br": brotli.compress(stale, quality=11), "gzip": gzip.compress(stale, mtime=0)},
        {"br": b"damaged", "gzip": damaged[:-1] + bytes([damaged[-1] ^ 1])},
        {},
    ):
        for coding in ("br", "gzip"):
            form_path(beside(lex), coding).unlink(missing_ok=True)
            if coding in bad:
                form_path(beside(lex), coding).write_bytes(bad[coding])
        capfd.readouterr()
        app = _started(lexicon_files, lex, monkeypatch)
        assert brotli.decompress(_served(app, "br")) == raw and gzip.decompress(_served(app, "gzip")) == raw
        logged = [json.loads(line) for line in capfd.readouterr().err.splitlines() if line.startswith("{")]
        said = [line for line in logged if line["message"].startswith("file beside the lexicon not used")]
        assert sorted(line["path"] for line in said) == [str(form_path(beside(lex), c)) for c in ("br", "gzip")]
        assert all(line["level"] == ("warning" if bad else "info") for line in said)
    assert [form_path(beside(lex), c).exists() for c in ("br", "gzip")] == [False, False]  # the service writes none


def test_a_reload_after_the_lex_changed_never_serves_the_old_forms(lexicon_files, tmp_path):
    """Files change under a running service: the new .lex with the old list's .dawg and forms
    still beside it (or a new .dawg with old forms, mid-way through `lexicon build-defaults`)."""
    lex = tmp_path / "es-mini.lex"
    lex.write_bytes(lexicon_files["es-mini"].read_bytes())
    write_beside(lex)
    old = {c: _served(create_app(app_config(lexicon_files, LEXICON_FILES=[str(lex)])), c) for c in ("br", "gzip")}
    compile_list(lex, ES_ALT_WORDS, "es", "es-mini", "Mini español", version="test-2")
    new = browser_bytes(Lexicon.open(lex))
    for step in ("old .dawg and forms", "new .dawg, old forms"):
        if step == "new .dawg, old forms":
            beside(lex).write_bytes(new)
        app = create_app(app_config(lexicon_files, LEXICON_FILES=[str(lex)]))  # what a reload does
        assert _served(app, "identity") == new, step
        assert brotli.decompress(_served(app, "br")) == new and gzip.decompress(_served(app, "gzip")) == new, step
        assert _served(app, "br") != old["br"] and _served(app, "gzip") != old["gzip"], step
