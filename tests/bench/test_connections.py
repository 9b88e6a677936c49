"""`python -m bench connections` at small scale: the real `lexicon serve` under wrk beside crowds
of silent connections, from another address and from wrk's own, never timed.

What is asserted is what the section's figures stand on: every challenge wrk asked was answered,
beside silent connections from its own address too, and the table holds the rows docs/figures.md
shows, one a shape.
"""

from __future__ import annotations

from bench import connections


def test_every_challenge_is_answered_beside_silent_crowds_from_any_address(monkeypatch):
    shapes = ((("127.0.0.2",), 300), (("127.0.0.1",), 600), (("127.0.0.2", "127.0.0.3"), 150))
    monkeypatch.setattr(connections, "SHAPES", shapes)
    monkeypatch.setattr(connections, "SECONDS", 1)
    monkeypatch.setattr(connections, "CROWD_SECONDS", 1)
    [table] = connections.run()
    alone, *crowds = table.rows
    assert alone.figure.startswith("POST /v1/challenge") and len(crowds) == len(shapes)
    assert "127.0.0.2 holds 300 silent connections" in crowds[0].figure
    assert "127.0.0.1 holds 600 silent connections" in crowds[1].figure  # wrk's own address
    assert "2 addresses hold 150 silent connections each" in crowds[2].figure
    for crowd in crowds:
        assert "0 failed/timed out" in crowd.value and "0 non-2xx" in crowd.value, crowd.value
