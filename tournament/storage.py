"""What the event's rules need from a store: the storage interface, owned by the domain.

The rules of an event (a device's name is unique, a pairing code expires and is used once, wrong
passwords lock, at most one round is open, a round is played once, what may be appended to the
record and when, an append sent twice is one row, a round's head and when it is final) are
written once, in the domain modules (sessions.py, devices.py, rounds.py, record.py), against
the Protocols below. A store (tournament/stores/: SQLite's file; a server database) implements
only storage: rows in, rows out, under one write lock per event. It decides nothing: it never
refuses a row the rules let through, nor lets one through itself; the domain reads what it needs
inside the write lock and writes what it decided.

The contract every store keeps (tests/tournament/contract/ runs the same tests against each):

- **One writer per event.** `Storage.write()` is a transaction that holds the event's write lock
  from its start to its end: no other transaction of the same event, in any thread, process or
  machine, writes between the domain's reads and its writes in it. It commits when the `with`
  block ends normally, durably (what the store promises for a commit: SQLite's synchronous=FULL
  survives a power cut) before `write()` returns; on any exception it rolls back everything
  written in it and lets the exception go on. A store waits for the lock at most BUSY_SECONDS,
  then raises errors.LockBusy and writes nothing.
- **Consistent reads.** `Storage.read()` is a View of one committed state: every method of one
  View sees the same snapshot. A View may be opened while another thread or process writes, and
  never blocks a writer for long.
- **Values as the domain gives them.** Stamps (stamps.stamp) are stored and returned as the same
  text, ids and numbers as the same int, Records with every field as written: a record row read
  back is `==` to the one inserted, so its hash (chain.row_hash, computed by the domain) is
  byte-identical in any store. Texts compare as text where a method says so (stamps of one
  format order as text as they do in time).
- **Errors.** A failure of the storage itself (the file or server unavailable, a constraint of the
  store's own violated) leaves a method as errors.StorageError (LockBusy when the lock was not
  free in time); never the driver's own exception types. A row that cannot be read back exactly
  (an edit by hand) raises chain.MalformedRow for a record and errors.Unreadable for anything
  else. A store opened to read only raises errors.ReadOnly from `write()`, before writing anything.
- **Append-only record.** Records are only inserted, never updated or deleted, by any method here.
  Their `seq` is given by the domain (one more than `head()`), never made by the store.

How to add a store: implement Storage, View and Tx below in tournament/stores/NAME/ (importing
only the domain's types: model, entry, integrity, stamps, errors, chain, rows, storage; never the
rules), and a class method `create(location, name, lexicon, created, password_hash, pin, file=None, fill=None)` that
makes a new event with those values as given (errors.EventExists when there is one, nothing
overwritten; see stores/sqlite/connection.py), with `file`'s identity and marks when given, and
calls `fill(tx)` with a Tx of the new event inside the one transaction that creates it (an event
copied whole, transfer.py: committed only if `fill` returns); let store.open_event and
store.create_event pick it from the location's form; add its name to STORES in
tests/tournament/contract/conftest.py, with a fixture `<name>_store` that starts it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Literal, Protocol, get_args

from .entry import Record
from .integrity import ChainState
from .model import EVERY_ROW, Device, Event, Pin, RecordFilter, RefusedOffline, Round

BUSY_SECONDS = 5.0  # the longest a write waits for the event's write lock, in any store (then LockBusy)

TokenKind = Literal["sessions", "login_links"]  # the two kinds of director's token, each with its own rows


def token_kind(kind: str) -> TokenKind:
    """`kind` when it is a TokenKind, for a store that names the table of its rows by it (a name
    put in SQL: never one a caller made up); ValueError otherwise."""
    kinds = get_args(TokenKind)
    if kind not in kinds:
        raise ValueError(f"a token's kind is one of {kinds}, not {kind!r}")
    return kind


class View(Protocol):
    """One consistent, read-only look at the event (see the module's docstring)."""

    # -- the event and its director --------------------------------------------------------

    def event(self) -> Event:
        """The event: its name, lexicon, creation, schema version, pinned lexicon, file identity.
        errors.NotAnEvent when the store holds no event."""
        ...

    def moved(self) -> tuple[str, str] | None:
        """When the event was moved away (`lexicon event move`) and the identity of its copy; None
        when it was not. (The rules read it in each write: keeper.py.)"""
        ...

    def copied_beside(self, identity: str) -> tuple[str, bool, str | None] | None:
        """Another event of this store that is the event of file `identity`, or was copied from it
        (moved in or restored): (its id, whether it is that event itself, when it was moved away),
        the first by id; None when there is none (always, in a file: it holds its one event).
        transfer.py refuses a restore beside it."""
        ...

    def live_twin(self, name: str, created: str, password_hash: str, source: str | None) -> str | None:
        """Another event of this store, not moved away, that is the event named `name` and made at
        `created` with the director's password hash `password_hash` (every copy of an event carries
        all three, and the hash's salt is each event's own), other than the one of file `source` (a
        move's source, live until it is marked): its id, the first; None when there is none (always,
        in a file: it holds its one event). transfer.py refuses a restore or a move beside it: the
        copy's identity need not name the event's (a backup restored into a file, then moved in)."""
        ...

    def session(self, token_hash: str) -> tuple[str, str | None] | None:
        """A director's session by its token's hash: (expires, ended), or None when unknown."""
        ...

    def director(self) -> tuple[str, str]:
        """The director's password hash and when it was last changed (a stamp)."""
        ...

    # -- devices ---------------------------------------------------------------------------

    def device(self, device_id: int) -> Device | None:
        """The device with this id (revoked ones too), or None. `device_id` is 1 to model.MAX_NUMBER."""
        ...

    def device_by_token_hash(self, token_hash: str) -> Device | None:
        """The device whose token has this hash (revoked ones too), or None."""
        ...

    def devices(self) -> list[Device]:
        """Every device (revoked ones too), by id."""
        ...

    def tokens(self) -> dict[int, str]:
        """Each device's token hash (of the devices paired at least once), by device id: what a
        copy of the event (transfer.py) carries for its phones to keep working."""
        ...

    def code(self, code_hash: str) -> tuple[int, str, str | None] | None:
        """A pairing code by its hash: (device id, expires, used), or None when unknown."""
        ...

    def link(self, token_hash: str) -> tuple[str, str | None] | None:
        """A login link by its token's hash: (expires, used), or None when unknown."""
        ...

    def login_client(self, client: str) -> tuple[int, object] | None:
        """A client address's wrong passwords in a row and the end of its lock (a stamp or None,
        as stored), or None when it has no row."""
        ...

    def failed_attempts(self, after: str) -> list[object]:
        """The times of the wrong-password attempts (not marked right) later than `after` (as
        text), in order of time, as stored."""
        ...

    def contacts(self) -> dict[int, object]:
        """Each device's last request as stored by Tx.put_contacts (by device id), as stored: a
        value edited by hand may be anything (the domain checks it)."""
        ...

    def splits(self) -> dict[int, tuple[str, str, str | None, str]]:
        """Each device's latest note of being answered by another copy of the event (Tx.put_split):
        (seen, served, missing, time), by device id."""
        ...

    def refused_offline(self, device_id: int, reason: str) -> RefusedOffline | None:
        """The device's offline verdicts refused for `reason` (Tx.put_refused_offline), or None."""
        ...

    def refused_offline_all(self) -> dict[int, dict[str, RefusedOffline]]:
        """Every device's refused offline verdicts, by device id and reason."""
        ...

    def refused_key(self, device_id: int, key: str) -> bool:
        """Whether the device had an offline verdict of this idempotency key refused, for any
        reason (Tx.add_refused_key): one lookup of the key's index, in the write lock."""
        ...

    def refused_keys(self) -> frozenset[tuple[int, str, str]]:
        """Every refused offline verdict's (device id, key, reason)."""
        ...

    def unshown_seconds(self) -> dict[int, tuple[str | None, str]]:
        """The online rows whose second opinion their phone never showed (Tx.add_unshown_second):
        (the phone's time, when noted), by row number."""
        ...

    # -- rounds ----------------------------------------------------------------------------

    def round(self, number: int) -> Round | None:
        """The round numbered `number` (1 to model.MAX_NUMBER), or None when it was not played."""
        ...

    def current_round(self) -> Round | None:
        """The open round (closed is None), or None. The domain keeps at most one open."""
        ...

    def rounds(self) -> list[Round]:
        """Every round, by number."""
        ...

    def last_round_number(self) -> int:
        """The greatest round number played, 0 when none was."""
        ...

    # -- the record ------------------------------------------------------------------------

    def head(self) -> tuple[int, str]:
        """The record's last row: (seq, hash); (0, chain.GENESIS) when it has none."""
        ...

    def record(self, seq: int) -> Record | None:
        """Row `seq` (1 to model.MAX_NUMBER), or None."""
        ...

    def record_by_key(self, idempotency_key: str) -> Record | None:
        """The row recorded with this idempotency key (at most one has it), or None."""
        ...

    def holds(self, idempotency_key: str) -> bool:
        """Whether a row with this idempotency key is recorded (an index lookup: no row is decoded)."""
        ...

    def keys_and_holders(
        self, keys: Collection[str], device_ids: Collection[int]
    ) -> tuple[set[str], dict[int, tuple[str | None, str | None, str | None]]]:
        """Which of these idempotency keys are recorded (`holds` of each: index lookups, no row
        decoded), and each of these devices that exists: (its token's hash, None while it was
        never paired; when it was revoked, None while it is not; the latest `time` of its refused
        offline verdicts, any reason, None while none: its gap counts from it too), by id; all in one query
        for any number of them (a group commit asks once for all its keys and all its appends'
        devices: record.py; in PostgreSQL one round trip in the write lock, not two)."""
        ...

    def last_of_device(self, device_id: int) -> tuple[int, object] | None:
        """The last row of a device: (seq, time as stored), or None when it has none."""
        ...

    def records(self, which: RecordFilter = EVERY_ROW) -> Iterator[Record]:
        """The rows `which` asks for (model.RecordFilter, rows.record_filter), in order of seq.

        Every row is read before this returns (the View may end before they are used); each is
        decoded as it is reached, so a row edited into nonsense raises MalformedRow there."""
        ...

    def counts(self, round: int | None) -> dict[int | None, int]:
        """The number of rows of each device (the key None: rows without a device) whose round is
        `round` (None: rows outside rounds)."""
        ...

    def last_verdicts(self) -> dict[int, tuple[object, str, str, bool, int | None]]:
        """Each device's last row (of the devices with rows): (time, lexicon id, lexicon version,
        valid, round), by device id."""
        ...

    def hashes(self, seqs: Sequence[int]) -> dict[int, str]:
        """The hash of each of these rows that exists, by seq (any number of them)."""
        ...

    def heads(self) -> list[tuple[int, int | None, str | None]]:
        """The head kept by each closed round: (number, head seq, head hash), by number."""
        ...

    def final_heads(self) -> dict[int, int]:
        """The closed rounds whose head is final (they wait for no device: `pending` None), by
        number: their head's row number. Read without decoding the rounds' other fields (a
        pending list edited into nonsense does not stop a verification)."""
        ...


class Tx(View, Protocol):
    """One write transaction holding the event's write lock (see the module's docstring). It reads
    as a View does, and sees its own writes. Every method writes exactly what it is given."""

    # -- the event and its director --------------------------------------------------------

    def set_pin(self, pin: Pin) -> None:
        """Pin the event's lexicon: every field of `pin` stored as given."""
        ...

    def set_moved(self, moved: str, to: str) -> None:
        """Mark the event moved at `moved` to the copy of identity `to` (transfer.py)."""
        ...

    def set_director(self, password_hash: str, changed: str) -> None: ...

    def end_sessions(self, ended: str) -> None:
        """Every session not ended yet ends at `ended`."""
        ...

    def end_session(self, token_hash: str, ended: str) -> None:
        """The session with this token's hash ends at `ended`, unless it has ended already."""
        ...

    def add_token(self, kind: TokenKind, token_hash: str, created: str, expires: str) -> None:
        """A new session or login link (`kind`), kept by its token's hash."""
        ...

    def drop_expired(self, kind: TokenKind, before: str) -> None:
        """Delete the sessions or login links (`kind`) whose expiry is before `before` (as text)."""
        ...

    def use_link(self, token_hash: str, used: str) -> None: ...

    def use_up_links(self, used: str) -> None:
        """Every login link not used yet is used at `used`."""
        ...

    def put_login_client(self, client: str, failures: int, locked_until: str | None) -> None:
        """A client address's row, created or replaced."""
        ...

    def forget_login_clients(self) -> None:
        """Delete every client address's row."""
        ...

    def add_attempt(self, time: str) -> int:
        """A new password attempt at `time`, counted wrong until `attempt_ok`: its id."""
        ...

    def attempt_ok(self, attempt: int) -> None:
        """The attempt `attempt` had the right password."""
        ...

    # -- devices ---------------------------------------------------------------------------

    def add_device(self, name: str, role: str, table: str | None, created: str) -> int:
        """A new device, not paired nor revoked: its id (greater than any id before it)."""
        ...

    def set_token(self, device_id: int, token_hash: str, paired: str) -> None:
        """The device's token (its hash) and when it was paired, replacing any earlier ones."""
        ...

    def set_revoked(self, device_id: int, revoked: str) -> None: ...

    def add_code(self, code_hash: str, device_id: int, created: str, expires: str) -> None:
        """A new pairing code of a device, not used yet, kept by its hash."""
        ...

    def drop_unused_codes(self, device_id: int) -> None:
        """Delete the device's pairing codes not used yet (used ones stay)."""
        ...

    def use_code(self, code_hash: str, used: str) -> None: ...

    def put_contacts(self, contacts: dict[int, str]) -> None:
        """Each device's last request ({device id: stamp}), created or replaced as given."""
        ...

    def put_split(self, device_id: int, seen: str, served: str, missing: str | None, time: str) -> None:
        """A device's latest note of being answered by another copy of the event, created or replaced."""
        ...

    def drop_split(self, device_id: int) -> None:
        """Delete the device's note of being answered by another copy of the event (if any)."""
        ...

    def put_refused_offline(self, device_id: int, reason: str, refused: RefusedOffline) -> None:
        """A device's offline verdicts refused for `reason` (refused_offline.py), created or replaced."""
        ...

    def add_refused_key(self, device_id: int, key: str, reason: str) -> bool:
        """Keep a refused offline verdict's key, for its device and reason; whether it is new
        (False: that key was refused for that reason before, and nothing is written)."""
        ...

    def add_unshown_second(self, seq: int, device_time: str | None, time: str) -> None:
        """Mark row `seq` as one whose second opinion its phone never showed (unshown_second.py);
        a row marked already keeps its first mark."""
        ...

    # -- rounds ----------------------------------------------------------------------------

    def add_round(self, number: int, opened: str) -> None:
        """A new open round. The domain never gives a number played already."""
        ...

    def close_round(self, number: int, closed: str, head: tuple[int, str], pending: tuple[int, ...] | None) -> None:
        """Round `number` closes at `closed`, with the record's head then and the devices it waits for."""
        ...

    def set_pending(self, number: int, pending: tuple[int, ...]) -> None:
        """The devices a closed round still waits for (at least one)."""
        ...

    def set_final(self, number: int, head: tuple[int, str], final: str) -> None:
        """A closed round's head taken again and final at `final`: it waits for no device."""
        ...

    # -- the record ------------------------------------------------------------------------

    def insert_records(self, records: Sequence[Record]) -> None:
        """Append these rows, in order, exactly as given (seq, time, round, hash and all: the
        domain sealed them). StorageError if a seq or an idempotency key is taken already."""
        ...

    def budget(self, client: str) -> tuple[object, int] | None:
        """A client address's budget of plays (budget.py): (start of its minute as stored, plays
        counted), or None when it has none."""
        ...

    def put_budget(self, client: str, started: str, plays: int) -> None:
        """A client address's budget, created or replaced."""
        ...


class Storage(Protocol):
    """An event's store: where its rows are kept, and the one lock its writers take."""

    location: str  # how messages name the event's storage (a file's path; a database and event)
    busy_seconds: float  # the longest write() waits for the event's write lock (BUSY_SECONDS unless a test shortens it)

    def write(self) -> AbstractContextManager[Tx]:
        """A write transaction under the event's write lock (see the module's docstring)."""
        ...

    def read(self) -> AbstractContextManager[View]:
        """A consistent view of the event as last committed (see the module's docstring)."""
        ...

    def device_by_token_hash(self, token_hash: str) -> Device | None:
        """View.device_by_token_hash as one statement, its own snapshot, with no transaction of its
        own around it (no BEGIN, no COMMIT or ROLLBACK): every request of a device reads it, so a
        device revoked or paired again is refused at once by every worker, for the least it can cost."""
        ...

    def current_round(self) -> Round | None:
        """View.current_round as one statement, its own snapshot, with no transaction of its own
        around it: a table's device, a kiosk and a caller without a device read it as each of
        their challenges is admitted, and every device's page with its heartbeat."""
        ...

    def chain_state(self, now: Callable[[], datetime], wait: bool = False) -> ChainState:
        """The record's state for the console, as this store verifies it while the service runs:
        at least every row from the first verified with chain.verify_chain against the rounds'
        heads often enough that an edit shows within seconds, without a request waiting for a
        whole long record (`wait`: it may, a command's). `now`: the event's clock, for the time
        of the last full verification."""
        ...

    def replaced(self) -> bool:
        """Whether the event's storage is no longer the one this store opened, so that nothing
        written now would be read by anyone (SQLite: another file, or none, at the event's path;
        write() refuses then). A store that cannot be replaced under it answers False."""
        ...

    def failed(self) -> str | None:
        """Why this store refuses every write and read until the service restarts (SQLite: the disk
        failed a write or a sync of the log, so a verdict may not be on disk), or None."""
        ...

    def may_alter_guard(self) -> str | None:
        """Why the role this store connects as could switch the record's append-only guard off
        (drop or disable a database's trigger, as its owner or a superuser may, or keep it from
        firing in its sessions, as a role that may set session_replication_role may) and so
        rewrite the record unseen: the role and why ("lexicon_owner, which owns the database");
        None when it could not. A store with no roles answers None (SQLite: a file's guard is whoever can edit the file). The service
        refuses to serve an event through a store that answers otherwise (the docs promise that
        the instances never connect as the owner); commands that must be the owner still may."""
        ...

    def close(self) -> None:
        """Release this thread's or process's resources (connections, the lock's file)."""
        ...
