"""`make bench-quick` (`python -m bench quick`): the two ratios that guard what a challenge costs,
in under a minute, for use before a stop.

- In process: a whole POST /v1/challenge beside a whole GET /healthz (bench.service_in_process's
  `ratio_row`, the service section's row): the plain challenge's CPU within 10 % of /healthz.
- Under wrk: a recorded challenge (tournament mode, synchronous=FULL) beside an unrecorded one
  at 16 connections (bench.event's `ratio_rows`, the event section's rows, measured with fewer
  runs): at least half the throughput, and a p99 at most twice as long.

Each row says NO when its goal is missed, and `python -m bench` names every guard again at the
end of its run. The full sections measure the same rows with more rounds and runs.

A second table says where the time goes, in process: cProfile of the plain challenge, of
/healthz and of a recorded challenge, each with the widest frames of its flame graph (a frame
with its callees), and the recorded one again in CPU time only (the profiler's clock
`time.process_time`: the log's fsync, a wait, leaves the processor's own work in view). A
profiler's own cost falls on every Python call, so read its shares, not its microseconds.
"""

from __future__ import annotations

import cProfile
import itertools
import json
import pstats
import tempfile
import time
from pathlib import Path

from bench import event
from bench.server import lexicon_files
from bench.service_in_process import ratio_row, wsgi_call
from bench.table import Table
from bench.wrk import PLAY3, log, wrk_or_missed

RUNS, SECONDS = 5, 2  # recorded beside unrecorded: alternating runs of wrk at 16 connections


def run() -> list[Table]:
    from service import create_app

    started = time.perf_counter()
    files, _ = lexicon_files()
    table = Table(
        "quick: the plain challenge beside /healthz in process, and the recorded challenge beside the "
        f"unrecorded one under wrk (lexicon serve, 2 workers, 16 connections, {RUNS} alternating runs "
        f"of {SECONDS} s)"
    )
    app = create_app(
        {
            "LEXICON_FILES": [str(files[0])],
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
            "LEXICON_LOG_LEVEL": "warning",
        }
    )
    ratio_row(table, app)
    frames = profiles(app, files)
    wrk_path = wrk_or_missed(table, "recorded challenge", guard=True)
    if wrk_path is None:
        return [table, frames]
    kinds = {name: event.KINDS[name] for name in ("unrecorded", "recorded, sync full")}
    with tempfile.TemporaryDirectory() as scratch:
        results, _ = event.measure(files, Path(scratch), wrk_path, RUNS, SECONDS, 1, kinds, (16,))
    event.ratio_rows(table, results)
    log(f"quick done in {time.perf_counter() - started:.0f} s")
    return [table, frames]


# The frames of a request's flame graph worth naming, by (file, function): the framework's share
# (request context and routing, the view, the response), and the challenge's and the record's own.
FRAMES = {
    "in front of Flask (service/fast_challenge.py FastChallenge, RecordedChallenge; Flask within it for what it passes on)": (
        "service/fast_challenge.py",
        "__call__",
    ),
    "Flask's app (flask wsgi_app)": ("flask/app.py", "wsgi_app"),
    "request context and routing (flask/ctx.py push)": ("flask/ctx.py", "push"),
    "the view (flask dispatch_request)": ("flask/app.py", "dispatch_request"),
    "body read (service/api.py read_body)": ("service/api.py", "read_body"),
    "the route's call (service/api.py Challenges.post)": ("service/api.py", "post"),
    "decode (msgspec Decoder.decode)": ("builtin", "<method 'decode' of 'msgspec.json.Decoder' objects>"),
    "words to keys (lexicon/tokenizer.py Tokenizer.play)": ("lexicon/tokenizer.py", "play"),
    "lookups (lexicon/verdict.py lookup_all)": ("lexicon/verdict.py", "lookup_all"),
    "who asks (service/event/admission.py admit)": ("event/admission.py", "admit"),
    "of which its device, by its token (service/event/callers.py recorder: this worker's cache, the store on a miss)": (
        "event/callers.py",
        "recorder",
    ),
    "of which the open round, not read for a judge (tournament/rounds.py current_round)": (
        "tournament/rounds.py",
        "current_round",
    ),
    "the record's row (service/event/recording.py record)": ("event/recording.py", "record"),
    "of which the transaction (tournament/record.py _commit)": ("tournament/record.py", "_commit"),
    "of which the write transaction, its COMMIT and the log's fsync (sqlite/connection.py _write)": (
        "sqlite/connection.py",
        "_write",
    ),
    "the answer (service/api.py respond)": ("service/api.py", "respond"),
    "response and after-request hooks (flask finalize_request)": ("flask/app.py", "finalize_request"),
    "request context's end (flask/ctx.py pop)": ("flask/ctx.py", "pop"),
}


