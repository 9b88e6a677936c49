"""The refusals the event's HTTP gives from more than one place: a role not answered at this
moment of the event, and a store that cannot be written (for a moment, or until a restart)."""

from __future__ import annotations

import logging

from tournament import DiskFailed, EventMoved, FileDamaged, StorageError

from ..problems import AGAIN_SOON, Problem

log = logging.getLogger("service")


def round_refused(current: int | None) -> Problem:
    """The refusal of a caller whose role is not answered now: a round is open (`current`), so
    lookups are closed, or none is, so a table device waits for the next."""
    if current is not None:
        return Problem(
            "lookups-closed",
            f"lookups are closed during rounds: round {current} is "
            "being played; ask a judge, or check words after the round",
        )
    return Problem(
        "no-round", "a table device challenges only while a round is open; between rounds, use a lookup device"
    )


def storage_problem(error: StorageError) -> Problem:
    if isinstance(error, EventMoved):  # for good: a phone is told to ask the director, not to try again
        return moved_problem()
    log.error("event storage failed", extra={"fields": {"error": type(error).__name__}})
    if isinstance(error, FileDamaged):  # for good: a restart reads the same damaged file
        return Problem(
            "record-damaged",
            "the event's file is damaged, so nothing more is recorded in it or answered from it, and asking "
            "again cannot help; a judge's phone judges offline meanwhile, and the director restores the event "
            "from its last backup",
        )
    if isinstance(error, DiskFailed):  # until a restart: asking again cannot help, a judge's phone judges offline
        return Problem(
            "record-failed",
            "the disk failed writing the event's record, so a verdict may not be on disk: nothing is recorded "
            "or answered from it until the director restarts the service, and asking again cannot help; "
            "a judge's phone judges offline meanwhile",
        )
    return Problem.later(
        "record-unavailable",
        "the event's record cannot be written just now, so no verdict is "
        f"given; ask again in {AGAIN_SOON} s, and tell the director if it goes on",
        AGAIN_SOON,
    )


def moved_problem() -> Problem:
    """The refusal of every write to an event that `lexicon event move` copied elsewhere. It names
    neither where nor the copy's identity: a judge's phone shows it, and only the director, who
    knows where the event went, gives its new address and a code to pair again."""
    return Problem(
        "event-moved",
        "this event was moved elsewhere by its director, so nothing more is recorded here and no verdict "
        "is given; ask the director for the event's new address and a code to pair this device again",
    )
