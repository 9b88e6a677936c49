"""How the event writes a time and reads one back: UTC, ISO 8601 with microseconds and a `Z`
(`2026-11-22T10:31:07.120034Z`), a string.

A string, so that the canonical bytes of a row never depend on how a database or a language
prints a float or a time zone; read back strictly (`read_stamp`), so that a time edited by hand
in the event file is a refusal that names where, never a traceback. Apart from the values that
carry them (model.py, entry.py): every module that stamps or reads a time uses these, and nothing
else of those.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from .errors import Unreadable

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A UTC time as the record writes it.

    >>> stamp(datetime(2026, 11, 22, 10, 31, 7, 120034, tzinfo=UTC))
    '2026-11-22T10:31:07.120034Z'
    """
    if moment.tzinfo is None:
        raise ValueError(f"time {moment!r} has no time zone; the record is in UTC")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stamp(text: str) -> datetime:
    """The inverse of `stamp`.

    >>> parse_stamp('2026-11-22T10:31:07.120034Z').isoformat()
    '2026-11-22T10:31:07.120034+00:00'

    ASCII digits only, as `stamp` writes: strptime alone reads a year in any decimal digits.
    """
    if not text.isascii():
        raise ValueError(f"time {text!r} is not a UTC time like 2026-11-22T10:31:07.120034Z: ASCII digits only")
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def read_stamp(text: object, where: str) -> datetime:
    """A time stored in the event file, read strictly: `Unreadable` (naming `where`, never the
    value) for anything `stamp` did not write. Every stored time read on a request path comes
    through here, so an edited file is a refusal the HTTP layer names, not a traceback.

    >>> read_stamp('garbage', 'records.time of row 3')
    Traceback (most recent call last):
    ...
    tournament.errors.Unreadable: records.time of row 3 in the event file cannot be read back: it was edited by hand
    """
    if type(text) is not str:
        raise Unreadable(where)
    try:
        return parse_stamp(text)
    except ValueError:
        raise Unreadable(where) from None
