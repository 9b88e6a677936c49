"""This worker's cache of live devices by their token's hash, for the recorded challenge only.

Reading a paired device from the store by the hash of its bearer token is one statement, tens of
microseconds of a request whose whole record costs a few hundred, and SQLite reads its pages
again after every other connection's commit. A verdict that ends in the record's write needs no
such read first: the write's
transaction checks, in one query for its whole group commit, that each device still holds the
token it was read by and is not revoked (tournament/record.py, `holder`), and writes nothing for
one that does not. So the challenge reads its device here, and the write is the authority:

- Kept by the token's hash (tournament.token_hash), never the token itself; only devices that
  were live when read from the store (an unknown or revoked token is read from the store at each
  request, as before, and never kept: random tokens cannot fill the cache).
- Bounded (SIZE entries, the oldest dropped first): an event has tens or hundreds of devices.
- A device's name, role and table, which its rows record, are set when it is added and never
  changed (no write of the store changes them), so a kept device's are the stored ones. What can
  change is its token (paired again: the old token is no device's) and its revocation: what the
  write checks.
- A device this worker revokes or pairs again leaves the cache at once (`forget`); one revoked or
  paired again through another worker or the command line stays here until its next verdict,
  which the write refuses.
- An entry is dropped when the write refuses its device (the 401 the device then gets is the one
  the store's read would have given), and whatever else refuses a request of a device read from
  here reads the store first (service.event.recording, `refusal`, which the app's error handlers
  ask), so a device revoked or paired again gets its 401 at its very next request whatever would
  refuse it (the 401 that makes its page unpair and delete its lexicon), and nothing is made for
  it: no contact, split, rate-limit count or row.

Every other route reads the device from the store at each request (callers.py, `device`).
"""

from __future__ import annotations

import threading

from tournament import Device

SIZE = 4096  # devices kept, at most (an event has far fewer: the bound only keeps memory bounded)


class LiveDevices:
    """Devices read live from the store, by their token's hash, in this worker process."""

    def __init__(self, size: int = SIZE):
        self.size = size
        self._kept: dict[str, Device] = {}
        self._lock = threading.Lock()  # adding and dropping; a read of one entry needs none

    def get(self, token_hash: str) -> Device | None:
        """The device kept for this hash, or None."""
        return self._kept.get(token_hash)

    def add(self, token_hash: str, device: Device) -> None:
        """Keep a device read live from the store just now, dropping the oldest past the bound."""
        with self._lock:
            if token_hash not in self._kept and len(self._kept) >= self.size:
                del self._kept[next(iter(self._kept))]
            self._kept[token_hash] = device

    def drop(self, token_hash: str) -> None:
        with self._lock:
            self._kept.pop(token_hash, None)

    def forget(self, device_id: int) -> None:
        """Drop every entry of this device (its tokens: revoked, or paired again): a scan of at
        most SIZE entries, on a director's action, not on a challenge."""
        with self._lock:
            for token_hash in [kept for kept, device in self._kept.items() if device.id == device_id]:
                del self._kept[token_hash]

    def __len__(self) -> int:
        return len(self._kept)


__all__ = ["SIZE", "LiveDevices"]
