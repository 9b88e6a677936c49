"""Lexicons held as verified bytes in memory versus memory-mapped: load time and a forked worker's memory.

The service reads each compiled file whole, verifies it, and answers from those bytes (a file
copied over a mapped one could crash the reader or change its answers). This compares the two
ways as gunicorn uses them: the master loads the default lexicons, freezes the garbage
collector, forks; the child (a worker) reads every word of both tries, and its private memory
(USS) is measured. Shared pages, copy-on-write heap or file-backed map, do not count in USS.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

from bench.table import Table

_PROBE = r"""
import gc, mmap, os, sys, time
import psutil
from lexicon.lexfile import Lexicon

mode, files = sys.argv[1], sys.argv[2:]

def load(path):
    if mode == "bytes":
        return Lexicon.open(path)
    with open(path, "rb") as file:
        return Lexicon(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ), path)

times = []
for _ in range(5):
    started = time.perf_counter()
    lexicons = [load(path) for path in files]
    times.append(time.perf_counter() - started)
gc.collect()
gc.freeze()
before = psutil.Process().memory_full_info().uss
read, write = os.pipe()
child = os.fork()
if child == 0:
    os.close(read)
    words = sum(1 for lexicon in lexicons for _ in lexicon._trie.iterkeys())  # every page of every trie read
    found = sum(key in lexicon for lexicon in lexicons for key in ("\x01\x02", "\x03\x04\x05"))
    uss = psutil.Process().memory_full_info().uss
    os.write(write, f"{uss} {words} {found}".encode())
    os._exit(0)
os.close(write)
answer = os.read(read, 100).decode().split()
os.waitpid(child, 0)
times.sort()
print(times[len(times) // 2], answer[0], answer[1], before)
"""


def measure(files: list[Path], mode: str) -> tuple[float, float, int]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode, *map(str, files)], check=True, capture_output=True, text=True
    )
    seconds, uss, words, _ = done.stdout.split()
    return float(seconds), int(uss) / 2**20, int(words)


def compare(files: list[Path], runs: int = 3) -> Table:
    table = Table(
        "service: lexicons held as verified bytes (used) vs memory-mapped: load of both default "
        f"files in the master, and a forked worker's USS after reading every word (median of {runs})"
    )
    results: dict[str, list[tuple[float, float, int]]] = {"bytes": [], "mmap": []}
    for _ in range(runs):  # interleaved: drifts of a shared machine hit both alike
        for mode in results:
            results[mode].append(measure(files, mode))
    for mode, label in (
        ("bytes", "read whole, verified, answered from memory (used)"),
        ("mmap", "memory-mapped (before)"),
    ):
        seconds = statistics.median(r[0] for r in results[mode])
        uss = statistics.median(r[1] for r in results[mode])
        table.add(
            f"{label}: load / worker USS",
            f"{seconds * 1000:.1f} ms / {uss:.1f} MB ({results[mode][0][2]:,} words read)",
        )
    gap = statistics.median(r[1] for r in results["bytes"]) - statistics.median(r[1] for r in results["mmap"])
    table.add("worker USS, bytes minus mmap", f"{gap:+.2f} MB", "≤ 1 MB (the bytes stay shared)", gap <= 1.0)
    return table
