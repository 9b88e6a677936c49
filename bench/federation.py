"""`make bench` section "federation": events in PostgreSQL (a federation's service) beside an event file.

    python -m bench federation

Debian's PostgreSQL in a temporary folder (bench/postgres.py, as the tests start it), reached over
TCP on 127.0.0.1 as instances on other machines would reach it, with the roles of
docs/operations.md; `lexicon serve` with `LEXICON_EVENT` naming an event in it. wrk (bench.wrk)
sends the event section's play from paired judge devices, each request with its own
idempotency key (bench.event's script).

- **PostgreSQL beside SQLite**: a recorded challenge at 16 connections, one instance of 2 workers
  on an event file (SQLite, synchronous=FULL) and one on an event in PostgreSQL (synchronous_commit
  on), in alternating runs: each kind's p50, p99 and throughput (medians), and the PostgreSQL run's
  p99 over the SQLite run's just before it, judged by the median of the runs' ratios (goal: at most
  2×, a guard).
- **Four instances, one event**: four instances (one worker each) on the same event in PostgreSQL,
  each loaded by its own wrk at once (a device of its own, 4 connections each): the verdicts a
  second they record together, the median of their p99s, no error, and then the record: as many
  rows as answers and a chain that verifies.

- **A federation's Saturday**: EVENTS events in one database, DEVICES paired judge devices each,
  served by two instances of the service of every event (`LEXICON_EVENT` naming the database, each
  event under /e/ID/), one worker each; a wrk per instance, each with half the devices'
  connections, every request from the next device of the next event: the verdicts a second
  recorded in all, the p50 and p99 (medians of the two wrks'), no error, and every event's record.

Afterwards every event's record is checked: the rows the measured runs added are the answers wrk
counted (and at most one a connection more: wrk stops counting with requests in flight, the
warm-up's included), and its chain verifies.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench import event
from bench.server import Server, lexicon_files
from bench.table import Table
from bench.wrk import PLAY3, log, wrk_or_missed

RUNS, SECONDS = 3, 2
P99_TARGET = 2.0  # PostgreSQL's recorded p99 / SQLite's, 16 connections, the same runs
CONNECTIONS = 16
INSTANCES, EACH = 4, 4  # four instances on one event, 4 connections each
EVENTS, DEVICES = 20, 20  # a federation's Saturday: 20 events of 20 devices, through two instances
WAVES = 5  # every device challenging at once, so many times
ANSWER_SECONDS = 30  # a challenge not answered by then counts as an error
# a pool of up to 8 connections per event an instance's worker serves, each instance's own, and room
CONNECTIONS_NEEDED = 2 * EVENTS * 8 + 100
WARM_UP = 4  # connections of the warm-up run before the measured ones (its last requests may land after)


class Database:
    """Debian's PostgreSQL in a folder of its own (bench/postgres.py), stopped and removed at the end."""

    def __init__(self, connections: int = 200):
        from bench.postgres import PostgresServer

        # Not under a folder only root may enter: the server may run as `postgres`.
        self.folder = Path(tempfile.mkdtemp(prefix="lexicon-bench-postgres-"))
        try:
            self.server = PostgresServer(self.folder, connections=connections)
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise

    def event(self) -> tuple[str, str]:
        """A new event (made as the database's owner): its URL for the instances' role, over TCP,
        and a paired judge device's token."""
        from bench.postgres import OWNER, SERVICE
        from tournament import create_event

        name = f"bench-{uuid.uuid4().hex[:8]}"
        create_event(self.server.url(OWNER, event=name), "Bench", "bench-password-long").close()
        return self.server.url(SERVICE, event=name, tcp=True), name

    def close(self) -> None:
        self.server.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def token(location: str | Path, name: str = "Juez bench") -> str:
    """A paired judge device's token for the event at `location` (a file or a database's URL)."""
    from tournament import open_event

    db = open_event(location)
    try:
        _device, code = db.add_device(name, "judge")
        return db.pair(code)[1]
    finally:
        db.close()


def rows(location: str | Path) -> tuple[int, bool]:
    """The event's rows, and whether its chain verifies."""
    from tournament import open_event

    db = open_event(location, readonly=True)
    try:
        return sum(1 for _ in db.records()), db.verify() is None
    finally:
        db.close()


