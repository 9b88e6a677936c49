"""The compiler pipeline: entries in, a compiled lexicon and its report out.

An entry is one line of a word list, or one generated DISC form. Every entry goes through the
same steps: tokenize (the language's spelling or tile notation), leave out what is no word of
2 to 15 tiles (reported with the reason and where it came from), collapse duplicates, sort in
the alphabet's order, compile. The steps work on the whole text at once (see Tokenizer.encode):
a per-word Python loop over 600,000 words costs seconds, the whole-text passes a fraction.
"""

from __future__ import annotations

import bisect
import errno
import itertools
import operator
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from lexicon.board import MAX_TILES, MIN_TILES
from lexicon.lexfile import LexiconMeta, compile_lexicon
from lexicon.tokenizer import Tokenizer

from .report import EXAMPLES, BuildReport, Example

Locate = Callable[[int], str]
Stage = Callable[[str], None]


def by_line(index: int) -> str:
    return f"line {index + 1}"


def collect_keys(text: str, tokenizer: Tokenizer, report: BuildReport, locate: Locate = by_line) -> list[str]:
    """The sorted, unique keys of the entries of `text` (one a line); `report` says the rest.

    The common case (every line a word of 2 to 15 tiles, no duplicates) costs a few C-speed
    passes; only when something is to be reported are the lines looked at one by one.
    """
    lines = bool(text)  # "" is no line; "\n" is one, blank (or a comment `clean` blanked)
    text = text.removesuffix("\n")  # the line feed that ends the last line starts no entry
    encoded_text = tokenizer.encode(text)
    encoded = encoded_text.split("\n") if lines else []
    bad = set(tokenizer.invalid_lines(encoded_text))
    kept = list(filter(None, encoded))
    plain = not bad and len(kept) == len(encoded)
    if plain and kept:
        lengths = set(map(len, kept))
        plain = min(lengths) >= MIN_TILES and max(lengths) <= MAX_TILES
    entries: list[str] = []
    if plain:
        report.entries = len(kept)
    else:
        entries = text.split("\n")
        kept = _sort_out(entries, encoded, bad, report, tokenizer, locate)

    keys = sorted(kept)
    if any(map(operator.eq, keys, itertools.islice(keys, 1, None))):
        keys = list(dict.fromkeys(keys))
        report.duplicates.count = len(kept) - len(keys)
        _duplicate_examples(entries or text.split("\n"), encoded, bad, report, locate)
    report.words = len(keys)
    if tokenizer.notation.name == "tiles":
        _split_tiles(text, encoded_text, bad, tokenizer, report, locate)
    return keys


def split_tiles(tokenizer: Tokenizer) -> dict[str, str]:
    """The key of each tile written as two or more single tiles (Spanish C H, L L, R R) -> the tile.
    No word of such a language has them apart (the rules play CH, LL, RR as one tile each), so a
    list in tiles notation holding them was written in spelling (CARRO, not CA3O or CA[RR]O).
    Catalan has none: L·L, NY and QU are not spelt with tiles of their own (no ·, Y or bare Q)."""
    code_of = tokenizer.alphabet.code_of
    return {
        "".join(code_of[letter] for letter in tile): tile
        for tile in tokenizer.alphabet.tiles
        if len(tile) > 1 and all(letter in code_of for letter in tile)
    }


