"""Lighthouse (npm `lighthouse`, `make lighthouse`) on the pages phones and the director open,
served by the real `lexicon serve` with the default lexicons, in Debian's Chromium.

Lighthouse's mobile preset (a mid-range phone's screen, its CPU slowed 4×, a slow 4G network,
simulated): the performance, accessibility and best-practices scores of

- the judge's page at `/`, plain (no event);
- the judge's page in an event (`LEXICON_EVENT`): what a phone opens before it is paired
  (Lighthouse's own browser profile holds no device token);
- the director's console at `/director`, signed out (its login) and signed in (Lighthouse sends
  a director's session cookie with every request: the console as it fills itself from the API),
  then signed in on a record of 1,000 rows; and the cost of the console's reading of the event
  every few seconds (its three requests, timed one after another on that record);
- the judge's page in the event on a paired device, a judge's phone and a table's device, a round
  open: a device's first load after pairing, its device token in its localStorage and nothing
  else (no cache, no service worker). Lighthouse empties a browser's storage before it measures,
  so these runs keep it (`--disable-storage-reset`) in a browser profile made for each run
  (`paired_profile`); the section stops unless the page asked the event with that token
  (`GET /v1/event` answered 200: an unpaired page never asks), so that the unpaired page is never
  measured under a paired label.

Targets: performance ≥ 95, accessibility 100, best practices 100, cumulative layout shift ≤ 0.02.
Each page is measured `runs` times (a fresh Lighthouse run, a fresh browser profile each) and the
median score is shown.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.chromium import CHROMIUM, CHROMIUM_ARGS, command_line_flags, in_thread
from bench.event import Server
from bench.server import REPOSITORY, lexicon_files
from bench.table import Table

LIGHTHOUSE = REPOSITORY / "build" / "node" / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = {"performance": 95, "accessibility": 100, "best-practices": 100}
PASSWORD = "bench-lighthouse-password"
DEVICE_KEY = "lexicon-judge.device"  # where the judge's page keeps its device token (event.js)


def scores(url: str, headers: dict[str, str] | None = None, profile: Path | None = None) -> dict:
    """One Lighthouse run of `url`, mobile, sending `headers` with every request: each category's
    score out of 100, the page's largest contentful paint and cumulative layout shift, and
    "requests", the requests Lighthouse saw (url, statusCode, transferSize...). `profile`: Chromium
    runs in that user-data directory, its storage kept (not emptied before the run)."""
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
            *(["--disable-storage-reset"] if profile else []),
            "--chrome-flags=" + command_line_flags() + (f" --user-data-dir={profile}" if profile else ""),
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
    found["requests"] = audits["network-requests"]["details"]["items"]
    return found


def paired_profile(folder: Path, origin: str, token: str) -> Path:
    """A fresh Chromium user-data directory in `folder` whose localStorage for `origin` holds the
    device `token` where the judge's page keeps it, and nothing else of the service: the origin is
    opened once with every request answered by Playwright with an empty page (nothing reaches the
    service, so nothing of it is cached and no service worker is registered)."""
    from playwright.sync_api import sync_playwright

    profile = Path(tempfile.mkdtemp(prefix="profile-", dir=folder))

    def prepare() -> None:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(profile), executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            try:
                page = context.pages[0] if context.pages else context.new_page()
                page.route(
                    "**/*", lambda route: route.fulfill(status=200, content_type="text/html", body="<!doctype html>")
                )
                page.goto(origin + "/")
                page.evaluate("([key, token]) => localStorage.setItem(key, token)", [DEVICE_KEY, token])
                if page.evaluate("(key) => localStorage.getItem(key)", DEVICE_KEY) != token:
                    raise RuntimeError("the device token did not stay in the profile's localStorage")
            finally:
                context.close()

    in_thread(prepare)
    return profile


def paired_device(server: Server, cookie: str, name: str, role: str, table: str | None = None) -> str:
    """A device added by the director (`cookie`) and paired by its code, as a phone pairs: its token."""
    code = ask(server, "/v1/devices", {"name": name, "role": role, **({"table": table} if table else {})}, cookie)
    return ask(server, "/v1/devices/pair", {"code": code["code"]})["token"]


def ask(server: Server, path: str, body: dict, cookie: str | None = None) -> dict:
    """POST `body` (JSON) to `path`, with the director's session `cookie` if given: the answer."""
    request = urllib.request.Request(
        server.url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def asked_the_event(found: dict, origin: str) -> bool:
    """Whether the page measured asked the event as a paired device: GET /v1/event answered 200
    (with no device token the page does not ask, and the service answers 401)."""
    return any(item["url"] == origin + "/v1/event" and item.get("statusCode") == 200 for item in found["requests"])


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
            cookie = director_cookie(event)
            pages = {
                "the judge's page, plain": (plain.url + "/", None),
                "the judge's page in an event (unpaired)": (event.url + "/", None),
                "the director's console (sign-in)": (event.url + "/director", None),
                "the director's console (signed in)": (event.url + "/director", {"Cookie": cookie}),
            }
            for label, (url, headers) in pages.items():
                _add(table, label, [scores(url, headers) for _ in range(runs)])
            # a hall's day: the console signed in on a record of 1,000 rows, and what its reading of
            # the event every few seconds costs the service (director/live.js)
            fill(event_file, RECORDS)
            label = f"the director's console (signed in, {RECORDS:,} records)"
            _add(table, label, [scores(event.url + "/director", {"Cookie": cookie}) for _ in range(runs)])
            reading(table, event, cookie)
            # the paired devices' pages last, the round opened after the pages above were measured
            ask(event, "/v1/rounds", {}, cookie)
            devices = {
                "the judge's page on a paired judge's phone (a round open, first load)": paired_device(
                    event, cookie, "Juez 1", "judge"
                ),
                "the judge's page on a paired table device (a round open, first load)": paired_device(
                    event, cookie, "Mesa 7", "table", "7"
                ),
            }
            for label, token in devices.items():
                measured = []
                for _ in range(runs):
                    found = scores(event.url + "/", profile=paired_profile(Path(folder), event.url, token))
                    if not asked_the_event(found, event.url):
                        raise RuntimeError(f"{label}: the page did not ask GET /v1/event as a paired device")
                    measured.append(found)
                _add(table, label, measured)
        finally:
            plain.stop()
            event.stop()
    return [table]


RECORDS = 1000
READINGS = 40


def fill(event_file: Path, rows: int) -> None:
    """`rows` verdicts of nobody's written into the event's record, as the service writes them."""
    from tournament import Entry, open_event

    db = open_event(event_file)
    try:
        words = ("CARRO", "CHICO")
        entry = Entry("es", "1", "0" * 64, "spelling", words, words, True)
        for start in range(0, rows, 250):
            db.append_many([entry] * min(250, rows - start))
    finally:
        db.close()


def reading(table: Table, server: Server, cookie: str) -> None:
    """One reading of the console's (director/live.js: the devices, the rounds, a page of the
    record with its integrity, one after another as a worker sees them), READINGS times: its time
    and bytes, and what an open console asks a minute."""
    paths = ("/v1/devices", "/v1/rounds", "/v1/records?limit=100")
    times, sizes = [], []
    for _ in range(READINGS):
        began, size = time.perf_counter(), 0
        for path in paths:
            request = urllib.request.Request(server.url + path, headers={"Cookie": cookie})
            with urllib.request.urlopen(request, timeout=30) as response:
                size += len(response.read())
        times.append(1000 * (time.perf_counter() - began))
        sizes.append(size)
    times.sort()
    label = f"the console's reading of the event ({len(paths)} requests every 3 s), {RECORDS:,} records"
    table.add(f"{label}: median time, one after another", f"{statistics.median(times):.1f} ms")
    table.add(f"{label}: 90th percentile", f"{times[int(0.9 * len(times))]:.1f} ms")
    table.add(f"{label}: bytes a reading (uncompressed)", f"{statistics.median(sizes) / 1024:.1f} KiB")
    table.add(f"{label}: requests a minute, one open console", f"{len(paths) * 60 // 3}")


def _add(table: Table, label: str, measured: list[dict]) -> None:
    """The page's rows: each category's median score, its largest contentful paint and its shift."""
    for name, target in CATEGORIES.items():
        value = statistics.median(m[name] for m in measured)
        table.add(f"{label}: {name}", f"{value:.0f}", f"≥ {target}" if target < 100 else "100", value >= target)
    lcp = statistics.median(m["lcp"] for m in measured)
    cls = statistics.median(m["cls"] for m in measured)
    table.add(f"{label}: largest contentful paint, simulated slow 4G", f"{lcp / 1000:.2f} s")
    table.add(f"{label}: cumulative layout shift", f"{cls:.3f}", "≤ 0.02", cls <= 0.02)


def run() -> list[Table]:
    files, _ = lexicon_files()
    return measure(files)


__all__ = ["CATEGORIES", "LIGHTHOUSE", "asked_the_event", "measure", "paired_profile", "run", "scores"]
