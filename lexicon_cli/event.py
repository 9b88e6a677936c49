"""`lexicon event init|password|login` and `lexicon records verify|export`: an event's state file,
with or without the service running.

    lexicon event init EVENT.db --name "Open de Lleida 2026" [--lexicon ca]
    lexicon event password EVENT.db
    lexicon event login EVENT.db [--url https://judge.lan:8243/]
    lexicon records verify EVENT.db|EXPORT.csv|EXPORT.json [--head SEQ:HASH]...
    lexicon records export EVENT.db [--round N] [--format csv|json] [-o FILE]

`event init` prints the director's password once, on standard output alone (so a script can
capture it), or takes it from LEXICON_DIRECTOR_PASSWORD, never from the command line where `ps`
would show it; `event password` sets a new one the same way. Whoever holds the laptop is the
director: `event login` prints a one-time login link for the console, whatever the limits on
wrong passwords. `records verify` exits 0 when the record (or an export of it, on any computer) is
intact, 1 naming the first row that does not chain, 2 when the file is neither an event nor an
export. `records export` writes every row with its check (`intact`); a record that does not
verify is still exported, said on standard error, with exit 1. Both read the file without
changing it (not even bringing an older schema up to date), with or without the service running.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from build_tools.report import plural
from tournament import (
    FILTER_UNSAID,
    FORMATS,
    LINK_LIFETIME,
    WRITTEN_DIGITS,
    MalformedRow,
    PaperHead,
    Pin,
    TournamentError,
    check_export,
    create_event,
    event_in_database,
    event_location,
    export,
    is_database_url,
    new_password,
    open_event,
    read_export_filter,
    said_stamped_back,
    shown_location,
    stamped_back,
    unknown_round,
)

from .common import LEXICON_IS, BadInput, echo_err, known_lexicon, open_lexicon, settings, write

PASSWORD_VARIABLE = "LEXICON_DIRECTOR_PASSWORD"
EVENT_FILE = click.Path(dir_okay=False, path_type=Path)


class EventLocation(click.ParamType):
    """An event's state file, or a `postgresql://…?event=ID` URL naming an event in a database."""

    name = "event"

    def convert(self, value, param, ctx):
        try:
            return event_location(value)
        except ValueError as error:
            self.fail(str(error), param, ctx)


EVENT_LOCATION = EventLocation()


class RecordBroken(click.ClickException):
    exit_code = 1


def _open(path: Path):
    try:
        return open_event(path, readonly=True)
    except TournamentError as error:
        raise BadInput(str(error)) from None


@click.group()
def event() -> None:
    """An event in tournament mode: its file or its database, director and record.

    An event is a file (EVENT.db), or an event in a PostgreSQL database named by its URL,
    postgresql://USER@HOST:PORT/DATABASE?event=ID, in every command here; `move` copies one
    between the two, either way.
    """


@event.command()
@click.argument("path", metavar="EVENT.db|URL", type=EVENT_LOCATION)
@click.option("--name", required=True, help='The event\'s name, e.g. "Open de Lleida 2026".')
@click.option(
    "--lexicon",
    metavar="LEXICON",
    help=f"The event's lexicon: every verdict the event records is judged with it, whoever "
    f"asks (the service refuses another), and a table device shows it in full; {LEXICON_IS} "
    "(a file is recorded by the id in its header). Paired devices are locked on it (their "
    "language buttons change only the page's words); a challenge to the API names it. Left "
    "out, the event judges with the service's default lexicon, pinned at its first start.",
)
def init(path, name, lexicon):
    """Create an event's state file and its director's password; never overwrites.

    EVENT.db|URL: a file, or an event in a PostgreSQL database named by its URL,
    postgresql://USER@HOST:PORT/DATABASE?event=ID (the database's tables are made by its owner's
    first `init`; docs/operations.md, "A federation's service").

    The password is LEXICON_DIRECTOR_PASSWORD if set (never an option: `ps` would show it), else
    a new one printed once on standard output.

    Exit codes: 0 created; 2 bad input (an unknown lexicon, a file already there, a password
    too short, a directory that cannot be written).
    """
    pin = None
    if lexicon is not None:
        known = known_lexicon(lexicon)
        # pinned by checksum: every instance serving the event must serve these very bytes
        found = open_lexicon(lexicon)
        pin = Pin(found.header.id, found.header.version, found.checksum, str(Path(found.source).resolve()), "", "init")
        lexicon = known
    given, password = _password()
    try:
        db = create_event(path, name, password, lexicon=lexicon, pin=pin)
    except (TournamentError, ValueError) as error:
        source = f" ({PASSWORD_VARIABLE})" if given and "password" in str(error) else ""
        raise BadInput(f"{error}{source}") from None
    except OSError as error:
        raise BadInput(f"cannot create {shown_location(path)}: {error.strerror or error}") from None
    created = db.event()
    db.close()
    echo_err(f"created {shown_location(path)}: {created.name!r}, lexicon {created.lexicon or 'the service default'}")
    _show(given, password)


