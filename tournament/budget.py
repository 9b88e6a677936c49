"""A client address's budget of recorded plays per minute, for callers the record cannot name.

A judge's phone or a table device is one row of `devices`, its rows carry its name, and its role
has a gap (LEXICON_RATE_*). A caller without a device, or a lookup kiosk, has none of that: any
phone on the hall's Wi-Fi may ask between rounds, so a loop of big batches would fill the record
(and the director's console that reads it) with rows of nobody. Its plays are counted per client
address in a one-minute window, in the event's store, inside the record's write lock: every worker
process counts the same plays, and a refusal writes nothing.

A request may be charged against several budgets at once, each a key and its limit (`Budget`): the
service charges a client's address and, for an IPv6 one, the /64 network its addresses share,
with a looser limit (one host can rotate through the addresses of its /64; the phones of one hall
share one). A play is recorded only when every budget has room for it. What a key means is the
service's: here each is a row of `play_budget`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from .errors import RateLimited
from .stamps import read_stamp, stamp
from .storage import Tx

WINDOW_SECONDS = 60.0
Budget = tuple[str, int]  # (a client's key: its address, or the network its addresses share; plays a minute)


class PlaysLimited(RateLimited):
    """A client asked for more recorded plays in a minute than one of its budgets (`client`: its
    key) allows: nothing recorded."""

    def __init__(self, retry_after: int, limit: int, client: str = ""):
        super().__init__(retry_after)
        self.args = (f"at most {limit} plays a minute from {client or 'one address'}: ask again in {retry_after} s",)
        self.limit, self.client = limit, client


def charge(tx: Tx, budgets: Sequence[Budget], moment: datetime, plays: int) -> None:
    """Count `plays` new rows against each budget's minute, or raise PlaysLimited for the first
    without room, writing nothing (the caller's rows are not written either: record.py charges a
    request last, before its rows reach the store). Every budget is read before any is written."""
    counted = []
    for client, limit in budgets:
        row = tx.budget(client)
        start, used = (moment, 0) if row is None else (read_stamp(row[0], "play_budget.started"), row[1])
        elapsed = (moment - start).total_seconds()
        if not 0 <= elapsed < WINDOW_SECONDS:  # a new minute (or a clock set back): a new budget
            start, used, elapsed = moment, 0, 0.0
        if used + plays > limit:
            raise PlaysLimited(max(1, math.ceil(WINDOW_SECONDS - elapsed)), limit, client)
        counted.append((client, stamp(start), used + plays))
    for client, started, used in counted:
        tx.put_budget(client, started, used)
