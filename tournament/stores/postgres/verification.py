"""The record's state while the service runs, for an event in a database (the store's
chain_state, GET /v1/records `chain`): verified without a request waiting for every row.

As for the event file (stores/sqlite/verification.py), each worker process keeps what it verified
last: rows 1 to `seq`, the last with `hash`. A look (a console's refresh, a records page) reads
the head, whether the record is still guarded, and the row verified last, and verifies only the
rows added since, in the look itself (they chain to that row).

A full verification, of every row from the first, is due at the first look of a process, every
FULL_CHECK_SECONDS, and when the row verified last changed or is gone. It reads and hashes every
row (a tenth of a millisecond each: seconds for a big event's record), so a record longer than
INLINE_ROWS is verified whole off the request path (tournament/offpath.py): in a thread of its
own (in a gevent worker a native thread of the hub's pool, with a connection of its own:
connections.py), reading the rows in slices of SLICE in one snapshot. The look that found it
due answers at once with what was verified before and `checking` (never `intact` meanwhile); the
looks after it ends show its result. One runs at a time per process; one that fails (the
database away) is said (`failed`) and tried again RETRY_SECONDS later, not at every look.

An edit by hand needs the table's owner, who must disable the trigger first: the look says the
record unguarded at once (the store's `guarded`). To name the row changed without hashing every
row again (seconds at 50,000 rows), a full verification also keeps the rows' fingerprints, made
by PostgreSQL in one query: the SHA-256 of each PRINT_ROWS rows' stored text. At every look while
the record is unguarded, and whenever PostgreSQL's count of rows of the records' table updated or
deleted (`pg_stat_user_tables`) moved since (the service never updates nor deletes a recorded row:
an edit made with the trigger disabled and enabled again between two looks moves it too), a
*sweep* compares them again, off the request path as a full verification is (a fraction of a
second at 50,000 rows): the first group that differs has its rows verified to name the row, the
rows added since the fingerprints are verified again, and what is found shows at the next look.
So an UPDATE of one row by the owner shows on the console within two of its refreshes.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from ...chain import GENESIS, edited_since, verified_deleted, verify_chain
from ...integrity import Break, ChainState
from ...model import RecordFilter
from ...offpath import OffPath, native_lock
from ...stamps import stamp

FULL_CHECK_SECONDS = 300.0  # the whole chain verified again at least this often, per process
INLINE_ROWS = 500  # a record this long or shorter is verified whole in the look itself
SLICE = 2_000  # rows read at a time by a verification of the whole record
RETRY_SECONDS = 60.0  # a full verification that failed is tried again this long after, not at every look
PRINT_ROWS = 500  # the rows one fingerprint covers
monotonic = time.monotonic  # the clock the periods are read on (a test moves its own)

# Rows of the records' table (every event's of the database) updated or deleted, as PostgreSQL
# counts them: None where it counts nothing (statistics off).
EDITS = "SELECT n_tup_upd + n_tup_del FROM pg_stat_user_tables WHERE relid = 'records'::regclass"
# Each PRINT_ROWS rows' stored text (the whole row, as PostgreSQL writes it out), hashed by PostgreSQL.
PRINTS = (
    "SELECT (seq - 1) / %s AS g, sha256(convert_to(string_agg(r::text, chr(30) ORDER BY seq), 'UTF8')) "
    "FROM records r WHERE event_id = %s AND seq <= %s GROUP BY g ORDER BY g"
)


@dataclass(frozen=True)
class Known:
    """What this process verified last: rows 1 to `seq` chain (the last with `hash`), or the
    first break; when the last full verification ended (`full`, monotonic; `full_at`, the
    event's time), or failed (`failed`, monotonic); the edits PostgreSQL counted as it began;
    `generation`: the look or verification this stands on (an older never replaces a newer)."""

    seq: int = 0
    hash: str = GENESIS
    broken: Break | None = None
    full: float | None = None
    full_at: str | None = None
    failed: float | None = None
    edits: int | None = None
    generation: int = 0
    prints: tuple[bytes, ...] = ()  # the fingerprints of rows 1 to `prints_upto` (the last with `prints_hash`)
    prints_upto: int = 0
    prints_hash: str = GENESIS


class Verification(OffPath):
    """One store's verification in this process: what it knows, and its one full verification at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.known = Known()

    def found(self, known: Known) -> Known:
        """Keep `known` unless a newer look's or verification's is kept already: the state kept."""
        with self._lock:
            if known.generation > self.known.generation:
                self.known = known
            return self.known


# The events' verifications this process keeps beyond their stores (`remembered`), by database
# location and event id; one lock of the OS, held only to look one up.
_REMEMBERED: dict[tuple[str, str], Verification] = {}
_REMEMBERED_LOCK = native_lock()


def remembered(location: str, event_id: str) -> Verification:
    """The event's verification in this process, the same for every store of it opened here.

    Why: what a process verified is what tells it that rows it verified were deleted since (the
    chain left still verifies: `verified-deleted`, `edited`), until the process ends. A service of
    every event closes an event's store with its app to make room for others' (service.federation,
    MAX_APPS) and opens it again at its next request: anyone asking other events' paths (ids are no
    secret) would otherwise wipe what the process knew, and the console's red line with it. A
    process forked since starts afresh (OffPath.here)."""
    with _REMEMBERED_LOCK:
        return _REMEMBERED.setdefault((location, event_id), Verification())


def _due(known: Known, still: bool, last: int) -> bool:
    """Whether a full verification is due (see the module's docstring)."""
    if known.failed is not None:
        return monotonic() - known.failed >= RETRY_SECONDS
    return (
        last <= INLINE_ROWS
        or known.full is None
        or monotonic() - known.full >= FULL_CHECK_SECONDS
        or not still
        or known.seq > last
    )


def _answer(known: Known, last: int, last_hash: str, guarded: bool, still: bool, checking: bool) -> ChainState:
    verified = known.broken.seq - 1 if known.broken is not None else known.seq if still else known.seq - 1
    return ChainState(
        last,
        last_hash,
        min(verified, last),
        known.broken,
        checking=checking,
        checked=known.full_at,
        guarded=guarded,
        failed=known.failed is not None,
    )


def _rows(view, after: int) -> Iterator:
    """The rows after `after`, in order, SLICE at a time, in the view's one snapshot (each decoded
    as it is reached: a row edited into nonsense is the break, MalformedRow, where it stands)."""
    while True:
        count = 0
        for record in view.records(RecordFilter(after=after, limit=SLICE)):
            count, after = count + 1, record.seq
            yield record
        if count < SLICE:
            return


def _verified(view, after: tuple[int, str]) -> Break | None:
    """The rows after `after` verified against the rounds' heads, in the view's snapshot."""
    anchors = [(n, s, h) for n, s, h in view.heads() if s is not None and s > after[0]]
    return verify_chain(_rows(view, after[0]), anchors, after=after, finals=view.final_heads())


def chain_state(storage, watch: Verification, now: Callable[[], object], wait: bool = False) -> ChainState:
    """PostgresStorage.chain_state (see the module's docstring). `wait`: every row verified here
    whatever the record's length (a command's, never a request's)."""
    watch.here()
    known = watch.known
    generation = watch.generation()  # before anything is read
    with storage.read() as view:
        guarded = storage.guarded(view.conn)
        edits = _edits(view)
        last, last_hash = view.head()
        still = known.seq == 0 or view.hashes([known.seq]).get(known.seq) == known.hash
        gone = _gone(known, still, last)
        if gone is not None:  # at every look while this process runs, whatever a new verification finds
            kept = watch.found(replace(known, broken=gone, generation=generation))
            return _answer(kept, last, last_hash, guarded, still, checking=False)
        due = _due(known, still, last)
        if not due and (known.broken is not None or known.failed is not None):
            return _answer(known, last, last_hash, guarded, still, checking=False)  # until the next full one
        suspect = not guarded or edits != known.edits  # an edit by hand may have been made (a sweep)
        if (due or suspect) and last > INLINE_ROWS and not wait:
            check = _full_check if due else _sweep
            started = watch.start(functools.partial(check, storage, watch, now))
            return _answer(known, last, last_hash, guarded, still, checking=started or watch.running)
        due = due or suspect
        broken = _verified(view, (0, GENESIS) if due else (known.seq, known.hash))
    if due:
        base = Known(full=monotonic(), full_at=stamp(now()), edits=edits, generation=generation)
    else:
        base = replace(known, generation=generation)
    kept = watch.found(
        replace(base, seq=0, hash=GENESIS, broken=broken) if broken else replace(base, seq=last, hash=last_hash)
    )
    return _answer(kept, last, last_hash, guarded, still=True, checking=False)


def _gone(known: Known, still: bool, last: int) -> Break | None:
    """The break a row this process verified shows once it is deleted or changed (never by the
    service: the owner, the trigger disabled): the record now ends before it (its last rows deleted,
    so the chain still verifies up to its new head), or it has another hash (the tail deleted and
    other rows chained in its place). Kept for as long as the process runs, as the event file's
    (stores/sqlite/verification.py): a full verification, which reads only the chain, would find
    it intact again. None while the row is as verified, or none is kept (a break found by a
    verification keeps none: `seq` 0)."""
    if known.seq == 0:
        return None
    if known.seq > last:
        return verified_deleted(last, known.seq)
    if not still:
        return edited_since(known.seq)
    return None


def _edits(view) -> int | None:
    row = view.conn.execute(EDITS).fetchone()
    return None if row is None else row[0]


def _prints(view, upto: int) -> tuple[bytes, ...]:
    rows = view.conn.execute(PRINTS, (PRINT_ROWS, view.event_id, upto)).fetchall()
    return tuple(bytes(row[1]) for row in rows)


def _full_check(storage, watch: Verification, now: Callable[[], object], generation: int) -> None:
    """Every row verified, off the request path, in one snapshot, and their fingerprints made: what
    was found kept, or that it failed (any error: the database away, or one this code did not foresee)."""
    try:
        with storage.read() as view:
            edits = _edits(view)
            last, last_hash = view.head()
            broken = _verified(view, (0, GENESIS))
            prints = () if broken else _prints(view, last)
        base = Known(full=monotonic(), full_at=stamp(now()), edits=edits, generation=generation)
        if broken:
            watch.found(replace(base, broken=broken))
        else:
            found = replace(base, seq=last, hash=last_hash, prints=prints, prints_upto=last, prints_hash=last_hash)
            watch.found(found)
    except Exception:
        watch.found(replace(watch.known, failed=monotonic(), generation=generation))


def _sweep(storage, watch: Verification, now: Callable[[], object], generation: int) -> None:
    """The fingerprints the last full verification made compared with the rows as they are now,
    off the request path, and the rows added since verified again: the first group that differs
    has its rows verified to name the row (or is named whole, its hashes made again to match)."""
    known = watch.known
    try:
        with storage.read() as view:
            edits = _edits(view)
            now_prints = _prints(view, known.prints_upto)
            differs = [n for n, (was, is_) in enumerate(zip(known.prints, now_prints, strict=False)) if was != is_]
            if differs or len(now_prints) != len(known.prints):
                first = (differs[0] if differs else min(len(now_prints), len(known.prints))) * PRINT_ROWS
                before = GENESIS if first == 0 else view.hashes([first]).get(first, "")
                anchors = [
                    (n, s, h) for n, s, h in view.heads() if s is not None and first < s <= first + PRINT_ROWS + 1
                ]
                rows = view.records(RecordFilter(after=first, limit=PRINT_ROWS + 1))  # and the row after them
                broken = verify_chain(rows, anchors, after=(first, before), finals=view.final_heads())
                broken = broken or Break.of(
                    "edited",
                    first + 1,
                    f"records {first + 1} to {first + PRINT_ROWS} changed after this service had verified them "
                    "(a row is never changed): the record was edited by hand",
                )
            else:
                broken = _verified(view, (known.prints_upto, known.prints_hash))  # the rows added since
        if broken:
            watch.found(replace(known, seq=0, hash=GENESIS, broken=broken, generation=generation))
        else:
            watch.found(replace(known, edits=edits, generation=generation))
    except Exception:
        watch.found(replace(known, failed=monotonic(), generation=generation))
