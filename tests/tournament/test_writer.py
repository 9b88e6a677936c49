"""Group commit in a gevent worker (tournament/writer.py): the verdicts waiting at one
moment share a transaction, the rules read inside the write lock still hold request by request,
and a writer waiting for the lock no longer stops the worker's other greenlets.

Each test runs a child process that does what gunicorn's gevent worker does: the store is opened
first (the app is preloaded in the master), then gevent patches the standard library, then many
greenlets append at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import sqlite3
import subprocess
import sys
import threading

import pytest

from tournament import verify
from tournament.writer import SWITCH_SECONDS

from .conftest import entry

# Each test runs a gevent child process (about half a second): most are in the slow tier; the group
# commit of a gevent worker keeps one test in the fast tier (`make check`), the only one there that
# runs it as gunicorn's gevent worker does (every verdict through the writer thread).
slow = pytest.mark.slow

WORKER = r"""
import json, sys, time
from tournament import Entry, IdempotencyConflict, RateLimited, StorageError, open_event

db = open_event(sys.argv[1], synchronous=sys.argv[2])  # before patching, as in gunicorn's master
from gevent import monkey
monkey.patch_all()
import gevent

def play(**fields):
    values = dict(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32, notation="spelling",
                  words=("CASA",), tiles=("CASA",), valid=True)
    values.update(fields)
    return Entry(**values)

def ask(kind, n):
    try:
        if kind == "plain":
            rows = db.append_many([play(device_id=1, device_name="Juez 1", role="judge"),
                                   play(device_id=1, device_name="Juez 1", role="judge", valid=False)])
        elif kind == "table":  # one challenge per 10 s: exactly one of these may pass
            rows = [db.append(play(device_id=2, device_name="Mesa 12", role="table", table="12"), 10)]
        elif kind == "replay":  # the same verdict sent again and again: one row
            rows = [db.append(play(idempotency_key="offline-1"))]
        else:  # the same key with another verdict: refused, whichever comes second
            rows = [db.append(play(idempotency_key="offline-1", valid=False))]
        return [kind, "ok", [row.seq for row in rows]]
    except (RateLimited, IdempotencyConflict, StorageError) as refused:
        return [kind, type(refused).__name__, []]

ticks = 0
def ticker():  # another connection of the worker: it must run while the writer waits
    global ticks
    while True:
        gevent.sleep(0.001)
        ticks += 1

print("ready", flush=True)
sys.stdin.readline()  # the test may hold the write lock now
beat = gevent.spawn(ticker)
kinds = ["plain"] * 150 + ["table"] * 20 + ["replay"] * 10 + ["conflict"]
started = time.perf_counter()
asked = [gevent.spawn(ask, kind, n) for n, kind in enumerate(kinds)]
if sys.argv[3] == "held":  # the test holds the write lock until told how the worker went on meanwhile
    def waiting():  # handed to the writer thread, which waits for the lock (or, were there none, all done)
        return not all(g.ready() for g in asked) and db._writer._line is not None and not db._writer._line.idle
    while not waiting() and not all(g.ready() for g in asked):
        gevent.sleep(0.001)
    counted = ticks
    while ticks < counted + 25:  # the other connections go on (none would, were the loop blocked on flock)
        gevent.sleep(0.001)
    print(json.dumps({"answered": sum(g.ready() for g in asked)}), flush=True)
gevent.joinall(asked)
beat.kill()
print(json.dumps({"answers": [g.value for g in asked], "ticks": ticks, "seconds": time.perf_counter() - started,
                  "batches": db._writer.batches, "appended": db._writer.appended,
                  "switch": sys.getswitchinterval()}), flush=True)
