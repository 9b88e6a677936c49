"""`make bench` section "connections": one client address opening thousands of connections and
saying nothing on them, against `lexicon serve` reached directly (no front end, as on a venue
laptop), while wrk plays the other devices from another address.

    python -m bench connections

The crowd comes from 127.0.0.2 and reopens every connection the server closes, once a second,
as an attacker would; wrk asks POST /v1/challenge from 127.0.0.1. Without a cap, 2,200 such
connections filled both workers' 1,000 connections each within gunicorn's 5 s deadline for a
request's head, and the others' challenges waited behind them to be accepted; with the cap
(service.connections: PER_ADDRESS a worker) the ones beyond it are closed as they are accepted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.server import lexicon_files
from bench.service_load import crowd_met, crowd_text
from bench.service_server import CHOSEN, Server, describe
from bench.slow import Crowd
from bench.table import Table
from bench.wrk import Wrk, wrk_or_missed

SILENT = (2_200, 5_000)  # as many as were found to stop the service, and the aim: 5,000
SECONDS = 10
CONNECTIONS = 16


def run() -> list[Table]:
    from service.connections import PER_ADDRESS

    files, languages = lexicon_files()
    table = Table(
        f"connections: `lexicon serve` ({describe(CHOSEN)}, at most {PER_ADDRESS} connections from one "
        f"address a worker), lexicons {', '.join(languages)}; wrk -t2 and the crowd on the same 2 cores"
    )
    wrk_path = wrk_or_missed(table, "challenges beside silent connections")
    if wrk_path is None:
        return [table]
    with tempfile.TemporaryDirectory() as scratch, Server(files, *CHOSEN) as server:
        wrk = Wrk(wrk_path, Path(scratch))
        wrk.run(f"{server.url}/v1/challenge", CONNECTIONS, 1, post=True)  # warm up
        alone = wrk.run(f"{server.url}/v1/challenge", CONNECTIONS, SECONDS, post=True)
        table.add(
            f"POST /v1/challenge, {CONNECTIONS} connections, {SECONDS} s, nothing else",
            f"p50 {alone['p50']:.1f} ms, p99 {alone['p99']:.1f} ms, {alone['requests']:,} answered",
        )
        for silent in SILENT:
            with Crowd(server.port, 0, silent, source="127.0.0.2") as crowd:
                result = wrk.run(f"{server.url}/v1/challenge", CONNECTIONS, SECONDS, post=True)
            result["reopened"] = crowd.reopened
            table.add(
                f"the same from 127.0.0.1 while 127.0.0.2 holds {silent:,} silent connections, "
                "reopening each one the server closes",
                f"p50 {result['p50']:.1f} ms, " + crowd_text(result),
                "p99 ≤ 100 ms, none failed",
                crowd_met(result),
            )
    return [table]
