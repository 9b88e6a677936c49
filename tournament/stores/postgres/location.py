"""Where an event in a database is: a `postgresql://` URL naming the database and one event in it.

Kept apart from the store (psycopg only asked, when it is installed, which parameters its libpq
takes): the command line and the settings tell a URL from an event file's path, and check it,
without the `postgresql` extra installed.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import (
    SplitResult,
    parse_qs,
    parse_qsl,
    quote_from_bytes,
    unquote,
    unquote_plus,
    unquote_to_bytes,
    urlencode,
    urlsplit,
)

SCHEMES = ("postgresql", "postgres")
EVENT_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")  # as the schema's CHECK on events.id
# The query parameters whose values a message shows: ours and libpq's that are no secret. Any
# other's value is shown as *** (a password, an sslpassword, one a newer libpq takes, or a
# misspelled one, `passwrd=`, in the message that refuses it).
SHOWN = frozenset({
    "event", "host", "hostaddr", "port", "dbname", "user", "passfile", "require_auth", "channel_binding",
    "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name",
    "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
    "replication", "gssencmode", "sslmode", "sslnegotiation", "requiressl", "sslcompression", "sslcert",
    "sslkey", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer",
    "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation",
    "service", "target_session_attrs", "load_balance_hosts", "ssl",
})  # fmt: skip
# A '%' libpq cannot decode (not two hex digits after it, or %00) in what it gets as written (the
# netloc and the path; the query is encoded again): libpq's error would quote the token around it,
# a password perhaps, so such a URL is refused here, never given to libpq.
BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})|%00")
# In the query, libpq is given each value encoded again (`_for_libpq`): only a NUL, which no value
# of libpq's holds, is refused (libpq's error quoted the value, a password perhaps).
NUL = re.compile(r"%00")


@cache
def libpq_parameters() -> frozenset[str] | None:
    """The connection parameters the libpq this process connects with accepts, asked of it (its
    PQconndefaults: they differ between its versions); None without psycopg, the `postgresql`
    extra's (opening the event says it is missing), or when libpq cannot say (its defaults fail
    to read, a PGSERVICE not found say: connecting says why)."""
    try:
        from psycopg.pq import Conninfo
    except ImportError:
        return None
    try:
        return frozenset(option.keyword.decode() for option in Conninfo.get_defaults())
    except Exception:
        return None


def _for_libpq(segment: str) -> str:
    """A query's `name=value` as libpq reads what it says: each side's %XX decoded as libpq
    decodes them (a '+' is a '+'; a '%' not before two hex digits is itself) and every byte that
    is not a letter or a digit encoded again, so a second '=' (`options=-csearch_path=x`) or a
    password's `50%off`, which libpq refuses as written quoting the value, is given as meant.

    >>> _for_libpq("options=-c%20search_path=x+y"), _for_libpq("password=50%off")
    ('options=-c%20search_path%3Dx%2By', 'password=50%25off')
    """
    name, _, value = segment.partition("=")
    return f"{quote_from_bytes(unquote_to_bytes(name), safe='')}={quote_from_bytes(unquote_to_bytes(value), safe='')}"


def _is_event(segment: str) -> bool:
    """Whether a query's `name=value` is our `event=` (taken out before libpq sees the URL)."""
    return unquote_plus(segment.partition("=")[0]) == "event"


def _unknown_parameter(shown: str, query: str) -> str | None:
    """Why a URL's query names a parameter that is neither `event` nor one of libpq's (libpq
    refuses it only when connecting, as the database failing), naming it but never its value,
    with those it takes; None when every one is known (or libpq cannot be asked)."""
    segments = [part for part in query.split("&") if part and not _is_event(part)]
    known = libpq_parameters() if segments else None
    if known is None:
        return None
    for segment in segments:
        name, equals, value = segment.partition("=")
        name = unquote_plus(name)
        if name in known or (name == "ssl" and unquote(value) == "true"):  # libpq's URL: sslmode=require (JDBC's)
            continue
        taken = f"event and libpq's parameters: {', '.join(sorted(known))}"
        if not equals:  # a value typed without its name, perhaps: not quoted
            return (
                f"{shown}: a database's URL has a query part with no '=' (not shown: it may be a value); "
                f"it takes {taken}"
            )
        if not name:  # '=value': libpq refuses it only when connecting, as the database failing
            return f"{shown}: a database's URL has a query part with no name before its '='; it takes {taken}"
        close = difflib.get_close_matches(name, sorted(known), n=1)
        meant = f" (did you mean {close[0]}?)" if close else ""
        return f"{shown}: a database's URL has no query parameter {name!r}{meant}; it takes {taken}"
    return None


