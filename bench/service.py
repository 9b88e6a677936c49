"""`make bench` section "service": the real `lexicon serve`, loaded from a second process.

    python -m bench service

The server is started from here as its own process (`lexicon serve`, gunicorn, the manifest's
default lexicons, logs to /dev/null), and loaded by wrk, a C load generator from Debian, in a
third process. Why wrk and not a Python client: a Python client on these 2 cores would need
more CPU per request than the server does, so it would measure itself; wrk needs a fraction,
keeps connections alive like a phone does, and reports latency percentiles. If wrk is missing
it is installed with apt-get (said on standard error); without it the load figures are left
out and the table says so.

The machine is shared and noisy, so every comparison is made inside one run: healthz and
challenge alternate in short rounds against the same server and the ratio is the median of the
rounds' ratios; latencies are medians of several runs. wrk shares the 2 cores with the server,
so the absolute rates are lower than on a dedicated server, and the ratios are not spared either:
sharing the cores' caches with wrk makes the challenge's own work cost the server about three
times what it costs in process, and single rounds of one run spread 0.79-0.95.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench import loading, reloading
from bench import server as harness
from bench.api import per_call_us
from bench.server import LEXICON, REPOSITORY
from bench.slow import Crowd, linger
from bench.table import Table

PLAY3 = {"lexicon": "es", "words": ["CARRO", "CHICO", "PERRO"]}
EIGHT = ["CASA", "PERRO", "GATO", "MESA", "SILLA", "AGUA", "LUNA", "CARRO"]
NOT_A_WORD = "ZURDOX"

# The configuration `lexicon serve` uses by default (service/gunicorn_conf.py), and the
# alternatives measured against it: (worker class, workers, threads). gunicorn 27 has no
# eventlet worker any more (its SUPPORTED_WORKERS: sync, gevent, gevent_pywsgi, gthread,
# tornado, asgi), so eventlet is not among them.
CHOSEN = ("gevent", 2, 1)
ALTERNATIVES = [CHOSEN, ("gevent", 1, 1), ("gevent", 3, 1), ("sync", 2, 1), ("gthread", 2, 16)]
RATIO_ROUNDS = 9
SLOW, SILENT = 50, 200  # the slow-client scenario: connections sending 1 byte/s, and silent ones


def describe(config) -> str:
    worker_class, workers, threads = config
    return f"{worker_class}, {workers} workers" + (f" × {threads} threads" if threads > 1 else "")


def log(message: str) -> None:
    print(f"bench service: {message}", file=sys.stderr, flush=True)


# -- the load generator -----------------------------------------------------------------------------


def ensure_wrk() -> str | None:
    found = shutil.which("wrk")
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        log("wrk is missing and cannot be installed here (needs root and apt-get)")
        return None
    log("wrk is missing: installing it from Debian (apt-get install -y wrk)")
    for command in (
        ["apt-get", "install", "-y", "-qq", "wrk"],
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "wrk"],
    ):
        subprocess.run(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        if shutil.which("wrk"):
            return shutil.which("wrk")
    log("apt-get could not install wrk")
    return None


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * _UNITS[unit]


class Wrk:
    def __init__(self, path: str, folder: Path):
        self.path = path
        self.post = folder / "post.lua"
        self.post.write_text(
            'wrk.method = "POST"\n'
            f"wrk.body = '{json.dumps(PLAY3)}'\n"
            'wrk.headers["Content-Type"] = "application/json"\n',
            encoding="utf-8",
        )

    def run(self, url: str, connections: int, seconds: int, post: bool = False) -> dict:
        command = [self.path, "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
        if post:
            command += ["-s", str(self.post)]
        done = subprocess.run(command + [url], capture_output=True, text=True, timeout=seconds + 30)
        output = done.stdout
        rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
        if rate is None:
            raise RuntimeError(f"wrk said: {output}{done.stderr}")
        result = {"rps": float(rate.group(1))}
        for percent in ("50", "99"):
            found = re.search(rf"^\s+{percent}%\s+(\S+)", output, re.M)
            result[f"p{percent}"] = _ms(found.group(1)) if found else float("inf")  # nothing answered
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
        errors = re.search(r"Socket errors: (.*)", output)
        result["bad"] = int(bad.group(1)) if bad else 0
        result["errors"] = errors.group(1) if errors else ""
        result["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
        if not result["requests"]:  # wrk prints a latency of 0 when nothing was answered
            result["p50"] = result["p99"] = float("inf")
        result["failed"] = sum(int(n) for n in re.findall(r"\d+", result["errors"]))
        return result


# -- the server ---------------------------------------------------------------------------------------


class Server(harness.Server):
    """`lexicon serve` with the given gunicorn worker class, workers, threads; ready when made."""

    def __init__(self, files: list[Path], worker_class: str, workers: int, threads: int):
        super().__init__(files, workers=workers, LEXICON_WORKER_CLASS=worker_class, LEXICON_THREADS=str(threads))
        self.wait_ready(poll=0.005)  # ready_after: a figure of the section

    def workers(self):
        import psutil

        return psutil.Process(self.process.pid).children()  # `lexicon serve` is gunicorn's master

    def cpu_seconds(self) -> float:
        """CPU time used so far by the workers (user + system)."""
        total = 0.0
        for worker in self.workers():
            times = worker.cpu_times()
            total += times.user + times.system
        return total

    def spread(self) -> list[int]:
        """Client connections each worker holds now, fewest first (gevent keeps each on its worker)."""
        counts = []
        for worker in self.workers():
            with contextlib.suppress(OSError, AttributeError):  # gone, or psutil < 6: not counted
                counts.append(
                    sum(
                        1
                        for c in worker.net_connections("tcp")
                        if c.status == "ESTABLISHED" and c.laddr and c.laddr.port == self.port
                    )
                )
        return sorted(counts)


# -- the figures ----------------------------------------------------------------------------------------


def lexicon_files() -> tuple[list[Path], list[str]]:
    """The manifest's default lexicons (built by `make bench`'s `lexicons` step, or here)."""
    from build_tools.manifest import load_manifest

    manifest = load_manifest()
    entries = [entry for entry in manifest.entries if entry.default]
    if not all(entry.output.is_file() for entry in entries):
        log("building the default lexicons (lexicon build-defaults)")
        subprocess.run([str(LEXICON), "build-defaults"], check=True, cwd=REPOSITORY, stdout=subprocess.DEVNULL)
    return [entry.output for entry in entries], [entry.language for entry in entries]


def memory(server: Server) -> tuple[float, int]:
    """Largest USS of a worker (MB), and how many workers were measured."""
    uss = [worker.memory_full_info().uss / 2**20 for worker in server.workers()]
    return max(uss), len(uss)


def touch_every_page(server: Server, languages: list[str]) -> None:
    """Requests that make every worker read its lexicons, so their pages are mapped in each."""
    for _ in range(200):
        for language in languages:
            request = urllib.request.Request(
                f"{server.url}/v1/challenge",
                data=json.dumps({"lexicon": language, "words": EIGHT}).encode(),
                headers={"Content-Type": "application/json"},
            )
            with contextlib.suppress(urllib.error.HTTPError):  # a Catalan 422 (no Y tile...) still maps its pages
                urllib.request.urlopen(request, timeout=5).read()


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


def compare_classes(wrk: Wrk, files: list[Path], rounds: int = 3, seconds: int = 2) -> Table:
    """Every alternative served at once, loaded in turn round after round (drifts hit all alike);
    then each under the crowd of slow and silent clients, and each's linger after an answer."""
    table = Table(
        f"service: gunicorn worker classes side by side: POST /v1/challenge at 64 connections "
        f"(median of {rounds} interleaved runs of {seconds} s); at 16 connections with {SLOW} "
        f"slow-header (1 byte/s) and {SILENT} silent connections open (5 s); wait of the next "
        "request after a client keeps its socket open (1 worker, median of 5)"
    )
    servers = {}
    results: dict[tuple, list[dict]] = {config: [] for config in ALTERNATIVES}
    crowd: dict[tuple, dict] = {}
    lingers: dict[tuple, float] = {}
    try:
        for config in ALTERNATIVES:
            servers[config] = Server(files, *config)
        for server in servers.values():
            wrk.run(f"{server.url}/v1/challenge", 64, 1, post=True)
        for _ in range(rounds):
            for config, server in servers.items():
                results[config].append(sampled(wrk, server, 64, seconds))
        for config, server in servers.items():
            crowd[config] = under_crowd(wrk, server)
    finally:
        for server in servers.values():
            server.stop()
    for config in ALTERNATIVES:
        with Server(files, config[0], 1, config[2]) as alone:
            lingers[config] = linger(alone.url, alone.port)
    for config in ALTERNATIVES:
        figures = {key: statistics.median(r[key] for r in results[config]) for key in ("rps", "p50", "p99")}
        runs = ", ".join(f"{r['p99']:.0f}" for r in results[config])
        name = describe(config) + (" (default)" if config == CHOSEN else "")
        spread = f"; connections per worker: {spread_text(results[config])}" if config[1] > 1 else ""
        table.add(
            f"{name}: 64 connections",
            f"{figures['rps']:,.0f} req/s, p50 {figures['p50']:.1f} ms, p99 {figures['p99']:.1f} ms "
            f"(runs: {runs}){spread}",
            "p99 ≤ 25 ms",
            figures["p99"] <= 25,
        )
        slow = crowd[config]
        table.add(
            f"{name}: 16 connections among {SLOW} slow + {SILENT} silent",
            crowd_text(slow),
            "p99 ≤ 100 ms, none failed",
            crowd_met(slow),
        )
        table.add(
            f"{name}: next request after a kept-open answered socket",
            f"{lingers[config] * 1000:.0f} ms",
            "≤ 100 ms",
            lingers[config] <= 0.1,
        )
    return table


