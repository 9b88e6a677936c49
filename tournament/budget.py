"""A client address's budget of recorded plays per minute, for callers the record cannot name.

A judge's phone or a table device is one row of `devices`, its rows carry its name, and its role
has a gap (LEXICON_RATE_*). A caller without a device, or a lookup kiosk, has none of that: any
phone on the hall's Wi-Fi may ask between rounds, so a loop of big batches would fill the record
(and the director's console that reads it) with rows of nobody. Its plays are counted per client
address in a one-minute window, in the event's store, inside the record's write lock: every worker
process counts the same plays, and a refusal writes nothing.
"""

from __future__ import annotations

import math
from datetime import datetime

from .errors import RateLimited
from .model import read_stamp, stamp
from .storage import Tx

WINDOW_SECONDS = 60.0


class PlaysLimited(RateLimited):
    """A client address asked for more recorded plays in a minute than its budget: nothing recorded."""

    def __init__(self, retry_after: int, limit: int):
        super().__init__(retry_after)
        self.args = (f"at most {limit} plays a minute from one address: ask again in {retry_after} s",)
        self.limit = limit


def charge(tx: Tx, client: str, limit: int, moment: datetime, plays: int) -> None:
    """Count `plays` new rows against `client`'s minute, or raise PlaysLimited, writing nothing (the
    caller's rows are not written either: record.py charges a request last, before its rows
    reach the store)."""
    row = tx.budget(client)
    start, used = (moment, 0) if row is None else (read_stamp(row[0], "play_budget.started"), row[1])
    elapsed = (moment - start).total_seconds()
    if not 0 <= elapsed < WINDOW_SECONDS:  # a new minute (or a clock set back): a new budget
        start, used, elapsed = moment, 0, 0.0
    if used + plays > limit:
        raise PlaysLimited(max(1, math.ceil(WINDOW_SECONDS - elapsed)), limit)
    tx.put_budget(client, stamp(start), used + plays)
