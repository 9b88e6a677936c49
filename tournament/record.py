"""The record: appending verdicts (chained, one row per play) and reading them back.

Appends go through the event's Writer (writer.py): directly in the calling thread, or in a
gevent worker grouped with the other appends waiting at the same moment into one transaction
(one Tx of the store, its rows inserted together at its end). What may be appended, and when (the
round, a device's gap, an address's budget, a key sent again), is decided here, inside the
store's write lock, from what the store reads back: a store only keeps the rows (storage.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from datetime import datetime

from .budget import Budget, charge
from .chain import row_intact, seal, verify_chain
from .entry import Entry, Record
from .errors import (
    DeviceGone,
    IdempotencyConflict,
    LastKeyMissing,
    OfflineRefused,
    RateLimited,
    RoundRefused,
    StorageError,
    TournamentError,
)
from .group_commit import Append
from .integrity import Break, ChainState
from .keeper import Keeper
from .model import EVERY_ROW, MAX_NUMBER, OfflineRefusal, RecordFilter
from .refused_offline import note_refusal
from .stamps import parse_stamp, read_stamp, stamp
from .storage import Tx, View
from .unshown_second import note_unshown, unshown


def _placed(view: View, entry: Entry) -> int | None:
    """The round an offline verdict is filed in: the one its phone showed, if that round was open
    at the phone's time (`device_time`, believed within the service's bounds), even if it has
    closed since, as long as its head is not final (a row filed after it would lie outside the
    head the director copied); otherwise none (outside rounds), and the row's shown round, not its
    round, says what the players saw: never moved to another round. 0: the phone showed none."""
    if not entry.shown_round:
        return None
    shown = view.round(entry.shown_round)
    if shown is None or (shown.closed is not None and shown.pending is None):  # not played, or its head is final
        return None
    where = f"rounds of round {entry.shown_round}"
    moment = parse_stamp(entry.device_time)
    opened = read_stamp(shown.opened, where)
    closed = None if shown.closed is None else read_stamp(shown.closed, where)
    return entry.shown_round if opened <= moment and (closed is None or moment <= closed) else None


class _Group:
    """What the requests of one write transaction share (RecordBook._commit): the open round and
    the chain's head, read by the first and carried on by each that writes (nothing else writes
    while the transaction holds the lock, so they are read once a group commit, not once a
    request); which of the group's idempotency keys (its entries' and its last keys) the record
    held when the transaction began, and the token and revocation of the devices its requests
    name (`holders`: the authority on a device the service read from its cache of live devices),
    read in one query with the latest time each was refused an offline verdict; and the rows
    written since, by key, and each device's last one (`latest`), and its refusals (`refused`).

    The rows wait in `unwritten` and reach the store together as the group ends (`flush`): one
    INSERT a group commit, not one a request, in the write lock; and nothing of a request is in
    the store before it can no longer be refused, so a refused one leaves the store and the group
    as it found them (`wrote`: called only once it has succeeded), with no savepoint to roll back
    to. Nothing the transaction reads meanwhile needs them in the store: the head, the keys and a
    device's last row of the group are the group's own."""

    __slots__ = ("head", "held", "holders", "latest", "refused", "unwritten", "written")

    def __init__(self) -> None:
        self.held: set[str] = set()  # the group's keys the record held as the transaction began
        self.holders: dict[int, tuple[str | None, str | None, str | None]] = {}  # id: (token hash, revoked, refused)
        self.written: dict[str, Record] = {}
        self.head: list = []  # [round number, last seq, its hash], once the first request read them
        self.unwritten: list[Record] = []  # the rows of the requests that succeeded, not inserted yet
        self.latest: dict[int, tuple[int, str]] = {}  # device id: (seq, time) of its last row of the group
        self.refused: dict[int, str] = {}  # device id: the time of its last refused offline verdict of the group

    def look_up(self, tx: Tx, requests: Sequence[Append]) -> None:
        """Look up the keys of the group's requests and their devices, in one query."""
        keys = {request.last_key for request in requests}
        keys.update(entry.idempotency_key for request in requests for entry in request.entries)
        keys.discard(None)
        devices = {request.holder[0] for request in requests if request.holder is not None}
        # every device of the group: those with a gap, which counts from a refused offline verdict
        # too, those refused one, and those that may send a refused one's key online (`was_refused`)
        devices.update(entry.device_id for request in requests for entry in request.entries)
        devices.discard(None)
        if keys or devices:
            self.held, self.holders = tx.keys_and_holders(keys, devices)

    def admit(self, holder: tuple[int, str]) -> None:
        """DeviceGone unless the device (id, token hash) still holds that token and is not revoked,
        as the transaction read them: nothing is written for a device revoked or paired again."""
        device_id, token_hash = holder
        stored = self.holders.get(device_id)
        if stored is None or stored[0] != token_hash:
            raise DeviceGone(device_id, False)
        if stored[1] is not None:
            raise DeviceGone(device_id, True)

    def last_moment(self, tx: Tx, device_id: int) -> datetime | None:
        """When the device last took a verdict, for its gap: its last row or its last refused
        offline verdict (refused_offline.py), whichever came later; None: neither."""
        row = self.last_of_device(tx, device_id)
        times = [] if row is None else [read_stamp(row[1], f"records.time of row {row[0]}")]
        refused = self.refused.get(device_id) or self.holders.get(device_id, (None, None, None))[2]
        if refused is not None:
            times.append(read_stamp(refused, f"refused_offline.time of device {device_id}"))
        return max(times, default=None)

    def holds(self, key: str) -> bool:
        return key in self.written or key in self.held

    def was_refused(self, tx: Tx, device_id: int | None, key: str) -> bool:
        """Whether `key` is one of the device's refused offline verdicts' (any of them, of either
        reason): one indexed query, and only for a device refused one (its time, read with the
        group's devices)."""
        if device_id is None or (self.refused.get(device_id) or self.holders.get(device_id, (None,) * 3)[2]) is None:
            return False
        return tx.refused_key(device_id, key)

    def recorded(self, tx: Tx, key: str) -> Record | None:
        """The row recorded with this key, or None: a query only for a key held before the
        transaction (an offline queue sent again), none for a new one."""
        found = self.written.get(key)
        return found if found is not None or key not in self.held else tx.record_by_key(key)

    def last_of_device(self, tx: Tx, device_id: int) -> tuple[int, object] | None:
        """A device's last row, (seq, time): the group's, newer than any in the store, else the store's."""
        return self.latest.get(device_id) or tx.last_of_device(device_id)

    def wrote(self, head: list, rows: dict[str, Record], new: list[Record]) -> None:
        """A request succeeded: the head it left, its rows by key, and its new rows, to insert."""
        self.head = head
        self.written.update(rows)
        if new:
            self.unwritten += new
            for record in new:
                if record.entry.device_id is not None:
                    self.latest[record.entry.device_id] = (record.seq, record.time)

    def flush(self, tx: Tx) -> None:
        """Insert the group's rows, in order, in one call of the store."""
        if self.unwritten:
            tx.insert_records(self.unwritten)
            self.unwritten = []


