"""The browser lexicon in Chromium with the CPU throttled 4x, a phone's stand-in, against a phone's targets.

For each default lexicon, Debian's Chromium (headless, launched as tests/page launches it, through
Playwright) opens a page from a small local server at http://127.0.0.1 (a secure context, so
crypto.subtle exists) that loads service/static/tiles.js and lexicon.js as the judge's page does,
then times, with the CPU unthrottled and then throttled 4x through the DevTools protocol
(Emulation.setCPUThrottlingRate):
- from bytes received (the file as an ArrayBuffer in memory) to ready: `LexiconDawg.load`, which
  verifies the SHA-256, checks the header, expands the edges and checks the automaton and its word
  count; with crypto.subtle, and with the page's own SHA-256 (`{pure: true}`), the path of a page
  served over plain HTTP on a venue network;
- a 3-word joint verdict, `lexicon.judge(reader, words)`: tiles.js reads the words as typed, every
  word is looked up; a valid play in capitals, the same typed in lower case on a phone, and a play
  with one word that is not in the lexicon.
- the first load in a fresh page throttled from its start (a phone opening the page: lexicon.js
  not yet compiled), with lexicon.js's WebAssembly as the page runs it, and beside it in
  JavaScript only (`{engine: "js"}`, what a browser refusing WebAssembly runs). The section stops
  if lexicon.js did not use its WebAssembly where it should.
Whatever service/static holds is what is measured. The sizes on the wire are `bench browser`'s.
A verdict that disagrees with Python's stops the run: no time is reported for a wrong answer.

Every Chromium section (this one, `offline`, `single_file`) launches the browser by `launched`
and opens its throttled pages by `throttled`, so they measure the same browser set up one way.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from lexicon.browser import browser_bytes
from lexicon.lexfile import Lexicon
from lexicon.verdict import judge

from .browser import PLAYS, defaults, page_data
from .table import Table

# How Chromium is started, decided here once for every caller (the page tests, the screenshots,
# every Chromium section, Lighthouse's flags): Debian's build, headless, with these switches.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-gpu",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
# The phone every Chromium caller opens pages as (a context's options): a small Android phone's
# screen, touch, set to Spanish. A caller that counts requests also blocks the service worker.
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "locale": "es-ES",
}
PAGE_SCRIPT = Path(__file__).with_name("chromium_page.js")
THROTTLE = 4
READY_MS, VERDICT_US = 50, 50  # a phone's targets, throttled: a judge waits for neither
NOT_VALID = {"es": ["CARRO", "CHICO", "LLABE"], "ca": ["COL·LEGI", "CUADRE", "ANYS"]}  # one misspelt word
PAGE = (
    b'<!doctype html><meta charset="utf-8"><title>bench</title>'
    b'<script src="/static/tiles.js"></script><script src="/static/lexicon.js"></script>'
    b'<script src="/bench.js"></script>'
)
TYPES = {".js": "text/javascript; charset=utf-8", ".html": "text/html; charset=utf-8"}


def in_thread(function, *args, **kwargs):
    """`function(*args, **kwargs)` in a thread of its own, its result or its exception handed back:
    Playwright's sync API refuses to start in a thread where another instance runs (the page
    tests' session browser, when they ran first in the same process)."""
    outcome = []

    def work() -> None:
        try:
            outcome.append(function(*args, **kwargs))
        except Exception as error:  # handed to the caller's thread
            outcome.append(error)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


def launch(playwright):
    """Debian's Chromium, headless, launched by `playwright` (a started sync Playwright), with a
    fresh temporary user-data directory of its own: the one way every test, screenshot and bench
    section starts it, so that what the tests check is what the figures measure. The caller closes
    it. A clear RuntimeError when the package is missing."""
    if not CHROMIUM.is_file():
        raise RuntimeError(f"Debian's Chromium is not installed at {CHROMIUM}: `make chromium` installs it")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)


def command_line_flags() -> str:
    """The same switches for a tool that starts Chromium itself (Lighthouse's --chrome-flags)."""
    return " ".join(["--headless", *CHROMIUM_ARGS])