def _split_tiles(text: str, encoded_text: str, bad, tokenizer: Tokenizer, report: BuildReport, locate: Locate) -> None:
    """Count the words of a tiles-notation list whose tiles spell a tile of their own apart
    (report.split), with the first few, and what the notation writes instead: one pass over the
    whole text, and the lines looked at only where it found some (a line left out is not counted,
    nor a duplicate again: the count is of words compiled, as `words` is)."""
    pairs = split_tiles(tokenizer)
    if not pairs:
        return
    pattern = re.compile("|".join(map(re.escape, pairs)))
    lines = text.split("\n")
    starts = [0, *itertools.accumulate(len(line) + 1 for line in encoded_text.split("\n"))]
    seen, counted = -1, set()
    for match in pattern.finditer(encoded_text):
        index = bisect.bisect_right(starts, match.start()) - 1
        if index == seen or index in bad or not MIN_TILES <= starts[index + 1] - 1 - starts[index] <= MAX_TILES:
            continue
        seen = index
        key = encoded_text[starts[index] : starts[index + 1] - 1]
        if key in counted:  # a duplicate of a line counted: collapsed into its word
            continue
        counted.add(key)
        found = sorted({pairs[m.group()] for m in pattern.finditer(encoded_text, starts[index], starts[index + 1])})
        apart = ", ".join(" ".join(tile) for tile in found)
        report.split.add(Example(locate(index), lines[index], f"{apart} as separate tiles"))
    if report.split.count:
        spellings = tokenizer.notation.spellings
        tiles = sorted(set(pairs.values()), key=tokenizer.alphabet.tiles.index)
        written = ", ".join(
            f"{tile} as {' or '.join(sorted(s for s, t in spellings.items() if t == tile and s != tile))}"
            for tile in tiles
        )
        report.split_hint = (
            f"no {tokenizer.alphabet.name} word has {', '.join(' '.join(tile) for tile in tiles)} apart; "
            f"tiles notation writes {written}: a list written as words are spelt is built without --notation tiles"
        )


def _sort_out(entries, encoded, bad, report: BuildReport, tokenizer: Tokenizer, locate: Locate) -> list[str]:
    """The keys of the entries that are words; the others go to the report with their reason."""
    kept = []
    for index, key in enumerate(encoded):
        if not entries[index]:
            report.blank += 1
        elif index in bad:
            error = tokenizer.diagnose(entries[index])
            report.leave_out("non-tile", Example(locate(index), entries[index], error.message))
        elif MIN_TILES <= len(key) <= MAX_TILES:
            kept.append(key)
        else:
            reason = "too-short" if len(key) < MIN_TILES else "too-long"
            tiles = f"{len(key)} tile" + ("" if len(key) == 1 else "s")
            report.leave_out(reason, Example(locate(index), entries[index], tiles))
    report.entries = len(entries) - report.blank
    return kept


def _duplicate_examples(entries, encoded, bad, report: BuildReport, locate: Locate) -> None:
    """The first duplicates, each with the line it repeats: only words compiled, never a line left
    out (two lines with a character that is no tile may encode alike without being a word)."""
    first: dict[str, int] = {}
    for index, key in enumerate(encoded):
        if not entries[index] or index in bad or not MIN_TILES <= len(key) <= MAX_TILES:
            continue
        seen = first.setdefault(key, index)
        if seen != index:
            report.duplicates.examples.append(Example(locate(index), entries[index], f"(same tiles as {locate(seen)})"))
            if len(report.duplicates.examples) >= EXAMPLES:
                return


def build(
    text: str,
    tokenizer: Tokenizer,
    meta: LexiconMeta,
    locate: Locate = by_line,
    on_stage: Stage | None = None,
    comments: int = 0,
) -> tuple[bytes, BuildReport]:
    """Compile the entries of `text`; the bytes of the lexicon file and the build report.
    `comments`: how many of its blank lines were comments alone (the report counts them apart)."""
    report = BuildReport()
    if on_stage:
        on_stage("tokenizing")
    keys = collect_keys(text, tokenizer, report, locate)
    report.comments = min(comments, report.blank)
    report.blank -= report.comments
    if on_stage:
        on_stage("compiling")
    return compile_lexicon(keys, meta, tokenizer.alphabet), report


def write_atomically(path: str | os.PathLike, data: bytes) -> None:
    """Write `path` so that a reader (a running service) sees the old file or the new, never half.

    The old file's inode lives on for whoever has it memory-mapped. A missing directory is
    FileNotFoundError: no directory is made (a typo in a path must not create a tree).
    """
    target = Path(path)
    if target.exists() and not target.is_file():  # a device or a pipe: a rename would replace it
        raise OSError(errno.EINVAL, "not a regular file (a rename would replace it, /dev/null included)")
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