def _shown_instead(recorded: Entry, offline: Entry) -> bool:
    """Whether the refused offline verdict `offline` is the play the record holds under its key
    (`recorded`: the same device's) as judged online: its phone asked the service, got no answer in
    time (the page waits 3 s, or the answer was lost on the way) and judged the play itself, with
    the same key, while the service recorded it. The players saw the phone's verdict, and the
    record's row holds the service's: a refusal the director must learn of (the phone showed
    another verdict, or judged with another list), not a conflict its phone takes as recorded."""
    return not recorded.offline and recorded.words == offline.words and recorded.notation == offline.notation


def _replays(group: _Group, entries: Sequence[Entry]) -> bool:
    """Whether every entry is one recorded already (an offline queue sent again): no new challenge."""
    keys = [e.idempotency_key for e in entries]
    if not keys or None in keys:
        return False
    return all(group.holds(k) for k in keys)


class RecordBook(Keeper):
    """The event's record, append-only and chained (chain.py): the rules of what may be appended
    and when, over the store's rows (storage.py)."""

    def append(self, entry: Entry, min_gap: float = 0, round_open: bool | None = None) -> Record:
        """Record one verdict, durably, before the answer leaves; its row (with `seq` for the slip)."""
        return self.append_many([entry], min_gap, round_open)[0]

    def append_many(
        self,
        entries: Sequence[Entry],
        min_gap: float = 0,
        round_open: bool | None = None,
        budget: Sequence[Budget] | None = None,
        last_key: str | None = None,
        holder: tuple[int, str] | None = None,
        refusal: OfflineRefusal | None = None,
    ) -> list[Record]:
        """Record a batch, one row per play, in one transaction: all rows or none.

        The time and the round are read inside the write lock, so they follow the row numbers.
        An entry whose idempotency key is already recorded is not written again: its existing
        row is returned (IdempotencyConflict if that row says something else).

        `min_gap` (seconds) is a device's rate limit, counted in plays: RateLimited, and nothing
        written, when its last row is more recent than that, or when a request holds more than one
        new play (the plays of one request have no gap between them). It is read inside the write lock, so several worker
        processes cannot let two challenges through together.

        `round_open`: True for a caller answered only while a round is open, False for one answered
        only between rounds, None for any moment. RoundRefused, and nothing written, when the round
        read inside the write lock says otherwise: the caller's check before judging read the
        round earlier, and a round opened or closed while this append waited for the lock must not
        give a lookup device its verdict recorded in a round, nor a table device one outside.

        `budget`: (client key, plays a minute) pairs for a caller the record cannot name (no
        device, or a lookup kiosk): its address, and the network its addresses share (the
        service's keys); its new rows are counted against each one's minute inside the same lock
        (budget.py), PlaysLimited and nothing written past any.

        `last_key`: the idempotency key of the device's last recorded verdict, as its page says:
        LastKeyMissing, and nothing written, when the record does not hold it (another copy of the
        event's file recorded it). Looked up with the group commit's other keys (`_Group`): no query of its own.

        `holder`: (device id, the hash of the token it was read by) for a caller whose device was
        read before the write, perhaps from a worker's cache of live devices (service.event's
        LiveDevices): DeviceGone, checked before anything else and nothing written, when that
        device no longer holds the token (paired again) or was revoked, as read inside the write
        lock: the write, not the cache, decides whether a device may still have a verdict. Read
        with the group commit's other devices (`_Group`): one query a transaction. The entries'
        device name, role and table are the device's for good (set when it is added: no write
        changes them), so a cached device's are the stored ones.

        `refusal`: an offline verdict among `entries` the service refuses (refused_offline.py: its
        phone showed another verdict, or judged with another list): OfflineRefused, and nothing
        recorded, once every other rule, the gap among them, let the request through, and the
        refusal noted for the director; its time counts as a verdict's for the device's gap. Its
        key recorded already: IdempotencyConflict, as for any other contents.

        Durable when it returns; other requests' appends may share its transaction (writer.py).
        """
        for entry in entries:
            if not isinstance(entry, Entry):
                raise TypeError(f"an entry to record, not {entry!r}")
        if refusal is not None and refusal.index >= len(entries):
            raise ValueError(f"{refusal!r} names none of the {len(entries)} entries")
        request = Append(list(entries), min_gap, round_open, budget, last_key, holder, refusal)
        return self._writer.append(request, self._commit)

    def _commit(self, appends: Sequence[Append]) -> None:
        """Write every request's appends in one transaction (one commit, one fsync), in order: a
        refused request (rate limit, idempotency conflict, budget) writes nothing and gets its
        refusal as its outcome, the others their rows. Any other error fails them all.

        A request writes nothing to the store until it can no longer be refused: its rows wait in
        the group and are inserted with all the others as it ends (`_Group.flush`), and its budget,
        charged last, is written only once it is within it. So no request needs a savepoint, and
        the rows cost one statement a transaction: each statement in the write lock is CPU (and
        a wait for the GIL in a busy gevent worker: writer.py) that the other worker waits for."""
        with self._write() as tx:
            group = _Group()
            group.look_up(tx, appends)  # writer.py's group_commit.Batch takes the pending appends here, in the lock
            for request in appends:  # the same ones
                self._one_in(tx, request, group)
            group.flush(tx)

    def _one_in(self, tx: Tx, request: Append, group: _Group) -> None:
        """One request of a group commit: its rows, or its refusal, as its outcome."""
        if not request.ticket.claim():  # its caller stopped waiting (tickets.py): not written
            request.outcome = StorageError(f"{self._storage.location}: the write lock came after its caller gave up")
            return
        try:
            request.outcome = self._append_in(tx, request, group)
        except TournamentError as refused:
            request.outcome = refused

    def _append_in(self, tx: Tx, request: Append, group: _Group) -> list[Record]:
        """One request's rows, inside the write transaction (see append_many), with what the
        transaction's requests share (`_Group`): its rows' keys are found by the requests after it.
        Refused, it has written nothing: its rows are the group's only once it returns, and its
        budget's charge, which writes, comes after every other refusal."""
        entries, min_gap, budget = request.entries, request.min_gap, request.budget
        last_key = request.last_key
        if request.holder is not None:  # first, as the service's own check of a device was (401)
            group.admit(request.holder)
        if last_key is not None and not group.holds(last_key):  # before any insert: refused, nothing written
            raise LastKeyMissing(last_key)
        if not group.head:  # the first request: read before it writes, so as the transaction found them
            current = tx.current_round()
            group.head = [None if current is None else current.number, *tx.head()]
        head = list(group.head)
        round_number = head[0]
        if request.round_open is not None and (round_number is not None) != request.round_open:
            raise RoundRefused(round_number)
        moment = self._now()
        now = stamp(moment)
        device_id = entries[0].device_id if entries else None
        if min_gap > 0 and device_id is not None and not _replays(group, entries):
            if len(entries) > 1:  # a gap between verdicts is a gap between plays: one per request
                raise RateLimited(max(1, math.ceil(min_gap)))
            last = group.last_moment(tx, device_id)
            if last is not None:
                waited = (moment - last).total_seconds()
                if waited < min_gap:
                    raise RateLimited(max(1, math.ceil(min_gap - waited)))
        refusal = request.refusal
        seq, prev = head[1], head[2]
        first, done, new = seq, [], []
        mine: dict[str, Record] = {}  # this request's rows by key: a later entry with its key finds it
        for index, entry in enumerate(entries):
            key = entry.idempotency_key
            refused = refusal is not None and index == refusal.index
            if key is not None:
                existing = mine[key] if key in mine else group.recorded(tx, key)
                if existing is not None:
                    if refused or existing.entry != entry:  # a refused verdict is never the recorded one
                        own = entry.device_id is not None and existing.entry.device_id == entry.device_id
                        if refused and own and _shown_instead(existing.entry, entry):
                            self._refuse(tx, group, entry, refusal, now, existing.seq)
                        if own and not refused and unshown(existing.entry, entry):  # unshown_second.py says why
                            note_unshown(tx, existing.seq, entry.device_time, now)
                        raise IdempotencyConflict(key, existing.seq if own else None)
                    done.append(existing)
                    continue
            if key is not None and not entry.offline and group.was_refused(tx, entry.device_id, key):
                # its phone gave up waiting for this online challenge, judged the play itself and had
                # that verdict refused (refused_offline.py) before this arrived: it showed no other
                raise IdempotencyConflict(key, None)
            if refused:  # only now, past the gap and every other refusal: refused_offline.py says why
                self._refuse(tx, group, entry, refusal, now)
            seq += 1
            filed = round_number if entry.shown_round is None else _placed(tx, entry)
            record = seal(seq, now, filed, entry, prev, entry.format)
            new.append(record)
            if key is not None:
                mine[key] = record
            prev = record.hash
            done.append(record)
        if budget is not None and seq > first:
            charge(tx, budget, moment, seq - first)
        head[1:] = seq, prev
        group.wrote(head, mine, new)
        return done

    @staticmethod
    def _refuse(tx: Tx, group: _Group, entry: Entry, refusal: OfflineRefusal, now: str, seq: int | None = None) -> None:
        """Refuse the request for its offline verdict `entry` (OfflineRefused), noted for the
        console in this transaction (refused_offline.py) for a device that exists; its time is the
        device's latest for the gap, from the group's next request of it on. `seq`: the row the
        record holds for this play, recorded online (`_shown_instead`)."""
        device_id = entry.device_id
        if device_id is not None and device_id in group.holders:
            shown = entry.shown_round
            note_refusal(tx, device_id, refusal.reason, entry.idempotency_key, shown, entry.device_time, now)
            group.refused[device_id] = now
        raise OfflineRefused(refusal.reason, seq)

    def holds(self, key: str) -> bool:
        """Whether a verdict of this idempotency key is in this event's record (an index lookup)."""
        with self._storage.read() as view:
            return view.holds(key)

    def record(self, seq: int) -> Record | None:
        if not 0 < seq <= MAX_NUMBER:  # no such record (and a store may refuse a number past 64 bits)
            return None
        with self._storage.read() as view:
            return view.record(seq)

    def records(self, which: RecordFilter = EVERY_ROW) -> Iterator[Record]:
        """The record's rows that `which` asks for, in order (model.RecordFilter): a page of it for
        the console's list, which must not build the whole record in one request."""
        if which.matches_nothing:
            return iter(())
        with self._storage.read() as view:
            return view.records(which)

    def counts(self, round: int | None) -> dict[int | None, int]:
        """Challenges per device in one round, or outside rounds (None); the key None: without a device."""
        with self._storage.read() as view:
            return view.counts(round)

    def last_contact(self) -> dict[int, tuple[str, str, str, bool, int | None]]:
        """Each device's last recorded verdict: (time, lexicon id, lexicon version, valid, round),
        by device id. A device's last request of any kind is `contacts` (devices.py)."""
        with self._storage.read() as view:
            return view.last_verdicts()

    def chain_state(self, wait: bool = False) -> ChainState:
        """The record's state for the console: verified up to its last row, broken at a row, or
        being verified whole off the request path (`checking`), as the store verifies it
        (storage.Storage.chain_state). `wait`: a full verification runs in this thread whatever
        the record's length (a command's)."""
        return self._storage.chain_state(self._now, wait)

    def intact_rows(self, records: Sequence[Record]) -> dict[int, bool]:
        """Each row's own check (chain.row_intact: its contents against its hash, its link to the
        row before it, a closed round's head kept for it, and, as the chain's, not filed in its
        round after that round's head was final), for showing one row or a few."""
        hashes = {record.seq: record.hash for record in records}
        wanted = sorted({record.seq - 1 for record in records} - set(hashes) - {0})
        with self._storage.read() as view:
            hashes.update(view.hashes(wanted))
            heads = {seq: hash_ for _, seq, hash_ in view.heads()}
            finals = view.final_heads()
        return {
            record.seq: row_intact(record, hashes.get(record.seq - 1))
            and heads.get(record.seq, record.hash) == record.hash
            and not (record.round in finals and record.seq > finals[record.round])
            for record in records
        }

    def verify(self) -> Break | None:
        """The first row that does not chain (or contradicts a closed round's head), or None."""
        with self._storage.read() as view:
            rows = view.records()
            anchors = [head for head in view.heads() if head[1] is not None and head[1] > 0]
            finals = view.final_heads()
        return verify_chain(rows, anchors, finals=finals)
