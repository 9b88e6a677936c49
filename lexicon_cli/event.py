"""`lexicon event init` and `lexicon records verify|export`: an event's state file, without the service.

    lexicon event init EVENT.db --name "Open de Lleida 2026" [--lexicon ca]
    lexicon records verify EVENT.db
    lexicon records export EVENT.db [--round N] [--format csv|json] [-o FILE]

`event init` prints the director's password once, on standard output alone (so a script can
capture it), or takes it from LEXICON_DIRECTOR_PASSWORD, never from the command line where `ps`
would show it. `records verify` exits 0 when the record is intact, 1 naming the first row that
does not chain, 2 when the file is no event. Both read the file without changing it (not even
bringing an older schema up to date), with or without the service running.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from service.tournament import FORMATS, MalformedRow, TournamentError, create_event, export, open_event
from service.tournament.credentials import new_password

from .common import LEXICON_IS, BadInput, echo_err, known_lexicon, settings, write

PASSWORD_VARIABLE = "LEXICON_DIRECTOR_PASSWORD"
EVENT_FILE = click.Path(dir_okay=False, path_type=Path)


class RecordBroken(click.ClickException):
    exit_code = 1


def _open(path: Path):
    try:
        return open_event(path, readonly=True)
    except TournamentError as error:
        raise BadInput(str(error)) from None


@click.group()
def event() -> None:
    """An event in tournament mode: its state file, director and record."""


@event.command()
@click.argument("path", metavar="EVENT.db", type=EVENT_FILE)
@click.option("--name", required=True, help='The event\'s name, e.g. "Open de Lleida 2026".')
@click.option("--lexicon", metavar="LEXICON",
              help=f"The event's lexicon: every table device judges with it (the service refuses "
                   f"another) and shows it in full; {LEXICON_IS} (a file is recorded by the id in its "
                   "header). Judges' phones open on it when paired and may choose another; a challenge "
                   "to the API names its lexicon. Left out, table devices choose as judges do.")
def init(path, name, lexicon):
    """Create an event's state file and its director's password; never overwrites.

    The password is LEXICON_DIRECTOR_PASSWORD if set (never an option: `ps` would show it), else
    a new one printed once on standard output.

    Exit codes: 0 created; 2 bad input (an unknown lexicon, a file already there, a password
    too short, a directory that cannot be written).
    """
    if lexicon is not None:
        lexicon = known_lexicon(lexicon)
    given = settings().director_password
    password = given if given else new_password()
    try:
        db = create_event(path, name, password, lexicon=lexicon)
    except (TournamentError, ValueError) as error:
        source = f" ({PASSWORD_VARIABLE})" if given and "password" in str(error) else ""
        raise BadInput(f"{error}{source}") from None
    except OSError as error:
        raise BadInput(f"cannot create {path}: {error.strerror or error}") from None
    created = db.event()
    db.close()
    echo_err(f"created {path}: {created.name!r}, lexicon {created.lexicon or 'the service default'}")
    if given:
        echo_err(f"director password: the one in {PASSWORD_VARIABLE}")
    else:
        echo_err("director password (shown only now; write it down, it is stored only as a hash):")
        click.echo(password)


@click.group()
def records() -> None:
    """An event's record of verdicts: check its chain, export it."""


@records.command()
@click.argument("path", metavar="EVENT.db", type=EVENT_FILE)
def verify(path):
    """Exit 0 if every row chains to the one before; 1 naming the first that does not."""
    db = _open(path)
    try:
        broken = db.verify()
        rows = list(db.records()) if broken is None else []
    except TournamentError as error:  # a damaged file (StorageError): not a readable event
        raise BadInput(f"{path} is not a readable event file: {error}") from None
    finally:
        db.close()
    if broken is not None:
        raise RecordBroken(f"{path}: {broken}")
    if not rows:
        click.echo(f"{path}: intact, no records yet")
    else:
        click.echo(f"{path}: intact, {len(rows):,} records; last record {rows[-1].seq}, hash {rows[-1].hash}")


@records.command("export")
@click.argument("path", metavar="EVENT.db", type=EVENT_FILE)
@click.option("--round", "round_number", type=click.IntRange(1), help="Only this round.")
@click.option("--format", "format_", type=click.Choice(FORMATS), default="csv", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to this file (default: standard output).")
def export_command(path, round_number, format_, output):
    """Every row of the record (or of one round), chain included, as CSV or JSON."""
    db = _open(path)
    try:
        if round_number is not None and db.round(round_number) is None:  # a typo, not an empty round
            numbers = ", ".join(str(item.number) for item in db.rounds()) or "none yet"
            raise BadInput(f"{path}: there is no round {round_number} in this event (its rounds: {numbers}); "
                           "nothing exported")
        text = export(db, round=round_number, format=format_)
    except MalformedRow as error:
        raise RecordBroken(f"{path}: {error}; nothing exported (see `lexicon records verify`)") from None
    except TournamentError as error:  # a damaged file (StorageError): not a readable event
        raise BadInput(f"{path} is not a readable event file, nothing exported: {error}") from None
    finally:
        db.close()
    if output is None:
        sys.stdout.write(text)
    else:
        write(output, text.encode("utf-8"))
