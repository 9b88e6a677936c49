"""From a DISC source directory to what the compiler reads: entries, where they came from, notes.

The compiler (``build_tools.compiler``) reads entries as text, one a line, and asks
``locate(i)`` where entry ``i`` came from when a report has to name it.  For a DISC
source the entries are the DISTINCT spellings of the generated forms, in the order
they are first generated (entry order, then rule order), and ``locate(i)`` names the
first form that gives spelling ``i``, with its line of entrades.txt:
``"abatre (line 12, model 1, VMIP3S00)"``.

Why distinct spellings rather than all 897,243 tagged forms: a spelling generated
under several tags (``abat`` is VMIP1S0Z, VMIP3S00 and VMM02S00 of abatre) is one
candidate word, not several.  Collapsing those exact repeats here means the
compiler's own duplicate count, and its examples, are the words that Scrabble
normalization merges (``és``/``es``, ``abacallaní``/``abacallani``), and that a
word left out for its length is counted once, not once per tag.  The notes say
how many forms there were.

The checksum of a source covers the files that decide the words and the checks,
in this canonical order: ``entrades.txt``, then ``models/*.model``, then
``tests/*.test``, each group sorted by file name in code-point order.  It is the
SHA-256 of the ``sha256sum`` listing of those files (``HEX  PATH`` lines, paths
relative to the directory), so a shell gives the same value::

    cd data/ca-disc && export LC_ALL=C && sha256sum entrades.txt models/*.model tests/*.test | sha256sum

Everything here is pure but the I/O at the end: ``source_files``, ``source_digest``, ``read_disc``.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .checks import DiscReport, build_report, read_tests
from .expand import DiscSource, compile_models, entry_of, expand_forms, read_source, row_of

__all__ = [
    "DiscEntries",
    "digest",
    "disc_entries",
    "read_disc",
    "source_digest",
    "source_files",
]


@dataclass(frozen=True)
class DiscEntries:
    """What the compiler needs from a DISC source, and the checks of that source."""

    text: str  # the distinct spellings, one a line, in order of first generation
    locate: Callable[[int], str]  # spelling i -> "lemma (line N, model CODE, TAG)" of its first form
    report: DiscReport

    @property
    def notes(self) -> list[str]:
        """The lines the build report adds after its own."""
        return [
            "DISC source: the entries above are its distinct spellings, each named by the "
            "first form (lemma, its line of entrades.txt, model, tag) that gives it",
            *self.report.lines(),
        ]


def disc_entries(source: DiscSource, tests: Mapping[str, frozenset[str]] | None = None) -> DiscEntries:
    """Expand a DISC source and check it; the entries for the compiler, with their origins."""
    compiled = compile_models(source.models)
    forms, ends = expand_forms(source.entries, compiled)
    # Each spelling, in order of first generation, mapped to the index of its first form; all
    # at C speed: keys come in first-seen order, and updating them from the last form back to
    # the first leaves each with its first index. Only the text and one integer a spelling are
    # kept: the build's peak memory is reached later, in the compiler, with these alive.
    first_form = dict.fromkeys(forms)
    first_form.update(zip(reversed(forms), range(len(forms) - 1, -1, -1), strict=True))
    report = build_report(source, tests, (len(forms), len(first_form)), (compiled, ends))
    text = "\n".join(first_form)
    firsts = array("q", first_form.values())
    del forms, first_form

    def locate(index: int) -> str:
        _form, lemma, _category, model, tag = row_of(firsts[index], source.entries, compiled, ends)
        line = entry_of(firsts[index], source.entries, ends).line_no
        return f"{lemma} (line {line}, model {model}, {tag})"

    return DiscEntries(text, locate, report)


def digest(files: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 of the ``sha256sum`` listing (``HEX  NAME`` lines) of named contents, in the given order."""
    listing = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in files)
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def source_files(directory: str | Path) -> list[str]:
    """The files of a DISC source the checksum covers, relative, in canonical order."""
    directory = Path(directory)
    names = ["entrades.txt"]
    for folder, suffix in (("models", ".model"), ("tests", ".test")):
        found = [f"{folder}/{p.name}" for p in (directory / folder).glob(f"*{suffix}") if p.is_file()]
        names += sorted(found)  # code-point order, as `LC_ALL=C` globbing
    return names


def source_digest(directory: str | Path) -> str:
    """The checksum of a DISC source directory (see the module's docstring)."""
    directory = Path(directory)
    return digest((name, (directory / name).read_bytes()) for name in source_files(directory))


def read_disc(directory: str | Path) -> DiscEntries:
    """Read, expand and check the DISC source in ``directory``."""
    directory = Path(directory)
    return disc_entries(read_source(directory), read_tests(directory / "tests"))
