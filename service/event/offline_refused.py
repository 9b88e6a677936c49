"""An offline verdict the record refuses (tournament/refused_offline.py): its phone showed another
verdict than the service gives (409 `offline-verdict-differs`) or judged with another list than
the event's (409 `offline-lexicon-changed`; entries.py says which). The record's write refuses it
once the device's gap allows a verdict, and notes it for the console's devices list (a count per
device and reason, the latest one's round and times); here it is said in the log, as which
device, why, which round its phone showed, and when.

Never the words, the verdicts or the device's token: the log is read by whoever runs the service,
and the devices list is the director's; the record holds nothing of a refused play.
"""

from __future__ import annotations

import logging

from tournament import REFUSED_LEXICON, REFUSED_VERDICT, Entry, OfflineRefusal

log = logging.getLogger("service")

DIFFERS = "offline-verdict-differs"
CHANGED = "offline-lexicon-changed"
_REASONS = {DIFFERS: REFUSED_VERDICT, CHANGED: REFUSED_LEXICON}  # the problem's kind: the record's reason


def refusal_of(index: int, kind: str) -> OfflineRefusal:
    """The record's refusal of a request's offline verdict at `index`, refused as `kind`."""
    return OfflineRefusal(index, _REASONS[kind])


def said_refused(entry: Entry, kind: str) -> None:
    """One refused offline verdict in the log: its device, why, its phone's round and time."""
    log.warning(
        "an offline verdict was refused: the phone showed another verdict than the service gives"
        if kind == DIFFERS
        else "an offline verdict was refused: the phone judged with another list than the event's",
        extra={
            "fields": {
                "device": entry.device_id,
                "reason": _REASONS[kind],
                "shown_round": entry.shown_round,
                "device_time": entry.device_time,
            }
        },
    )
