"""The appends one transaction of the group commit takes (group_commit.Batch)."""

from __future__ import annotations

from collections import deque

from tournament.group_commit import Append, Batch


def test_a_group_commit_reads_the_same_appends_however_often_it_looks():
    """The transaction takes the pending appends when it first looks at them, once: a second pass
    (record.py's group reads their keys first, then writes them) sees the same appends, and one
    that arrives meanwhile is left for the next transaction, not written without its keys read."""
    first, second, late = Append([]), Append([]), Append([])
    pending = deque([(first, "a"), (second, "b")])
    batch = Batch(pending)
    assert list(batch) == [first, second]
    pending.append((late, "c"))
    assert list(batch) == [first, second] and len(batch) == 2 and batch[1] is second
    assert batch.taken == [(first, "a"), (second, "b")] and list(pending) == [(late, "c")]
