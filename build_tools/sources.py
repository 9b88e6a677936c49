"""Where entries come from: a word list (one word a line) or, for Catalan, a DISC directory.

Whatever the source, the compiler gets the same thing: the entries as text, one a line, how to
say where entry i came from in a report, and a checksum of the source for provenance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .compiler import by_line
from .wordlist import read_word_list

KINDS = ("list", "disc")


@dataclass
class Source:
    text: str  # entries, one a line
    sha256: str  # of the source's bytes, recorded in the compiled file's header
    locate: Callable[[int], str] = by_line
    notes: list[str] = field(default_factory=list)  # lines the build report adds (DISC checks)


def load_source(path: str, kind: str = "list") -> Source:
    if kind == "list":
        text, digest = read_word_list(path)
        return Source(text, digest)
    raise ValueError(f"unknown source kind {kind!r} (known: {', '.join(KINDS)})")
