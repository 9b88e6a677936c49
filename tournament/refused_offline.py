"""The offline verdicts the record refused, counted per device and per reason for the director's
console, and the refusal itself: decided inside the record's write, after the device's gap.

Why counted: such a refusal was said on the phone alone, and only if someone looked at it. The
players were shown a verdict the record does not hold; the director must learn that it happened,
on which judge's phone, why, in which round (the one the phone showed) and when, to decide the
play with the phone in hand. Two reasons, counted apart because they ask the director for
different things beside that decision (docs/tournament.md, "Verdicts given offline"):

- `verdict` (model.REFUSED_VERDICT): the phone showed another verdict than the service gives with the same list: its copy
  of the list or its lookup is not the service's (a browser file forged or broken);
- `lexicon` (model.REFUSED_LEXICON): the phone judged with another list than the event's (a list kept from before, or
  another event's): its list must be fetched again.

What is kept is that and no more: a count per device and reason, and the latest refusal's round,
phone's time and service's time; never the words (the record holds none of a refused play, and
the console's devices list is no place for them) and never the verdicts. And every refused
verdict's idempotency key, per device and reason (storage.Tx.add_refused_key), for two things
the latest key alone did not tell: a refusal sent again with its key (an answer lost on the way)
is counted once, however the device's refused plays alternate, so the count is the number of
distinct refused plays; and an online challenge of the device under any refused key, held in the
network and arriving after its play's offline verdict was refused, is refused (record.py's
`was_refused`), in whatever order the plays were refused. A hint for the director, not part of
the record: it is not chained, and a device that does not exist is not noted.

Why decided in the write, after the gap (record.py's `_append_in`): whether a play is refused
for its verdict says the service's verdict, as a recorded row does; decided before the gap, a
phone sending faster than its gap got 409 for one verdict and 429 for the other, and a refusal
used no gap, so refusals could be sent back to back, each naming a joint verdict. Decided after
the gap, with a refusal's time taken as the device's latest for the gap (its latest `time`
here, read with the group commit's devices: storage.Tx.keys_and_holders), a request inside the
gap gets the same 429 whatever the play, and each verdict, recorded or refused, takes a gap.
"""

from __future__ import annotations

from .keeper import Keeper
from .model import RefusedOffline
from .storage import Tx


def note_refusal(tx: Tx, device_id: int, reason: str, key: str, shown_round: int | None, device_time, now: str) -> None:
    """One refused offline verdict of this device, inside the write's transaction: its key kept,
    counted unless that key was refused for that reason before (sent again), and its time is the
    device's latest for the gap whether counted or not (a play sent again with its key may be
    other words)."""
    new = tx.add_refused_key(device_id, key, reason)
    known = tx.refused_offline(device_id, reason)
    count = 1 if known is None else min(known.count + new, MAX_COUNT)
    tx.put_refused_offline(device_id, reason, RefusedOffline(count, key, shown_round, device_time, now))


# The most a count says: the largest both stores' column holds (PostgreSQL's INTEGER). A count
# that reached it, or was edited past it by hand, stays there: the refusal stands, and its note is
# no reason to fail (SQLite's integers end at 2**63 - 1, where adding one raised a 500).
MAX_COUNT = 2**31 - 1


class OfflineRefusals(Keeper):
    """The rules' part for refused offline verdicts (docs/tournament.md, "Verdicts given offline")."""

    def refused_offline(self) -> dict[int, dict[str, RefusedOffline]]:
        """Each device's refused offline verdicts, by device id and reason (none: not there)."""
        with self._storage.read() as view:
            return view.refused_offline_all()
