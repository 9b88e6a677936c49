"""Shared fixtures for build_tools tests.

The real DISC sources live in the repository under ``data/ca-disc`` (jmontane/disc e8b6e1c,
GPL-3.0). Every test that needs them goes through :func:`disc_source_dir`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