"""


def run_worker(event_path, synchronous: str, hold_lock: bool = False) -> dict:
    """The WORKER's result; with `hold_lock`, the test holds the write lock (as the other worker
    process would, in a long write) until the worker says how it went on while its appends waited
    (`held`: how many were answered, and whether the lock was still held then)."""
    child = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(event_path), synchronous, "held" if hold_lock else "free"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    held = None
    try:
        assert child.stdout.readline() == "ready\n"
        lock = os.open(f"{event_path}-lock", os.O_RDWR | os.O_CREAT, 0o600)
        letting_go = threading.Timer(60, fcntl.flock, (lock, fcntl.LOCK_UN))  # a worker blocked on it ends
        try:
            if hold_lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                letting_go.start()
            child.stdin.write("go\n")
            child.stdin.flush()
            if hold_lock:
                held = json.loads(child.stdout.readline()) | {"lock_held": letting_go.is_alive()}
        finally:
            letting_go.cancel()
            os.close(lock)  # releases the lock
        out, _ = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0
    return json.loads(out) | {"held": held}


@contextlib.contextmanager
def gevent_child(event_path, script: str):
    """A child process running `script` on the event (it prints "ready", then waits for a line), killed
    if it still runs when the block ends."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(event_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "ready\n"
        yield child
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def say(child, line: str) -> None:
    child.stdin.write(f"{line}\n")
    child.stdin.flush()


