"""Who settles a write whose caller may stop waiting: the writer thread, once it holds the
event's write lock and is about to write (`claim`), or the caller at its deadline (`abandon`);
whichever comes first.

Why: in a gevent worker a verdict's greenlet waits for its write at most `seconds`
(writer.Writer) and is then answered 503, while the writer thread may still be waiting for the
lock. So that a verdict it gave up on is never recorded, each write carries a `Ticket`: the writer
claims it once it holds both locks, just before writing; the caller abandons it at its deadline;
whichever comes first settles it. A write claimed in time is waited for to its commit (a few
milliseconds: the locks are held by then); one abandoned is skipped, and writes nothing. If the
writer closes (`close`: the store closed) or its thread ends, every verdict not yet answered is
answered that it is not known to be recorded, and its ticket abandoned: one the writer thread has
not claimed yet is never written, even once the lock comes free. Each caller reads its outcome from
what the loop hands it (its AsyncResult), never from the Append the writer thread may still be
filling in; and a closed thread's transaction keeps the queue it was given, so a later verdict goes
to the next thread's transaction, not to one whose caller was already answered.

A module of its own: the writer hands tickets out, and the transactions that write (record.py's
_commit, keeper.py's director's writes) claim them, each without the other's machinery.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from .cooperative import returned
from .errors import StorageError

T = TypeVar("T")


class Ticket:
    """Who settles a write whose caller may stop waiting (see the module's docstring): the writer
    thread, holding the write lock and about to write (`claim`), or the caller at its deadline
    (`abandon`). Each side appends its name to one list and reads the first: `list.append` is
    atomic in CPython, so the event loop and the writer thread share no lock for it."""

    __slots__ = ("_turns", "deadline")

    def __init__(self) -> None:
        self._turns: list[str] = []
        # when its caller gives up (time.monotonic), kept by Writer._watch; None: no deadline, or
        # claimed by then (its caller waits for its commit)
        self.deadline: float | None = None

    def claim(self) -> bool:
        """The writer's turn: True if it may write (again, for a write in several transactions)."""
        self._turns.append("writer")
        return self._turns[0] == "writer"

    def abandon(self) -> bool:
        """The caller's, at its deadline: True if nothing will be written for it."""
        self._turns.append("caller")
        return self._turns[0] == "caller"


_running = threading.local()  # the Ticket of the call the writer thread runs (None outside one)


def claim_current() -> bool:
    """For a write transaction, once it holds the lock: whether the call it serves still waits."""
    ticket = getattr(_running, "ticket", None)
    return ticket is None or ticket.claim()


def ticketed(ticket: Ticket, function: Callable[..., T], args: tuple, kwargs: dict) -> tuple[bool, T | Exception]:
    """`returned` in the writer thread, with `ticket` as the current call's (claim_current)."""
    _running.ticket = ticket
    try:
        return returned(function, args, kwargs)
    finally:
        _running.ticket = None


def writer_stopped() -> StorageError:
    return StorageError("the event's writer stopped before this verdict was known to be recorded")


def lock_not_free(seconds: float) -> StorageError:
    return StorageError(
        f"the event's write lock was not free within {seconds:g} s (another process holds it); nothing was written"
    )
