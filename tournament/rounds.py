"""Rounds: at most one open; closing one keeps the record's head (number and hash) with it.

A judge's phone may hold verdicts it gave offline when a round closes. Closing names the judges'
devices that have not been in touch for IN_TOUCH (no request in `contacts`, no recorded verdict):
they may hold some. While any of them has not synced since (told the service it holds none: `synced`),
or until the director confirms (`confirm_round`), the round's head is not final: then it is taken
again, the record's last row at that moment, so that the head written on the round's sheet
covers the verdicts of the round filed after it closed (docs/tournament.md, "Closing a round").

These rules are decided here, inside the store's write lock; the store only keeps the rows
(storage.py): a round it is asked to add, close or make final is one the rules allowed.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from .errors import RoundError, Unreadable
from .keeper import Keeper, on_writer
from .model import MAX_NUMBER, Round
from .stamps import read_stamp, stamp
from .storage import Tx

IN_TOUCH = timedelta(minutes=1)  # a judge's device silent longer than this may hold offline verdicts


def _silent(tx: Tx, now: datetime) -> list[int]:
    """The paired, unrevoked judges' devices with no request (`contacts`) and no recorded verdict
    in the last IN_TOUCH. The stored times are parsed (`read_stamp`), never compared as text: one
    edited by hand, unreadable or later than now, counts as no contact (its device is waited for)."""

    def moment(time: object, where: str) -> datetime | None:
        try:
            when = read_stamp(time, where)
        except Unreadable:
            return None
        return when if when <= now else None

    contacts, verdicts = tx.contacts(), tx.last_verdicts()
    silent = []
    for device in tx.devices():
        if device.role != "judge" or device.paired is None or device.revoked is not None:
            continue
        contact, verdict = contacts.get(device.id), verdicts.get(device.id, (None,))[0]
        times = [
            when for when in (moment(contact, "contacts.time"), moment(verdict, "records.time")) if when is not None
        ]
        if not times or max(times) < now - IN_TOUCH:
            silent.append(device.id)
    return silent


class Rounds(Keeper):
    """The event's rounds: the rules, over the store's rows (storage.py)."""

    @on_writer
    def open_round(self, number: int | None = None) -> Round:
        """Open round `number` (default: the next one). At most one round is open."""
        if number is not None and (type(number) is not int or not 0 < number <= MAX_NUMBER):
            raise ValueError(f"a round's number is a whole number from 1 to {MAX_NUMBER}, not {number!r}")
        with self._write() as tx:
            current = tx.current_round()
            if current is not None:
                raise RoundError(f"round {current.number} is open: close it first")
            if number is None:
                number = tx.last_round_number() + 1
                if number > MAX_NUMBER:
                    raise RoundError(f"no round is numbered after {MAX_NUMBER}: give the number of the round")
            elif tx.round(number) is not None:
                raise RoundError(f"round {number} was already played")
            tx.add_round(number, stamp(self._now()))
        return self.round(number)

    @on_writer
    def close_round(self) -> Round:
        """Close the open round, keeping the record's head (number and hash) with it."""
        with self._write() as tx:
            current = tx.current_round()
            if current is None:
                raise RoundError("no round is open")
            now = self._now()
            silent = _silent(tx, now)
            tx.close_round(current.number, stamp(now), tx.head(), tuple(silent) if silent else None)
        return self.round(current.number)

    @on_writer
    def confirm_round(self, number: int) -> Round:
        """The director's word that a closed round's head is final although devices it waited for
        have not synced: the head is taken again now. RoundError for a round not waiting."""
        with self._write() as tx:
            found = tx.round(number) if 0 < number <= MAX_NUMBER else None
            if found is None or found.closed is None or found.pending is None:
                state = (
                    "is not played" if found is None else "is open" if found.closed is None else "has its head final"
                )
                raise RoundError(f"round {number} {state}: nothing to confirm")
            tx.set_final(number, tx.head(), stamp(self._now()))
        return self.round(number)

    @on_writer
    def synced(self, device_id: int) -> None:
        """A device says it holds no offline verdict: every closed round that waited for it stops
        waiting for it (its head final once it waits for no one)."""
        with self._write() as tx:
            for waiting in tx.rounds():
                if waiting.pending is None:
                    continue
                left = tuple(device for device in waiting.pending if device != device_id)
                if not left:
                    tx.set_final(waiting.number, tx.head(), stamp(self._now()))
                elif len(left) < len(waiting.pending):
                    tx.set_pending(waiting.number, left)

    def awaited(self) -> frozenset[int]:
        """The devices some closed round still waits for."""
        with self._storage.read() as view:
            return frozenset(device for found in view.rounds() for device in found.pending or ())

    def round(self, number: int) -> Round | None:
        if not 0 < number <= MAX_NUMBER:  # no such round (and a store may refuse a number past 64 bits)
            return None
        with self._storage.read() as view:
            return view.round(number)

    def current_round(self) -> Round | None:
        return self._storage.current_round()  # one statement, no transaction (storage.py)

    def rounds(self) -> list[Round]:
        with self._storage.read() as view:
            return view.rounds()
