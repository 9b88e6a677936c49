"""The service section's in-process timings: the whole WSGI app called directly, no server.

What a whole challenge adds to a whole /healthz request, which is the app's own share of each
request the load figures measure through gunicorn and wrk. Whether a verdict's time depends on
which word failed is measured by the `position` section (bench/position.py).
"""

from __future__ import annotations

import gc
import io
import json
import statistics
import sys
import time
from pathlib import Path

from bench.table import Table
from bench.wrk import PLAY3


def wsgi_call(app, method: str, path: str, body: bytes = b"", more: dict | None = None):
    """One request to the WSGI app itself, no server: what the app adds to a request. The call
    returns the status line, so a caller can check it measures answers, not errors. `more`:
    further environ keys (a header as HTTP_NAME)."""
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
    environ.update(more or {})

    def call() -> str:
        said = []
        answer = app({**environ, "wsgi.input": io.BytesIO(body)}, lambda status, headers: said.append(status))
        b"".join(answer)
        if hasattr(answer, "close"):  # WSGI: closed if it can be (the plain challenge's answer is a list)
            answer.close()
        return said[0]

    return call


ROUNDS, NUMBER = 121, 125  # what a challenge adds over /healthz: rounds of calls of each


def challenge_and_health(app, rounds: int = ROUNDS, number: int = NUMBER) -> dict:
    """µs of CPU per whole WSGI request in process: POST /v1/challenge (the bench's 3 words) and
    GET /healthz, and what the challenge adds. That difference is the challenge's own work in the
    app; the throughput ratio under gunicorn adds the server's and wrk's share of each request to
    both.

    Measured in `rounds` interleaved rounds of `number` calls of each (which goes first
    alternates), and each figure is its fastest round. Why not the median, as before: the
    difference is a fifth of either figure, and on this shared machine each figure's median moved
    by a third from one run to the next (other processes evicting caches, slowing the cores), so
    the difference of medians swung 24-60 µs between runs of the same code. The fastest round is
    the least disturbed, and more, shorter rounds find it more surely: four runs in one process
    gave 22.8-25.6 µs with 121 rounds of 125, 22.6-31.4 with 61 of 250, 14.6-37.8 with 31 of 500.
    The garbage collector's objects are frozen first, as gunicorn's master
    freezes them before forking the workers (service/gunicorn_conf.py), so that a collection
    walking the app's objects falls in neither figure's rounds. How much single rounds disagree
    is reported too: the middle half of the rounds' paired differences (`spread`)."""
    runs = {
        "challenge": wsgi_call(app, "POST", "/v1/challenge", json.dumps(PLAY3).encode()),
        "healthz": wsgi_call(app, "GET", "/healthz"),
    }
    samples: dict[str, list[float]] = {name: [] for name in runs}
    gc.collect()
    gc.freeze()
    try:
        for call in runs.values():
            call()
        for number_of_round in range(rounds):
            for name in runs if number_of_round % 2 == 0 else reversed(runs):
                call = runs[name]
                start = time.process_time()
                for _ in range(number):
                    call()
                samples[name].append((time.process_time() - start) / number * 1e6)
    finally:
        gc.unfreeze()
    differences = [c - h for c, h in zip(samples["challenge"], samples["healthz"], strict=True)]
    low, _, high = statistics.quantiles(differences, n=4, method="inclusive")
    ratios = [h / c for c, h in zip(samples["challenge"], samples["healthz"], strict=True)]
    fastest = {name: min(values) for name, values in samples.items()}
    return {
        **fastest,
        "added": fastest["challenge"] - fastest["healthz"],
        "spread": (low, high),
        "ratios": ratios,
    }


RATIO_TARGET = 0.9  # healthz / challenge, CPU in process: the challenge within 10 % of /healthz


def ratio_row(table: Table, app, rounds: int = ROUNDS, number: int = NUMBER) -> bool:
    """The guard of the plain challenge's cost: a whole POST /v1/challenge beside a whole GET
    /healthz in process (challenge_and_health), as healthz / challenge of each pair of rounds.

    Judged by the median of the rounds' ratios (each round's pair ran back to back, so a
    disturbance falls on both), with the middle half and the extremes of the rounds beside it;
    the ratio of the fastest rounds, the figure of the row above it, is shown too."""
    both = challenge_and_health(app, rounds, number)
    ratios = both["ratios"]
    median = statistics.median(ratios)
    low, _, high = statistics.quantiles(ratios, n=4, method="inclusive")
    met = median >= RATIO_TARGET
    table.guard(
        f"in-process ratio, GET /healthz / POST /v1/challenge (3 words), µs of CPU: median of {rounds} "
        f"alternating rounds of {number}",
        f"{median:.3f} (rounds: middle half {low:.2f}-{high:.2f}, all {min(ratios):.2f}-{max(ratios):.2f}; "
        f"fastest rounds {both['healthz']:.1f} / {both['challenge']:.1f} µs = {both['healthz'] / both['challenge']:.3f})",
        f"≥ {RATIO_TARGET}",
        met,
    )
    return met


def challenge_beside_healthz(files: list[Path]) -> tuple[Table, bool]:
    """In process: what a whole challenge adds to a whole /healthz, and the guard on it.

    Whether a verdict's time depends on which word failed is the `position` section's
    (bench/position.py): the failing word first and last of 8, one call of each in turn at every
    step of the path, tens of thousands of samples, a control for the words' order and the
    Mann-Whitney U test. This section measured it too, with 15 rounds of each and a target of
    "within 3 times the same play measured twice, or 2 %": the words' order alone moves the
    tokenizer by about 2 % (position's control row), and the machine's noise by more under load,
    so the row said NO for what was no verdict's doing, and said it in two places."""
    from service import create_app

    app = create_app(
        {
            "LEXICON_FILES": [str(files[0])],
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
            "LEXICON_LOG_LEVEL": "warning",
        }
    )
    table = Table("service: a whole challenge beside a whole /healthz, in process")
    both = challenge_and_health(app)
    low, high = both["spread"]
    table.add(
        f"whole request (WSGI app): POST /v1/challenge, 3 words / GET /healthz (µs of CPU, fastest of "
        f"{ROUNDS} alternating rounds of {NUMBER})",
        f"{both['challenge']:.1f} / {both['healthz']:.1f}: the challenge costs {both['added']:+.1f} µs "
        f"(single rounds' differences, middle half: {low:+.0f} to {high:+.0f} µs; in-process ratio "
        f"{both['healthz'] / both['challenge']:.2f})",
    )
    return table, ratio_row(table, app)
