"""The server the service section measures: `lexicon serve` with a given gunicorn worker class,
workers and threads, seen from outside through psutil (its workers' CPU time, memory, and the
client connections each holds)."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from pathlib import Path

from bench import server as harness

# The configuration `lexicon serve` uses by default (service/gunicorn_conf.py): (worker class,
# workers, threads). bench.service_classes measures the alternatives against it.
CHOSEN = ("gevent", 2, 1)
EIGHT = ["CASA", "PERRO", "GATO", "MESA", "SILLA", "AGUA", "LUNA", "CARRO"]


def describe(config) -> str:
    worker_class, workers, threads = config
    return f"{worker_class}, {workers} workers" + (f" × {threads} threads" if threads > 1 else "")


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

    def memory(self) -> tuple[float, int]:
        """Largest USS of a worker (MB), and how many workers were measured."""
        uss = [worker.memory_full_info().uss / 2**20 for worker in self.workers()]
        return max(uss), len(uss)

    def touch_every_page(self, languages: list[str]) -> None:
        """Requests that make every worker read its lexicons, so their pages are mapped in each."""
        for _ in range(200):
            for language in languages:
                request = urllib.request.Request(
                    f"{self.url}/v1/challenge",
                    data=json.dumps({"lexicon": language, "words": EIGHT}).encode(),
                    headers={"Content-Type": "application/json"},
                )
                with contextlib.suppress(urllib.error.HTTPError):  # a Catalan 422 (no Y tile...) still maps its pages
                    urllib.request.urlopen(request, timeout=5).read()
