"""A reload under load (part of `make bench` service): requests lost, and when the new file is served.

`lexicon serve` runs with a copy of the Spanish default; wrk asks verdicts on 64 connections;
meanwhile a smaller Spanish list (the same three words valid in both) replaces the file and
`lexicon reload` runs. wrk counts every failed or non-2xx answer. From the command's start, a
poller in this process asks /v1/lexicons on a new connection every 20 ms, as a judge's phone
arriving then would: the first answer with the new checksum, and the last with the old one, say
when the new file is served to everyone who connects. Polling only once the command has
returned (as this bench did before) could never see a time shorter than the command's own, and
its first request then queued behind the 64 connections being moved to the new workers.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from bench.table import Table

WORDS = ["CARRO", "CHICO", "PERRO", "CASA", "MESA"]


def small_spanish(path: Path) -> str:
    import hashlib

    from build_tools.compiler import build
    from lexicon.lexfile import LexiconMeta
    from lexicon.tokenizer import tokenizer

    meta = LexiconMeta(id="letterpress-es", language="es", name="reload bench", version="bench")
    data, _ = build("\n".join(WORDS) + "\n", tokenizer("es", "spelling"), meta)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


class Poller:
    """New connections asking /v1/lexicons every `interval` s: (sent, answered, new?) from `started`."""

    def __init__(self, url: str, checksum: str, started: float, interval: float = 0.02):
        self.url, self.checksum, self.started, self.interval = url, checksum, started, interval
        self.answers: list[tuple[float, float, bool | None]] = []  # None: no answer (an error)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            sent = time.perf_counter()
            try:
                with urllib.request.urlopen(f"{self.url}/v1/lexicons", timeout=10) as answer:
                    new = json.loads(answer.read())["lexicons"][0]["checksum"] == self.checksum
            except OSError:
                new = None
            self.answers.append((sent - self.started, time.perf_counter() - self.started, new))
            self._stop.wait(self.interval)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(15)

    def first_new(self) -> float | None:
        return min((answered for _, answered, new in self.answers if new), default=None)

    def last_old(self) -> float | None:
        return max((answered for _, answered, new in self.answers if new is False), default=None)

    def old_sent_after(self, moment: float) -> int:
        """Answers with the old checksum to requests sent after `moment` (s from the start)."""
        return sum(1 for sent, _, new in self.answers if new is False and sent > moment)

    def errors(self) -> int:
        return sum(1 for _, _, new in self.answers if new is None)


def measure(
    wrk,
    server_class,
    script: Path,
    lexicon: Path,
    scratch: Path,
    seconds: int = 8,
    connections: int = 64,
    workers: int = 2,
) -> dict:
    """One reload under `connections` of wrk's load: the command, the poller's answers, wrk's counts."""
    served = scratch / "served-es.lex"
    served.write_bytes(lexicon.read_bytes())
    new = scratch / "new-es.lex"
    checksum = small_spanish(new)
    with server_class([served], "gevent", workers, 1) as server:
        outcome: dict = {}

        def load() -> None:
            outcome["wrk"] = wrk.run(f"{server.url}/v1/challenge", connections, seconds, post=True)

        loader = threading.Thread(target=load)
        loader.start()
        time.sleep(seconds / 3)
        new.replace(served)
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
        started = time.perf_counter()
        with Poller(server.url, checksum, started) as poller:
            done = subprocess.run(
                [str(script), "reload", "--port", str(server.port)], env=env, capture_output=True, text=True
            )
            returned = time.perf_counter() - started
            time.sleep(max(0.5, seconds / 3 - returned))  # new connections after the return, under load
        loader.join()
    return {
        "exit": done.returncode,
        "returned": returned,
        "first_new": poller.first_new(),
        "last_old": poller.last_old(),
        "old_after_return": poller.old_sent_after(returned),
        "poll_errors": poller.errors(),
        "polls": len(poller.answers),
        "wrk": outcome["wrk"],
        "connections": connections,
        "seconds": seconds,
    }


def add_rows(table: Table, figures: dict) -> None:
    """The reload's figures as rows of `table` (the section's summary: beside the other targets)."""
    under = f"under {figures['connections']} connections"
    table.add(
        f"`lexicon reload` {under}: exit code, and time until it returned",
        f"{figures['exit']}, {figures['returned']:.2f} s",
        "0",
        figures["exit"] == 0,
    )
    first, last = figures["first_new"], figures["last_old"]
    everyone = None if first is None else max(first, last or 0.0)
    table.add(
        f"`lexicon reload` {under}: new checksum first answered / old one last answered, to a new "
        f"connection every 20 ms from the command's start ({figures['polls']} asked)",
        "new never answered" if first is None else f"{first:.2f} s / {'never' if last is None else f'{last:.2f} s'}",
        "both ≤ 3 s",
        everyone is not None and everyone <= 3,
    )
    table.add(
        f"`lexicon reload` {under}: old checksum answered to a request sent after the command "
        "returned / poll requests failed",
        f"{figures['old_after_return']} / {figures['poll_errors']}",
        "0 / 0",
        not figures["old_after_return"] and not figures["poll_errors"],
    )
    result = figures["wrk"]
    table.add(
        f"`lexicon reload` {under}: wrk's requests answered / failed (socket errors) / non-2xx "
        f"({figures['seconds']} s, reload included)",
        f"{result['requests']:,} / {result['failed']} ({result['errors'] or 'none'}) / {result['bad']}; "
        f"p99 {result['p99']:.1f} ms",
        "0 failed, 0 non-2xx",
        not result["failed"] and not result["bad"],
    )
