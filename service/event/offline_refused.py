"""An offline verdict refused because its phone showed another verdict than the service gives
(409 `offline-verdict-differs`: entries.py), made known to the director: noted for the console's
devices list (tournament/refused_offline.py: a count per device, the latest one's round and times)
and said in the log, as which device, which round its phone showed, and when.

Never the words, the verdicts or the device's token: the log is read by whoever runs the service,
and the devices list is the director's; the record holds nothing of a refused play. The refusal
stands whatever becomes of its note: a store that cannot take it now (busy, moved) leaves the
phone's own word, which keeps the verdict among its refused ones.
"""

from __future__ import annotations

import logging
from contextlib import suppress

from msgspec import UNSET

from tournament import Device, TournamentError, stamp

from .offline_time import moment_of

log = logging.getLogger("service")

DIFFERS = "offline-verdict-differs"


def note_refused(db, device: Device, slip) -> None:
    """Note one refused offline verdict of `device` (its body member `slip`, which carries the
    play): for the console, once per idempotency key, and in the log."""
    said = getattr(slip, "round", UNSET)
    shown = None if said is UNSET else int(said or 0)  # 0: the phone showed no round
    try:
        device_time = stamp(moment_of(slip.device_time))
    except (TypeError, ValueError, AttributeError):
        device_time = None  # refused for its verdict, before its time was checked
    with suppress(TournamentError):  # a hint for the console: the refusal stands without it
        db.note_refused_offline(device.id, slip.idempotency_key, shown, device_time)
    log.warning(
        "an offline verdict was refused: the phone showed another verdict than the service gives",
        extra={"fields": {"device": device.id, "shown_round": shown, "device_time": device_time}},
    )