@contextmanager
def launched() -> Iterator:
    """`launch` in a Playwright of its own, both closed on leaving. Every Chromium section measures
    the same browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def throttled(browser, rate: float | None, offline: bool = False, script: str | None = None, **options) -> Iterator:
    """A page in a fresh context (no storage, no cache; Playwright's `options`), the CPU throttled
    `rate` times through the DevTools protocol (`Emulation.setCPUThrottlingRate`, a phone's
    stand-in; None: not throttled, no DevTools session), with the network off from the start if
    `offline` (`page.context.set_offline` turns it off later) and `script` run before the page's
    own; the context closed on leaving."""
    context = browser.new_context(**options)
    try:
        if script is not None:
            context.add_init_script(script)
        if offline:
            context.set_offline(True)
        page = context.new_page()
        if rate is not None:
            context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
        yield page
    finally:
        context.close()


class _Files(ThreadingHTTPServer):
    """Serves fixed bytes at fixed paths on 127.0.0.1, a free port; nothing else."""

    daemon_threads = True

    def __init__(self, files: dict[str, tuple[bytes, str]]):
        self.files = files
        super().__init__(("127.0.0.1", 0), _Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body, kind = self.server.files.get(self.path, (b"", ""))
        self.send_response(200 if kind else 404)
        self.send_header("Content-Type", kind or "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:
        pass


def _plays(language: str) -> list[tuple[str, list[str], bool]]:
    """(label, words as typed, verdict expected) of each timed play."""
    valid = PLAYS[language]
    return [
        (" ".join(valid), valid, True),
        (" ".join(valid).lower() + ", typed in lower case", [w.lower() for w in valid], True),
        (" ".join(NOT_VALID[language]) + ", one word not valid", NOT_VALID[language], False),
    ]


def _measure_page(page, cdp, url: str, lexicon: Lexicon, runs: int, repetitions: int, rounds: int) -> dict:
    language = lexicon.header.language
    received = page.evaluate("([url, data]) => LexiconBench.receive(url, data)", [url, page_data(language)])
    if not received["secure"] or not received["subtle"]:
        raise RuntimeError(f"the bench page is no secure context (crypto.subtle missing): {received}")
    figures = {}
    for rate in (1, THROTTLE):
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
        ready = {
            pure: page.evaluate("([runs, pure]) => LexiconBench.ready(runs, pure)", [runs, pure])
            for pure in (False, True)
        }
        if {result["engine"] for result in ready.values()} != {"wasm"}:
            raise RuntimeError(f"lexicon.js did not use its WebAssembly: {ready}")
        hashing = {
            pure: page.evaluate("([runs, pure]) => LexiconBench.checksum(runs, pure)", [runs, pure])
            for pure in (False, True)
        }
        for result in ready.values():
            if result["words"] != lexicon.header.words:
                raise RuntimeError(f"lexicon.js read {result['words']} words, the .lex has {lexicon.header.words}")
        verdicts = []
        for label, words, expected in _plays(language):
            if judge(lexicon, words) is not expected:
                raise RuntimeError(f"bench data: Python's verdict on {words} is not {expected}")
            result = page.evaluate(
                "([words, n, rounds]) => LexiconBench.verdict(words, n, rounds)", [words, repetitions, rounds]
            )
            if result["valid"] is not expected or result["error"]:
                raise RuntimeError(f"lexicon.js judged {words} {result}, Python {expected}")
            verdicts.append((label, result))
        figures[rate] = {"ready": ready, "checksum": hashing, "verdicts": verdicts}
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    return figures


def _cold_ready(browser, origin: str, url: str, lexicon: Lexicon, engine: str) -> float:
    """Bytes to ready (crypto.subtle) of the first load in a fresh page, throttled from the start.

    The other rows load unthrottled first, so their throttled runs find lexicon.js compiled; a
    phone opening the page runs it for the first time, and V8 compiles it as it goes. `engine`:
    "wasm", lexicon.js as the page runs it (its WebAssembly), or "js", without it.
    """
    with throttled(browser, THROTTLE) as page:
        page.goto(origin + "/")
        page.evaluate("([url, data]) => LexiconBench.receive(url, data)", [url, page_data(lexicon.header.language)])
        result = page.evaluate("([runs, pure, engine]) => LexiconBench.ready(runs, pure, engine)", [1, False, engine])
        if result["words"] != lexicon.header.words:
            raise RuntimeError(f"lexicon.js read {result['words']} words, the .lex has {lexicon.header.words}")
        if result["engine"] != engine:
            raise RuntimeError(f"lexicon.js read the file with {result['engine']}, not {engine}")
        return result["first"]


def measure(
    lexicons: list[Lexicon], runs: int = 9, repetitions: int = 2000, rounds: int = 5, cold_runs: int = 5
) -> list[Table]:
    """One table per lexicon; `runs` loads each way, verdicts as medians of `rounds` x `repetitions`,
    and `cold_runs` first loads, each in a fresh page throttled from the start."""
    from service.static_files import source  # lexicon.js is its parts, joined

    files = {"/": (PAGE, TYPES[".html"]), "/bench.js": (PAGE_SCRIPT.read_bytes(), TYPES[".js"])}
    for name in ("tiles.js", "lexicon.js"):
        files[f"/static/{name}"] = (source(name), TYPES[".js"])
    for lexicon in lexicons:
        files[f"/lexicon/{lexicon.header.id}"] = (browser_bytes(lexicon), "application/octet-stream")
    server = _Files(files)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    tables = []
    try:
        with launched() as browser:
            for lexicon in lexicons:
                url = f"/lexicon/{lexicon.header.id}"
                cold = {
                    engine: [_cold_ready(browser, server.url, url, lexicon, engine) for _ in range(cold_runs)]
                    for engine in ("wasm", "js")
                }
                context = browser.new_context()
                page = context.new_page()
                page.goto(server.url + "/")
                cdp = context.new_cdp_session(page)
                figures = _measure_page(page, cdp, url, lexicon, runs, repetitions, rounds)
                figures["cold"] = cold
                context.close()
                tables.append(_table(lexicon, figures, runs, repetitions, rounds))
    finally:
        server.shutdown()
        server.server_close()
    return tables


def _table(lexicon: Lexicon, figures: dict, runs: int, repetitions: int, rounds: int) -> Table:
    header = lexicon.header
    table = Table(f"Chromium, CPU throttled {THROTTLE}× (a phone's stand-in): {header.id} ({header.words:,} words)")
    slow, fast = figures[THROTTLE], figures[1]
    for pure, how in ((False, "crypto.subtle (HTTPS, localhost)"), (True, "the page's own SHA-256 (plain HTTP)")):
        ready, quick = slow["ready"][pure], fast["ready"][pure]
        table.add(
            f"bytes to ready (verify, expand, check), {how}: median, max of {runs}",
            f"{ready['median']:.1f} ms, max {ready['max']:.1f} (first of them: {ready['first']:.1f}); "
            f"unthrottled {quick['median']:.1f} ms",
            f"≤ {READY_MS} ms",
            ready["median"] <= READY_MS,
        )
    table.add(
        "of which the checksum alone (SHA-256 of the file): crypto.subtle, the page's own",
        f"{slow['checksum'][False]:.1f} ms, {slow['checksum'][True]:.1f} ms; "
        f"unthrottled {fast['checksum'][False]:.1f} ms, {fast['checksum'][True]:.1f} ms",
    )
    for (label, verdict), (_, quick) in zip(slow["verdicts"], fast["verdicts"], strict=True):
        table.add(
            f"3-word verdict, tiles.js reading + lookups: {label} (median of {rounds} × {repetitions:,})",
            f"{verdict['median']:.1f} µs, max {verdict['max']:.1f}; unthrottled {quick['median']:.1f} µs",
            f"≤ {VERDICT_US} µs",
            verdict["median"] <= VERDICT_US,
        )
    for engine, how in (
        ("wasm", "as the page does it (lexicon.js's WebAssembly)"),
        ("js", "the same in JavaScript only (where WebAssembly is refused)"),
    ):
        cold = sorted(figures["cold"][engine])
        if cold:
            middle = cold[len(cold) // 2]
            table.add(
                f"bytes to ready, crypto.subtle, a page's first load throttled from its start (code not yet "
                f"compiled), {how}: median, max of {len(cold)} fresh pages",
                f"{middle:.1f} ms, max {cold[-1]:.1f}",
                f"≤ {READY_MS} ms" if engine == "wasm" else "",
                middle <= READY_MS if engine == "wasm" else None,
            )
    return table


def run() -> list[Table]:
    return measure(defaults())


__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "PHONE",
    "THROTTLE",
    "command_line_flags",
    "in_thread",
    "launch",
    "launched",
    "measure",
    "run",
    "throttled",
]