@contextlib.contextmanager
def lock_held(event_path, child):
    """The event's write lock held by the test, as the other worker process would in its commit, and
    the child told to go; released as the block ends."""
    lock = os.open(f"{event_path}-lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        say(child, "go")
        yield
    finally:
        os.close(lock)  # releases the lock


@pytest.mark.parametrize("synchronous", ["FULL", pytest.param("NORMAL", marks=slow)])
def test_concurrent_appends_share_commits_and_every_rule_holds_per_request(db, event_path, synchronous):
    db.append(entry())  # a row before: the chain continues from it
    result = run_worker(event_path, synchronous)
    answers = result["answers"]
    assert result["appended"] == len(answers) and result["batches"] < len(answers) / 4  # grouped
    # the writer thread waits at most this long for the loop's thread to yield the GIL (not 5 ms)
    assert result["switch"] <= SWITCH_SECONDS
    by_kind = {
        kind: [(status, seqs) for k, status, seqs in answers if k == kind]
        for kind in ("plain", "table", "replay", "conflict")
    }
    assert all(status == "ok" and len(seqs) == 2 for status, seqs in by_kind["plain"])
    assert sorted(status for status, _ in by_kind["table"]) == ["RateLimited"] * 19 + ["ok"]
    replayed = {tuple(seqs) for _, seqs in by_kind["replay"]}
    assert len(replayed) == 1 and all(status == "ok" for status, _ in by_kind["replay"])
    assert by_kind["conflict"] == [("IdempotencyConflict", [])]
    rows = list(db.records())
    assert len(rows) == 1 + 150 * 2 + 1 + 1
    numbers = sorted({seq for _, _, seqs in answers for seq in seqs})
    assert numbers == list(range(2, len(rows) + 1)) and verify(db) is None  # no gap, no fork, chain intact
    plays = {seqs[0]: seqs[1] for kind, _, seqs in answers if kind == "plain"}
    assert len(plays) == 150 and all(
        second == first + 1 for first, second in plays.items()
    )  # a batch's plays stay together


@slow
def test_a_writer_waiting_for_the_lock_leaves_the_worker_running(db, event_path):
    """The other worker holds the write lock: the greenlets waiting to record wait in the writer
    thread, and the worker's other connections (a 1 ms ticker) go on meanwhile. The lock is held
    until the worker has ticked 25 times with its appends handed over (without the writer thread
    it never would: the loop blocked on flock), not for a time the test guesses is enough."""
    result = run_worker(event_path, "FULL", hold_lock=True)
    assert result["held"] == {"answered": 0, "lock_held": True}  # the appends waited; the worker went on
    assert len(list(db.records())) == 302 and verify(db) is None


LOGIN = r"""
import json, sys, time
from tournament import open_event

db = open_event(sys.argv[1])  # before patching, as in gunicorn's master
from gevent import monkey
monkey.patch_all()
import gevent

ticks = 0
def ticker():  # another connection of the worker: it must run while the password is checked
    global ticks
    while True:
        gevent.sleep(0.001)
        ticks += 1

beat = gevent.spawn(ticker)
gevent.sleep(0.01)
started, counted = time.perf_counter(), ticks
login = db.check_password("not-the-password")
print(json.dumps({"ok": login.ok, "ticks": ticks - counted, "seconds": time.perf_counter() - started}))
"""


@slow
def test_checking_the_directors_password_leaves_the_worker_running(db, event_path):
    """scrypt takes a sixth of a second or more: in the loop it stopped every verdict of the worker
    meanwhile (2 ticks of a 1 ms ticker); in gevent's thread pool the others go on."""
    out = subprocess.run(
        [sys.executable, "-c", LOGIN, str(event_path)], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    result = json.loads(out)
    assert result["ok"] is False and result["seconds"] >= 0.05  # the slow hash was checked
    assert result["ticks"] >= 20  # far below a sixth of a second's worth on a quiet machine


DISK_FULL = r"""
import json, sys
from tournament import Entry, RoundError, StorageError, open_event

db = open_event(sys.argv[1])  # before patching, as in gunicorn's master
from gevent import monkey
monkey.patch_all()
import gevent

def full(conn_pages):  # in the writer thread, on its connection: the disk holds no more pages
    conn = db._storage._conn()
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0] + conn_pages}")

def ask(n):
    try:
        rows = db.append_many([Entry(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32,
                                     notation="spelling", words=("CASA" * 20,) * 8, tiles=("CASA" * 20,) * 8,
                                     valid=True, table=str(n))] * 3)
        return [n, "ok", [row.seq for row in rows]]
    except StorageError:
        return [n, "StorageError", []]

db._writer.call(full, 2)
first = []
for wave in range(6):  # several groups: whichever fails, fails whole
    first += [gevent.spawn(ask, n) for n in range(10 * wave, 10 * wave + 10)]
    gevent.sleep(0.005)
gevent.joinall(first)
try:
    db.close_round()  # a director's action refused in the writer thread
except RoundError:
    pass
db._writer.call(full, 10_000)  # space again
after = gevent.spawn(ask, 60)
after.join()
print(json.dumps([g.value for g in first + [after]]))
"""


@slow
def test_a_full_disk_fails_whole_groups_and_the_record_goes_on_after(db, event_path):
    """Disk full in the middle of group commits (SQLite's max_page_count standing in for the disk):
    every verdict of a failed transaction is refused (no verdict given) and none of its rows is
    kept; every verdict answered has its rows, in order; once there is room, the record goes on.
    Nothing reaches standard error: gevent printed a traceback for each failed transaction, and
    for each director's action refused (here, closing a round when none is open)."""
    done = subprocess.run(
        [sys.executable, "-c", DISK_FULL, str(event_path)], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stderr == ""
    answers = json.loads(done.stdout)
    refused = [n for n, status, _ in answers if status == "StorageError"]
    answered = {n: seqs for n, status, seqs in answers if status == "ok"}
    assert refused and 60 in answered  # the disk did fill up, and room brought the record back
    rows = list(db.records())
    assert sorted(seq for seqs in answered.values() for seq in seqs) == [row.seq for row in rows]
    assert all(row.entry.table == str(n) for n, seqs in answered.items() for row in rows if row.seq in seqs)
    assert verify(db) is None


LOCKED = r"""
import json, sys, time
from tournament.stores.sqlite import connection
connection.BUSY_SECONDS = float(sys.argv[2])  # the bound, shortened for the test
from tournament import Entry, StorageError, open_event

db = open_event(sys.argv[1])  # before patching, as in gunicorn's master
from gevent import monkey
monkey.patch_all()
import gevent

def ask(kind):
    started = time.perf_counter()
    try:
        if kind == "append":
            db.append(Entry(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32,
                            notation="spelling", words=("CASA",), tiles=("CASA",), valid=True))
        else:  # a director's write: one call in the writer thread
            db.open_round()
        outcome = "ok"
    except StorageError:
        outcome = "StorageError"
    return [kind, outcome, time.perf_counter() - started]

print("ready", flush=True)
sys.stdin.readline()  # the test holds the lock now
asked = [gevent.spawn(ask, kind) for kind in ["append"] * 10 + ["round"]]
gevent.joinall(asked)
print(json.dumps([g.value for g in asked]), flush=True)
sys.stdin.readline()  # the lock is free again
print(json.dumps(ask("append")), flush=True)
"""


@slow
@pytest.mark.parametrize("holder", ["flock", "sqlite"])
def test_a_lock_held_elsewhere_is_given_up_after_one_bound_and_nothing_is_written_late(db, event_path, holder):
    """Another process holds the lock file (a `flock`, which waits for ever) or SQLite's own lock
    (which waits busy_timeout): either way each write gives up after BUSY_SECONDS, and none of
    them is written when the lock comes free; the next write is."""
    seconds = 1.0
    child = subprocess.Popen(
        [sys.executable, "-c", LOCKED, str(event_path), str(seconds)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "ready\n"
        if holder == "flock":
            lock = os.open(f"{event_path}-lock", os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(lock, fcntl.LOCK_EX)
            release = functools.partial(fcntl.flock, lock, fcntl.LOCK_UN)  # twice is harmless
        else:
            other = sqlite3.connect(event_path, isolation_level=None, check_same_thread=False)
            other.execute("BEGIN IMMEDIATE")
            release = other.close  # rolls back and lets go; twice is harmless
        letting_go = threading.Timer(seconds + 5, release)  # a writer that waits for the holder ends
        letting_go.start()
        try:
            child.stdin.write("go\n")
            child.stdin.flush()
            answers = json.loads(child.stdout.readline())
        finally:
            letting_go.cancel()
            letting_go.join()
            release()
            if holder == "flock":
                os.close(lock)
        child.stdin.write("free\n")
        child.stdin.flush()
        after = json.loads(child.stdout.readline())
        child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert [(kind, outcome) for kind, outcome, _ in answers] == [("append", "StorageError")] * 10 + [
        ("round", "StorageError")
    ]
    assert all(seconds * 0.9 <= waited < seconds + 3 for _, _, waited in answers)  # the bound, not the holder's
    assert after[:2] == ["append", "ok"]
    assert len(list(db.records())) == 1 and db.rounds() == [] and verify(db) is None


# What the children below share: the store opened before gevent patches the standard library (as in
# gunicorn's master), `ask(n)` (one verdict for table n: its row number, or the StorageError's text)
# `handed_over()` (until the verdicts are given to the writer thread, awake, which waits for the lock),
# `go()` and `first_handed_over_then(more)`.
CHILD = r"""
import json, sys
from tournament import Entry, StorageError, open_event

db = open_event(sys.argv[1])
from gevent import monkey
monkey.patch_all()
import gevent

def ask(n):
    try:
        return db.append(Entry(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32,
                               notation="spelling", words=("CASA",), tiles=("CASA",), valid=True, table=str(n))).seq
    except StorageError as error:
        return str(error)

def handed_over():  # given to the writer thread, which is awake (and waits for the lock)
    while db._writer._line is None or db._writer._line.idle:
        gevent.sleep(0.001)

def go():  # once the test, told "ready", holds the lock
    print("ready", flush=True)
    sys.stdin.readline()

def first_handed_over_then(more):  # a verdict's transaction handed over, then `more` callers waiting
    asked = [gevent.spawn(ask, 0)]
    handed_over()
    asked += [gevent.spawn(ask, n) for n in range(1, more + 1)]
    while len(db._writer._waiting) < more + 1:
        gevent.sleep(0.001)
    return asked
"""

HELD = (
    CHILD
    + r"""
go()
asked = first_handed_over_then(20)
print("waiting", flush=True)
gevent.joinall(asked)
print(json.dumps({"seqs": [g.value for g in asked], "batches": db._writer.batches}), flush=True)
"""
)


@slow
def test_the_verdicts_that_arrive_while_the_lock_is_held_elsewhere_join_the_waiting_transaction(db, event_path):
    """The other worker holds the write lock while one verdict's transaction waits for it and twenty
    more arrive: once it holds the lock, the transaction takes all 21 (one commit, one fsync), where it
    wrote the one it was handed and left the twenty for a second transaction, which had to wait for
    the lock again (the other worker's commit between them, under load)."""
    with gevent_child(event_path, HELD) as child:
        with lock_held(event_path, child):
            assert child.stdout.readline() == "waiting\n"
        out, _ = child.communicate(timeout=120)
    result = json.loads(out)
    assert result["seqs"] == list(range(1, 22))  # in the order they came, none lost or doubled
    assert result["batches"] == 1


STOPPED = (
    CHILD
    + r"""
go()
asked = first_handed_over_then(5)
db._writer.close()  # as the store closing does
gevent.joinall(asked)
print(json.dumps([g.value for g in asked]), flush=True)
sys.stdin.readline()  # the lock is free again
db._writer.call(lambda: None)  # after whatever the writer thread still had to do
print(json.dumps(len(list(db.records()))), flush=True)
"""
)


@slow
def test_verdicts_answered_unknown_when_the_writer_closes_are_not_written_after(db, event_path):
    """The writer closes (the store closed: Writer.close) while the verdicts wait for the lock held
    elsewhere: each is answered that it is not known to be recorded, at once, and none of them is
    written when the lock comes free (the writer thread, still waiting for it, used to write the
    verdicts it had been handed)."""
    with gevent_child(event_path, STOPPED) as child:
        with lock_held(event_path, child):
            answers = json.loads(child.stdout.readline())
        say(child, "free")
        written = json.loads(child.stdout.readline())
        child.communicate(timeout=60)
    assert answers == ["the event's writer stopped before this verdict was known to be recorded"] * 6
    assert written == 0 and len(list(db.records())) == 0


AFTER_KILL = (
    CHILD
    + r"""
go()
first = gevent.spawn(ask, 0)
handed_over()
db._writer.close()  # the store closing
second = gevent.spawn(ask, 1)  # a request still served after: a new writer thread, its own transaction
while not db._writer._waiting:
    gevent.sleep(0.001)
print("waiting", flush=True)
gevent.joinall([first, second])
db._writer.call(lambda: None)  # after whatever the writer thread still had to do
print(json.dumps({"answers": [first.value, second.value], "rows": [r.entry.table for r in db.records()]}), flush=True)
"""
)


@slow
def test_a_verdict_after_the_writer_closed_is_written_by_its_own_transaction_and_answered(db, event_path):
    """The writer closes while its thread's transaction waits for the lock held elsewhere, and another
    verdict comes: that transaction, once it holds the lock, must not take the new verdict (it did,
    writing a row nobody was answered for, while the new one found nothing to take and failed)."""
    with gevent_child(event_path, AFTER_KILL) as child:
        with lock_held(event_path, child):
            assert child.stdout.readline() == "waiting\n"
        out, errors = child.communicate(timeout=60)
    result = json.loads(out)
    assert result == {
        "answers": ["the event's writer stopped before this verdict was known to be recorded", 1],
        "rows": ["1"],
    }
    assert errors == ""  # no traceback on standard error (the service's log is JSON lines)


FAILED_AFTER_KILL = (
    CHILD
    + r"""
native_lock = monkey.get_original("_thread", "allocate_lock")
held, ended = native_lock(), native_lock()
held.acquire()
ended.acquire()
real_one_in, real_commit = db._one_in, db._commit
def one_in(tx, request, group):  # it claims the verdict, waits, then makes its row, then fails
    request.ticket.claim()  # as real_one_in does first (a claim again is the same claim)
    held.acquire()
    real_one_in(tx, request, group)  # request.outcome: its rows, in a transaction that will not commit
    raise StorageError("the disk failed at COMMIT")
def commit(appends):
    try:
        real_commit(appends)
    finally:
        ended.release()  # the writer thread is done with the transaction
db._one_in, db._commit = one_in, commit

caller = gevent.spawn(ask, 1)
while not db._writer._waiting:
    gevent.sleep(0.001)
(request, _), = db._writer._waiting.values()
while "writer" not in request.ticket._turns:
    gevent.sleep(0.001)  # until the writer thread has claimed it
db._writer.close()  # the store closing: the caller is to be told it is not known to be recorded
held.release()
ended.acquire()  # the loop busy (not yielding) while the writer thread makes the row and fails
caller.join()
db._writer.call(lambda: None)
print(json.dumps({"answer": caller.value, "rows": len(list(db.records()))}), flush=True)
"""
)


@slow
def test_a_caller_answered_unknown_by_a_closed_writer_is_not_told_a_row_its_transaction_then_failed(db, event_path):
    """The writer closes while its thread holds the caller's verdict claimed; the thread then makes
    its row and the transaction fails. The caller is answered from what the loop handed it
    (not known to be recorded), never from the row the thread made after (it was told row 1, which
    was never committed)."""
    done = subprocess.run(
        [sys.executable, "-c", FAILED_AFTER_KILL, str(event_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "answer": "the event's writer stopped before this verdict was known to be recorded",
        "rows": 0,
    }


DEADLINES = r"""
import json, time
from gevent import monkey
monkey.patch_all()
import gevent
from tournament.errors import StorageError
from tournament.group_commit import Append
from tournament.writer import Writer

SECONDS = 0.5
writer = Writer(SECONDS)
gate = monkey.get_original("_thread", "allocate_lock")()  # holds the writer thread, not the loop
claims, mode = [], ["stuck"]

def commit(appends):  # as record.py's _commit: claims each append once it holds the lock, then writes it
    if mode[0] == "claimed":  # it holds the lock, then its write takes long (a slow disk)
        claims.extend(append.ticket.claim() for append in appends)
    gate.acquire()
    gate.release()
    for append in appends:
        if mode[0] == "stuck":  # it got the lock only now, after its callers' deadline
            claims.append(append.ticket.claim())
        append.outcome = ["row"] if claims[-1] else StorageError("not claimed: not written")

def ask(after):
    gevent.sleep(after)
    started = time.monotonic()
    try:
        outcome = writer.append(Append([]), commit)
    except StorageError as error:
        outcome = str(error)
    return outcome, started, time.monotonic()

def run(afters, hold=None):  # callers appending `afters` seconds in; the writer thread let go at `hold`,
    # or (None) once every caller is answered: before the thread goes on, as they must be (10 s: they were not)
    asked = [gevent.spawn(ask, after) for after in afters]
    if hold is None:
        gevent.joinall(asked, timeout=10)
    else:
        gevent.sleep(hold)
    let_go = time.monotonic()
    gate.release()
    gevent.joinall(asked)
    while not writer._line.idle:
        gevent.sleep(0.01)
    return [[outcome, answered - started, answered < let_go] for outcome, started, answered in (g.value for g in asked)]

gate.acquire()
stuck = run([0, 0.2])
gate.acquire()
mode[0] = "claimed"
claimed = run([0], 0.9)
print(json.dumps({"stuck": stuck, "claimed": claimed, "claims": claims}), flush=True)
"""


@slow
def test_a_caller_gives_up_at_its_own_deadline_unless_its_write_was_claimed_by_then():
    """Each caller waits for its write `seconds` from its own append (the writer's watcher keeps
    every deadline, one greenlet for all): two verdicts whose transaction cannot claim them in
    time (the writer thread stuck, past the lock's own bound) are each answered 503 at its own
    deadline, before the thread goes on, and are not written after; a verdict claimed in time
    (its transaction holds the lock, and commits slowly) is waited for past its deadline, and
    answered its row."""
    done = subprocess.run([sys.executable, "-c", DEADLINES], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    gave_up = "the event's write lock was not free within 0.5 s (another process holds it); nothing was written"
    for outcome, waited, before_the_thread in result["stuck"]:
        assert outcome == gave_up and before_the_thread
        assert waited >= 0.45  # its own deadline, the second's 0.2 s after the first's (not at the first's)
    assert result["claims"][:2] == [False, False]  # the thread, going on, wrote neither
    [[outcome, waited, before_the_thread]] = result["claimed"]
    assert outcome == ["row"] and waited >= 0.85 and not before_the_thread
    assert result["claims"][2:] == [True]


ENDED = r"""
import json
from gevent import monkey
monkey.patch_all()
import gevent
from tournament.errors import StorageError
from tournament.group_commit import Append
from tournament.writer import Writer

writer = Writer(5.0)
def ending(appends):  # what no transaction catches, in the writer thread
    raise SystemExit("the writer thread's end")
def commit(appends):
    for append in appends:
        append.ticket.claim()
        append.outcome = ["row"]
def ask(commit):
    try:
        return writer.append(Append([]), commit)
    except StorageError as error:
        return str(error)
first = gevent.spawn(ask, ending)
first.join(timeout=10)
second = gevent.spawn(ask, commit)
second.join(timeout=10)
print(json.dumps([first.value, second.value, writer.batches]), flush=True)
"""


@slow
def test_a_writer_thread_that_ends_answers_its_callers_and_the_next_verdict_starts_another():
    """The writer thread ended by what no transaction catches: its callers are answered that their
    verdicts are not known to be recorded (not left to wait for their deadline), and the next verdict
    gets a new thread, and its row."""
    done = subprocess.run([sys.executable, "-c", ENDED], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        "the event's writer stopped before this verdict was known to be recorded",
        ["row"],
        1,
    ]


CLOSED = r"""
import gc, json, os, time, weakref
from gevent import monkey
monkey.patch_all()
import gevent
from tournament.errors import StorageError
from tournament.group_commit import Append
from tournament.writer import Writer

gate = monkey.get_original("_thread", "allocate_lock")()  # holds the writer thread in its transaction
def threads():
    return len(os.listdir("/proc/self/task"))

entered = []  # the writer thread's transactions begun (list.append: atomic across threads)

class Book:  # stands for the event whose store a writer writes (RecordBook's _commit is bound to it)
    def commit(self, appends):
        entered.append(True)
        gate.acquire()
        gate.release()
        for append in appends:
            append.ticket.claim()
            append.outcome = ["row"]

def ask(writer, book):
    try:
        return writer.append(Append([]), book.commit)
    except StorageError as error:
        return str(error)

before, books, answers = threads(), [], []
for n in range(20):
    writer, book = Writer(5.0), Book()
    books.append(weakref.ref(book))
    held = n % 2 == 0  # every other writer is closed in the middle of its transaction
    if held:
        gate.acquire()
    entered.clear()
    asked = gevent.spawn(ask, writer, book)
    if held:  # until the writer thread is in its transaction, held there by the gate
        for _ in range(20000):
            if entered:
                break
            gevent.sleep(0.001)
    else:  # until its caller is answered: the writer idle
        asked.join(timeout=10)
    writer.close()  # as the federation's service closes an event it has not used lately
    if held:
        gate.release()
    asked.join(timeout=10)
    answers.append(asked.value)
    del writer, book, asked
deadline = time.monotonic() + 30  # only how long a broken run takes to say so: a loaded machine may need seconds
while time.monotonic() < deadline:  # each ended thread's last hand-over is answered in the loop
    gevent.sleep(0.02)
    gc.collect()
    if threads() == before and not any(ref() for ref in books[1::2]):
        break
# the events of the writers closed idle; those closed in a transaction are kept a while longer, by
# their callers' StorageError (its traceback's frames), until the deadline the watcher greenlet
# sleeps to has passed (5 s here): then they go too
print(json.dumps({"threads": threads() - before, "books": sum(1 for ref in books[1::2] if ref()), "answers": answers}), flush=True)
"""


@slow
def test_a_closed_writer_ends_its_thread_and_holds_nothing_of_its_event():
    """A writer closed, idle or in the middle of a transaction (the federation's service closes the
    events it has not used lately): its thread ends (closed in a transaction, it used to wait for a
    wake-up that never came), and nothing of it (its signal in the loop, the event's commit) is kept,
    so closed events do not pile up in a worker; the caller it was writing for when it closed is
    answered that its verdict is not known to be recorded."""
    done = subprocess.run([sys.executable, "-c", CLOSED], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["threads"] == 0 and result["books"] == 0
    assert result["answers"][0::2] == ["the event's writer stopped before this verdict was known to be recorded"] * 10
    assert result["answers"][1::2] == [["row"]] * 10


CALL_ENDED = r"""
import json
from gevent import monkey
monkey.patch_all()
import gevent
from tournament.errors import StorageError
from tournament.tickets import claim_current
from tournament.writer import Writer

writer = Writer(0.5)
def ending():  # a director's action that holds the lock, then what no call catches ends the thread
    claim_current()
    raise SystemExit("the writer thread's end")
def ask(method):
    try:
        return writer.call(method)
    except StorageError as error:
        return str(error)
first = gevent.spawn(ask, ending)
first.join(timeout=3)
second = gevent.spawn(ask, lambda: "done")
second.join(timeout=3)
print(json.dumps([first.value, second.value]), flush=True)
"""


@slow
def test_a_directors_call_running_when_the_writer_thread_ends_is_answered():
    """The writer thread ended, by what no call catches, in the middle of a director's call it had
    claimed (past the deadline's give-up): the caller is answered that it is not known to be done,
    not left waiting for ever, and the next call gets a new thread."""
    done = subprocess.run([sys.executable, "-c", CALL_ENDED], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        "the event's writer stopped before this verdict was known to be recorded",
        "done",
    ]


FORKED = r"""
import json, os, sys
from tournament import Entry, StorageError, open_event

db = open_event(sys.argv[1], synchronous="FULL")
from gevent import monkey
monkey.patch_all()
import gevent

def play():
    return Entry(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32, notation="spelling",
                 words=("CASA",), tiles=("CASA",), valid=True, device_id=1, device_name="Juez 1", role="judge")

print("ready", flush=True)
sys.stdin.readline()
first = db.append(play()).seq  # this process's writer thread is running now
child = os.fork()  # gevent's fork: the child's loop is made anew; no thread survives a fork
if child == 0:
    try:
        print(json.dumps({"child": db.append(play()).seq}), flush=True)
    except StorageError as error:
        print(json.dumps({"child": str(error)}), flush=True)
    os._exit(0)
os.waitpid(child, 0)
print(json.dumps({"parent": [first, db.append(play()).seq]}), flush=True)
"""


@slow
def test_a_forked_process_writes_through_a_writer_thread_of_its_own(db, event_path):
    """A writer's thread serves the process that started it: a process forked after it started
    starts its own at its first write (the process's id, kept at each fork), instead of handing its
    verdict to a thread that does not exist in it and waiting out the deadline."""
    with gevent_child(event_path, FORKED) as child:
        say(child, "go")
        out, _ = child.communicate(timeout=60)
    said = [json.loads(line) for line in out.splitlines()]
    assert said == [{"child": 2}, {"parent": [1, 3]}]
