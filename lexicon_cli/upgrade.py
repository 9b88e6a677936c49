"""`lexicon event upgrade EVENT.db|URL`: an event's storage brought up to this release's schema.

An event file is brought up to date by whichever program opens it to write first (the service, a
command), so a hall needs no step of its own. A database is not: its tables belong to its owner,
and the instances' role may not change them (an instance of a newer release refuses to start,
naming this command). So after installing a release, the federation's operator runs this once,
as the database's owner, before starting the new release's instances (docs/operations.md,
"Upgrades"). Migrations are numbered and only ever added; each runs in one transaction, under a
lock, so two runs at once migrate once.

A pin kept before the pins' languages were (the event file's schema 15, PostgreSQL's 6) has none,
and its event's round closes the lookups of every language on a service that knows its list
neither by its bytes nor its id (docs/operations.md, "Every event of a database"). The pin names
the file it was pinned from: when that file is on this computer with the pinned bytes (its
checksum), its language is kept here; otherwise the event's next start, by an instance that serves
its list, keeps it, and the command says so, naming the event and the file.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import click

from lexicon.errors import LexiconError
from lexicon.lexfile import Lexicon
from tournament import (
    Pin,
    TournamentError,
    database_of,
    database_url,
    events_in,
    is_database_url,
    open_event,
    shown_location,
    upgrade_event,
    with_event,
)

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
    try:
        for line in _languages(path):
            click.echo(line)
    except TournamentError as error:
        raise BadInput(str(error)) from None


def _languages(location) -> list[str]:
    """A line for each event at `location` (a database, whole or named by an event's URL: each of its events) whose pin has no
    language: kept now from the file it was pinned from, or why not (see the module's docstring)."""
    text = str(location)
    if is_database_url(text):  # an event's URL names its database: every event of it was upgraded
        database = database_of(text)[0] if "event=" in text else text
        every = [with_event(database, event_id) for event_id in sorted(events_in(database))]
    else:
        every = [location]
    lines = []
    for event in every:
        db = open_event(event)
        try:
            pin = db.event().pin
            if pin is None or pin.language is not None:
                continue
            language, why = _language_of(pin)
            if language is not None:
                try:
                    if db.pin_lexicon(replace(pin, language=language)).language == language:
                        lines.append(
                            f"{shown_location(event)}: its list's language kept, {language} (read from {pin.file})"
                        )
                        continue
                    why = "the event's pin changed meanwhile"
                except TournamentError as error:  # a moved event records nothing: its pin stays as it is
                    why = str(error)
        finally:
            db.close()
        lines.append(
            f"{shown_location(event)}: its list's language is not kept yet ({why}): the event's next start, by an "
            f"instance that serves {pin.id} {pin.version}, keeps it; until then its rounds close the lookups of "
            "every language on a service that knows that list neither by its bytes nor its id"
        )
    return lines


def _language_of(pin: Pin) -> tuple[str | None, str]:
    """The language of the pinned list, read from the file it was pinned from when that file holds
    the pinned bytes (the whole file's checksum, as the pin keeps it); else None and why not."""
    if not pin.file:
        return None, "the pin names no file"
    try:
        data = Path(pin.file).read_bytes()
    except OSError as error:
        return None, f"{pin.file}: {error.strerror or error}"
    if hashlib.sha256(data).hexdigest() != pin.checksum:
        return None, f"{pin.file} holds other bytes than the pinned list's (checksum {pin.checksum[:12]}…)"
    try:
        return Lexicon.from_bytes(data, pin.file).header.language, ""
    except LexiconError as error:
        return None, str(error)
