"""`lexicon export-page`: the single-file judge, written as the other commands write, reproducible,
at most 1 MB for each default lexicon. It judging in Chromium: tests/page/test_single_file_browser.py."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from click.testing import CliRunner

from lexicon.browser import BrowserLexicon
from lexicon.lexfile import Lexicon
from lexicon_cli import main
from tests.support import compile_list

LIMIT = 1_000_000  # bytes: a file sent by message


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def mini(tmp_path):
    return compile_list(tmp_path / "mini.lex", ["CARRO", "CHICO", "LLAVE"], "es", "mini", "Mini español", "3.1")


def embedded(html: str) -> bytes:
    text = re.search(r'<script type="text/plain" id="lexicon-bytes">(.*?)</script>', html, re.DOTALL).group(1)
    return base64.b64decode("".join(text.split()))


def test_the_file_holds_the_page_and_the_lexicon_and_nothing_to_fetch(tmp_path, mini):
    out = tmp_path / "juez.html"
    result = run("export-page", mini, "-o", out)
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    checksum = Lexicon.open(mini).checksum
    assert (
        result.output == f"wrote {out}: Mini español, version 3.1, 3 words, {len(data):,} bytes, checksum {checksum}\n"
    )
    html = data.decode("utf-8")
    assert BrowserLexicon(embedded(html)).header.lexicon_sha256 == checksum
    assert f"Juzga en este teléfono, sin conexión ni servicio: Mini español · versión 3.1 · suma {checksum}" in html
    assert not re.search(r'<(?:script|img|link|iframe)[^>]+(?:src|href)="(?!data:)', html)  # all inline
    assert "webmanifest" not in html and "CARRO" not in html  # no manifest; the words only as tiles, in base64
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1)
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy
    inline = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    digests = [base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() for body in inline]
    # every inline script allowed by its hash, and the policy allows nothing that is not there
    assert sorted(digests) == sorted(re.findall(r"'sha256-([^']+)'", policy.split("style-src")[0]))
    # common.js, tiles.js, judge.js, lexicon.js, offline.js's data, offline.js, standalone.js
    assert len(inline) == 7
    assert '"standalone":true' in html


def test_the_same_lexicon_gives_the_same_bytes(tmp_path, mini):
    assert run("export-page", mini, "-o", tmp_path / "a.html").exit_code == 0
    assert run("export-page", mini, "-o", tmp_path / "b.html").exit_code == 0
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()


@pytest.mark.parametrize("language", ["es", "ca"])
@pytest.mark.slow  # each real default lexicon, exported whole
def test_each_default_lexicon_fits_in_1_mb(tmp_path, language, capsys):
    out = tmp_path / f"juez-{language}.html"
    result = run("export-page", language, "-o", out)
    assert result.exit_code == 0, result.output
    size = out.stat().st_size
    with capsys.disabled():
        print(f"\n  export-page {language}: {size:,} bytes (at most {LIMIT:,})")
    assert size <= LIMIT


def test_an_output_that_is_not_a_regular_file_is_refused(tmp_path, mini):
    result = run("export-page", mini, "-o", "/dev/null")
    assert result.exit_code == 2 and "cannot write /dev/null: not a regular file" in result.output
    result = run("export-page", mini, "-o", tmp_path)
    assert result.exit_code == 2 and "is a directory" in result.output


def test_bad_input_exits_2_and_writes_nothing(tmp_path, mini):
    (tmp_path / "junk.lex").write_bytes(b"not a lexicon")
    result = run("export-page", tmp_path / "junk.lex", "-o", tmp_path / "x.html")
    assert result.exit_code == 2 and "no Lexicon Judge magic" in result.output
    result = run("export-page", "nosuch", "-o", tmp_path / "x.html")
    assert result.exit_code == 2 and "unknown lexicon 'nosuch'" in result.output
    result = run("export-page", mini, "-o", tmp_path / "no" / "x.html")
    assert result.exit_code == 2 and f"no directory {tmp_path / 'no'}" in result.output
    result = run("export-page", mini)
    assert result.exit_code == 2 and "-o" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.lex", "mini.lex"]


def test_the_shells_settings_change_nothing(tmp_path, mini, monkeypatch):
    assert run("export-page", mini, "-o", tmp_path / "a.html").exit_code == 0
    monkeypatch.setenv("LEXICON_TOKEN", "ronda-9-secreto")
    monkeypatch.setenv("LEXICON_VERDICT_SECONDS", "60")
    assert run("export-page", mini, "-o", tmp_path / "b.html").exit_code == 0
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()
