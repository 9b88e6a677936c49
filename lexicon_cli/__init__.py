"""The `lexicon` command: compile lexicons, judge plays, look inside compiled files, serve.

One module per subject (`build`, `read`, `diff`, `expand`, `serve`, `event`, `records`); what they share is in `common`.
They are registered below, in one block: a new command is one module and one line there.
"""

from __future__ import annotations

import click

from .common import BadInput, BuildFailed, open_lexicon

__all__ = ["BadInput", "BuildFailed", "main", "open_lexicon"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lexicon-judge")
def main() -> None:
    """Lexicon Judge: Spanish and Catalan Scrabble lexicons, compiled to tiles, and verdicts."""


# -- the commands, one module per subject: a new command is one line here ------------------------
from . import backup, build, diff, event, expand, export, export_page, move, read, records, reload, serve, upgrade

main.add_command(build.build)
main.add_command(build.build_defaults)
main.add_command(read.check)
main.add_command(read.dump)
main.add_command(read.info)
main.add_command(diff.diff_command)
main.add_command(expand.expand)
main.add_command(export.export)
main.add_command(export_page.export_page)
main.add_command(serve.serve)
main.add_command(event.event)
event.event.add_command(backup.backup)
event.event.add_command(backup.restore)
event.event.add_command(move.move)
event.event.add_command(upgrade.upgrade)
main.add_command(records.records)
main.add_command(reload.reload)
