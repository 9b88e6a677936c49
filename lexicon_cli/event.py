"""`lexicon event init|password|login`: an event's state file (or its place in a database), with
or without the service running; its record is `lexicon records` (records.py).

    lexicon event init EVENT.db --name "Open de Lleida 2026" [--lexicon ca]
    lexicon event password EVENT.db
    lexicon event login EVENT.db [--url https://judge.lan:8243/]

`event init` prints the director's password once, on standard output alone (so a script can
capture it), or takes it from LEXICON_DIRECTOR_PASSWORD, never from the command line where `ps`
would show it; `event password` sets a new one the same way. Whoever holds the laptop is the
director: `event login` prints a one-time login link for the console, whatever the limits on
wrong passwords.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import click

from lexicon.errors import show_word
from tournament import (
    LINK_LIFETIME,
    MAX_EVENT_NAME,
    Pin,
    TournamentError,
    create_event,
    database_of,
    event_in_database,
    event_location,
    is_database_url,
    new_password,
    open_event,
    shown_location,
)

from .common import LEXICON_IS, BadInput, echo_err, known_lexicon, open_lexicon, settings
from .speech import say

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
@click.option(
    "--name", required=True, help=f'The event\'s name, 1 to {MAX_EVENT_NAME} characters, e.g. "Open de Lleida 2026".'
)
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
        header = found.header
        pin = Pin(
            header.id, header.version, found.checksum, str(Path(found.source).resolve()), "", "init", header.language
        )
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
    echo_err(
        say(
            "init.created",
            location=shown_location(path),
            name=repr(created.name),
            lexicon=created.lexicon or say("init.default"),
        )
    )
    _show(given, password)


def _password() -> tuple[bool, str]:
    """(given, password): LEXICON_DIRECTOR_PASSWORD, else a new one."""
    given = settings().director_password
    return bool(given), given if given else new_password()


def _show(given: bool, password: str) -> None:
    if given:
        echo_err(say("password.given", variable=PASSWORD_VARIABLE))
    else:
        echo_err(say("password.shown"))
        click.echo(password)


def _writable(path: Path, why: str):
    """The event, open to write (the service may be running: the store is safe for both), once it
    is read to be a live event (`_live`: opened to write, a backup copy would be changed already)."""
    looked = _open(path)
    try:
        _live(looked, path, why)
    finally:
        looked.close()
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

    Exit codes: 0 set; 2 bad input (no event file, a backup copy, a password too short).
    """
    given, chosen = _password()
    db = _writable(path, "its password is the one it was copied with, until it is restored")
    try:
        db.set_password(chosen)
    except ValueError as error:
        raise BadInput(f"{error} ({PASSWORD_VARIABLE})") from None
    except TournamentError as error:
        raise BadInput(f"{shown_location(path)}: the password could not be set: {error}") from None
    finally:
        db.close()
    echo_err(say("password.new", location=shown_location(path)))
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

    Exit codes: 0 printed; 2 bad input (no event file, a backup copy, a URL that is not http(s)
    or that is another event's path on a service of every event of a database).
    """
    if url is not None:
        _given_address(path, url)
    db = _writable(path, "a login link to it would sign in nowhere")  # before an address is said
    try:
        if url is None:
            url, source = _service_url(path)
            echo_err(say("login.linking", url=url, source=source))
        token = db.new_login_link()
    except TournamentError as error:
        raise BadInput(f"{shown_location(path)}: no login link could be made: {error}") from None
    finally:
        db.close()
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    # a file is served from the laptop it is on; an event of a database, to a director elsewhere
    whom = say("login.here" if isinstance(path, Path) else "login.elsewhere")
    echo_err(say("login.link", minutes=minutes, whom=whom))
    click.echo(f"{url.rstrip('/')}/director#login={token}")


def _live(db, path: Path | str, why: str) -> None:
    """BadInput for a backup copy, which no service serves and which stays as it was made (the
    director's commands would write into it): `lexicon event restore` makes a live event of it; and
    for a moved source, which records nothing more (said before any address is)."""
    file, shown = db.event().file, shown_location(path)
    if file is not None and file.moved is not None:
        raise BadInput(
            f"{shown}: the event was moved at {file.moved} (its live copy is now file {file.moved_to}): nothing "
            "more is written here; run this on the event where it was moved"
        )
    if file is not None and file.copy_of is not None:
        raise BadInput(
            f"{shown} is a backup copy of the event's file {file.copy_of}, which no service serves ({why}); "
            f"nothing was written: use the event's live file, or `lexicon event restore {shown} NEW.db` once that "
            "is served no more"
        )


def _given_address(event: Path | str, url: str) -> None:
    """BadInput for a --url that is no http(s) address, or (an event of a database) that is another
    event's path, /e/OTHER/, on a service of every event of it: the link's token is this event's,
    and the other event's console refuses it. Quoted as any bad input (show_word: escaped, cut):
    a page pasted as --url gives a sentence."""
    if not url.startswith(("http://", "https://")):
        raise BadInput(f"--url: {show_word(url)} is not an address like http://127.0.0.1:8000/")
    if isinstance(event, Path):
        return
    found = re.search(r"/e/([^/]+)/?\Z", urlsplit(url).path)
    event_id = database_of(event)[1]
    if found and found.group(1) != event_id:
        raise BadInput(
            f"--url: {show_word(url)} is the address of the event {show_word(found.group(1))}, not of {event_id!r}, "
            f"whose link this is: its console would refuse it; give the event's own address, ending /e/{event_id}/"
        )


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
        named = event if not path else shown_location(served_by)
        source = say("login.running", event=named)
        if public and public[0] and is_database_url(served_by):  # its director is elsewhere: where they go
            return f"{public[0].rstrip('/')}/{path}", say("login.public", event=named)
    else:
        host, port = current.host, current.port
        source = (
            say("login.none") if not running else say("login.others", event=event, served=_what_they_serve(running))
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
        ("login.other_events", [found[1] for found in running if found[2]]),
        ("login.no_event", [found[1] for found in running if not found[2]]),
    )
    return "; ".join(
        say(what, ports=say("login.port" if len(ports) == 1 else "login.ports", ports=", ".join(map(str, ports))))
        for what, ports in groups
        if ports
    )
