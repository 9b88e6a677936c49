"""Where entries come from: a word list (one word a line) or, for Catalan, a DISC directory.

Whatever the source, the compiler gets the same thing: the entries as text, one a line, how to
say where entry i came from in a report, and a checksum of the source for provenance.

A DISC directory (lemmas plus flexion models, see build_tools.disc) gives the distinct spellings
of its generated forms; where one came from is the lemma, model and tag of the first form that
gives it; its notes are the DISC checks. Its checksum is known at once (a hash over
entrades.txt, models/*.model and tests/*.test: build_tools.disc.pipeline), the expansion is
done on first use of the entries, so `build-defaults` can tell an up-to-date lexicon without
expanding anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from lexicon.errors import LexiconError

from .compiler import by_line
from .disc.pipeline import DiscEntries, read_disc, source_digest, source_files
from .wordlist import read_word_list, where_not_utf8

KINDS = ("list", "disc")


class Source(Protocol):
    """What the compiler needs from any source."""

    sha256: str  # of the source's bytes, recorded in the compiled file's header
    language: str | None  # the language the source is in, when its kind says it; None: any
    notation: str | None  # the notation it is written in, when its kind says it; None: either

    @property
    def text(self) -> str: ...  # entries, one a line

    @property
    def locate(self) -> Callable[[int], str]: ...  # where entry i came from, for the report

    @property
    def notes(self) -> list[str]: ...  # lines the build report adds (DISC checks)

    @property
    def comments(self) -> int: ...  # lines of `text` blank because they were comments alone

    @property
    def lines_left_out(self) -> int: ...  # source lines left out before `text` (a DISC line that cannot be read)


@dataclass
class WordList:
    """A word list, read at once: one entry a line."""

    text: str
    sha256: str
    language: str | None = None  # a plain list says nothing of its language
    notation: str | None = None  # nor of its notation: --notation says it
    locate: Callable[[int], str] = by_line
    notes: list[str] = field(default_factory=list)
    comments: int = 0  # lines that are a comment alone: blank to the compiler, counted apart in the report
    lines_left_out: int = 0  # every line is in `text`: the compiler reports those it leaves out


class SourceError(LexiconError):
    """A source that cannot be read at all (as opposed to entries that are left out)."""


class DiscDirectory:
    """A DISC source directory: checksummed now, expanded and checked when its entries are used."""

    language = "ca"  # DISC is the Catalan Scrabble list: Catalan lemmas, models and tags
    notation = "spelling"  # its forms are words as written (col·legi, qüestió), never engine tiles
    comments = 0  # its entries come from its own files, never a comment line

    def __init__(self, path: str):
        self.path = Path(path)
        if self.path.is_file():  # entrades.txt itself, say: the directory is the source
            raise SourceError(
                f"{path} is a file, not a DISC source directory: give the directory that holds "
                f"entrades.txt and models/ ({self.path.parent})"
            )
        if not (self.path / "entrades.txt").is_file():
            raise SourceError(f"{path}: not a DISC source directory (no entrades.txt in it)")
        try:
            self.sha256 = source_digest(self.path)
        except OSError as error:
            raise SourceError(f"{path}: {error.strerror or error}") from None
        self._entries: DiscEntries | None = None
        self._notes: list[str] | None = None

    def _load(self) -> DiscEntries:
        if self._entries is None:
            try:
                self._entries = read_disc(self.path)
            except UnicodeDecodeError as error:
                raise SourceError(disc_not_utf8(self.path, error)) from None
            except OSError as error:
                raise SourceError(f"{self.path}: {error.strerror or error}") from None
        return self._entries

    @property
    def text(self) -> str:
        return self._load().text

    @property
    def locate(self) -> Callable[[int], str]:
        return self._load().locate

    @property
    def lines_left_out(self) -> int:
        return self._load().report.lines_left_out

    @property
    def notes(self) -> list[str]:
        if self._notes is None:
            self._notes = self._load().notes
        return self._notes


def disc_not_utf8(directory: Path, error: UnicodeDecodeError) -> str:
    """Which file of a DISC source is not UTF-8, and where, as a word list's error says it: a
    maintainer fixes the line, which the decoder's own reason ('invalid start byte') does not
    name. For `lexicon build --from disc` and `lexicon expand` alike."""
    for name in source_files(directory):
        data = (directory / name).read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as found:
            return f"{directory}: {name}: {where_not_utf8(data, found)}; DISC sources are UTF-8"
    return f"{directory}: a file is not UTF-8 ({error.reason}); DISC sources are UTF-8"


def check_language(source: Source, path: str, language: str, notation: str = "spelling") -> None:
    """A source whose kind fixes its language is compiled only with that language's tile set:
    Catalan DISC with Spanish tiles would be a lexicon that looks fine and judges wrongly. So with
    its notation: DISC forms read as tiles notation lose every accented form, and a Q, K, W or Y
    would be taken for the tile it stands for there."""
    if source.language is not None and source.language != language:
        raise SourceError(
            f"{path} is a DISC source, which is in {source.language!r} (Catalan); "
            f"it cannot be compiled with the {language!r} tile set: use {source.language!r}"
        )
    if source.notation is not None and source.notation != notation:
        raise SourceError(
            f"{path} is a DISC source, whose forms are in {source.notation!r} notation (col·legi, "
            f"qüestió); it cannot be read in {notation!r} notation: leave out --notation"
        )


def load_source(path: str, kind: str = "list") -> Source:
    if kind == "list":
        text, digest, comments = read_word_list(path)
        return WordList(text, digest, comments=comments)
    if kind == "disc":
        return DiscDirectory(path)
    raise ValueError(f"unknown source kind {kind!r} (known: {', '.join(KINDS)})")
