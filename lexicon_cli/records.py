"""`lexicon records verify|export`: an event's record of verdicts, checked and exported, from its
state file, its database or an export of it, with or without the service running. Both read
without changing anything (not even bringing an older schema up to date).

    lexicon records verify EVENT.db|EXPORT.csv|EXPORT.json|URL [--head SEQ:HASH]...
    lexicon records export EVENT.db|URL [--round N] [--format csv|json] [-o FILE]

`records verify` exits 0 when the record (or an export of it, on any computer) is intact, 1
naming the first row that does not chain, 2 when the file is neither an event nor an export.
`records export` writes every row with its check (`intact`); a record that does not verify is
still exported, said on standard error, with exit 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from build_tools.report import plural
from tournament import (
    FILTER_UNSAID,
    FORMATS,
    WRITTEN_DIGITS,
    MalformedRow,
    PaperHead,
    TournamentError,
    check_export,
    export,
    read_export_filter,
    said_stamped_back,
    said_unknown_shown,
    shown_location,
    stamped_back,
    unknown_round,
    unknown_shown,
)

from .common import BadInput, echo_err, write
from .event import EVENT_LOCATION, RecordBroken, _open
from .speech import ENGLISH, language, say, say_in
from .speech import records as records_said


@click.group()
def records() -> None:
    """An event's record of verdicts: check its chain, export it."""


def _head(context, parameter, values) -> tuple[PaperHead, ...]:
    try:
        return tuple(PaperHead.parse(value) for value in values)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


SQLITE_MAGIC = b"SQLite format 3\x00"


@records.command()
@click.argument("path", metavar="EVENT.db|EXPORT|URL", type=EVENT_LOCATION)
@click.option(
    "--head",
    "heads",
    multiple=True,
    callback=_head,
    metavar="SEQ:HASH",
    help=f"A round's head as written on its sheet (the last record's number and the first {WRITTEN_DIGITS} hex digits of "
    "its hash the console shows (at least 6; spaces ignored), e.g. 57:3fa9c2d17b0e55aa): that record must be "
    "there with that hash. Repeatable.",
)
def verify(path, heads):
    """Check the record's chain, in an event file or in an export (CSV or JSON) of it.

    An export is checked on its own, on any computer: a whole record's from its first row, a
    round's from its first row's previous-row hash (the previous round's head). Only --head,
    written on paper when the round closed, shows rows removed from the end.

    An intact record whose rows are stamped more than a second before the row before them (clocks
    that disagree, or one set back) names them under its line: their order is their numbers. So
    are its rows judged offline by a phone that did not say which verdict it showed.

    Exit codes: 0 intact; 1 a row that does not chain or a head that does not match, named;
    2 a file that is neither an event nor an export, or a head not in the export.
    """
    magic = SQLITE_MAGIC  # a database's event, or a file unreadable: said as for an event file (one not there: below)
    if not isinstance(path, str):
        try:
            with open(path, "rb") as file:
                magic = file.read(len(SQLITE_MAGIC))
        except FileNotFoundError:  # not "no such event file (create it …)": it may be an export's name
            raise BadInput(f"{path}: no such file (an event file, or a CSV or JSON export of one)") from None
        except OSError:
            pass
    if magic != SQLITE_MAGIC:
        _verify_export(path, heads)
        return
    db, shown = _open(path), shown_location(path)
    try:
        broken = db.verify()
        rows = list(db.records()) if broken is None else []
        if broken is None and heads:
            broken = check_export(rows, heads).broken
        marks = db.event().file
    except TournamentError as error:  # a damaged file (StorageError): not a readable event
        raise BadInput(f"{shown} is not a readable event: {error}") from None
    except ValueError as error:  # a head the record does not hold yet cannot be in it: below
        raise BadInput(f"{shown}: {error}") from None
    finally:
        db.close()
    if broken is not None:
        raise RecordBroken(f"{shown}: {broken}")
    # an event moved elsewhere (or a copy of one): its record went on there, which an appeal must know
    moved = "" if marks is None or marks.moved is None else say("verify.moved", when=marks.moved, to=marks.moved_to)
    if not rows:
        click.echo(say("verify.empty", location=shown, moved=moved))
    else:
        last = rows[-1]
        compared = _compared(heads, language())
        said = records_said(len(rows))
        click.echo(
            say(
                "verify.intact",
                location=shown,
                records=said,
                seq=last.seq,
                hash=last.hash,
                compared=compared,
                moved=moved,
            )
        )
        _marks(shown, rows)