def top_frames(call, number: int, timer=time.perf_counter) -> tuple[float, list[tuple[str, float]]]:
    """cProfile of `number` calls: µs a call under the profiler, and the share of the whole request
    (the app's WSGI call, Flask.__call__) of each frame of FRAMES it went through, its callees included (the width
    of that frame in a flame graph). A profiler slows every Python call alike: read the shares.
    `timer`: the clock the profiler reads (time.process_time: CPU time only, a wait for the disk not counted)."""
    profile = cProfile.Profile(timer)
    profile.enable()
    for _ in range(number):
        call()
    profile.disable()
    stats = pstats.Stats(profile).stats  # (file, line, function): (calls, primitive, own, cumulative, callers)
    width: dict[tuple[str, str], float] = {}
    for (path, _, function), (_, _, _, cumulative, _) in stats.items():
        where = "builtin" if path == "~" else "/".join(Path(path).parts[-2:])
        width[where, function] = width.get((where, function), 0.0) + cumulative
    whole = width.get(("flask/app.py", "__call__"), 0.0) or max(width.values())  # the app's WSGI call
    frames = [(name, width[key] / whole) for name, key in FRAMES.items() if key in width]
    return whole / number * 1e6, frames


def recorded_call(files: list[Path], folder: Path):
    """A recorded challenge in process (an event, synchronous=FULL, a paired judge's token): the
    WSGI call, and the app's event store to close. Without gevent each commit is its own."""
    from service import create_app
    from tournament import create_event

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "profile.db"
    create_event(path, "Bench", "bench-password-long").close()
    token = event.paired_token(path)
    app = create_app(
        {
            "LEXICON_FILES": [str(files[0])],
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
            "LEXICON_LOG_LEVEL": "warning",
            "LEXICON_EVENT": str(path),
        }
    )
    keys = itertools.count()

    def call() -> str:  # each verdict with a key of its own: an event records nothing without one
        body = json.dumps({**PLAY3, "idempotency_key": f"q{next(keys)}"}).encode()
        return wsgi_call(app, "POST", "/v1/challenge", body, {"HTTP_AUTHORIZATION": f"Bearer {token}"})()

    return call


def profiles(app, files: list[Path], plain: int = 3000, recorded: int = 300) -> Table:
    """Where a challenge's CPU goes, in process: the top frames of the plain and the recorded path."""
    table = Table(
        "quick: where a request's time goes in process (cProfile; each frame's share of the whole "
        "request, its callees included: its width in a flame graph)"
    )
    with tempfile.TemporaryDirectory() as scratch:
        paths = {
            f"plain POST /v1/challenge ({plain} calls)": (
                wsgi_call(app, "POST", "/v1/challenge", json.dumps(PLAY3).encode()),
                plain,
            ),
            f"GET /healthz ({plain} calls)": (wsgi_call(app, "GET", "/healthz"), plain),
            f"recorded POST /v1/challenge, sync full, one commit each ({recorded} calls)": (
                recorded_call(files, Path(scratch)),
                recorded,
            ),
        }
        cpu = f"recorded POST /v1/challenge, sync full, one commit each, CPU time only ({recorded} calls)"
        paths[cpu] = (recorded_call(files, Path(scratch) / "cpu"), recorded)  # its own event: what the CPU does
        for name, (call, number) in paths.items():
            assert call().startswith("200"), name
            whole, frames = top_frames(call, number, time.process_time if name == cpu else time.perf_counter)
            table.add(
                f"{name}: µs a request under the profiler; its frames",
                f"{whole:.0f} µs; " + "; ".join(f"{where} {share:.0%}" for where, share in frames),
            )
    return table
