"""`make bench` section "offline": the judge's page keeping and using its copy of the lexicon.

    python -m bench offline

`lexicon serve` with the default lexicons; Debian's Chromium (headless, through Playwright,
launched as tests/page launches it) opens the judge's page at phone size for each default
lexicon (`?lexicon=ID`), with the CPU unthrottled and then throttled 4x (DevTools protocol,
`Emulation.setCPUThrottlingRate`), and times, from the page's own clock (`performance.now()`,
an observer the bench adds before the page's scripts run):
- first paint (`first-contentful-paint`), to show that the offline work does not delay it;
- a first visit: from navigation to `data-offline="ready"` (offline.js loaded after first paint,
  the browser lexicon downloaded from the service on this machine, verified and kept in IndexedDB);
- a visit with the copy kept: the same, read back from IndexedDB instead of downloaded;
- a verdict judged on the phone with the browser offline: from the form's submission to the
  verdict on screen (the failed fetch, tiles.js reading the words, the lookups, the drawing).
A local verdict that is not Python's stops the run. The download's size is `bench browser`'s.
"""

from __future__ import annotations

import statistics

from lexicon.lexfile import Lexicon
from lexicon.verdict import judge

from .browser import PLAYS
from .chromium import PHONE, THROTTLE, in_thread, launched, throttled
from .event import Server
from .service import lexicon_files
from .table import Table

# Before the page's scripts: when data-offline became "ready", by the page's clock.
WATCH = """new MutationObserver(() => {
  if (document.documentElement.dataset.offline === "ready" && !window.benchReady) window.benchReady = performance.now();
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-offline"] });"""
# In the page: one play submitted `n` times, each verdict waited for, then cleared (Escape).
VERDICTS = """async ([words, n]) => {
  const form = document.getElementById("play"), screen = document.getElementById("screen"), times = [];
  let valid = null;
  for (let i = 0; i < n; i++) {
    words.forEach((word, k) => {
      if (k > 0 && !document.getElementById("word-" + (k + 1))) document.getElementById("add").click();
      const input = document.getElementById("word-" + (k + 1));
      input.value = word;
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    const shown = new Promise((resolve) => new MutationObserver((_, observer) => {
      if (screen.classList.contains("show")) { observer.disconnect(); resolve(); }
    }).observe(screen, { attributes: true }));
    const start = performance.now();
    form.requestSubmit();
    await shown;
    times.push(performance.now() - start);
    valid = screen.classList.contains("valid");
    if (!document.querySelector("#verdict .v-offline")) throw new Error("not judged on the phone");
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  }
  return { times, valid };
}"""


def _load(page, url: str) -> dict:
    """One load of the page: first paint and ready, in ms from navigation, by the page's clock."""
    page.goto(url)
    # Both marks: ready from the kept copy can come before the first paint is recorded.
    page.wait_for_function(
        "() => window.benchReady && performance.getEntriesByName('first-contentful-paint').length", timeout=60_000
    )
    return page.evaluate("""() => ({ ready: window.benchReady,
        paint: (performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime })""")


def _phone(browser, rate: float):
    """A fresh phone (no storage, no cache), its page's CPU throttled `rate` times, WATCH in it."""
    return throttled(browser, rate, script=WATCH, **PHONE)


def measure(lexicons: list[Lexicon], server_url: str, visits: int = 5, verdicts: int = 20) -> list[Table]:
    with launched() as browser:
        return [_measure_lexicon(browser, lexicon, server_url, visits, verdicts) for lexicon in lexicons]


def _measure_lexicon(browser, lexicon: Lexicon, server_url: str, visits: int, verdicts: int) -> Table:
    header = lexicon.header
    words = PLAYS[header.language]
    expected = judge(lexicon, words)
    url = f"{server_url}/?lexicon={header.id}"
    figures = {}
    for rate in (1, THROTTLE):
        found = {"first": [], "kept": [], "paint": []}
        for _ in range(visits):
            with _phone(browser, rate) as page:
                for visit in ("first", "kept"):  # the second load finds the copy the first one kept
                    loaded = _load(page, url)
                    found[visit].append(loaded["ready"])
                    found["paint"].append(loaded["paint"])
        with _phone(browser, rate) as page:
            _load(page, url)
            page.context.set_offline(True)
            result = page.evaluate(VERDICTS, [words, verdicts])
        if result["valid"] is not expected:
            raise RuntimeError(f"the page judged {words} {result['valid']} offline, Python {expected}")
        figures[rate] = {**found, "verdict": result["times"]}
    table = Table(f"The judge's page offline, Chromium: {header.id} ({header.words:,} words)")
    for key, label in [
        ("paint", "first paint (first-contentful-paint), from navigation"),
        ("first", "first visit: navigation to data-offline=ready (download, verify, keep)"),
        ("kept", "visit with the copy kept: navigation to ready (read from IndexedDB)"),
        ("verdict", f"verdict on the phone, browser offline: {' '.join(words)}"),
    ]:
        table.add(label, f"{_text(figures[THROTTLE][key])} throttled {THROTTLE}×; unthrottled {_text(figures[1][key])}")
    return table


def _text(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ms (max {max(values):.1f})"


def run() -> list[Table]:
    files, _ = lexicon_files()
    server = Server(files)
    try:
        lexicons = [Lexicon.open(path) for path in files]
        return in_thread(measure, lexicons, server.url)  # Playwright's sync API in a thread of its own
    finally:
        server.stop()


__all__ = ["measure", "run"]