def wsgi_call(app, method: str, path: str, body: bytes = b""):
    """One request to the WSGI app itself, no server: what the app adds to a request. The call
    returns the status line, so a caller can check it measures answers, not errors."""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "bench",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.input_terminated": True,
    }
    if body:
        environ.update(CONTENT_LENGTH=str(len(body)), CONTENT_TYPE="application/json")

    def call() -> str:
        said = []
        answer = app({**environ, "wsgi.input": io.BytesIO(body)}, lambda status, headers: said.append(status))
        b"".join(answer)
        answer.close()
        return said[0]

    return call


def challenge_and_health(app, rounds: int = 15, number: int = 1000) -> dict[str, float]:
    """µs per whole WSGI request in process: POST /v1/challenge (the bench's 3 words) and GET
    /healthz. Their difference is what the challenge's own work costs the app; the throughput
    ratio under gunicorn adds the server's and wrk's share of each request to both. CPU time,
    median of interleaved rounds (bench.api.per_call_us)."""
    return per_call_us(
        {
            "challenge": wsgi_call(app, "POST", "/v1/challenge", json.dumps(PLAY3).encode()),
            "healthz": wsgi_call(app, "GET", "/healthz"),
        },
        number,
        rounds,
    )


def verdict_timing(files: list[Path]) -> tuple[Table, bool]:
    """In process: the failing word first, then last, in the same 8-word play; the same words.
    And a whole challenge beside a whole /healthz, to show what the challenge adds."""
    from lexicon.lexfile import Lexicon
    from lexicon.verdict import lookup_all, play_keys
    from service import create_app

    spanish = Lexicon.open(files[0])
    first = [NOT_A_WORD] + EIGHT[1:]
    last = EIGHT[1:] + [NOT_A_WORD]

    def core(words):
        return lambda: lookup_all(spanish, play_keys(spanish, words))

    app = create_app(
        {
            "LEXICON_FILES": [str(files[0])],
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
            "LEXICON_LOG_LEVEL": "warning",
        }
    )

    def request(words):
        return wsgi_call(app, "POST", "/v1/challenge", json.dumps({"lexicon": "es", "words": words}).encode())

    table = Table(
        "service: verdict time in process, failing word first vs last (8 words, same words); "
        "a whole challenge beside /healthz"
    )
    met_all = True
    for label, make, number in (
        ("core play_keys + lookup_all", core, 2000),
        ("whole request (WSGI app)", request, 500),
    ):
        median = per_call_us(
            {"first": make(first), "last": make(last), "first again": make(first)}, number, clock=time.perf_counter
        )
        difference = (median["last"] - median["first"]) / median["first"] * 100
        control = (median["first again"] - median["first"]) / median["first"] * 100
        met = abs(difference) <= max(3 * abs(control), 2.0)
        met_all &= met
        table.add(
            f"{label}: first / last / first again (µs)",
            f"{median['first']:.2f} / {median['last']:.2f} / {median['first again']:.2f}",
        )
        table.add(
            f"{label}: last vs first",
            f"{difference:+.1f} % (same play measured twice: {control:+.1f} %)",
            "equal within noise (≤ 3× the control, or ≤ 2 %)",
            met,
        )
    both = challenge_and_health(app)
    table.add(
        "whole request (WSGI app): POST /v1/challenge, 3 words / GET /healthz (µs, median of 15 "
        "alternating rounds of 1,000)",
        f"{both['challenge']:.1f} / {both['healthz']:.1f}: the challenge adds "
        f"{both['challenge'] - both['healthz']:.1f} µs (in-process ratio {both['healthz'] / both['challenge']:.2f})",
    )
    return table, met_all


