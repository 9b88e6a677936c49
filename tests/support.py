"""Helpers shared by the test folders: small lexicons compiled on the spot, and the real server
(the bench's harness, bench/server.py: one for both).

Imported as `tests.support` (pytest runs from the repository root, which is on sys.path).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.server import LEXICON, REPOSITORY, Server, ServerFailed, free_port
from build_tools.compiler import build
from lexicon.lexfile import LexiconMeta
from lexicon.tokenizer import tokenizer

REPO = REPOSITORY
LEXICON_SCRIPT = LEXICON
__all__ = ["LEXICON_SCRIPT", "REPO", "LiveServer", "compile_list", "free_port"]


def compile_list(path: Path, words: list[str], language: str, lexicon_id: str, name: str,
                 version: str = "test-1") -> Path:
    """Compile `words` (natural spelling) into `path`; every word must make it in."""
    meta = LexiconMeta(id=lexicon_id, language=language, name=name, version=version,
                       source="tests", licence="test data")
    data, report = build("\n".join(words) + "\n", tokenizer(language, "spelling"), meta)
    assert report.words == len(set(words)), report.lines()
    path.write_bytes(data)
    return path


class LiveServer(Server):
    """The one harness (bench/server.py) as the tests use it: its logs kept in `folder`, and a
    server that does not become ready fails the test with its logs, not with a traceback."""

    def __init__(self, folder: Path, files, workers: int = 1, **settings: str):
        super().__init__(files, workers=workers, logs=folder, **settings)

    def wait_ready(self, limit: float = 30.0, poll: float = 0.05) -> float:
        try:
            return super().wait_ready(limit, poll)
        except ServerFailed as failure:
            pytest.fail(str(failure), pytrace=False)
