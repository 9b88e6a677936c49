"""What every `lexicon` command shares: the exit-code exceptions, opening a lexicon by name,
and compiling one with a progress bar.

This is the only place where core errors become exit codes. Exit codes are a contract scripts
rely on: 0 done (a NOT VALID verdict is a done job too), 1 a build that failed its own rules
(--strict), 2 bad input (an unknown lexicon, a corrupt file, a word that is no tiles).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from build_tools import manifest as manifests
from build_tools.compiler import build as build_lexicon
from build_tools.compiler import write_atomically
from build_tools.sources import Source, load_source
from lexicon.errors import LexiconError
from lexicon.lexfile import Lexicon, LexiconMeta, read_header
from lexicon.tokenizer import tokenizer

NOTATIONS = click.Choice(["spelling", "tiles"])


class BadInput(click.ClickException):
    exit_code = 2


class BuildFailed(click.ClickException):
    exit_code = 1


def echo_err(message: str) -> None:
    click.echo(message, err=True)


def compile_source(source: Source, language: str, notation: str, meta: LexiconMeta):
    """Run the pipeline, with a progress bar when a person watches a terminal."""
    tokens = tokenizer(language, notation)
    if not sys.stderr.isatty():
        return build_lexicon(source.text, tokens, meta, source.locate)
    with click.progressbar(length=2, label="reading", file=sys.stderr) as bar:

        def stage(name: str) -> None:
            bar.label = name
            bar.update(1)

        return build_lexicon(source.text, tokens, meta, source.locate, stage)


def write(path: Path, data: bytes) -> None:
    try:
        write_atomically(path, data)
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror or error}") from None


def show_report(report, output: Path | None, data: bytes | None, err: bool = False) -> None:
    for line in report.lines():
        click.echo(line, err=err)
    if output is not None and data is not None:
        header = read_header(output)
        click.echo(err=err, message=f"wrote {output}: {header.words:,} words, {len(data):,} bytes, "
                                    f"words sha256 {header.words_sha256}")


def build_default(entry: manifests.Entry, force: bool = False, err: bool = False) -> None:
    """Compile one default lexicon of the manifest unless it is up to date."""
    source = load_source(str(entry.source), entry.kind)
    if not force and manifests.is_current(entry, source.sha256):
        click.echo(f"{entry.id}: up to date ({entry.output})", err=err)
        return
    click.echo(f"{entry.id}: building from {entry.source}", err=err)
    data, report = compile_source(source, entry.language, entry.notation, entry.meta(source.sha256))
    report.notes.extend(source.notes)
    write(entry.output, data)
    show_report(report, entry.output, data, err=err)


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
            echo_err(f"{entry.id} is not built yet: building it now")
            build_default(entry, err=True)  # stdout belongs to the command's own output
        return Lexicon.open(entry.output)
    except LexiconError as error:
        raise BadInput(str(error)) from None