def beside(files: list[Path], folder: Path, database: Database, wrk_path: str, runs: int, seconds: int) -> dict:
    """wrk's runs at CONNECTIONS against an event file's instance and a PostgreSQL event's,
    alternating, and each event's location: {"sqlite": (runs, location), "postgres": (…)}."""
    from tournament import create_event

    path = folder / "event.db"
    create_event(path, "Bench", "bench-password-long").close()
    url, _ = database.event()
    kinds = {"sqlite": path, "postgres": url}
    servers, scripts, results = {}, {}, {name: [] for name in kinds}
    try:
        for name, location in kinds.items():
            servers[name] = event.Server(files, LEXICON_EVENT=str(location))
            scripts[name] = event.script(folder, name, token(location))
        for name in kinds:  # warm-up, not counted
            event.wrk(wrk_path, servers[name].url, scripts[name], WARM_UP, 1)
        before = {name: rows(location)[0] for name, location in kinds.items()}
        for _ in range(runs):
            for name in kinds:  # alternating, so the machine's noise falls on both alike
                results[name].append(event.wrk(wrk_path, servers[name].url, scripts[name], CONNECTIONS, seconds))
    finally:
        for server in servers.values():
            server.stop()
    return {name: (results[name], kinds[name], before[name]) for name in kinds}


def together(files: list[Path], folder: Path, database: Database, wrk_path: str, runs: int, seconds: int):
    """INSTANCES instances of one worker on one PostgreSQL event, each under its own wrk at once,
    `runs` times: a list of runs, each the list of the instances' wrk results; the event's URL; its
    rows before the measured runs."""
    url, _ = database.event()
    servers, scripts = [], []
    try:
        for number in range(INSTANCES):
            server = Server(files, workers=1, LEXICON_EVENT=url)
            servers.append(server)
            server.wait_ready(limit=60, poll=0.05)
            scripts.append(event.script(folder, f"i{number}", token(url, f"Juez {number + 1}")))
        with ThreadPoolExecutor(INSTANCES) as pool:

            def all_at_once(each_seconds: int) -> list[dict]:
                return list(
                    pool.map(
                        lambda n: event.wrk(wrk_path, servers[n].url, scripts[n], EACH, each_seconds), range(INSTANCES)
                    )
                )

            all_at_once(1)  # warm-up, not counted
            before = rows(url)[0]
            measured = [all_at_once(seconds) for _ in range(runs)]
    finally:
        for server in servers:
            server.stop()
    return measured, url, before


async def _waves(devices: list[tuple[int, str, str]], waves: int) -> list[list[tuple[int, float]]]:
    """Every device challenging at once, `waves` times (each wave once the last is answered): per
    wave, each answer's status (0: none) and seconds."""
    starts = [asyncio.Event() for _ in range(waves)]
    answers: list[list] = [[] for _ in range(waves)]

    async def ask(stream, request: bytes) -> int:
        """The request on the connection; its answer's status (0: the connection closed first)."""
        reader, writer = stream
        writer.write(request)
        status_line = await asyncio.wait_for(reader.readline(), ANSWER_SECONDS)
        if not status_line:
            return 0
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        await reader.readexactly(length)
        return int(status_line.split()[1])

    async def device(port: int, path: str, token: str, number: int) -> None:
        stream = await asyncio.open_connection("127.0.0.1", port)
        try:
            for wave in range(waves):
                await starts[wave].wait()
                key = f"sat-{number}-{wave}-{uuid.uuid4().hex[:8]}"
                body = json.dumps({**PLAY3, "idempotency_key": key}).encode()
                request = (
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                ).encode() + body
                began = time.perf_counter()
                try:
                    try:
                        status = await ask(stream, request)
                    except (ConnectionResetError, BrokenPipeError):
                        status = 0
                    if status == 0:  # closed while idle (keepalive, 5 s): a browser opens another, as here
                        stream[1].close()
                        stream = await asyncio.open_connection("127.0.0.1", port)
                        status = await ask(stream, request)
                    answers[wave].append((status, time.perf_counter() - began))
                except (OSError, ValueError, IndexError, asyncio.IncompleteReadError, TimeoutError):
                    answers[wave].append((0, time.perf_counter() - began))
                    return
        finally:
            stream[1].close()

    tasks = [asyncio.create_task(device(*d, n)) for n, d in enumerate(devices)]
    for wave in range(waves):
        await asyncio.sleep(0.2)  # every connection open (the first wave) or idle again
        starts[wave].set()
        while len(answers[wave]) < len(devices) and not all(task.done() for task in tasks):
            await asyncio.sleep(0.01)
    await asyncio.gather(*tasks, return_exceptions=True)
    return answers