def _password() -> tuple[bool, str]:
    """(given, password): LEXICON_DIRECTOR_PASSWORD, else a new one."""
    given = settings().director_password
    return bool(given), given if given else new_password()


def _show(given: bool, password: str) -> None:
    if given:
        echo_err(f"director password: the one in {PASSWORD_VARIABLE}")
    else:
        echo_err("director password (shown only now; write it down, it is stored only as a hash):")
        click.echo(password)


def _writable(path: Path):
    """The event, open to write (the service may be running: the store is safe for both)."""
    try:
        return open_event(path)
    except TournamentError as error:
        raise BadInput(str(error)) from None


@event.command()
@click.argument("path", metavar="EVENT.db|URL", type=EVENT_LOCATION)
def password(path):
    """Set a new director's password, while the service runs or not; every session ends.

    The password is LEXICON_DIRECTOR_PASSWORD if set, else a new one printed once on standard
    output, as `event init` does. The limits on wrong passwords start again.

    Exit codes: 0 set; 2 bad input (no event file, a password too short).
    """
    given, chosen = _password()
    db = _writable(path)
    try:
        db.set_password(chosen)
    except ValueError as error:
        raise BadInput(f"{error} ({PASSWORD_VARIABLE})") from None
    except TournamentError as error:
        raise BadInput(f"{shown_location(path)}: the password could not be set: {error}") from None
    finally:
        db.close()
    echo_err(f"{shown_location(path)}: a new director's password; every director's session has ended")
    _show(given, chosen)


@event.command()
@click.argument("path", metavar="EVENT.db|URL", type=EVENT_LOCATION)
@click.option(
    "--url",
    metavar="URL",
    help="The service's address as the laptop's browser reaches it "
    "(default: that of the `lexicon serve` running on this laptop, else "
    "http://LEXICON_HOST:LEXICON_PORT/; 127.0.0.1 for an address of every interface).",
)
def login(path, url):
    """Print a one-time login link to the director's console, while the service runs.

    Whoever holds the laptop is the director: the link signs in whatever the limits on wrong
    passwords, once, within 5 minutes. Only its hash is stored; open it on this laptop (an event
    of a database: hand it to its director alone).

    Exit codes: 0 printed; 2 bad input (no event file, a URL that is not http(s)).
    """
    if url is None:
        url, source = _service_url(path)
        echo_err(f"linking to {url}: {source}; --url gives another address")
    if not url.startswith(("http://", "https://")):
        raise BadInput(f"--url: {url!r} is not an address like http://127.0.0.1:8000/")
    db = _writable(path)
    try:
        token = db.new_login_link()
    except TournamentError as error:
        raise BadInput(f"{shown_location(path)}: no login link could be made: {error}") from None
    finally:
        db.close()
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    # a file is served from the laptop it is on; an event of a database, to a director elsewhere
    whom = (
        "open it on this laptop"
        if isinstance(path, Path)
        else ("give it to the event's director alone: whoever opens it first is signed in as the director")
    )
    echo_err(f"login link for the director's console (works once, for {minutes} minutes; {whom}):")
    click.echo(f"{url.rstrip('/')}/director#login={token}")


def _service_url(event: Path | str) -> tuple[str, str]:
    """The address of a service running this event (each `lexicon serve` records where it listens
    and which event file it serves), else the settings' (a service of another file, or of none,
    has not this event's console); and where it came from, said to the director."""
    from service.reloading import running_addresses

    current = settings()
    try:
        running = running_addresses()
    except OSError:  # no folder of this user's own to look in: as if none ran
        running = []
    served = shown_location(event) if isinstance(event, str) else str(Path(event).resolve())  # as recorded
    this_event = [found for found in running if found[2] == served]
    path = ""  # the event's path on the service: its own root, or /e/ID/ in a service of its database's events
    if not this_event and isinstance(event, str):
        this_event = [found for found in running if found[2] and event_in_database(event, found[2])]
        path = f"e/{event_in_database(event, this_event[0][2])}/" if this_event else ""
    event = shown_location(event)
    if this_event:  # several instances of one event (behind nginx) all serve its console
        same_port = [found for found in this_event if found[1] == current.port]
        host, port, served_by, *public = (same_port or this_event)[0]
        source = f"the `lexicon serve` of {event if not path else shown_location(served_by)} running on this laptop"
        if public and public[0] and is_database_url(served_by):  # its director is elsewhere: where they go
            return f"{public[0].rstrip('/')}/{path}", f"{source}, at its public address (LEXICON_PUBLIC_URL)"
    else:
        host, port = current.host, current.port
        source = (
            "LEXICON_HOST and LEXICON_PORT, as no `lexicon serve` was found running on this laptop"
            if not running
            else f"LEXICON_HOST and LEXICON_PORT, as no `lexicon serve` of {event} runs on this laptop "
            f"(those running serve {_what_they_serve(running)})"
        )
    host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/{path}", source


