"""The `lexicon` command: compile lexicons, judge plays, look inside compiled files.

This is the only place where core errors become click errors. Exit codes are a contract
scripts rely on: 0 done (a NOT VALID verdict is a done job too), 1 a build that failed its own
rules (--strict), 2 bad input (an unknown lexicon, a corrupt file, a word that is no tiles).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import click

from lexicon.alphabet import languages
from lexicon.errors import InputError, LexiconError
from lexicon.lexfile import Lexicon, LexiconMeta, read_header
from lexicon.tokenizer import tokenizer
from lexicon.verdict import Identity, judge

from . import manifest as manifests
from .compiler import build as build_lexicon
from .compiler import write_atomically
from .sources import KINDS, Source, load_source

NOTATIONS = click.Choice(["spelling", "tiles"])


class BadInput(click.ClickException):
    exit_code = 2


class BuildFailed(click.ClickException):
    exit_code = 1


def _echo_err(message: str) -> None:
    click.echo(message, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lexicon-judge")
def main() -> None:
    """Lexicon Judge: Spanish and Catalan Scrabble lexicons, compiled to tiles, and verdicts."""


# -- building --------------------------------------------------------------------------------


def _compile(source: Source, language: str, notation: str, meta: LexiconMeta):
    """Run the pipeline, with a progress bar when a person watches a terminal."""
    tokens = tokenizer(language, notation)
    if not sys.stderr.isatty():
        return build_lexicon(source.text, tokens, meta, source.locate)
    with click.progressbar(length=2, label="reading", file=sys.stderr) as bar:

        def stage(name: str) -> None:
            bar.label = name
            bar.update(1)

        return build_lexicon(source.text, tokens, meta, source.locate, stage)


def _write(path: Path, data: bytes) -> None:
    try:
        write_atomically(path, data)
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror or error}") from None


def _report(report, output: Path | None, data: bytes | None, err: bool = False) -> None:
    for line in report.lines():
        click.echo(line, err=err)
    if output is not None and data is not None:
        header = read_header(output)
        click.echo(err=err, message=f"wrote {output}: {header.words:,} words, {len(data):,} bytes, words sha256 {header.words_sha256}")


@main.command()
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
        data, report = _compile(loaded, language, notation, meta)
    except LexiconError as error:
        raise BadInput(str(error)) from None
    report.notes.extend(loaded.notes)
    if report_path is not None:
        _write(report_path, (json.dumps(report.as_dict(), ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    if strict and report.left_out_count:
        _report(report, None, None)
        raise BuildFailed(f"{report.left_out_count:,} entries left out; --strict: {output} not written")
    _write(output, data)
    _report(report, output, data)


@main.command("build-defaults")
@click.option("--force", is_flag=True, help="Rebuild even when up to date.")
def build_defaults(force):
    """Build the lexicons of data/manifest.toml that are missing or out of date."""
    try:
        manifest = manifests.load_manifest()
        for entry in manifest.entries:
            _build_default(entry, force)
    except LexiconError as error:
        raise BadInput(str(error)) from None


def _build_default(entry: manifests.Entry, force: bool = False, err: bool = False) -> None:
    source = load_source(str(entry.source), entry.kind)
    if not force and manifests.is_current(entry, source.sha256):
        click.echo(f"{entry.id}: up to date ({entry.output})", err=err)
        return
    click.echo(f"{entry.id}: building from {entry.source}", err=err)
    data, report = _compile(source, entry.language, entry.notation, entry.meta(source.sha256))
    report.notes.extend(source.notes)
    _write(entry.output, data)
    _report(report, entry.output, data, err=err)


# -- reading -----------------------------------------------------------------------------------


def open_lexicon(name: str) -> Lexicon:
    """A compiled file's path, or a default lexicon's id or language (built on first use)."""
    try:
        if Path(name).is_file():
            return Lexicon.open(name)
        manifest = manifests.load_manifest()
        entry = manifest.find(name)
        if entry is None:
            known = ", ".join(manifest.names())
            raise BadInput(f"unknown lexicon {name!r}: not a file, nor a default ({known})")
        if not entry.output.is_file():
            _echo_err(f"{entry.id} is not built yet: building it now")
            _build_default(entry, err=True)  # stdout belongs to the command's own output
        return Lexicon.open(entry.output)
    except LexiconError as error:
        raise BadInput(str(error)) from None


@main.command()
@click.argument("lexicon_name", metavar="LEXICON")
@click.argument("words", nargs=-1, required=True)
@click.option("--notation", type=NOTATIONS, default="spelling", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def check(lexicon_name, words, notation, as_json):
    """One joint verdict for all WORDS of a play: VALID or NOT VALID."""
    lexicon = open_lexicon(lexicon_name)
    try:
        valid = judge(lexicon, words, notation)
    except InputError as error:
        where = f"word {error.index}: " if error.index and len(words) > 1 else ""
        raise BadInput(f"{where}{error}") from None
    if as_json:
        identity = Identity.of(lexicon)
        click.echo(json.dumps({"valid": valid, "lexicon": identity.__dict__}, ensure_ascii=False))
    else:
        click.echo("VALID" if valid else "NOT VALID")


@main.command()
@click.argument("lexicon_name", metavar="LEXICON")
def dump(lexicon_name):
    """Every word in engine tile notation (CA[RR]O, COL·LEGI), one a line, in tile order."""
    lexicon = open_lexicon(lexicon_name)
    out = sys.stdout.buffer
    try:
        for chunk in lexicon.dump():
            out.write(chunk.encode("utf-8"))
        out.flush()
    except BrokenPipeError:  # `lexicon dump es | head` is a normal thing to do
        sys.stderr.close()


@main.command()
@click.argument("lexicon_name", metavar="LEXICON")
@click.option("--json", "as_json", is_flag=True, help="Print the header as JSON.")
@click.option("--verify", is_flag=True, help="Also recompute the words checksum from the trie.")
def info(lexicon_name, as_json, verify):
    """The header of a compiled lexicon: what list, which version, how many words, checksums."""
    lexicon = open_lexicon(lexicon_name)
    details = lexicon.info()
    if verify:
        details["words_verified"] = lexicon.verify_words()
    if as_json:
        click.echo(json.dumps(details, ensure_ascii=False, indent=1))
    else:
        for key, value in details.items():
            if key == "tiles":
                value = " ".join(value)
            elif isinstance(value, dict):
                value = ", ".join(f"{k}={v}" for k, v in value.items())
            click.echo(f"{key + ':':<14}{value if value is not None else '-'}")
    if verify and not details["words_verified"]:
        raise BadInput("the words do not match the checksum in the header")


# Commands that live with their subject: the DISC sources, and the service.
from .disc.command import expand  # noqa: E402
from .serve import serve  # noqa: E402

main.add_command(expand)
main.add_command(serve)
