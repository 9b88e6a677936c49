"""The single-file judge (`lexicon export-page`, service/single_file.py) for each default lexicon.

- its size, plain and gzipped (as a message attachment may travel), against 1 MB, what a message can carry;
- the export itself, `single_file(lexicon)` in process, median of a few runs;
- opened from file:// in Debian's Chromium (headless, launched as tests/page launches it,
  through Playwright) with the network off, unthrottled and with the CPU throttled 4× through the
  DevTools protocol, a phone's stand-in: the time to first paint (the page can be typed on) and
  to `document.documentElement.dataset.offline === "ready"` (the embedded lexicon decoded from
  base64 and verified by lexicon.js: it can judge), polled every 5 ms, medians of `runs` fresh
  contexts; then a valid play must show the valid verdict, or the run stops.
"""

from __future__ import annotations

import gzip
import statistics
import tempfile
from pathlib import Path

from lexicon.lexfile import Lexicon

from .browser import PLAYS, defaults
from .chromium import THROTTLE, launched, throttled
from .table import Table, median_seconds

LIMIT = 1_000_000  # bytes: a file sent by message
READY = "() => document.documentElement.dataset.offline === 'ready'"


def _open(browser, path: Path, rate: int) -> tuple[float, float]:
    """(first paint, ready) in ms of one opening of `path` in a fresh offline context."""
    with throttled(
        browser, rate, offline=True, viewport={"width": 360, "height": 740}, service_workers="block"
    ) as page:
        page.goto(path.as_uri())
        page.wait_for_function(READY, polling=5)
        ready = page.evaluate("() => performance.now()")
        # The first paint may be recorded just after ready: waited for, never reported as 0.
        paint = page.wait_for_function(
            "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime", timeout=30_000
        ).json_value()
        return paint, ready


def _judges(browser, path: Path, words: list[str]) -> bool:
    """Whether the file, offline, shows the valid verdict on a valid play, typed in its fields."""
    with throttled(browser, None, offline=True, service_workers="block") as page:  # untimed: not throttled
        page.goto(path.as_uri())
        page.wait_for_function(READY, polling=5)
        for n, word in enumerate(words, 1):
            if n > 1:
                page.click("#add")
            page.fill(f"#word-{n}", word)
        page.click("#submit")
        page.wait_for_selector("#screen.show")
        return page.locator("#screen.valid").count() == 1


def measure(lexicons: list[Lexicon], runs: int = 7, exports: int = 3) -> list[Table]:
    """One table per lexicon."""
    from service.single_file import single_file

    tables = []
    with tempfile.TemporaryDirectory() as folder, launched() as browser:
        for lexicon in lexicons:
            header = lexicon.header
            data = single_file(lexicon)
            seconds = median_seconds(lambda lexicon=lexicon: single_file(lexicon), exports)
            path = Path(folder) / f"{header.id}.html"
            path.write_bytes(data)
            if not _judges(browser, path, PLAYS[header.language]):
                raise RuntimeError(f"the single file of {header.id} does not judge offline")
            opened = {rate: [_open(browser, path, rate) for _ in range(runs)] for rate in (1, THROTTLE)}
            table = Table(f"The single-file judge: {header.id} ({header.words:,} words)")
            table.add(
                "file size (gzipped, as an attachment may travel)",
                f"{len(data):,} B ({len(gzip.compress(data, 9, mtime=0)):,} B)",
                f"≤ {LIMIT:,} B",
                len(data) <= LIMIT,
            )
            table.add(f"export, `single_file` in process (median of {exports})", f"{seconds:.2f} s")
            for rate in (1, THROTTLE):
                paints, readies = zip(*opened[rate], strict=True)
                how = "unthrottled" if rate == 1 else f"CPU throttled {rate}×"
                table.add(
                    f"opened from file:// offline, {how}: first paint / ready to judge (median of {runs})",
                    f"{statistics.median(paints):.0f} ms / {statistics.median(readies):.0f} ms "
                    f"(ready max {max(readies):.0f})",
                )
            tables.append(table)
    return tables


def run() -> list[Table]:
    return measure(defaults())


__all__ = ["measure", "run"]