def run() -> list[Table]:
    started = time.perf_counter()
    files, languages = lexicon_files()
    summary = Table(
        f"service: `lexicon serve` ({describe(CHOSEN)}), lexicons {', '.join(languages)}; "
        "load from wrk -t2 on the same 2 cores"
    )
    tables = [summary]
    wrk_path = ensure_wrk()

    # Start to ready: from launching the command to the first 200 of /readyz.
    readiness = []
    for _ in range(3):
        with Server(files, *CHOSEN) as server:
            readiness.append(server.ready_after)
    ready = statistics.median(readiness)
    summary.add(
        "start to ready (`lexicon serve` launched → /readyz 200), median of 3", f"{ready:.2f} s", "≤ 2 s", ready <= 2.0
    )

    with tempfile.TemporaryDirectory() as scratch:
        wrk = Wrk(wrk_path, Path(scratch)) if wrk_path else None
        with Server(files, *CHOSEN) as server:
            touch_every_page(server, languages)
            uss, count = memory(server)
            summary.add(
                f"private memory (USS) per worker, largest of {count}, lexicons {'+'.join(languages)}",
                f"{uss:.1f} MB",
                "≤ 30 MB",
                uss <= 30,
            )
            if wrk is None:
                summary.add("load figures", "not measured: wrk unavailable", "wrk", False)
            else:
                load_figures(summary, wrk, server)
        if wrk is not None:
            reloading.add_rows(summary, reloading.measure(wrk, Server, LEXICON, files[0], Path(scratch)))
            tables.append(compare_classes(wrk, files))

    tables.append(loading.compare(files))
    tables.append(verdict_timing(files)[0])
    log(f"done in {time.perf_counter() - started:.0f} s")
    return tables


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
