"""wrk, the load generator of the server sections (service, event, reload): found or installed,
run, and its report read.

Why wrk and not a Python client: a Python client on these 2 cores would need more CPU per
request than the server does, so it would measure itself; wrk, a C load generator from Debian,
needs a fraction, keeps connections alive like a phone does, and reports latency percentiles.
If it is missing it is installed with apt-get (said on standard error); a section without it
leaves its load figures out and says so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# The play every server section sends: three valid Spanish words, the judge's usual challenge.
PLAY3 = {"lexicon": "es", "words": ["CARRO", "CHICO", "PERRO"]}


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


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


def wrk_or_missed(table, figure: str, guard: bool = False) -> str | None:
    """wrk's path (`ensure_wrk`), or None with `figure` added to `table` as not measured, missed
    (a guard's row when `guard`): a section without wrk says so rather than leaving rows out."""
    path = ensure_wrk()
    if path is None:
        (table.guard if guard else table.add)(figure, "not measured: wrk unavailable", "wrk", False)
    return path


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def ms(text: str) -> float:
    """A duration as wrk prints it (812.00us, 1.20ms, 2.00s), in milliseconds."""
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * _UNITS[unit]


class Wrk:
    """wrk at `path`, its POST script (the bench's play) kept in `folder`."""

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
        """One run: rate (rps), p50 and p99 (ms; inf when nothing was answered), non-2xx answers
        (bad), socket errors as wrk says them and their count (failed), requests answered."""
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
            result[f"p{percent}"] = ms(found.group(1)) if found else float("inf")  # nothing answered
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
        errors = re.search(r"Socket errors: (.*)", output)
        result["bad"] = int(bad.group(1)) if bad else 0
        result["errors"] = errors.group(1) if errors else ""
        result["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
        if not result["requests"]:  # wrk prints a latency of 0 when nothing was answered
            result["p50"] = result["p99"] = float("inf")
        result["failed"] = sum(int(n) for n in re.findall(r"\d+", result["errors"]))
        return result
