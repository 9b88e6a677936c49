"""Shared fixtures for build_tools tests.

The real DISC sources live in the repository under ``data/ca-disc`` (jmontane/disc e8b6e1c,
GPL-3.0). Every test that needs them goes through :func:`disc_source_dir`, and the one full
Catalan build of a test session goes through the ``ca_build`` fixture.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from build_tools.compiler import build
from build_tools.manifest import DEFAULT_MANIFEST, Entry, load_manifest
from build_tools.report import BuildReport
from build_tools.sources import Source, load_source
from lexicon.lexfile import Lexicon
from lexicon.tokenizer import tokenizer

REPO = Path(__file__).resolve().parents[2]
DISC_DIR = REPO / "data" / "ca-disc"
DISC_FIXTURES = REPO / "tests" / "data" / "disc"
DISC_TILE_FIXTURES = REPO / "tests" / "data" / "disc-tiles"


def disc_source_dir() -> Path:
    """The real DISC source directory."""
    if not (DISC_DIR / "entrades.txt").is_file():
        pytest.fail(f"DISC sources not found in {DISC_DIR}")
    return DISC_DIR


@pytest.fixture(scope="session")
def disc_dir() -> Path:
    return disc_source_dir()


@pytest.fixture(scope="session")
def disc_fixture_dir() -> Path:
    """A tiny hand-written DISC source with one instance of each problem."""
    return DISC_FIXTURES


@pytest.fixture(scope="session")
def disc_tile_fixture_dir() -> Path:
    """A tiny hand-written DISC source whose forms meet every Scrabble normalization case."""
    return DISC_TILE_FIXTURES


@dataclass(frozen=True)
class CatalanBuild:
    """The default `ca` lexicon of data/manifest.toml, built once from data/ca-disc."""

    entry: Entry
    source: Source
    report: BuildReport
    path: Path  # the compiled file, in a temporary directory
    lexicon: Lexicon


@pytest.fixture(scope="session")
def ca_build(tmp_path_factory) -> CatalanBuild:
    """What `lexicon build-defaults` does for `ca`, into a temporary directory (a few seconds)."""
    entry = load_manifest(DEFAULT_MANIFEST).find("ca")
    assert entry is not None and entry.kind == "disc", "data/manifest.toml has no DISC default for ca"
    source = load_source(str(entry.source), entry.kind)
    tokens = tokenizer(entry.language, entry.notation)
    data, report = build(source.text, tokens, entry.meta(source.sha256), source.locate)
    report.notes.extend(source.notes)
    path = tmp_path_factory.mktemp("lexicons") / entry.output.name
    path.write_bytes(data)
    return CatalanBuild(entry, source, report, path, Lexicon.open(path))
