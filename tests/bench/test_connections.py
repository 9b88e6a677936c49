"""`python -m bench connections` at small scale: the real `lexicon serve` under wrk beside a crowd
of silent connections from another address, never timed.

What is asserted is what the section's figures stand on: the crowd came from the other address
and went beyond the cap (the server closed connections of it as they were accepted), every
challenge wrk asked was answered, and the table holds the rows docs/figures.md shows.
"""

from __future__ import annotations

import re

from bench import connections
from service.connections import PER_ADDRESS


def test_the_crowd_beyond_the_cap_is_closed_and_every_challenge_answered(monkeypatch):
    monkeypatch.setattr(connections, "SILENT", (PER_ADDRESS * 2 + 100,))  # beyond both workers' caps
    monkeypatch.setattr(connections, "SECONDS", 1)
    [table] = connections.run()
    alone, crowd = table.rows
    assert alone.figure.startswith("POST /v1/challenge") and crowd.figure.startswith("the same from 127.0.0.1 while")
    assert f"holds {PER_ADDRESS * 2 + 100:,} silent connections" in crowd.figure
    closed = int(re.search(r"(\d+) crowd connections closed by the server", crowd.value).group(1))
    assert closed >= 100, crowd.value  # those beyond the cap, at least once each
    assert "0 failed/timed out" in crowd.value and "0 non-2xx" in crowd.value, crowd.value
