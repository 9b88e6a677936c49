"""The offline verdicts the record refused because the phone showed another verdict than the
service gives (409 `offline-verdict-differs`), counted per device for the director's console.

Why: such a refusal was said on the phone alone, and only if someone looked at it. The players
were shown a verdict the record does not hold; the director must learn that it happened, on which
judge's phone, in which round (the one the phone showed) and when, to decide the play with the
phone in hand. What is kept is that and no more: a count per device, and the latest refusal's
round, phone's time and service's time; never the words (the record holds none of a refused
play, and the console's devices list is no place for them) and never the verdicts. A refusal
sent again with the same idempotency key (an answer lost on the way) is counted once: the
latest refusal's key is kept to tell. A hint for the director, not part of the record: it is
not chained, and a device that does not exist is not noted.
"""

from __future__ import annotations

from .keeper import Keeper, on_writer
from .model import MAX_NUMBER, RefusedOffline
from .stamps import stamp

# The most a count says: the largest both stores' column holds (PostgreSQL's INTEGER). A count
# that reached it, or was edited past it by hand, stays there: the refusal stands, and its note is
# no reason to fail (SQLite's integers end at 2**63 - 1, where adding one raised a 500).
MAX_COUNT = 2**31 - 1


class OfflineRefusals(Keeper):
    """The rules' part for refused offline verdicts (docs/tournament.md, "Verdicts given offline")."""

    @on_writer
    def note_refused_offline(self, device_id: int, key: str, shown_round: int | None, device_time: str | None) -> None:
        """One offline verdict of this device refused as differing; one transaction."""
        with self._write() as tx:
            if not 0 < device_id <= MAX_NUMBER or tx.device(device_id) is None:
                return
            known = tx.refused_offline(device_id)
            if known is not None and known.key == key:
                return  # the same verdict sent again
            count = 1 if known is None else min(known.count + 1, MAX_COUNT)
            tx.put_refused_offline(device_id, RefusedOffline(count, key, shown_round, device_time, stamp(self._now())))

    def refused_offline(self) -> dict[int, RefusedOffline]:
        """Each device's refused offline verdicts, by device id (none: not there)."""
        with self._storage.read() as view:
            return view.refused_offline_all()
