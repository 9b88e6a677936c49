"""The group commit's units: one request's appends (`Append`, with the Ticket its caller may
abandon at its deadline: tickets.py) and the appends one transaction writes (`Batch`, which says
how it takes them).

Apart from the writer thread that hands them over (writer.py): the transaction that writes them
(record.py's _commit) reads them, writing a refused append (rate-limited, an idempotency conflict)
as nothing while the others stand, and fills in each one's outcome.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .entry import Entry, Record
from .model import OfflineRefusal
from .tickets import Ticket


@dataclass
class Append:
    """One request's appends (one verdict, or a batch's plays), and what became of them."""

    entries: Sequence[Entry]
    min_gap: float = 0
    round_open: bool | None = None
    budget: Sequence[tuple[str, int]] | None = None  # (client key, plays a minute) pairs: budget.Budget
    last_key: str | None = None  # the device's last recorded verdict, which the record must hold
    holder: tuple[int, str] | None = None  # (device id, its token's hash): still its own, and not revoked
    refusal: OfflineRefusal | None = None  # an offline verdict to refuse past the gap (refused_offline.py)
    outcome: list[Record] | Exception | None = field(default=None, compare=False)
    ticket: Ticket = field(default_factory=Ticket, compare=False, repr=False)


class Batch(Sequence):
    """The appends of one group commit, taken from the pending ones when the transaction that
    writes them first looks at them (record.py's _commit, once it holds the write lock): every
    append pending then, rather than those pending when it was handed to the writer thread. So the
    verdicts that came while the lock was held elsewhere (the other worker's commit) join this
    transaction, not the next one: batches grow as the lock gets busier, with no wait added. Taken
    once, then the same appends however often the transaction reads them (a first pass collects
    their keys). `deque.popleft` is atomic, so the writer thread takes while the loop's thread
    appends; the greenlets are woken from the loop's thread (`Writer._answer`)."""

    __slots__ = ("_pending", "_taken", "waiting")

    def __init__(self, pending: deque):
        self._pending = pending
        self.waiting = len(pending)  # pending when the writer thread began this transaction
        self._taken: list[tuple[Append, object]] | None = None

    @property
    def taken(self) -> list[tuple[Append, object]]:
        """(append, its AsyncResult) in order, as the transaction took them; none if it never looked."""
        return self._taken or []

    def _take(self) -> list[tuple[Append, object]]:
        if self._taken is None:
            taken: list[tuple[Append, object]] = []
            for _ in range(len(self._pending)):
                try:
                    taken.append(self._pending.popleft())
                except IndexError:  # emptied by the writer closed meanwhile (Writer.close)
                    break
            self._taken = taken
        return self._taken

    def __len__(self) -> int:
        return len(self._take())

    def __getitem__(self, index):
        taken = self._take()
        return [append for append, _ in taken[index]] if isinstance(index, slice) else taken[index][0]

    def __iter__(self) -> Iterator[Append]:
        return (append for append, _ in self._take())