def is_url(location: object) -> bool:
    """Whether `location` names an event in a database rather than an event file."""
    return isinstance(location, str) and location.split(":", 1)[0].lower() in SCHEMES and "://" in location


def _joined(scheme: str, netloc: str, path: str, query: str, fragment: str = "") -> str:
    """A URL of its parts, with its '//' whatever its netloc: urlunsplit drops an empty one
    (`postgresql:///db`, libpq's URL of the socket's folder and the default host, became
    `postgresql:/db`, which libpq refuses and `is_url` takes for a file's path).

    >>> _joined("postgresql", "", "/lexicon", "host=/run/postgresql")
    'postgresql:///lexicon?host=/run/postgresql'
    """
    return f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")


@dataclass(frozen=True)
class Target:
    """A parsed location: what libpq connects to, the event's id, and how messages name it."""

    conninfo: str
    event_id: str
    location: str


def _shown_segment(segment: str) -> str:
    """A query's `name=value` as a message shows it: as written for a name in SHOWN, else its
    value masked, or all of it when it has no '=' (a value typed alone, perhaps).

    >>> _shown_segment("sslmode=require"), _shown_segment("passwrd=s3cret"), _shown_segment("s3cret")
    ('sslmode=require', 'passwrd=***', '***')
    """
    name, equals, _ = segment.partition("=")
    if not segment or unquote_plus(name) in SHOWN:
        return segment
    return f"{name}=***" if equals else "***"


def _at_read_alike(url: str, parts: SplitResult) -> bool:
    """Whether libpq and urlsplit read the URL's every '@' alike. A '#', '?' or '/' in a password
    ends urlsplit's netloc before its '@' (libpq reads on to the '@', or stops at the '/' and takes
    the password for a port), and of two '@' libpq takes the first, urlsplit the last: what either
    took for the password is not the other's, and a message would show the rest. One '@', in the
    netloc, is read the same by both; so is one in the value of a query parameter libpq takes
    (`application_name=judge@venue`), when libpq too finds no user part before it (it looks for
    one up to the first '/'). A password's '@' followed by a '?' leaves in the query a part whose
    name has the '@', or is none of libpq's (`?x=…@db/…`): still refused, quoting nothing.

    >>> _at_read_alike(u := "postgresql://db/lexicon?application_name=judge@venue", urlsplit(u))
    True
    >>> _at_read_alike(u := "postgresql://db?application_name=judge@venue", urlsplit(u))  # libpq: user 'db?applic…'
    False
    """
    if parts.netloc.count("@") > 1 or "@" in parts.path + parts.fragment:
        return False
    rest = url.partition("://")[2]
    at, slash = rest.find("@"), rest.find("/")
    libpq_user = None if at < 0 or 0 <= slash < at else rest[:at]
    split_user = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else None
    if libpq_user != split_user:
        return False
    known = (libpq_parameters() or SHOWN) - {"event"}  # no event's id holds an '@'
    for segment in parts.query.split("&"):
        name, equals, _ = segment.partition("=")
        if "@" in segment and ("@" in name or not equals or unquote_plus(name) not in known):
            return False
    return True