def _what_they_serve(running: list) -> str:
    """The services running here by what they serve: a `make run` serves no event, and was said
    to serve another.

    >>> _what_they_serve([("h", 8031, None), ("h", 8033, "/a.db"), ("h", 8035, "/b.db")])
    'other events on ports 8033, 8035; no event on port 8031'
    """
    groups = (
        ("other events", [found[1] for found in running if found[2]]),
        ("no event", [found[1] for found in running if not found[2]]),
    )
    return "; ".join(
        f"{what} on {'port' if len(ports) == 1 else 'ports'} {', '.join(map(str, ports))}"
        for what, ports in groups
        if ports
    )


@click.group()
def records() -> None:
    """An event's record of verdicts: check its chain, export it."""


def _head(context, parameter, values) -> tuple[PaperHead, ...]:
    try:
        return tuple(PaperHead.parse(value) for value in values)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


SQLITE_MAGIC = b"SQLite format 3\x00"


@records.command()
@click.argument("path", metavar="EVENT.db|EXPORT|URL", type=EVENT_LOCATION)
@click.option(
    "--head",
    "heads",
    multiple=True,
    callback=_head,
    metavar="SEQ:HASH",
    help=f"A round's head as written on its sheet (the last record's number and the first {WRITTEN_DIGITS} hex digits of "
    "its hash the console shows (at least 6; spaces ignored), e.g. 57:3fa9c2d17b0e55aa): that record must be "
    "there with that hash. Repeatable.",
)
def verify(path, heads):
    """Check the record's chain, in an event file or in an export (CSV or JSON) of it.

    An export is checked on its own, on any computer: a whole record's from its first row, a
    round's from its first row's previous-row hash (the previous round's head). Only --head,
    written on paper when the round closed, shows rows removed from the end.

    An intact record whose rows are stamped more than a second before the row before them (clocks
    that disagree, or one set back) names them under its line: their order is their numbers.

    Exit codes: 0 intact; 1 a row that does not chain or a head that does not match, named;
    2 a file that is neither an event nor an export, or a head not in the export.
    """
    magic = SQLITE_MAGIC  # a database's event, or a file unreadable: said as for an event file (one not there: below)
    if not isinstance(path, str):
        try:
            with open(path, "rb") as file:
                magic = file.read(len(SQLITE_MAGIC))
        except FileNotFoundError:  # not "no such event file (create it …)": it may be an export's name
            raise BadInput(f"{path}: no such file (an event file, or a CSV or JSON export of one)") from None
        except OSError:
            pass
    if magic != SQLITE_MAGIC:
        _verify_export(path, heads)
        return
    db, shown = _open(path), shown_location(path)
    try:
        broken = db.verify()
        rows = list(db.records()) if broken is None else []
        if broken is None and heads:
            broken = check_export(rows, heads).broken
        marks = db.event().file
    except TournamentError as error:  # a damaged file (StorageError): not a readable event
        raise BadInput(f"{shown} is not a readable event: {error}") from None
    except ValueError as error:  # a head the record does not hold yet cannot be in it: below
        raise BadInput(f"{shown}: {error}") from None
    finally:
        db.close()
    if broken is not None:
        raise RecordBroken(f"{shown}: {broken}")
    # an event moved elsewhere (or a copy of one): its record went on there, which an appeal must know
    moved = (
        ""
        if marks is None or marks.moved is None
        else (f"; moved at {marks.moved} to the event's file {marks.moved_to}: its later records are there")
    )
    if not rows:
        click.echo(f"{shown}: intact, no records yet{moved}")
    else:
        click.echo(
            f"{shown}: intact, {plural(len(rows), 'record')}; "
            f"last record {rows[-1].seq}, hash {rows[-1].hash}{_compared(heads)}{moved}"
        )
        _times(shown, rows)


