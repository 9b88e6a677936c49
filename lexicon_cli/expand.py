"""`lexicon expand`: every form a DISC source generates, as TSV, for people who review releases.

One line per generated form and tag: ``form  lemma  category  model  tag`` (tab-separated,
UTF-8, ``\\n``), in entry order (the lines of entrades.txt) and, within an entry, in rule order
(the lines of its model file): the same source always gives the same bytes, so two releases
compare with ``diff``. A repeated entry line repeats its forms, as the source says them twice.
"""

from __future__ import annotations

import sys
from itertools import islice
from pathlib import Path

import click

from build_tools.disc.expand import expand_rows, read_source, tsv_lines
from build_tools.disc.models import FIELD_SPLIT_DOCUMENTED, FIELD_SPLIT_WHITESPACE
from build_tools.disc.pipeline import source_files
from build_tools.sources import disc_not_utf8

from .common import BadInput, refuse_writing_over

_CHUNK = 65536  # lines written at a time: one join per chunk, not one write per line


@click.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, metavar="FILE", help="TSV file to write, or - for standard output.")
@click.option("--header", is_flag=True, help="Start with the line: form lemma category model tag.")
@click.option(
    "--fields",
    type=click.Choice([FIELD_SPLIT_DOCUMENTED, FIELD_SPLIT_WHITESPACE]),
    default=FIELD_SPLIT_DOCUMENTED,
    show_default=True,
    help="How rule fields are separated: one space, as documented; or any white space, "
    "as the DISC authors' generator reads them (it drops rules whose empty add "
    "field is written as two spaces). Only to compare with that generator.",
)
def expand(directory: Path, output: str, header: bool, fields: str) -> None:
    """Write every form generated from the DISC source DIRECTORY (entrades.txt and models/).

    Columns: form, lemma, category, model, tag. A short summary goes to standard error.

    Exit codes: 0 written; 2 not a DISC source directory, or an output that cannot be written.
    """
    if not (directory / "entrades.txt").is_file():
        raise BadInput(f"{directory}: not a DISC source directory (no entrades.txt in it)")
    if output != "-":
        read = [directory / name for name in source_files(directory)]
        refuse_writing_over([Path(output)], read, f"the source {directory}")
    try:
        source = read_source(directory, fields)
    except UnicodeDecodeError as error:
        raise BadInput(disc_not_utf8(directory, error)) from None
    except OSError as error:
        raise BadInput(f"{directory}: {error.strerror or error}") from None
    rows = list(expand_rows(source.entries, source.models))
    lines = tsv_lines(rows, header)
    try:
        if output == "-":
            _write(sys.stdout.buffer, lines)
        else:
            with open(output, "wb") as file:
                _write(file, lines)
    except BrokenPipeError:  # `lexicon expand DIR -o - | head` is a normal thing to do
        sys.stderr.close()
        return
    except OSError as error:
        raise BadInput(f"{output}: {error.strerror or error}") from None
    skipped = sum(p.skipped for p in source.problems)
    where = "standard output" if output == "-" else output
    click.echo(
        f"{directory}: {len(source.entries):,} lemmas, {len(rows):,} forms, "
        f"{len({row[0] for row in rows}):,} distinct spellings written to {where}",
        err=True,
    )
    if skipped:
        click.echo(
            f"  {skipped} source line(s) could not be read and gave no form (`lexicon build --from disc` reports them)",
            err=True,
        )
    orphans = sum(entry.model not in source.models for entry in source.entries)
    if orphans:  # as silent as a line that cannot be read: their forms are missing from the file
        click.echo(
            f"  {orphans} lemma(s) name a model with no file and gave no form (`lexicon build --from disc` reports them)",
            err=True,
        )


def _write(stream, lines) -> None:
    while chunk := list(islice(lines, _CHUNK)):
        stream.write(("\n".join(chunk) + "\n").encode("utf-8"))
    stream.flush()
