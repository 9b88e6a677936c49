"""`lexicon export --browser LEXICON [-o FILE]`: the browser lexicon file (lexicon.browser).

Written beside the `.lex` file by default, named after it (NAME.lex: NAME.dawg, lexicon.browser.beside),
where the service finds it and, once it has checked that it comes from that very `.lex` file, serves
it without building it. By the file's name, not its id: two releases of one id can share a directory.
Its compressed forms go beside it, FILE.br and FILE.gz (build_tools.browser_files), the bytes the
service sends, so that it does not compress them at each start; wherever -o puts the file, as a
web server with precompressed files (nginx's `gzip_static`, `brotli_static`) finds them there too.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from build_tools.browser_files import SUFFIXES, compress, form_path
from build_tools.report import plural
from lexicon.browser import BrowserLexicon, beside, browser_bytes

from .common import LEXICON_HELP, BadInput, OutputFile, exit_codes, open_lexicon, refuse_writing_over, write


@click.command(
    "export",
    help=f"""Export a compiled lexicon in another format (today: --browser).

{LEXICON_HELP}

{exit_codes("written", "no format given", "an output that cannot be written")}""",
)
@click.argument("lexicon_name", metavar="LEXICON")
@click.option("--browser", is_flag=True, help="The compact automaton the judge's page reads offline.")
@click.option(
    "-o",
    "--output",
    type=OutputFile(),
    help="Where to write it (default: beside the .lex file, NAME.lex: NAME.dawg, where the service looks for it); "
    "its compressed forms FILE.br and FILE.gz beside it.",
)
def export(lexicon_name: str, browser: bool, output: Path | None) -> None:
    if not browser:
        raise BadInput("say which format to export: --browser")
    lexicon = open_lexicon(lexicon_name)
    output = output or beside(lexicon.source)
    outputs = [output, *(form_path(output, coding) for coding in SUFFIXES)]
    refuse_writing_over(outputs, [Path(lexicon.source)], f"the lexicon {lexicon.source}")
    started = time.perf_counter()
    data = browser_bytes(lexicon)
    header = BrowserLexicon(data).header  # read back as the page will, before writing
    forms = compress(data)
    write(output, data)
    for coding, form in forms.items():
        write(form_path(output, coding), form)
    click.echo(
        f"wrote {output}: {plural(header.words, 'word')}, {header.states:,} states, {header.edges:,} edges, "
        f"{len(data):,} bytes, checksum {data[-32:].hex()} ({time.perf_counter() - started:.1f} s); beside it "
        + " and ".join(f"{form_path(output, coding).name} ({len(form):,} bytes)" for coding, form in forms.items())
    )