def _verify_export(path: Path, heads: tuple[PaperHead, ...]) -> None:
    """`records verify` of a CSV or JSON export (export_check)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
        kind = "json" if text.lstrip().startswith("{") else "csv"
        rows, said = read_export_filter(text, kind)
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not an event file, nor a record export (it is not UTF-8 text)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise BadInput(f"{path} is not an event file, nor a record export (CSV or JSON): {error}") from None
    try:
        found = check_export(rows, heads, said)
    except ValueError as error:  # a head this export cannot be compared with: the export is one
        raise BadInput(f"{path}: {error}") from None
    except (KeyError, TypeError) as error:
        raise BadInput(f"{path} is not an event file, nor a record export (CSV or JSON): {error}") from None
    if found.broken is not None:
        raise RecordBroken(f"{path}: {found.broken}")
    holds = None if said is None else ("the whole record" if said.whole else f"{said} only")
    if not found.rows:  # what it says it holds, so that an empty sheet is seen to be the one asked for
        click.echo(f"{path}: an export with no records{'' if holds is None else f', of {holds}, as it says'}")
        return
    start = (
        "from the first record"
        if found.from_genesis
        else f"from record {found.first}'s previous-row hash {rows[0].prev[:12]}… (record {found.first - 1}'s, as given)"
    )
    gaps = ", ".join(f"{a}" if a == b else f"{a} to {b}" for a, b in found.gaps)
    if gaps and said is None:
        gaps = f"; not in it (filtered): {gaps}"
    elif gaps:
        gaps = (
            f"; not in it: {gaps} (not of {said}, as it says; rows deleted from it would look the same: "
            "the whole record's export or the event file can tell)"
        )
    what, unsaid = ",", f"; {FILTER_UNSAID}"  # an export that does not say what it holds
    if holds is not None:
        what, unsaid = f" of {holds}, as it says:", ""
    click.echo(
        f"{path}: intact export ({kind.upper()}){what} {plural(found.rows, 'record')} "
        f"{found.first} to {found.last}, chained {start}{gaps}; last hash {found.last_hash}{_compared(heads)}{unsaid}"
    )
    _times(path, rows)


def _times(shown: object, rows: list) -> None:
    """What `records verify` adds under an intact record whose rows are stamped before the row
    before them (tournament.times): the chain holds, so the exit is still 0, but an appeal must not
    read their times as their order."""
    back = said_stamped_back(list(stamped_back(rows)))
    if back is not None:
        click.echo(f"{shown}: {back}")


def _compared(heads: tuple[PaperHead, ...]) -> str:
    """What `records verify` adds when the heads given match: how far that proves the record was
    not rewritten. A head's first few digits can be matched on purpose (export_check.WRITTEN_DIGITS):
    a sheet written with fewer than the console shows is said to prove little."""
    if not heads:
        return ""
    said = f"; matches the head{'s' if len(heads) > 1 else ''} given"
    fewest = min(len(head.prefix) for head in heads)
    if fewest >= WRITTEN_DIGITS:
        return said
    return (
        f"{said}, to its first {fewest} hex digits only: a record rewritten on purpose can be made to end in a "
        f"hash that begins so (a computer's hours), never in one whose first {WRITTEN_DIGITS} are given, "
        f"as the console shows them (write those on the next sheets)"
    )


@records.command("export")
@click.argument("path", metavar="EVENT.db|URL", type=EVENT_LOCATION)
@click.option("--round", "round_number", type=click.IntRange(1), help="Only this round.")
@click.option("--format", "format_", type=click.Choice(FORMATS), default="csv", show_default=True)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),  # as typed: pathlib reads './-' as '-'
    help="Write to this file (default, or -: standard output).",
)
def export_command(path, round_number, format_, output):
    """Every row of the record (or of one round), chain included, as CSV or JSON.

    Each row carries `intact` (its own check); a record that does not verify is exported all
    the same, and standard error says where it breaks.

    Exit codes: 0 written, the record intact; 1 written, but the record does not verify (or a
    row cannot be read: then nothing is written); 2 bad input (no such round, not an event file).
    """
    db, shown = _open(path), shown_location(path)
    try:
        refused = unknown_round(db, round_number)  # a typo, not an empty round
        if refused is not None:
            raise BadInput(f"{shown}: {refused}; nothing exported")
        text, rows, broken = export(db, round=round_number, format=format_, checked=True)
    except MalformedRow as error:
        raise RecordBroken(f"{shown}: {error}; nothing exported (see `lexicon records verify`)") from None
    except TournamentError as error:  # a damaged file (StorageError): not a readable event
        raise BadInput(f"{shown} is not a readable event, nothing exported: {error}") from None
    finally:
        db.close()
    if output is None or output == "-":  # `-` as for `lexicon expand -o -`; `./-` is a file
        sys.stdout.write(text)
    else:
        write(Path(output), text.encode("utf-8"))
        which = f"round {round_number}" if round_number is not None else "the whole record"
        span = f", records {rows[0].seq} to {rows[-1].seq}; last hash {rows[-1].hash}" if rows else ""
        echo_err(f"wrote {output}: {plural(len(rows), 'record')} of {which} as {format_.upper()}{span}")
    if broken is not None:
        raise RecordBroken(
            f"{shown}: the record does not verify: {broken}; exported all the same, each row with "
            "its check in the `intact` column"
        )
