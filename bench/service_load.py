"""The service section's load figures on one server under wrk: healthz beside a challenge in
alternating rounds, latency tails at 16 and 64 connections, and a crowd of slow and silent clients.

The machine is shared and noisy, so every comparison is made inside one run: healthz and
challenge alternate in short rounds against the same server and the ratio is the median of the
rounds' ratios; latencies are medians of several runs. wrk shares the 2 cores with the server,
so the absolute rates are lower than on a dedicated server, and the ratios are not spared either:
sharing the cores' caches with wrk makes the challenge's own work cost the server about three
times what it costs in process, and single rounds of one run spread 0.79-0.95.
"""

from __future__ import annotations

import statistics
import threading

from bench.service_server import Server
from bench.slow import Crowd
from bench.table import Table
from bench.wrk import Wrk

RATIO_ROUNDS = 9
SLOW, SILENT = 50, 200  # the slow-client scenario: connections sending 1 byte/s, and silent ones


def ratio_rounds(wrk: Wrk, server: Server, rounds: int, seconds: int, connections: int = 16) -> dict:
    """healthz and challenge in alternation; rates, the rounds' ratios, and server CPU per request."""
    figures: dict[str, list[float]] = {"health": [], "challenge": [], "ratio": [], "cpu_h": [], "cpu_c": []}
    pair = (("health", "/healthz", False), ("challenge", "/v1/challenge", True))
    for number in range(rounds):
        results = {}
        # ABBA: which goes first alternates, so neither always runs on a machine warmed (or
        # disturbed) by the other
        for name, path, post in pair if number % 2 == 0 else pair[::-1]:
            before = server.cpu_seconds()
            result = wrk.run(f"{server.url}{path}", connections, seconds, post=post)
            used = server.cpu_seconds() - before
            if result["bad"]:
                raise RuntimeError(f"non-2xx answers under load on {path}: {result}")
            results[name] = result
            figures[name].append(result["rps"])
            figures["cpu_" + name[0]].append(used / (result["rps"] * seconds) * 1e6)
        figures["ratio"].append(results["challenge"]["rps"] / results["health"]["rps"])
    return {"rounds": figures["ratio"], **{k: statistics.median(v) for k, v in figures.items()}}


def sampled(wrk: Wrk, server: Server, connections: int, seconds: int) -> dict:
    """One wrk run of POST /v1/challenge, with the connections per worker counted halfway through."""
    counts: list[list[int]] = []
    counter = threading.Timer(seconds / 2, lambda: counts.append(server.spread()))
    counter.start()
    result = wrk.run(f"{server.url}/v1/challenge", connections, seconds, post=True)
    counter.join()
    return {**result, "spread": counts[0] if counts else []}


def spread_text(results: list[dict]) -> str:
    return ", ".join("/".join(map(str, r["spread"])) for r in results if r["spread"])


def latency(wrk: Wrk, server: Server, connections: int, runs: int, seconds: int) -> dict:
    results = [sampled(wrk, server, connections, seconds) for _ in range(runs)]
    return {
        **{key: statistics.median(r[key] for r in results) for key in ("rps", "p50", "p99")},
        "runs": ", ".join(f"{r['p99']:.0f}" for r in results),
        "spread": spread_text(results),
    }


def under_crowd(wrk: Wrk, server: Server, seconds: int = 5) -> dict:
    """POST /v1/challenge at 16 connections while SLOW slow-header and SILENT silent connections are open."""
    with Crowd(server.port, SLOW, SILENT) as crowd:
        result = wrk.run(f"{server.url}/v1/challenge", 16, seconds, post=True)
    return {**result, "reopened": crowd.reopened}


def crowd_text(result: dict) -> str:
    p99 = "none answered" if result["p99"] == float("inf") else f"p99 {result['p99']:.1f} ms"
    return (
        f"{result['requests']:,} answered, {p99}, {result['failed']} failed/timed out "
        f"(wrk: {result['errors'] or 'no socket errors'}), {result['bad']} non-2xx; "
        f"{result['reopened']} crowd connections closed by the server"
    )


def crowd_met(result: dict) -> bool:
    return result["requests"] > 0 and result["p99"] <= 100 and not result["failed"] and not result["bad"]


def load_figures(summary: Table, wrk: Wrk, server: Server) -> None:
    wrk.run(f"{server.url}/v1/challenge", 16, 1, post=True)  # warm up
    # Rounds of 1 s were at the mercy of start-up noise; 5 rounds of 3 s gave medians 0.03 apart
    # from one run to the next on a quiet machine (single rounds 0.78-0.95), so 9.
    rounds = ratio_rounds(wrk, server, rounds=RATIO_ROUNDS, seconds=3)
    summary.add(
        f"GET /healthz, 16 connections (median of {RATIO_ROUNDS} alternating rounds of 3 s)",
        f"{rounds['health']:,.0f} req/s, server CPU {rounds['cpu_h']:.0f} µs/request",
    )
    summary.add(
        "POST /v1/challenge, 3 words, 16 connections",
        f"{rounds['challenge']:,.0f} req/s, server CPU {rounds['cpu_c']:.0f} µs/request",
    )
    ratio = rounds["ratio"]
    summary.add(
        "challenge / healthz throughput (median of the rounds' ratios)",
        f"{ratio:.2f} (rounds: {', '.join(f'{r:.2f}' for r in rounds['rounds'])})",
        "≥ 0.9",
        ratio >= 0.9,
    )
    summary.add(
        "the same from server CPU per request (healthz µs / challenge µs)",
        f"{rounds['cpu_h'] / rounds['cpu_c']:.2f}",
        "(steadier; no target)",
    )
    slow = under_crowd(wrk, server)
    summary.add(
        f"POST /v1/challenge, 16 connections, with {SLOW} slow-header (1 byte/s) and {SILENT} silent "
        "connections open (5 s)",
        crowd_text(slow),
        "p99 ≤ 100 ms, none failed",
        crowd_met(slow),
    )
    for connections in (16, 64):
        figures = latency(wrk, server, connections, runs=3, seconds=2)
        summary.add(
            f"POST /v1/challenge, {connections} connections: p50 / p99 (median of 3 runs of 2 s; "
            "each run's p99; connections per worker halfway through each run)",
            f"{figures['p50']:.2f} / {figures['p99']:.2f} ms ({figures['rps']:,.0f} req/s; runs "
            f"{figures['runs']} ms; {figures['spread']})",
            "p99 ≤ 25 ms" if connections == 64 else "",
            figures["p99"] <= 25 if connections == 64 else None,
        )
