"""`lexicon build` and `lexicon build-defaults`: word lists and DISC sources to compiled files."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import click

from build_tools import manifest as manifests
from build_tools.sources import KINDS, load_source
from lexicon.alphabet import languages
from lexicon.errors import LexiconError
from lexicon.lexfile import LexiconMeta

from .common import NOTATIONS, BadInput, BuildFailed, build_default, compile_source, show_report, write


@click.command()
@click.argument("source", metavar="SOURCE")
@click.option("--lang", "language", required=True, type=click.Choice(languages()), help="Tile set.")
@click.option("--id", "lexicon_id", required=True, help="Short id, e.g. file2017.")
@click.option("--name", help="Display name (default: the id).")
@click.option("--version", "lexicon_version", required=True, help="The list's version.")
@click.option("--notation", type=NOTATIONS, default="spelling", show_default=True,
              help="How the list writes tiles: natural spelling, or engine tile notation.")
@click.option("--from", "kind", type=click.Choice(KINDS), default="list", show_default=True,
              help="A word list (one word a line), or a DISC directory (lemmas and models).")
@click.option("--source", "description", default="", help="Where the list comes from (stored).")
@click.option("--licence", default="", help="The list's licence (stored).")
@click.option("--timestamp", help="Build time to store (ISO 8601); none by default, for reproducibility.")
@click.option("--strict", is_flag=True, help="Fail, writing nothing, if any entry is left out.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the build report as JSON.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
def build(source, language, lexicon_id, name, lexicon_version, notation, kind, description,
          licence, timestamp, strict, report_path, output):
    """Compile SOURCE: a word list (a path, or - for standard input; .xz and .gz are read as
    such), or with --from disc a DISC directory (entrades.txt, models/, tests/)."""
    if timestamp is not None:
        try:
            datetime.fromisoformat(timestamp)
        except ValueError:
            raise BadInput(f"--timestamp {timestamp!r} is not ISO 8601 (e.g. 2026-11-21T09:00:00Z)") from None
    try:
        loaded = load_source(source, kind)
        meta = LexiconMeta(
            id=lexicon_id, language=language, name=name or lexicon_id, version=lexicon_version,
            source=description, licence=licence, built_at=timestamp,
            build={"from": kind, "notation": notation, "source_sha256": loaded.sha256},
        )
        data, report = compile_source(loaded, language, notation, meta)
    except LexiconError as error:
        raise BadInput(str(error)) from None
    report.notes.extend(loaded.notes)
    if report_path is not None:
        write(report_path, (json.dumps(report.as_dict(), ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    if strict and report.left_out_count:
        show_report(report, None, None)
        raise BuildFailed(f"{report.left_out_count:,} entries left out; --strict: {output} not written")
    write(output, data)
    show_report(report, output, data)


@click.command("build-defaults")
@click.option("--force", is_flag=True, help="Rebuild even when up to date.")
def build_defaults(force):
    """Build the lexicons of data/manifest.toml that are missing or out of date."""
    try:
        manifest = manifests.load_manifest()
        for entry in manifest.entries:
            build_default(entry, force)
    except LexiconError as error:
        raise BadInput(str(error)) from None
