"""`lexicon export-page LEXICON -o FILE`: the single-file judge (service/single_file.py).

One HTML file, the judge's page with one lexicon inside, that judges on a phone with no service
and no network, opened from its files or sent by message. Written atomically, as every file the
command writes; an output that is not a regular file (a device, /dev/null) is refused.
"""

from __future__ import annotations

from pathlib import Path

import click

from .common import LEXICON_HELP, BadInput, OutputFile, exit_codes, open_lexicon, refuse_writing_over, write


@click.command(
    "export-page",
    help=f"""Write the single-file judge: the judge's page and LEXICON in one HTML
file that judges with no network and no server (open it from a phone's files, or send it).

{LEXICON_HELP}

{exit_codes("written", "an output that cannot be written")}""",
)
@click.argument("lexicon_name", metavar="LEXICON")
@click.option(
    "-o",
    "--output",
    required=True,
    type=OutputFile(),
    help="The HTML file to write, e.g. juez-es.html.",
)
def export_page(lexicon_name: str, output: Path) -> None:
    from service import SettingsError, StartError
    from service.single_file import single_file

    lexicon = open_lexicon(lexicon_name)
    refuse_writing_over([output], [Path(lexicon.source)], f"the lexicon {lexicon.source}")
    try:
        data = single_file(lexicon)
    except (SettingsError, StartError) as error:
        raise BadInput(str(error)) from None
    write(output, data)
    header = lexicon.header
    click.echo(
        f"wrote {output}: {header.name}, version {header.version}, {header.words:,} words, "
        f"{len(data):,} bytes, checksum {lexicon.checksum}"
    )
