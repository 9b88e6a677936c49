"""Online rows whose second opinion their phone never showed: marked wherever a row is read.

A judge's phone asks the service for a verdict (online, its second opinion, LEXICON_SECOND, asked
or always), gets no answer in time, and judges the play itself with the same idempotency key,
while the service recorded the online challenge with its second opinion. The phone's verdict then
arrives offline: the same words, judged with the event's list, the same verdict. The players saw
that verdict, so the row is no verdict they were not shown (another verdict or another list is
refused: refused_offline.py), and the phone takes it as recorded (409 `idempotency-conflict`
with the row's number). But the phone judged with the event's list alone and showed its verdict
alone: the row's second opinion (its `second_*` fields) was never shown to the players.

The row cannot change (chained, append-only), and refusing the offline verdict would not change
it either: the record would still say the players saw a second opinion. So the row is marked, by
its number, with when its phone showed the verdict alone (`device_time`) and when the service
learned it (`time`), noted in the same write as the offline verdict is answered: the console's
list and the slip (*papeleta*) say it under the second opinion, the API's row and both exports
carry `second_not_shown` (the phone's time; null: as recorded). The first note stands (a phone
sending its verdict again notes nothing more). Not chained, like the devices' notes: a mark only
the service writes, which whoever edits the event file by hand (the director, in this threat
model) could remove as any file but the chain.
"""

from __future__ import annotations

from .entry import Entry
from .keeper import Keeper
from .storage import Tx


def unshown(recorded: Entry, offline: Entry) -> bool:
    """Whether the offline verdict `offline`, the same play as the online row `recorded` (the
    same device, key, words and list, the same verdict), leaves that row's second opinion unshown."""
    return (
        not recorded.offline
        and offline.offline
        and recorded.second_lexicon_id is not None
        and recorded.words == offline.words
        and recorded.notation == offline.notation
        and recorded.lexicon_checksum == offline.lexicon_checksum
        and recorded.valid == offline.valid
    )


def note_unshown(tx: Tx, seq: int, device_time: str | None, now: str) -> None:
    """Mark row `seq`, inside the write's transaction: its phone showed its verdict alone at `device_time`."""
    tx.add_unshown_second(seq, device_time, now)


class UnshownSeconds(Keeper):
    """The rules' part for online rows whose second opinion their phone never showed."""

    def unshown_seconds(self) -> dict[int, tuple[str | None, str]]:
        """The rows so marked: (the phone's time, when noted), by row number."""
        with self._storage.read() as view:
            return view.unshown_seconds()
