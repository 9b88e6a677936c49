"""`make bench` section "connections": clients opening thousands of connections and saying nothing
on them, against `lexicon serve` reached directly (no front end, as on a venue laptop), while wrk
plays the other devices.

    python -m bench connections

Each crowd reopens every connection the server closes, once a second, as an attacker would; wrk
asks POST /v1/challenge from 127.0.0.1. The shapes: 5,000 from one other address (the aim); 600
from wrk's own address (a spectator behind the hall's NAT address, which the phones share); 4
addresses of 512 and 10 of 256. At gunicorn's default of 1,000 connections a worker, 2,200 of
them filled both workers within gunicorn's 5 s deadline for a request's head, and the others'
challenges waited to be accepted; a worker now holds CONNECTIONS (service.connections), so the
silent ones wait out their deadline while the others' requests are read as they come, and a
connection that says nothing waits in the kernel (TCP_DEFER_ACCEPT, DEFER_SECONDS) without
costing a worker until the listening queue is full. Each crowd's run lasts DEFER_SECONDS and
10 s more, so that it holds the moment the kernel hands the silent connections over at last
and the workers close them, and the crowd reopens them.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import ExitStack
from pathlib import Path

from bench.server import lexicon_files
from bench.service_load import crowd_met, crowd_text
from bench.service_server import CHOSEN, Server, describe
from bench.slow import Crowd
from bench.table import Table
from bench.wrk import Wrk, wrk_or_missed
from service.connections import CONNECTIONS, DEFER_SECONDS

# (addresses, silent connections from each): the crowds measured
SHAPES = (
    (("127.0.0.2",), 5_000),
    (("127.0.0.1",), 600),  # wrk's own address: a hall behind one NAT address
    (tuple(f"127.0.0.{n}" for n in range(2, 6)), 512),
    (tuple(f"127.0.0.{n}" for n in range(2, 12)), 256),
)
SECONDS = 10
CROWD_SECONDS = DEFER_SECONDS + SECONDS  # a crowd's run: the silent connections handed over within it
CONNECTIONS_WRK = 16


def shape_text(addresses: tuple[str, ...], each: int) -> str:
    if len(addresses) == 1:
        return f"{addresses[0]} holds {each:,} silent connections"
    return f"{len(addresses)} addresses hold {each:,} silent connections each"


def run() -> list[Table]:
    files, languages = lexicon_files()
    table = Table(
        f"connections: `lexicon serve` ({describe(CHOSEN)}, {CONNECTIONS:,} connections a worker), lexicons "
        f"{', '.join(languages)}; wrk -t2 and the crowds on the same 2 cores (load average before: "
        f"{os.getloadavg()[0]:.1f})"
    )
    wrk_path = wrk_or_missed(table, "challenges beside silent connections")
    if wrk_path is None:
        return [table]
    with tempfile.TemporaryDirectory() as scratch, Server(files, *CHOSEN) as server:
        wrk = Wrk(wrk_path, Path(scratch))
        wrk.run(f"{server.url}/v1/challenge", CONNECTIONS_WRK, 1, post=True)  # warm up
        alone = wrk.run(f"{server.url}/v1/challenge", CONNECTIONS_WRK, SECONDS, post=True)
        table.add(
            f"POST /v1/challenge, {CONNECTIONS_WRK} connections, {SECONDS} s, nothing else",
            f"p50 {alone['p50']:.1f} ms, p99 {alone['p99']:.1f} ms, {alone['requests']:,} answered",
        )
        for addresses, each in SHAPES:
            with ExitStack() as crowds:
                opened = [crowds.enter_context(Crowd(server.port, 0, each, source=a)) for a in addresses]
                result = wrk.run(f"{server.url}/v1/challenge", CONNECTIONS_WRK, CROWD_SECONDS, post=True)
            result["reopened"] = sum(crowd.reopened for crowd in opened)
            table.add(
                f"the same for {CROWD_SECONDS} s from 127.0.0.1 while {shape_text(addresses, each)}, reopening "
                "each one the server closes",
                f"p50 {result['p50']:.1f} ms, " + crowd_text(result),
                "p99 ≤ 100 ms, none failed",
                crowd_met(result),
            )
    return [table]
