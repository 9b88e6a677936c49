"""`lexicon build` and `lexicon build-defaults`: word lists and DISC sources to compiled files."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from build_tools.disc.pipeline import source_files
from build_tools.report import plural
from build_tools.sources import KINDS, load_source
from lexicon.alphabet import languages
from lexicon.errors import LexiconError, show_word
from lexicon.lexfile import LexiconMeta

from .common import (
    NOTATIONS,
    BadInput,
    BuildFailed,
    OutputFile,
    build_default,
    compile_source,
    load_manifest,
    refuse_empty,
    refuse_writing_over,
    report_json,
    show_report,
    write,
)


@click.command()
@click.argument("source", metavar="SOURCE")
@click.option("--lang", "language", required=True, type=click.Choice(languages()), help="Tile set.")
@click.option(
    "--id",
    "lexicon_id",
    required=True,
    help="Short id: 1 to 64 of a-z 0-9 . _ - (lower case), not two letters alone "
    "(those name a language's default), e.g. file2017.",
)
@click.option("--name", help="Display name (default: the id).")
@click.option("--version", "lexicon_version", required=True, help="The list's version.")
@click.option(
    "--notation",
    type=NOTATIONS,
    default="spelling",
    show_default=True,
    help="How the list writes tiles: natural spelling, or engine tile notation.",
)
@click.option(
    "--from",
    "kind",
    type=click.Choice(KINDS),
    default="list",
    show_default=True,
    help="A word list (one word a line), or a DISC directory (lemmas and models).",
)
@click.option("--source", "description", default="", help="Where the list comes from (stored).")
@click.option("--licence", default="", help="The list's licence (stored).")
@click.option("--timestamp", help="Build time to store (ISO 8601); none by default, for reproducibility.")
@click.option(
    "--strict",
    is_flag=True,
    help="Fail, writing nothing, if any entry is left out (of a DISC source, also a line that "
    "cannot be read or an entry whose model has no file).",
)
@click.option(
    "--report",
    "report_path",
    type=OutputFile(),
    help="Also write the build report as JSON; written even when the build then fails "
    "(--strict, no words compiled), to say why.",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=OutputFile(),
    help="The compiled file to write (.lex), in a directory that exists; replaced atomically.",
)
def build(
    source,
    language,
    lexicon_id,
    name,
    lexicon_version,
    notation,
    kind,
    description,
    licence,
    timestamp,
    strict,
    report_path,
    output,
):
    """Compile SOURCE: a word list (a path, or - for standard input; .xz and .gz are read as
    such), or with --from disc a DISC directory (entrades.txt, models/, tests/).

    Exit codes: 0 written; 1 --strict and some entries (or DISC source lines) left out; 2 bad
    input (an unreadable source, no words compiled, an output that cannot be written). The compiled file is written
    only on 0; the --report file whenever the source was read and compiled, to say why it failed.
    """
    for path in (output, report_path):
        if path is not None and not path.parent.is_dir():
            raise BadInput(f"cannot write {path}: no directory {path.parent}")
    if kind == "list" and source != "-" and Path(source).is_dir():
        raise BadInput(
            f"{source} is a directory, not a word list: for a DISC source directory "
            "(entrades.txt, models/) add --from disc"
        )
    refuse_writing_over((output, report_path), _read_by_the_build(source, kind), f"the source {source}")
    if timestamp is not None:
        try:
            datetime.fromisoformat(timestamp)
        except ValueError:
            raise BadInput(f"--timestamp {show_word(timestamp)} is not ISO 8601 (e.g. 2026-11-21T09:00:00Z)") from None
    try:
        loaded = load_source(source, kind)
        meta = LexiconMeta(
            id=lexicon_id,
            language=language,
            name=name or lexicon_id,
            version=lexicon_version,
            source=description,
            licence=licence,
            built_at=timestamp,
            build={"from": kind, "notation": notation, "source_sha256": loaded.sha256},
        )
        data, report = compile_source(loaded, language, notation, meta, source)
    except LexiconError as error:
        raise BadInput(str(error)) from None
    report.notes.extend(loaded.notes)
    if report_path is not None:
        write(report_path, report_json(report))
    if not report.words:
        show_report(report, None, None)
        refuse_empty(report, source, output)
    if strict and (report.left_out_count or loaded.lines_left_out):
        show_report(report, None, None)
        raise BuildFailed(f"{left_out(report.left_out_count, loaded.lines_left_out)}; --strict: {output} not written")
    write(output, data)
    show_report(report, output, data)


def _read_by_the_build(source: str, kind: str) -> list[Path]:
    """The files the build of `source` reads, which it must never write over."""
    if source == "-":
        return []
    if kind == "disc":
        return [Path(source) / name for name in source_files(source)] if Path(source).is_dir() else []
    return [Path(source)]


def left_out(entries: int, lines: int) -> str:
    """What --strict refuses: entries the compiler left out, and source lines that never became
    entries (a DISC line that cannot be read, an entry whose model has no file).

    >>> left_out(4, 0), left_out(0, 1), left_out(2, 3), left_out(1, 0)
    ('4 entries left out', '1 line of the source left out (see above)', '2 entries left out, 3 lines of the source left out (see above)', '1 entry left out')
    """
    parts = [f"{plural(entries, 'entry', 'entries')} left out"] if entries else []
    if lines:
        parts.append(f"{plural(lines, 'line')} of the source left out (see above)")
    return ", ".join(parts)


@click.command("build-defaults")
@click.option("--force", is_flag=True, help="Rebuild even when up to date.")
def build_defaults(force):
    """Build the default lexicons (data/manifest.toml, or LEXICON_MANIFEST) that are missing or
    out of date: one line each; the full report is written beside each file as ID.report.json.
    Exit codes: 0 done, 2 a source that cannot be read or gives no words."""
    try:
        manifest = load_manifest()
        for entry in manifest.entries:
            build_default(entry, force)
    except LexiconError as error:
        raise BadInput(str(error)) from None