def saturday(
    files: list[Path],
    database: Database,
    waves: int = WAVES,
    events: int = EVENTS,
    devices: int = DEVICES,
):
    """`events` events of `devices` paired judge devices each, served by two instances of the
    service of every event (one worker each), every device challenging at once `waves` times, half
    the devices through each instance: the waves' answers, the events' URLs and `devices`."""
    from bench.postgres import OWNER, SERVICE
    from tournament import create_event

    urls, names, plays = [], [], []
    for number in range(events):
        name = f"sat-{uuid.uuid4().hex[:6]}-{number:02}"
        create_event(database.server.url(OWNER, event=name), f"Sábado {number + 1}", "bench-password-long").close()
        url = database.server.url(SERVICE, event=name, tcp=True)
        urls.append(url)
        names.append(name)
        plays += [(f"/e/{name}/v1/challenge", token(url, f"Juez {n + 1}")) for n in range(devices)]
    servers = []
    try:
        for _ in range(2):
            server = Server(files, workers=1, LEXICON_EVENT=database.server.url(SERVICE, tcp=True))
            servers.append(server)
            server.wait_ready(limit=60, poll=0.05)
            for name in names:  # each event's app made in its worker (at its first request), not measured
                assert server.get(f"/e/{name}/readyz")[0] == 200, name
        spread = [(servers[n % 2].port, path, device) for n, (path, device) in enumerate(plays)]
        with ThreadPoolExecutor(1) as own:  # a loop of its own: the caller's thread may run one (a test's browser)
            answers = own.submit(asyncio.run, _waves(spread, waves)).result()
    finally:
        for server in servers:
            server.stop()
    return answers, urls, devices


def add_saturday(table: Table, answers: list[list[tuple[int, float]]], urls: list[str], devices: int) -> None:
    where = f"{len(urls)} events × {devices} devices, all at once, through two instances"
    times = sorted(seconds * 1000 for wave in answers for _, seconds in wave)
    slowest = max(max(seconds for _, seconds in wave) for wave in answers if wave) * 1000
    bad = sum(1 for wave in answers for status, _ in wave if status != 200)
    expected = len(answers) * len(urls) * devices
    missing = expected - sum(len(wave) for wave in answers)
    table.add(
        f"{where}: p50 / p99 of the {expected} challenges ({len(answers)} waves)",
        f"{statistics.median(times):.0f} / {times[min(len(times) - 1, int(len(times) * 0.99))]:.0f} ms",
    )
    table.add(f"{where}: the slowest answer of a wave (every device answered)", f"{slowest:.0f} ms")
    errors = ", ".join(
        part for part in (f"{bad} not 200" if bad else "", f"{missing} never sent" if missing else "") if part
    )
    table.add(f"{where}: errors (an answer not 200, or none)", errors or "none", "none", not errors)
    counted = [rows(url) for url in urls]
    recorded = sum(count for count, _ in counted)
    answered = sum(1 for wave in answers for status, _ in wave if status == 200)
    intact = all(good for _, good in counted)
    table.add(
        f"{where}: rows recorded, every event",
        f"{recorded} rows for {answered} answers"
        + ("; every event's chain verifies" if intact else "; A CHAIN BROKEN"),
        "a row per answer, chain verifies",
        intact and recorded == answered,
    )


def record_row(table: Table, figure: str, location, before: int, answered: int, in_flight: int) -> bool:
    """The event's record after the runs: the rows the runs added are the answers wrk counted (and at
    most `in_flight` more, requests wrk stopped counting), and the chain verifies."""
    count, intact = rows(location)
    added = count - before
    good = intact and answered <= added <= answered + in_flight
    table.add(
        figure,
        f"{added} rows for {answered} answers counted by wrk" + ("; chain verifies" if intact else "; CHAIN BROKEN"),
        f"a row per answer (and up to {in_flight} more: requests wrk stopped waiting for), chain verifies",
        good,
    )
    return good


