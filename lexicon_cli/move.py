"""`lexicon event move SOURCE TARGET`: an event copied whole between a file and a database, either
way (or file to file, database to database), verified, as a new live copy of the event.

A hall's event is handed to the federation (file to database), and a federation's event taken to
a hall with no internet (database to file). The copy is tournament/transfer.py's: the source read
in one snapshot, never changed; the target made in one transaction (a database) or under a partial
name, then named (a file), and kept only once read back with the same record (same last record,
same hash), rounds, devices and director. The target has an identity of its own, the source's
noted as the one it was restored from, so the event's paired devices take it as the same event.
Then the source is marked moved (when, and the target's identity), under its write lock and only
if it still holds what was copied: every instance that still serves it records nothing more there
(410 `event-moved` to a phone still paired with it; its /readyz and console say so), so the record
cannot split, even where an instance on another machine was not stopped.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import click

from tournament import database_place, database_url, is_database_url, shown_location

from .backup import _head, copy_into
from .common import BadInput, echo_err
from .event import EVENT_LOCATION
from .speech import ENGLISH


@click.command()
@click.argument("source", metavar="SOURCE", type=EVENT_LOCATION)
@click.argument("target", metavar="TARGET", type=EVENT_LOCATION)
def move(source: Path | str, target: Path | str) -> None:
    """Copy an event whole between a file and a database, either way, as its new live copy.

    SOURCE and TARGET are each an event file or an event in a PostgreSQL database named by its URL,
    postgresql://USER@HOST:PORT/DATABASE?event=ID. TARGET must not exist: it is made whole or not
    at all, and kept only once its record reads back the same, with the same last record and hash.
    It carries the event, its director's password, its devices (paired phones that reach it at the
    same address go on judging), rounds and record; not the director's sessions, pairing codes or
    lockouts. It has an identity of its own. SOURCE is kept, marked moved once TARGET is whole: it
    records nothing more (a phone still paired with it is told to ask the director). Stop every
    instance serving SOURCE before the move (one on this laptop, of the event or of its whole
    database, is seen, and the move refused), and serve TARGET after it (docs/operations.md, "A
    federation's service").

    Exit codes: 0 moved and verified; 1 the record in SOURCE does not verify (nothing written:
    `lexicon event backup` keeps a faithful copy); 2 bad input (SOURCE not an event, a backup
    copy or served on this laptop, TARGET there already, or a database holding the event live under
    another id), nothing written.
    """
    _not_served_here(source)
    copied = copy_into(source, target, "move")
    before = copied.source_file
    echo_err(
        f"moved {shown_location(source)} to {shown_location(target)}: {_head(copied, ENGLISH)}, verified; "
        f"the event's live copy now, file {copied.file.identity}"
        + (f" (moved from file {before.identity})" if before is not None else "")
    )
    # A database's event is moved in as its owner (the first one makes the tables), and served as
    # the instances' role, which cannot change the record (docs/operations.md): the URL to serve is
    # shown with a placeholder for its user, as the URL just typed names the owner.
    served = _as_role(target) + " from now on (ROLE: the instances' role, never the database's owner)"
    echo_err(
        f"{shown_location(source)} is kept, marked moved: it records nothing more; serve "
        + (served if is_database_url(target) else f"{shown_location(target)} from now on")
    )


def _as_role(url: str) -> str:
    """An event's URL as its instances serve it: without password, its user (the netloc's, or a
    `user=` in the query) the placeholder ROLE.

    >>> _as_role("postgresql://lexicon_owner:pw@db.example/lexicon?event=open-x")
    'postgresql://ROLE@db.example/lexicon?event=open-x'
    >>> _as_role("postgresql:///lexicon?host=/run/postgresql&user=lexicon_owner&event=open-x")
    'postgresql://ROLE@/lexicon?host=/run/postgresql&user=ROLE&event=open-x'
    """
    parts = urlsplit(shown_location(url))
    query = "&".join("user=ROLE" if segment.startswith("user=") else segment for segment in parts.query.split("&"))
    return urlunsplit(parts._replace(netloc="ROLE@" + parts.netloc.rpartition("@")[2], query=query))


def _not_served_here(source: Path | str) -> None:
    """BadInput when a `lexicon serve` of SOURCE runs on this laptop: a verdict it recorded after
    the move's snapshot would be in SOURCE alone. (Instances on other machines cannot be seen from
    here: docs/operations.md says to stop them first.)"""
    from service.reloading import running_addresses

    try:
        running = running_addresses()
    except OSError:  # no folder of this user's own to look in: as if none ran
        return
    serving = sorted((found[1], found[2]) for found in running if found[2] is not None and _covers(found[2], source))
    if serving:
        # a service of every event of the database: stopping it stops them all, which the operator must know
        whole = sorted({served for _, served in serving if is_database_url(served) and database_url(served)})
        every = "".join(f" of every event of {served}" for served in whole[:1])
        raise BadInput(
            f"{shown_location(source)} is served on this laptop (`lexicon serve`{every} on port "
            f"{', '.join(str(port) for port, _ in serving)}): stop it before moving the event, or a verdict "
            "recorded after the move would be in it alone"
            + (
                "; every event it serves is stopped with it, their judges' phones judging offline meanwhile"
                if whole
                else ""
            )
            + "; nothing written"
        )


def _covers(served: str, source: Path | str) -> bool:
    """Whether a `lexicon serve` of `served` (as its address file names it: a file's resolved path,
    an event's or a whole database's URL without password) serves the event at `source`: the same
    file, or the same database (host, port, name; whoever signs in) with that event or all of them.

    >>> _covers("postgresql://lexicon@db/season", "postgresql://owner:pw@db:5432/season?event=open-x")
    True
    >>> _covers("postgresql://lexicon@db/season?event=other", "postgresql://owner@db/season?event=open-x")
    False
    """
    if not isinstance(source, str):
        return served == str(Path(source).resolve())
    if not is_database_url(served):
        return False
    where, event = database_place(served), parse_qs(urlsplit(served).query).get("event")
    return where == database_place(source) and (event is None or event == parse_qs(urlsplit(source).query)["event"])
