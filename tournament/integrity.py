"""What a verification of the record finds: how much of it chains from the start (`ChainState`)
and the first row that does not (`Break`), with every way it can be found broken (`BREAK_KINDS`).

Apart from the rows themselves (entry.py): the chain (chain.py), both stores' verifications, the
export's check and the console all say a break from these, and a page says it in its reader's
language from a break's kind and numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

# Every way the record can be found broken, and the numbers each names besides the row: a page
# says a break in its reader's language from these (the `reason` is English, for tools and logs).
BREAK_KINDS: dict[str, tuple[str, ...]] = {
    "deleted": ("first", "last"),  # rows first to last before this one are missing
    "order": ("after",),  # this row comes out of order after row `after`
    "link": ("after",),  # its previous-row hash is not row `after`'s hash
    "changed": (),  # its contents do not match its hash
    "malformed": (),  # a field was edited into something no service writes
    "first": (),  # (an export) the first row does not start the chain
    "head-rewritten": ("round",),  # round `round` closed at this row, with another hash then
    "head-deleted": ("first", "last", "round", "head"),  # rows first to last gone; round closed at `head`
    "verified-deleted": ("first", "last", "verified"),  # rows gone this service had verified
    "edited": (),  # a row this service had verified changed since
    "paper-short": ("first", "last"),  # (an export) rows up to the head written on paper are not in it
    "paper-hash": (),  # the hash at the head written on paper differs
    "after-final": ("round", "head"),  # filed in round `round` after its head, row `head`, was final
    "outside-filter": (),  # (an export) not of the round, table or device the export says it holds
}


@dataclass(frozen=True)
class Break:
    """The first row of the record that does not chain, and why: `reason` a sentence (English, for
    tools and logs), `kind` one of BREAK_KINDS and `facts` its numbers, for a page to say it in
    its reader's language."""

    seq: int
    reason: str
    kind: str = "changed"
    facts: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, kind: str, seq: int, reason: str, **facts: int) -> Break:
        assert set(facts) == set(BREAK_KINDS[kind]), (kind, facts)
        return cls(seq, reason, kind, tuple(sorted(facts.items())))

    def __str__(self) -> str:
        return f"record {self.seq}: {self.reason}"


@dataclass(frozen=True)
class ChainState:
    """How much of the record is verified: rows 1 to `verified` chain from the start, and the
    first row that does not (`broken`), if any. `last` and `last_hash`: the record's head now.
    `checking`: a verification of every row runs (its result shows once it ends; until then
    `verified` is what was verified before, below `last` when rows were added or the row verified
    last changed); `checked`: when the last one ended. `guarded`: the append-only triggers are in
    place (false: removed, which only an edit of the file by hand does). `failed`: the last
    verification of every row could not be completed (it is tried again later). `replaced`: the
    file at the event's path is not the one the service opened (moved, deleted or replaced):
    what is verified is the file served, which no one will read, and no verdict can be recorded."""

    last: int  # the last row's number; 0: no rows yet
    last_hash: str
    verified: int
    broken: Break | None
    checking: bool = False
    checked: str | None = None  # a UTC time (stamp); None: no verification of every row yet
    guarded: bool = True
    failed: bool = False
    replaced: bool = False  # the file at the event's path is not the one served: nothing can be recorded

    @property
    def intact(self) -> bool:
        """The record as it is now verified up to its last row with no break, its triggers in
        place: not while a verification runs, failed, or found the triggers gone."""
        return (
            self.broken is None
            and self.verified == self.last
            and not self.checking
            and self.guarded
            and not self.failed
            and not self.replaced
        )
