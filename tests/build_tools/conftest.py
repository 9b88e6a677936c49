"""Shared fixtures for build_tools tests.

The real DISC sources live in the repository under ``data/ca-disc``; until
they are copied there, the shared checkout next to the repository
(``../shared/data/ca-disc``) is used.  Every test that needs them goes through
:func:`disc_source_dir`, so moving the data changes one place.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DISC_CANDIDATES = (REPO / "data" / "ca-disc", REPO.parent / "shared" / "data" / "ca-disc")
DISC_FIXTURES = REPO / "tests" / "data" / "disc"


def disc_source_dir() -> Path:
    """The real DISC source directory (repository copy first)."""
    for candidate in DISC_CANDIDATES:
        if (candidate / "entrades.txt").is_file():
            return candidate
    pytest.fail(f"DISC sources not found in any of {[str(c) for c in DISC_CANDIDATES]}")


@pytest.fixture(scope="session")
def disc_dir() -> Path:
    return disc_source_dir()


@pytest.fixture(scope="session")
def disc_fixture_dir() -> Path:
    """A tiny hand-written DISC source with one instance of each problem."""
    return DISC_FIXTURES
