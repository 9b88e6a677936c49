"""`lexicon event upgrade EVENT.db|URL`: an event's storage brought up to this release's schema.

An event file is brought up to date by whichever program opens it to write first (the service, a
command), so a hall needs no step of its own. A database is not: its tables belong to its owner,
and the instances' role may not change them (an instance of a newer release refuses to start,
naming this command). So after installing a release, the federation's operator runs this once,
as the database's owner, before starting the new release's instances (docs/operations.md,
"Upgrades"). Migrations are numbered and only ever added; each runs in one transaction, under a
lock, so two runs at once migrate once.
"""

from __future__ import annotations

import click

from tournament import TournamentError, database_url, is_database_url, shown_location, upgrade_event

from .common import BadInput
from .event import EventLocation


class StorageLocation(EventLocation):
    """An event's file or URL, or a whole database's URL (no `?event=`)."""

    def convert(self, value, param, ctx):
        text = str(value).strip()
        if is_database_url(text) and "event=" not in text:
            try:
                return database_url(text)
            except ValueError as error:
                self.fail(str(error), param, ctx)
        return super().convert(value, param, ctx)


@click.command()
@click.argument("path", metavar="EVENT.db|URL", type=StorageLocation())
def upgrade(path) -> None:
    """Bring an event's file, or a database's tables, up to this release's schema.

    URL: postgresql://OWNER@HOST:PORT/DATABASE, as the database's owner (an event's URL, with
    ?event=ID, names its database too): every event of the database shares its tables, which the
    instances' role cannot change. Run it once after installing a release, before starting its
    instances; running it again changes nothing.

    Exit codes: 0 up to date; 2 bad input (no event, a database newer than this program, a role
    that may not change its tables), nothing changed.
    """
    shown = shown_location(path)
    try:
        before, after = upgrade_event(path)
    except TournamentError as error:
        raise BadInput(str(error)) from None
    if before == after:
        click.echo(f"{shown}: schema {after}, this release's: nothing to do")
    else:
        click.echo(f"{shown}: schema {before} brought up to {after}, this release's")