def _checked(url: str) -> tuple[SplitResult, str]:
    """A database's URL split (urlsplit), and how a message shows it; ValueError for what `parse`
    refuses whether or not it names an event."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in SCHEMES:
        raise ValueError("a database's URL starts with postgresql:// or postgres://")
    if not _at_read_alike(url, parts):
        raise ValueError(
            "a database's URL has an '@' that does not end its user and password part (a '#', '?', '/' or "
            "'@' in a password?): write those in a password as %23, %3F, %2F and %40, and an '@' elsewhere "
            "as %40 (the URL is not shown, as it may hold a password)"
        )
    user, at, host = parts.netloc.rpartition("@")
    for where, text in {"user or password part": user, "host": host, "database's name": parts.path}.items():
        if BAD_ESCAPE.search(text):
            raise ValueError(
                f"a database's URL has a '%' not followed by two hex digits (or a %00) in its {where}: write "
                "a '%' as %25 (the URL is not shown, as it may hold a password)"
            )
    if NUL.search(parts.query):
        raise ValueError(
            "a database's URL has a %00 in its query: no value libpq takes holds a NUL (the URL is not "
            "shown, as it may hold a password)"
        )
    shown_netloc = user.split(":", 1)[0] + at + host  # never its password
    shown_query = "&".join(_shown_segment(segment) for segment in parts.query.split("&"))
    shown = _joined(parts.scheme, shown_netloc, parts.path, shown_query)
    unknown = _unknown_parameter(shown, parts.query)
    if unknown is not None:
        raise ValueError(unknown)
    return parts, shown


def parse(url: str) -> Target:
    """The database and the event a `postgresql://…?event=ID` URL names; ValueError quoting it
    (without its password) when it names no event or an id that cannot be one, or a query
    parameter libpq does not take (by its name), and without quoting it when a '%' in it is not
    one libpq can decode. The shown location has no password: the
    netloc's is dropped, the value of a query parameter not in SHOWN masked.

    >>> parse("postgresql://judge:pw@db:5432/lexicon?event=open-2026").location
    'postgresql://judge@db:5432/lexicon?event=open-2026'
    >>> parse("postgresql://judge@db/lexicon?event=a&password=pw&sslpassword=k").location
    'postgresql://judge@db/lexicon?event=a&password=***&sslpassword=***'
    >>> parse("postgresql://judge:s3cr%zz@db/lexicon?event=a")
    Traceback (most recent call last):
    ValueError: a database's URL has a '%' not followed by two hex digits (or a %00) in its user or password part: write a '%' as %25 (the URL is not shown, as it may hold a password)
    """
    parts, shown = _checked(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    events = [value for key, value in query if key == "event"]
    if len(events) != 1:
        raise ValueError(f"{shown}: a database's URL names one event, as ?event=ID (letters a-z, digits, '-')")
    if not EVENT_ID.fullmatch(events[0]):
        raise ValueError(
            f"{shown}: an event's id is 1 to 63 lowercase letters a-z, digits and '-' (first a letter or "
            f"digit), not {events[0]!r}"
        )
    # The other parts as libpq reads them (`_for_libpq`), not as a form's: libpq decodes a value's
    # %XX and nothing else (a '+' is a '+'; urlencode wrote a %20 as a '+').
    rest = "&".join(_for_libpq(segment) for segment in parts.query.split("&") if segment and not _is_event(segment))
    return Target(_joined(parts.scheme, parts.netloc, parts.path, rest), events[0], shown)


def database_url(url: str) -> str | None:
    """The URL as given when it names a whole database (no `event=`): what a service serving every
    event in it is given (LEXICON_EVENT); None for an event's URL. ValueError for one that is neither.

    >>> database_url("postgresql://lexicon@db/lexicon"), database_url("postgresql://lexicon@db/lexicon?event=a")
    ('postgresql://lexicon@db/lexicon', None)
    """
    if not is_url(url):
        raise ValueError("a database's URL starts with postgresql:// or postgres://")
    if any(key == "event" for key, _ in parse_qsl(urlsplit(url).query, keep_blank_values=True)):
        parse(url)  # an event's: checked
        return None
    _checked(url)  # the rest checked as an event's would be
    return url


def with_event(url: str, event_id: str) -> str:
    """A database's URL naming one event in it (`?event=ID` added).

    >>> with_event("postgresql://lexicon@/lexicon?host=/run/postgresql", "open-2026")
    'postgresql://lexicon@/lexicon?host=/run/postgresql&event=open-2026'
    """
    parts = urlsplit(url)
    query = parts.query + ("&" if parts.query else "") + urlencode([("event", event_id)])
    return _joined(parts.scheme, parts.netloc, parts.path, query, parts.fragment)


def database_of(url: str) -> tuple[str, str]:
    """The URL of the whole database an event's URL names, its `event=` taken out and the rest as
    written (what a service of every event in it would be given), and the event's id; ValueError
    as `parse`.

    >>> database_of("postgresql://lexicon@/season?host=/run/postgresql&event=open-x")
    ('postgresql://lexicon@/season?host=/run/postgresql', 'open-x')
    """
    event_id = parse(url).event_id
    parts = urlsplit(url)
    rest = "&".join(segment for segment in parts.query.split("&") if segment and not _is_event(segment))
    return _joined(parts.scheme, parts.netloc, parts.path, rest, parts.fragment), event_id


def database_place(url: str) -> tuple:
    """What names a database in a URL, whoever signs in: host (or socket folder), port (5432 when
    not given) and name; two URLs of one database, as the owner and the instances' role, alike.

    >>> database_place("postgresql://owner:pw@db:5432/season?event=open-x") == database_place("postgresql://lexicon@db/season")
    True
    >>> database_place("postgresql://u@/season?host=/run/postgresql&event=a")
    ('/run/postgresql', 5432, '/season')
    """
    parts, query = urlsplit(url), parse_qs(urlsplit(url).query)
    host = parts.hostname or "".join(query.get("host", []))
    port = parts.port or int("".join(query.get("port", [])) or 5432)
    return host, port, parts.path


def event_in_database(event_url: str, database: str) -> str | None:
    """The id of the event `event_url` names when it is in the database `database` names (what a
    service of every event in it was given), whoever either signs in as; else None.

    >>> event_in_database("postgresql://lexicon_owner@db/lexicon?event=liga-j1", "postgresql://lexicon@db/lexicon")
    'liga-j1'
    >>> event_in_database("postgresql://u@db/lexicon?event=a", "postgresql://u@db2/lexicon") is None
    True
    """
    if not (is_url(event_url) and is_url(database)) or database_url(database) is None:
        return None
    event_id = parse(event_url).event_id
    return event_id if database_place(event_url) == database_place(database) else None


def shown_database(url: str) -> str:
    """How a message names a database: its URL without its password (as `parse` shows an event's).

    >>> shown_database("postgresql://judge:pw@db/lexicon")
    'postgresql://judge@db/lexicon'
    """
    return _checked(url)[1]


def event_location(value: str | os.PathLike) -> Path | str:
    """A location as given to a command or LEXICON_EVENT: a database URL, checked (ValueError
    otherwise), kept as text; anything else an event file's path (`~` expanded).

    >>> event_location("postgresql://lexicon@/lexicon?host=/run/postgresql&event=open-2026")
    'postgresql://lexicon@/lexicon?host=/run/postgresql&event=open-2026'
    >>> event_location("open.db")
    PosixPath('open.db')
    """
    text = os.fspath(value).strip()
    if is_url(text):
        parse(text)
        return text
    return Path(os.path.expanduser(text))


def shown_location(location: str | os.PathLike) -> str:
    """How a message names an event's location: a database URL without its password.

    >>> shown_location("postgresql://judge:pw@db/lexicon?event=a"), shown_location(Path("open.db"))
    ('postgresql://judge@db/lexicon?event=a', 'open.db')
    >>> shown_location("postgresql://judge:pw@db/lexicon")  # a whole database (a service of its events)
    'postgresql://judge@db/lexicon'
    """
    if not is_url(location):
        return os.fspath(location)
    return parse(location).location if database_url(location) is None else shown_database(location)
