"""The recording of every judged play before its verdict leaves: one row each, in one
transaction (`record`), the write's refusals as the device is answered, and a device from this
worker's cache checked by the write, or read from the store before any refusal (`confirm`,
`refusal`).

Apart from the admission (admission.py), which refuses before any play is read: this is what
the record's write checks and refuses. The attributes it uses are Tournament's
(service.event.http): `db`, `settings`, `witness`, `forms`, `live`, `contacts`, and `_unreadable`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from tournament import (
    DeviceGone,
    Entry,
    IdempotencyConflict,
    LastKeyMissing,
    MalformedRow,
    OfflineRefused,
    PlaysLimited,
    RateLimited,
    Record,
    RoundRefused,
    StorageError,
    TableMissing,
    Unreadable,
)

from ..challenge_hook import Judged, Mark
from ..problems import Problem
from ..proxies import limit_keys
from ..registry import Served
from ..types import Play
from .admission import UNNAMED_ROLES
from .callers import UNCHECKED, Caller, Callers, asking, revoked, unknown_token
from .entries import entry_of
from .offline_refused import refusal_of, said_refused
from .refusals import round_refused, storage_problem
from .witness import said

log = logging.getLogger("service")

# The recorded plays a minute of all the addresses of one IPv6 /64 together, as many times those
# of one address (LEXICON_RATE_PLAYS, tournament/budget.py; service.proxies, network_of): one host
# may take a new address of its /64 for each request, and a hall's phones share one.
NETWORK_PLAYS = 10


class Recording(Callers):
    """The challenge hook's recording (service.challenge_hook.EventHook): `record`, `refusal`."""

    def refusal(self, problem: Problem) -> Problem:
        """The answer to a refusal (service.challenge_hook.EventHook; the app's error handlers
        ask for every one, an edited stored value's and the 500 too): to a request whose device
        came from the cache and was not checked by the store since, the device read from the store
        first (`confirm`), and its 401 when it was revoked or paired again; `problem` otherwise.
        Not to keep a secret (whether a round is open and the event's lexicon are public anyway):
        so that a device revoked or paired again gets its 401, which makes its page unpair and
        delete its lexicon, at its very next request whatever would refuse it, as when every
        request read the store. A device read so that was edited into what no row holds (an empty
        name) gets that edit's refusal (409 `record-tampered`)."""
        if UNCHECKED not in asking():
            return problem
        try:
            self.confirm(asking()[UNCHECKED])
        except Problem as gone:
            return gone
        except (Unreadable, MalformedRow) as edited:  # the device as stored edited into what no row holds
            return self.unreadable(edited)
        return problem

    def confirm(self, caller: Caller) -> None:
        """A device from the cache (live_devices.py), not checked by the store since, read from
        the store now: its 401 raised when it was revoked or paired again (its entry dropped), as
        if it had been read so at the start; a device the store reads live is noted in touch (its
        contact) and kept."""
        if asking().pop(UNCHECKED, None) is not None:
            self.live.drop(caller.token_hash)
            self.live.add(caller.token_hash, self.stored_device(caller.token_hash))

    def record(
        self, caller: Caller, served: Served, notation: str, plays: Iterable[Judged], second: Served | None, sent
    ) -> list[Mark]:
        """Record every judged play (one row each, one transaction), durably, before any answer
        leaves; their numbers and rounds in order. The words are recorded as typed (trimmed) and
        in engine tiles made from the keys the verdict used: read once. A device answered by
        another file of the event gets none (witness.py): its last key is checked in the write.
        A device from the cache is read from the store before its split is noted (`confirm`).

        An offline verdict the record may not hold (entries.py's refusal: its phone showed another
        verdict, or judged with another list) is refused by the write, past the device's gap and
        every other rule of the record, which notes it for the director (offline_refused.py): so
        a request inside the gap is answered 429 whatever the play, and a refusal takes a gap as a
        recorded verdict does (tournament/refused_offline.py)."""
        seen, last = said(sent)
        if self.witness.other(seen):
            self.confirm(caller)  # before the split is noted: never for a device revoked since
            raise self.witness.split(caller.device, seen, None)
        device = caller.device
        form = self.forms(device, served, notation, second)
        entries, refused = [], None
        for index, (words, keys, valid, other, slip) in enumerate(plays):
            place = f"/plays/{index}" if isinstance(slip, Play) else ""
            entry, problem = entry_of(device, form, words, keys, valid, other, slip, self.db.now, place)
            entries.append(entry)
            if problem is not None and refused is None:  # the request's first: the one it is refused with
                refused = index, problem
        return [(row.seq, row.round) for row in self._append(entries, caller, seen, last, refused)]

    def _append(
        self,
        entries: list[Entry],
        caller: Caller,
        seen: str | None,
        last: str | None,
        refused: tuple[int, Problem] | None = None,
    ) -> list[Record]:
        """The rows, or the write's refusal. The write checks that the device holds the token it
        was read by, not revoked (`holder`): its refusal then is the 401 a read from the store
        would have given, and the device's entry leaves the cache. A device from the cache is
        noted in touch (its contact) once the write has checked it; a write that failed
        (StorageError) checked nothing, and its refusal reads the store first (`refusal`).
        `refused`: the entry (its index) the write refuses, past every other rule, with that problem."""
        device = caller.device
        holder = None if device is None else (device.id, caller.token_hash)
        offline = None if refused is None else refusal_of(refused[0], refused[1].kind)
        try:
            limit = self.settings.rate_plays
            budget = self._budget(limit) if caller.role in UNNAMED_ROLES and limit > 0 else None
            records = self.db.append_many(
                entries, self.settings.rate(caller.role), caller.round_open, budget, last, holder, offline
            )
        except OfflineRefused as refusal:
            self._checked(caller)
            index, problem = refused
            said_refused(entries[index], problem.kind)
            if refusal.seq is not None:  # its play is on the record as judged online: its number, to its device
                problem.detail += (
                    f" (record {refusal.seq} holds this play as the service judged it online, with this key, "
                    "while this phone waited and then judged it itself)"
                )
                problem.extensions["record"] = refusal.seq
            raise problem from None
        except DeviceGone as error:
            self.live.drop(caller.token_hash)
            asking().pop(UNCHECKED, None)  # the write checked it
            raise (revoked(device) if error.revoked else unknown_token()) from None
        except (LastKeyMissing, RoundRefused, PlaysLimited, RateLimited, IdempotencyConflict) as error:
            self._checked(caller)
            raise self._refused(error, caller, seen) from None
        except StorageError as error:
            raise storage_problem(error) from None
        self._checked(caller)
        return list(records)

    def _budget(self, limit: int) -> tuple[tuple[str, int], ...]:
        """The budgets a caller the record cannot name is charged: its address's, and its /64's."""
        return limit_keys(self.client(), limit, NETWORK_PLAYS * limit)

    def _checked(self, caller: Caller) -> None:
        """The write found the device live: one from the cache, not read from the store since
        (its mark in the environ: `confirm` takes it when it reads the store, which notes its
        contact itself), is noted in touch (its contact), once."""
        if asking().pop(UNCHECKED, None) is not None:
            self.contacts.seen(caller.device.id)

    def _refused(self, error: Exception, caller: Caller, seen: str | None) -> Problem:
        """What the record's rules refused, as the device is answered (the write checked the device)."""
        if isinstance(error, LastKeyMissing):  # another copy of the event's file recorded its last verdict
            return self.witness.split(caller.device, seen, error.key)
        if isinstance(error, RoundRefused):  # a round opened or closed while this waited for the write lock
            return round_refused(error.current)
        if isinstance(error, PlaysLimited):
            where = "network (/64)" if "/" in error.client else "address"  # a key of _budget
            return Problem.later(
                "plays-limited",
                f"this {where} has had {error.limit} plays recorded in the last minute, "
                f"as many as phones without a device and lookup devices may record from one {where} together: "
                f"ask again in {error.retry_after} s",
                error.retry_after,
            )
        if isinstance(error, RateLimited):
            return Problem.later(
                "rate-limited",
                f"this device may challenge once every "
                f"{self.settings.rate(caller.role):g} s: ask again in {error.retry_after} s",
                error.retry_after,
            )
        own = {} if error.seq is None else {"record": error.seq}  # IdempotencyConflict: its number only to its device
        return Problem("idempotency-conflict", str(error), **own)

    def unreadable(self, error: Unreadable | MalformedRow) -> Problem:
        """A stored value this service cannot read back (the event file edited by hand): a refusal
        that names where, never a value nor a word, logged as an error once per place (here, in
        this process: every request that meets it would otherwise log it again)."""
        where = error.where if isinstance(error, Unreadable) else f"record {error.seq}"
        if where not in self._unreadable:
            self._unreadable.add(where)
            log.error("the event file was edited by hand", extra={"fields": {"where": where}})
        if isinstance(error, TableMissing):  # what mends it is the console's, not `records verify`
            return Problem(
                "table-missing",
                f"device {error.device_id} is a table device with no table in the event file, and each of its "
                "rows must carry its table: nothing is judged or recorded for it; the director revokes it in "
                "the console (Devices) and adds a table device with its table, then pairs it with the new code",
            )
        return Problem(
            "record-tampered",
            f"the event file was edited by hand ({where} cannot be read back), so "
            "nothing that depends on it is judged or recorded; tell the director, who runs "
            "`lexicon records verify` on the event file",
        )
