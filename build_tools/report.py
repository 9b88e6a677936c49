"""The build report: what went in, what came out, and every line left out with the reason.

A director who compiles a federation's list must be able to see, before the tournament, that
nothing was lost by accident: counts per reason, and the first examples with where they came
from (a line number, or a lemma and model for DISC sources).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lexicon.errors import SHOWN, show_word

EXAMPLES = 5

REASONS = {
    "non-tile": "a character that is no tile",
    "too-short": "fewer than 2 tiles",
    "too-long": "more than 15 tiles",
}


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 word`, `2 words`, `1,234 blank lines`; `nouns` for a plural that is not `noun` + s.

    >>> plural(1, "word"), plural(0, "blank line"), plural(1234, "word"), plural(2, "entry", "entries")
    ('1 word', '0 blank lines', '1,234 words', '2 entries')
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def named(items: Sequence[object], separator: str = ", ", most: int = EXAMPLES) -> str:
    """Items as a report names them: one by one up to `most`, the rest counted, so that a report of
    thousands of rows is a line, not a page.

    >>> named([2, 4]), named(range(1, 9), "; ")
    ('2, 4', '1; 2; 3; 4; 5; and 3 more')
    """
    shown = separator.join(str(item) for item in items[:most])
    return shown + (f"{separator}and {len(items) - most:,} more" if len(items) > most else "")


def as_typed(word: str) -> str:
    """A line of a list as the report shows it: as typed, unless it holds what a terminal would not
    show faithfully (a NUL, an escape sequence) or is long (a list given with no line feeds),
    then quoted escaped and cut (lexicon.errors.show_word)."""
    return word if word.isprintable() and len(word) <= SHOWN else show_word(word)


@dataclass
class Example:
    where: str  # "line 12", or "abatre (line 12, model 1, VMIP3S00)"
    word: str
    detail: str = ""

    def as_dict(self) -> dict:
        return {"where": self.where, "word": self.word, "detail": self.detail}


@dataclass
class Tally:
    """How many entries share one fate, with the first few as examples."""

    count: int = 0
    examples: list[Example] = field(default_factory=list)

    def add(self, example: Example) -> None:
        self.count += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append(example)

    def as_dict(self) -> dict:
        return {"count": self.count, "examples": [e.as_dict() for e in self.examples]}


@dataclass
class BuildReport:
    entries: int = 0  # non-blank entries read
    blank: int = 0  # blank lines...
    comments: int = 0  # ...and lines that are a comment alone
    words: int = 0  # distinct words compiled
    duplicates: Tally = field(default_factory=Tally)
    left_out: dict[str, Tally] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # source-specific lines (DISC checks)
    # lines of a tiles-notation list with a tile spelt apart (Spanish R R for RR): compiled as
    # written, but most likely a list in spelling built with --notation tiles
    split: Tally = field(default_factory=Tally)
    split_hint: str = ""

    @property
    def left_out_count(self) -> int:
        return sum(t.count for t in self.left_out.values())

    def leave_out(self, reason: str, example: Example) -> None:
        self.left_out.setdefault(reason, Tally()).add(example)

    def as_dict(self) -> dict:
        return {
            "entries": self.entries,
            "blank": self.blank,
            "comments": self.comments,
            "words": self.words,
            "duplicates": self.duplicates.as_dict(),
            "left_out": {reason: t.as_dict() for reason, t in sorted(self.left_out.items())},
            "split": {**self.split.as_dict(), "hint": self.split_hint},
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        """The report for people, a line each."""
        skipped = ", ".join(
            text
            for count, text in (
                (self.blank, plural(self.blank, "blank line")),
                (self.comments, plural(self.comments, "comment line")),
            )
            if count
        )
        out = [
            f"entries read:        {self.entries:>9,}" + (f"  ({skipped})" if skipped else ""),
            f"duplicates collapsed:{self.duplicates.count:>9,}",
            f"left out:            {self.left_out_count:>9,}",
            f"words compiled:      {self.words:>9,}",
        ]
        for example in self.duplicates.examples:
            out.append(f"  duplicate  {example.where}: {as_typed(example.word)} {example.detail}".rstrip())
        for reason, tally in sorted(self.left_out.items()):
            out.append(f"left out, {REASONS.get(reason, reason)}: {tally.count:,}")
            for example in tally.examples:
                detail = f": {example.detail}" if example.detail else ""
                out.append(f"  {example.where}: {as_typed(example.word)}{detail}")
        if self.split.count:
            out.append(f"compiled with one tile written as separate tiles: {self.split.count:,} ({self.split_hint})")
            out.extend(f"  {e.where}: {as_typed(e.word)}: {e.detail}" for e in self.split.examples)
        out.extend(self.notes)
        return out