def add_beside(table: Table, measured: dict, runs: int) -> None:
    for name, label in (("sqlite", "event file (SQLite)"), ("postgres", "event in PostgreSQL")):
        results = measured[name][0]
        p50 = statistics.median(r["p50"] for r in results)
        p99 = statistics.median(r["p99"] for r in results)
        rps = statistics.median(r["rps"] for r in results)
        bad = sum(r["bad"] + r["failed"] for r in results)
        table.add(
            f"recorded challenge, {label}, {CONNECTIONS} connections",
            f"{p50:.2f} / {p99:.2f} ms, {rps:.0f} req/s" + (f", {bad} errors" if bad else ""),
        )
    pairs = list(zip(measured["sqlite"][0], measured["postgres"][0], strict=True))
    figure = f"p99, PostgreSQL / SQLite, {CONNECTIONS} connections (median of the {runs} runs' ratios)"
    failed = event.failure(r for pair in pairs for r in pair)
    if failed:
        table.guard(figure, f"not measured: {failed}", f"≤ {P99_TARGET:g}", False)
    else:
        ratios = [pg["p99"] / lite["p99"] for lite, pg in pairs]
        median = statistics.median(ratios)
        table.guard(
            figure,
            f"{median:.2f} (runs: {', '.join(f'{r:.2f}' for r in ratios)})",
            f"≤ {P99_TARGET:g}",
            median <= P99_TARGET,
        )
    for name in ("sqlite", "postgres"):
        results, location, before = measured[name]
        record_row(
            table,
            f"{name}: rows recorded in the measured runs",
            location,
            before,
            sum(r["requests"] - r["bad"] for r in results),
            len(results) * CONNECTIONS + WARM_UP,
        )


def add_together(table: Table, measured: list[list[dict]], url: str, before: int) -> None:
    totals = [sum(r["rps"] for r in run) for run in measured]
    p99s = [statistics.median(r["p99"] for r in run) for run in measured]
    errors = sum(r["bad"] + r["failed"] for run in measured for r in run)
    failed = event.failure(r for run in measured for r in run)
    table.add(
        f"{INSTANCES} instances on one event in PostgreSQL, {EACH} connections each: verdicts recorded a second, "
        "all instances (median of runs)",
        f"{statistics.median(totals):.0f} req/s (runs: {', '.join(f'{t:.0f}' for t in totals)})",
    )
    table.add(
        f"{INSTANCES} instances on one event: p99 (median of the instances', median of runs)",
        f"{statistics.median(p99s):.2f} ms",
    )
    table.add(
        f"{INSTANCES} instances on one event: errors (non-2xx answers, socket errors)",
        failed or "none",
        "none",
        not errors and not failed,
    )
    record_row(
        table,
        f"{INSTANCES} instances on one event: rows recorded in the measured runs",
        url,
        before,
        sum(r["requests"] - r["bad"] for run in measured for r in run),
        (len(measured) + 1) * INSTANCES * EACH,
    )


def measure(
    table: Table,
    files: list[Path],
    wrk_path: str,
    runs: int = RUNS,
    seconds: int = SECONDS,
    database=None,
    size: tuple[int, int] = (EVENTS, DEVICES),
) -> None:
    """Every part's rows added to `table`, in `database` (a Database; by default one of its own,
    closed at the end), the Saturday's `size` (events, devices each). Kept apart from `run` for
    tests/bench, which runs it small and reads it."""
    from bench.postgres import PostgresFailed

    own = database is None
    if own:
        try:
            database = Database(connections=CONNECTIONS_NEEDED)
        except PostgresFailed as failure:
            first = str(failure).splitlines()[0]
            table.guard("p99, PostgreSQL / SQLite", f"not measured: {first}", f"≤ {P99_TARGET:g}", False)
            return
    try:
        with tempfile.TemporaryDirectory() as scratch:
            log("federation: PostgreSQL beside SQLite")
            add_beside(table, beside(files, Path(scratch), database, wrk_path, runs, seconds), runs)
            log(f"federation: {INSTANCES} instances on one event")
            add_together(table, *together(files, Path(scratch), database, wrk_path, runs, seconds))
            log(f"federation: a Saturday, {size[0]} events × {size[1]} devices")
            add_saturday(table, *saturday(files, database, WAVES, *size))
    finally:
        if own:
            database.close()


def run() -> list[Table]:
    table = Table(
        "federation: events in PostgreSQL (Debian's, on this machine, over TCP) beside an event file "
        f"(lexicon serve under wrk on the same 2 cores; p50 / p99 in ms, medians of {RUNS} runs of {SECONDS} s)"
    )
    wrk_path = wrk_or_missed(table, "recorded challenge, PostgreSQL beside SQLite", guard=True)
    if wrk_path is None:
        return [table]
    files, _ = lexicon_files()
    measure(table, files, wrk_path)
    return [table]
