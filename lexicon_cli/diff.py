"""`lexicon diff OLD NEW`: the words a new release adds and removes, for the season of transition.

Lines `+ WORD` (only in NEW) and `- WORD` (only in OLD) in engine notation, merged in the
alphabet's order as a diff of the two `lexicon dump`s would show them, then the counts. Exit 0
whether or not they differ, as `diff` is a report; `--exit-code` makes a difference exit 1 for
scripts, as `git diff --exit-code` does. Two lexicons of another language or tile set, or a name
that is no lexicon, are bad input: exit 2, saying why.
"""

from __future__ import annotations

import json
import sys

import click

from lexicon.diff import LexiconDiff, diff
from lexicon.errors import LexiconError
from lexicon.verdict import Identity

from .common import LEXICON_IS, BadInput, exit_codes, open_lexicon

KINDS = ("added", "removed", "kept")


def _counts_line(change: LexiconDiff) -> str:
    counts = change.counts()
    return ", ".join(f"{kind} {counts[kind]:,}" for kind in KINDS)


def _length_table(change: LexiconDiff) -> list[str]:
    rows = [("tiles", *KINDS)]
    rows += [(str(n), *(f"{c[kind]:,}" for kind in KINDS)) for n, c in change.by_length().items()]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return ["  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]


def _as_json(change: LexiconDiff, old, new, added: bool, removed: bool) -> str:
    data = {
        "old": Identity.of(old).__dict__,
        "new": Identity.of(new).__dict__,
        "counts": change.counts(),
        "by_length": {str(n): counts for n, counts in change.by_length().items()},
    }
    if added:
        data["added"] = change.added_words()
    if removed:
        data["removed"] = change.removed_words()
    return json.dumps(data, ensure_ascii=False)


@click.command(
    "diff",
    help=f"""The words only in NEW (+) and only in OLD (-), in tile order, then counts.

OLD and NEW are each {LEXICON_IS}; a default not built yet is built on first use.

{
        exit_codes(
            "done, whether or not they differ",
            "two lexicons of another language or tile set",
            failed="with --exit-code, when a word is shown",
        )
    }""",
)
@click.argument("old_name", metavar="OLD")
@click.argument("new_name", metavar="NEW")
@click.option("--by-length", is_flag=True, help="Also count by word length in tiles.")
@click.option("--json", "as_json", is_flag=True, help="Write the counts and the lists as JSON.")
@click.option("--added-only", is_flag=True, help="Only the words of NEW that OLD lacks.")
@click.option("--removed-only", is_flag=True, help="Only the words of OLD that NEW lacks.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when a word is shown (as git diff --exit-code), else 0.")
def diff_command(old_name, new_name, by_length, as_json, added_only, removed_only, exit_code):
    if added_only and removed_only:
        raise click.UsageError("--added-only and --removed-only exclude each other")
    old, new = open_lexicon(old_name), open_lexicon(new_name)
    try:
        change = diff(old, new)
    except LexiconError as error:
        raise BadInput(str(error)) from None
    added, removed = not removed_only, not added_only
    if as_json:
        text = _as_json(change, old, new, added, removed) + "\n"
    else:
        lines = change.lines(added, removed)
        lines.append(_counts_line(change))
        if by_length:
            lines += _length_table(change)
        text = "\n".join(lines) + "\n"
    try:
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.flush()
    except BrokenPipeError:  # `lexicon diff old new | head` is a normal thing to do
        sys.stderr.close()
    if exit_code and change.differs(added, removed):
        click.get_current_context().exit(1)
