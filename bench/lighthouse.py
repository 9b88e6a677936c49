"""Lighthouse (npm `lighthouse`, `make lighthouse`) on the pages phones and the director open,
served by the real `lexicon serve` with the default lexicons, in Debian's Chromium.

Lighthouse's mobile preset (a mid-range phone's screen, its CPU slowed 4×, a slow 4G network,
simulated): the performance, accessibility and best-practices scores of

- the judge's page at `/`, plain (no event);
- the judge's page in an event (`LEXICON_EVENT`): what a phone opens before it is paired
  (Lighthouse's own browser profile holds no device token);
- the director's console at `/director`, signed out (its login) and signed in (Lighthouse sends
  a director's session cookie with every request: the console as it fills itself from the API).

Targets: performance ≥ 95, accessibility 100, best practices 100. Each page is measured `runs`
times (a fresh Lighthouse run, a fresh browser profile each) and the median score is shown.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import urllib.request
from pathlib import Path

from bench.chromium import CHROMIUM, command_line_flags
from bench.event import Server
from bench.server import REPOSITORY, lexicon_files
from bench.table import Table

LIGHTHOUSE = REPOSITORY / "build" / "node" / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = {"performance": 95, "accessibility": 100, "best-practices": 100}
PASSWORD = "bench-lighthouse-password"


def scores(url: str, headers: dict[str, str] | None = None) -> dict[str, float]:
    """One Lighthouse run of `url`, mobile, sending `headers` with every request: each category's
    score out of 100, and the page's largest contentful paint and cumulative layout shift."""
    if not LIGHTHOUSE.is_file():
        raise RuntimeError(f"Lighthouse is not installed at {LIGHTHOUSE}: `make lighthouse` installs it (npm)")
    done = subprocess.run(
        [
            str(LIGHTHOUSE),
            url,
            *([f"--extra-headers={json.dumps(headers)}"] if headers else []),
            "--output=json",
            "--output-path=stdout",
            "--quiet",
            "--only-categories=" + ",".join(CATEGORIES),
            "--form-factor=mobile",
            "--screenEmulation.mobile",
            "--chrome-flags=" + command_line_flags(),
        ],
        env={**os.environ, "CHROME_PATH": str(CHROMIUM)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"lighthouse failed on {url}: {done.stderr[-500:]}")
    report = json.loads(done.stdout)
    found = {name: round(100 * (report["categories"][name]["score"] or 0)) for name in CATEGORIES}
    audits = report["audits"]
    found["lcp"] = audits["largest-contentful-paint"]["numericValue"]
    found["cls"] = audits["cumulative-layout-shift"]["numericValue"]
    return found


def director_cookie(server: Server) -> str:
    """A director's session (a login with the bench's password), as a Cookie header's value."""
    request = urllib.request.Request(
        server.url + "/v1/director/session",
        data=json.dumps({"password": PASSWORD}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.headers["Set-Cookie"].split(";")[0]


def measure(files: list[Path], runs: int = 3) -> list[Table]:
    from tournament import create_event

    table = Table(f"Lighthouse, mobile preset (median of {runs} runs a page)")
    with tempfile.TemporaryDirectory() as folder:
        event_file = Path(folder) / "open.db"
        create_event(event_file, "Bench", PASSWORD).close()
        plain, event = Server(files), Server(files, LEXICON_EVENT=str(event_file))
        try:
            pages = {
                "the judge's page, plain": (plain.url + "/", None),
                "the judge's page in an event (unpaired)": (event.url + "/", None),
                "the director's console (sign-in)": (event.url + "/director", None),
                "the director's console (signed in)": (event.url + "/director", {"Cookie": director_cookie(event)}),
            }
            for label, (url, headers) in pages.items():
                measured = [scores(url, headers) for _ in range(runs)]
                for name, target in CATEGORIES.items():
                    value = statistics.median(m[name] for m in measured)
                    table.add(
                        f"{label}: {name}", f"{value:.0f}", f"≥ {target}" if target < 100 else "100", value >= target
                    )
                lcp = statistics.median(m["lcp"] for m in measured)
                cls = statistics.median(m["cls"] for m in measured)
                table.add(f"{label}: largest contentful paint, simulated slow 4G", f"{lcp / 1000:.2f} s")
                table.add(f"{label}: cumulative layout shift", f"{cls:.3f}", "≤ 0.02", cls <= 0.02)
        finally:
            plain.stop()
            event.stop()
    return [table]


def run() -> list[Table]:
    files, _ = lexicon_files()
    return measure(files)


__all__ = ["CATEGORIES", "LIGHTHOUSE", "measure", "run", "scores"]
