"""`make bench` section "event": a recorded challenge (tournament mode) beside an unrecorded one.

    python -m bench event

Three `lexicon serve` processes (the default worker class and 2 workers, the default lexicons):
one without an event, and two with `LEXICON_EVENT`, whose every verdict is appended to the
event's record before it is answered, with `LEXICON_EVENT_SYNC=full` (the default: an fsync of
the SQLite log per verdict) and `normal`. wrk (bench.wrk says why wrk) sends the same
play from a paired judge device (`Authorization: Bearer`, a wrk Lua script), at 1 and 16
connections, in alternating short runs; the figures are medians of the runs' p50 and p99.
Afterwards the record is checked: as many rows as answers, and the chain verifies.
The target: p99 ≤ 20 ms at 16 connections for the recorded challenge.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

from bench import server as harness
from bench.server import lexicon_files
from bench.table import Table
from bench.wrk import PLAY3, ms, wrk_or_missed

TARGET_P99_MS = 20.0
# Five runs, as in `python -m bench quick`: which worker takes more of wrk's 16 connections, opened
# at once, is decided anew each run (1/15 to 8/8 seen), and it moves a recorded run's throughput
# most (docs/design.md); of three runs, two uneven splits moved the median.
RUNS, SECONDS = 5, 2


class Server(harness.Server):
    """`lexicon serve` with 2 workers and the given LEXICON_* settings; ready when made."""

    def __init__(self, files: list[Path], **settings: str):
        super().__init__(files, workers=2, **settings)
        self.wait_ready(limit=60, poll=0.05)


def script(folder: Path, name: str, token: str | None) -> Path:
    """wrk's Lua script: PLAY3 POSTed; with a device's `token` (an event), each request with an
    idempotency key of its own (an event records nothing without one, and one key sent again is
    a replay, not a challenge): the script's `name` (wrks loading one event at once each have
    their own), the thread's number, the run's start and a count."""
    path = folder / f"{name}.lua"
    lines = [
        'wrk.method = "POST"',
        f"wrk.body = '{json.dumps(PLAY3)}'",
        'wrk.headers["Content-Type"] = "application/json"',
    ]
    if token:
        lines.append(f'wrk.headers["Authorization"] = "Bearer {token}"')
        keyed = json.dumps({**PLAY3, "idempotency_key": "%s-%d"})
        lines += [
            "local threads = 0",
            "function setup(thread) threads = threads + 1; thread:set('id', threads) end",
            "local count, start = 0, nil",
            "function request()",
            f"  start = start or ('{name}-' .. tostring(id) .. '-' .. os.time())",
            "  count = count + 1",
            f"  return wrk.format(nil, nil, nil, string.format('{keyed}', start, count))",
            "end",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def wrk(path: str, url: str, lua: Path, connections: int, seconds: int) -> dict:
    threads = min(2, connections)
    done = subprocess.run(
        [
            path,
            f"-t{threads}",
            f"-c{connections}",
            f"-d{seconds}s",
            "--latency",
            "--timeout",
            "5s",
            "-s",
            str(lua),
            f"{url}/v1/challenge",
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 30,
    )
    output = done.stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    total = re.search(r"(\d+) requests in", output)
    if rate is None or total is None:
        raise RuntimeError(f"wrk said: {output}{done.stderr}")
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(r"Socket errors: (.*)", output)
    result = {"rps": float(rate.group(1)), "requests": int(total.group(1)), "bad": int(bad.group(1)) if bad else 0}
    result["failed"] = sum(int(n) for n in re.findall(r"\d+", errors.group(1))) if errors else 0
    for percent in ("50", "99"):
        result[f"p{percent}"] = ms(re.search(rf"^\s+{percent}%\s+(\S+)", output, re.M).group(1))
    if not result["requests"]:  # wrk prints a latency of 0 when nothing was answered
        result["p50"] = result["p99"] = float("inf")
    return result


def paired_token(event: Path) -> str:
    from tournament import open_event

    db = open_event(event)
    _device, code = db.add_device("Juez bench", "judge")
    _, token = db.pair(code)
    db.close()
    return token


KINDS = {
    "unrecorded": {},
    "recorded, sync full": {"LEXICON_EVENT_SYNC": "full"},
    "recorded, sync normal": {"LEXICON_EVENT_SYNC": "normal"},
}
CONNECTIONS = (1, 16)


def measure(
    files: list[Path],
    folder: Path,
    wrk_path: str,
    runs: int = RUNS,
    seconds: int = SECONDS,
    warm_up: int = 1,
    kinds: dict[str, dict] = KINDS,
    connection_counts: tuple[int, ...] = CONNECTIONS,
) -> tuple[dict, dict[str, Path]]:
    """wrk's figures for each kind of server and connection count, and the recorded kinds' event files.

    Kept apart from `run` so that tests/bench/test_event.py can run it small (one run of 1 s, no
    warm-up) and read the event files it leaves in `folder`; `python -m bench quick` measures
    some of the kinds and counts only.
    """
    from tournament import create_event

    servers, scripts, events = {}, {}, {}
    try:
        for name, settings in kinds.items():
            token = None
            if settings:
                events[name] = folder / f"{len(events)}.db"
                create_event(events[name], "Bench", "bench-password-long").close()
                token = paired_token(events[name])
                settings = {**settings, "LEXICON_EVENT": str(events[name])}
            servers[name] = Server(files, **settings)
            scripts[name] = script(folder, f"s{len(scripts)}", token)
        if warm_up:
            for name in kinds:
                wrk(wrk_path, servers[name].url, scripts[name], 4, warm_up)
        results = {(name, c): [] for name in kinds for c in connection_counts}
        for _ in range(runs):
            for connections in connection_counts:
                for name in kinds:  # alternating, so the machine's noise falls on all alike
                    results[name, connections].append(
                        wrk(wrk_path, servers[name].url, scripts[name], connections, seconds)
                    )
    finally:
        for server in servers.values():
            server.stop()
    return results, events


THROUGHPUT_TARGET = 0.5  # recorded / unrecorded requests a second, 16 connections, sync full
P99_TARGET = 2.0  # recorded p99 / unrecorded p99, the same runs


def failure(runs) -> str:
    """What makes these wrk runs no measure of the challenge ('' when nothing): no runs, a run
    with nothing answered or a latency of 0, non-2xx answers (a 403 or 429 is fast), socket errors."""
    runs = list(runs)
    if not runs:
        return "no runs"
    problems = []
    if any(r["requests"] == 0 or r["rps"] == 0 or r["p99"] in (0, float("inf")) for r in runs):
        problems.append("a run with nothing answered")
    if bad := sum(r["bad"] for r in runs):
        problems.append(f"{bad} non-2xx answers")
    if errors := sum(r.get("failed", 0) for r in runs):
        problems.append(f"{errors} socket errors")
    return ", ".join(problems)


def ratio_rows(table: Table, results: dict, recorded: str = "recorded, sync full", connections: int = 16) -> bool:
    """The guard of the recorded challenge's cost: its throughput and p99 beside the unrecorded
    challenge's at `connections`, as the ratio of each run to the unrecorded run just before it
    (the kinds alternate in every run, so a disturbance falls on both), judged by the median of
    the runs' ratios, each run's ratio shown."""
    pairs = list(zip(results["unrecorded", connections], results[recorded, connections], strict=True))
    where = f"{recorded}, {connections} connections"
    figures = ("throughput, recorded / unrecorded", "p99, recorded / unrecorded")
    targets = (f"≥ {THROUGHPUT_TARGET}", f"≤ {P99_TARGET:g}")
    failed = failure(r for pair in pairs for r in pair)
    if failed:  # a ratio of failed runs says nothing: 0 answers read as p99 inf, 403s as fast
        for figure, target in zip(figures, targets, strict=True):
            table.guard(f"{where}: {figure}", f"not measured: {failed}", target, False)
        return False
    throughput = [mine["rps"] / plain["rps"] for plain, mine in pairs]
    tail = [mine["p99"] / plain["p99"] for plain, mine in pairs]
    met = True
    for figure, ratios, target, good in zip(
        figures,
        (throughput, tail),
        targets,
        (lambda r: r >= THROUGHPUT_TARGET, lambda r: r <= P99_TARGET),
        strict=True,
    ):
        median = statistics.median(ratios)
        met &= good(median)
        table.guard(
            f"{where}: {figure} (median of the {len(ratios)} runs' ratios)",
            f"{median:.2f} (runs: {', '.join(f'{r:.2f}' for r in ratios)})",
            target,
            good(median),
        )
    return met


def add_rows(table: Table, results: dict, events: dict[str, Path]) -> None:
    """The medians of `measure`'s runs, the target judged, and each event file's rows and chain."""
    from tournament import open_event

    for connections in CONNECTIONS:
        for name in KINDS:
            runs = results[name, connections]
            p50 = statistics.median(r["p50"] for r in runs)
            p99 = statistics.median(r["p99"] for r in runs)
            rps = statistics.median(r["rps"] for r in runs)
            bad = sum(r["bad"] for r in runs)
            value = f"{p50:.2f} / {p99:.2f} ms, {rps:.0f} req/s" + (f", {bad} non-2xx" if bad else "")
            if name == "recorded, sync full" and connections == 16:
                table.add(
                    f"{name}, {connections} connections",
                    value,
                    f"p99 ≤ {TARGET_P99_MS:g} ms",
                    p99 <= TARGET_P99_MS and bad == 0,
                )
            else:
                table.add(f"{name}, {connections} connection{'s' if connections > 1 else ''}", value)
    ratio_rows(table, results)
    for name, path in events.items():
        db = open_event(path, readonly=True)
        rows = sum(1 for _ in db.records())
        answered = sum(r["requests"] - r["bad"] for c in CONNECTIONS for r in results[name, c])
        intact = db.verify() is None
        db.close()
        table.add(
            f"{name}: rows recorded",
            f"{rows} (answers counted by wrk: {answered}, warm-up excluded)"
            + ("; chain verifies" if intact else "; CHAIN BROKEN"),
            "chain verifies",
            intact,
        )


def run() -> list[Table]:
    table = Table(
        "Event: a recorded challenge beside an unrecorded one (lexicon serve, 2 workers, "
        "wrk on the same 2 cores; p50 / p99 in ms, medians of "
        f"{RUNS} runs of {SECONDS} s)"
    )
    wrk_path = wrk_or_missed(table, "recorded challenge")
    if wrk_path is None:
        return [table]
    files, _ = lexicon_files()
    with tempfile.TemporaryDirectory() as scratch:
        results, events = measure(files, Path(scratch), wrk_path)
        add_rows(table, results, events)
    return [table]
