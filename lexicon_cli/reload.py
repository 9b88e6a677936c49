"""`lexicon reload`: a running `lexicon serve` re-reads its settings and lexicon files, no restart.

The settings are the service's own, overlaid by the LEXICON_* variables of this shell (an empty
one unsets it, except LEXICON_TOKEN: set but empty is refused), so a new venue token is `LEXICON_TOKEN=ronda2-xxxx lexicon reload`, never on the
command line. Every file is verified before anything changes; if one fails, the service keeps
serving what it served and this command says why, with exit code 2. See service.reloading.
"""

from __future__ import annotations

import os

import click

from .common import BadInput, settings


@click.command()
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    help="The port of the `lexicon serve` to reload, on this machine, same user [default: LEXICON_PORT or 8000].",
)
def reload(port):
    """Make a running `lexicon serve` re-read its settings and lexicon files, without a restart.

    New files are verified first: if any fails, nothing changes and the exit code is 2, with
    the reason. Otherwise new workers serve the new settings and files at once, the old
    ones finish what they had accepted, and this command returns once they can answer
    nothing more: every answer from then on is the new one (exit code 2 if, after 60 s, an
    old one still could). SIGHUP to the server's master process does the same with the
    settings it has.
    """
    from service.reloading import ask_reload

    if port is None:
        port = settings().port  # every LEXICON_* variable is read by service.config, checked
    try:
        result = ask_reload(port, dict(os.environ))
    except (LookupError, TimeoutError, PermissionError) as error:
        raise BadInput(str(error)) from None
    if not result["ok"]:
        raise BadInput(f"reload refused, still serving what was served: {result['reason']}")
    for item in result["lexicons"]:
        click.echo(f"{item['id']}\t{item['checksum']}")
    for warning in result.get("warnings", []):
        click.echo(f"warning: {warning}", err=True)
    click.echo(
        f"reloaded: verified in {result['ms']:.0f} ms; the new workers serve these lexicons, the old ones "
        "answer no more",
        err=True,
    )