def _verify_export(path: Path, heads: tuple[PaperHead, ...]) -> None:
    """`records verify` of a CSV or JSON export (export_check)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
        kind = "json" if text.lstrip().startswith("{") else "csv"
        rows, said = read_export_filter(text, kind)
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not an event file, nor a record export (it is not UTF-8 text)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise BadInput(f"{path} is not an event file, nor a record export (CSV or JSON): {error}") from None
    try:
        found = check_export(rows, heads, said)
    except ValueError as error:  # a head this export cannot be compared with: the export is one
        raise BadInput(f"{path}: {error}") from None
    except (KeyError, TypeError) as error:
        raise BadInput(f"{path} is not an event file, nor a record export (CSV or JSON): {error}") from None
    if found.broken is not None:
        raise RecordBroken(f"{path}: {found.broken}")
    holds = None if said is None else ("the whole record" if said.whole else f"{said} only")
    if not found.rows:  # what it says it holds, so that an empty sheet is seen to be the one asked for
        click.echo(f"{path}: an export with no records{'' if holds is None else f', of {holds}, as it says'}")
        return
    start = (
        "from the first record"
        if found.from_genesis
        else f"from record {found.first}'s previous-row hash {rows[0].prev[:12]}… (record {found.first - 1}'s, as given)"
    )
    gaps = ", ".join(f"{a}" if a == b else f"{a} to {b}" for a, b in found.gaps)
    if gaps and said is None:
        gaps = f"; not in it (filtered): {gaps}"
    elif gaps:
        gaps = (
            f"; not in it: {gaps} (not of {said}, as it says; rows deleted from it would look the same: "
            "the whole record's export or the event file can tell)"
        )
    what, unsaid = ",", f"; {FILTER_UNSAID}"  # an export that does not say what it holds
    if holds is not None:
        what, unsaid = f" of {holds}, as it says:", ""
    click.echo(
        f"{path}: intact export ({kind.upper()}){what} {plural(found.rows, 'record')} "
        f"{found.first} to {found.last}, chained {start}{gaps}; last hash {found.last_hash}{_compared(heads, ENGLISH)}{unsaid}"
    )
    _marks(path, rows)


def _marks(shown: object, rows: list) -> None:
    """What `records verify` adds under an intact record whose rows are stamped before the row
    before them (tournament.times): the chain holds, so the exit is still 0, but an appeal must not
    read their times as their order. And its rows judged offline by a phone that did not say what
    it showed (tournament.shown): an appeal must not read their verdict as what the players saw."""
    back = said_stamped_back(list(stamped_back(rows)))
    if back is not None:
        click.echo(f"{shown}: {back}")
    unknown = said_unknown_shown(list(unknown_shown(rows)))  # tournament/shown.py says why
    if unknown is not None:
        click.echo(f"{shown}: {unknown}")


def _compared(heads: tuple[PaperHead, ...], chosen: str) -> str:
    """What `records verify` adds when the heads given match, in that language: how far that proves
    the record was not rewritten. A head's first few digits can be matched on purpose
    (export_check.WRITTEN_DIGITS): a sheet written with fewer than the console shows is said to prove
    little."""
    if not heads:
        return ""
    said = say_in(chosen, "verify.heads" if len(heads) > 1 else "verify.head")
    fewest = min(len(head.prefix) for head in heads)
    if fewest >= WRITTEN_DIGITS:
        return said
    return say_in(chosen, "verify.digits", matches=said, digits=fewest, written=WRITTEN_DIGITS)


@records.command("export")
@click.argument("path", metavar="EVENT.db|URL", type=EVENT_LOCATION)
@click.option("--round", "round_number", type=click.IntRange(1), help="Only this round.")
@click.option("--format", "format_", type=click.Choice(FORMATS), default="csv", show_default=True)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),  # as typed: pathlib reads './-' as '-'
    help="Write to this file (default, or -: standard output).",
)
def export_command(path, round_number, format_, output):
    """Every row of the record (or of one round), chain included, as CSV or JSON.

    Each row carries `intact` (its own check); a record that does not verify is exported all
    the same, and standard error says where it breaks.

    Exit codes: 0 written, the record intact; 1 written, but the record does not verify (or a
    row cannot be read: then nothing is written); 2 bad input (no such round, not an event file).
    """
    db, shown = _open(path), shown_location(path)
    try:
        refused = unknown_round(db, round_number)  # a typo, not an empty round
        if refused is not None:
            raise BadInput(f"{shown}: {refused}; nothing exported")
        text, rows, broken = export(db, round=round_number, format=format_, checked=True)
    except MalformedRow as error:
        raise RecordBroken(f"{shown}: {error}; nothing exported (see `lexicon records verify`)") from None
    except TournamentError as error:  # a damaged file (StorageError): not a readable event
        raise BadInput(f"{shown} is not a readable event, nothing exported: {error}") from None
    finally:
        db.close()
    if output is None or output == "-":  # `-` as for `lexicon expand -o -`; `./-` is a file
        sys.stdout.write(text)
    else:
        write(Path(output), text.encode("utf-8"))
        which = say("export.round", round=round_number) if round_number is not None else say("export.whole")
        span = say("export.span", first=rows[0].seq, last=rows[-1].seq, hash=rows[-1].hash) if rows else ""
        said = records_said(len(rows))
        echo_err(say("export.wrote", output=output, records=said, which=which, format=format_.upper(), span=span))
    if broken is not None:
        raise RecordBroken(
            f"{shown}: the record does not verify: {broken}; exported all the same, each row with "
            "its check in the `intact` column"
        )
