"""Shared by the tests of the `lexicon` command: running it in process, a small compiled lexicon,
and a manifest of one small default."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lexicon_cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
MINI = DATA / "mini-es.txt"
LEXICON_BIN = Path(sys.executable).parent / "lexicon"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def invoke(*args, **kwargs):
    """As `run`, but an error is a result to look at (exit code, output), not a failure."""
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


@pytest.fixture(scope="module")
def mini(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "mini.lex"
    result = run("build", MINI, "--lang", "es", "--id", "mini-es", "--name", "Mini", "--version", "1", "-o", out)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def manifest(tmp_path, monkeypatch) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mini.txt").write_text("carro\nchico\n")
    path = tmp_path / "data" / "manifest.toml"
    path.write_text(
        'output = "../out"\n[[lexicon]]\nid = "mini-es"\nlanguage = "es"\ndefault = true\n'
        'name = "Mini"\nversion = "1"\nsource = "mini.txt"\n'
    )
    monkeypatch.setenv("LEXICON_MANIFEST", str(path))
    return path
