"""The two devices of `bench.rehearsal`'s day that run the real judge's page: one judge's phone and
one table's device, in Debian's Chromium (launched as every Chromium section launches it,
bench.chromium), each in a browser context of its own at phone size.

Playwright's sync API belongs to the thread that started it, so `Pages` runs in a thread of its
own and takes its work as calls queued to it (`do`). A page's play is typed, submitted and read
back by a script in the page (quicker than one Playwright call per key on a loaded machine). The
page's own idempotency key, which it keeps for a verdict it judges offline, is read from its
requests: a wrapper around `fetch`, installed before the page's scripts, notes each challenge.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future

from . import chromium
from .hall import Hall, Shown, Tally

PHONE = {**chromium.PHONE, "service_workers": "block"}  # its requests are the page's own
# Before the page's scripts: every challenge it sends, noted (its key, and whether offline).
NOTE_CHALLENGES = """(() => {
  const original = window.fetch;
  window.benchSent = [];
  window.fetch = function (input, init) {
    try {
      const url = String(input && input.url || input);
      if (/v1\\/challenge(\\?|$)/.test(url) && init && init.method === "POST") {
        const body = JSON.parse(init.body);
        window.benchSent.push({ key: body.idempotency_key || null, offline: !!body.offline });
      }
    } catch (error) { /* not a challenge */ }
    return original.apply(this, arguments);
  };
})();"""
# In the page: one play typed and submitted; what the page showed (a verdict, or a message), bounded.
PLAY = """async ([words, limit]) => {
  const screen = document.getElementById("screen"), error = document.getElementById("form-error");
  error.textContent = "";
  let extra;  // rows left from a play that got a message, not a verdict (a verdict clears them)
  for (let n = 0; n < 8 && (extra = document.getElementById("word-" + (words.length + 1))); n++) {
    extra.closest("li").querySelector(".remove").click();
  }
  words.forEach((word, k) => {
    if (k > 0 && !document.getElementById("word-" + (k + 1))) document.getElementById("add").click();
    const input = document.getElementById("word-" + (k + 1));
    input.value = word;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  const sent = window.benchSent.length, started = performance.now();
  document.getElementById("play").requestSubmit();
  while (!screen.classList.contains("show") && !error.textContent && performance.now() - started < limit) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const mine = window.benchSent.slice(sent).filter((item) => !item.offline);
  const shown = screen.classList.contains("show"), record = document.querySelector("#verdict .v-record");
  const result = { seconds, key: mine.length ? mine[mine.length - 1].key : null, shown,
    valid: screen.classList.contains("valid"), offline: !!document.querySelector("#verdict .v-offline"),
    record: shown && record ? Number((record.textContent.match(/\\d+/) || [null])[0]) : null,
    text: shown ? "" : error.textContent };
  if (result.shown) document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  return result;
}"""
SEND_WAITING = "LexiconOffline.flush().then(() => LexiconOffline.waiting())"


class PageDevice:
    """One device's page: its context, its name and role, what it showed."""

    def __init__(self, browser, hall: Hall, name: str, role: str, code: str):
        self.hall, self.name, self.role = hall, name, role
        self.tally = Tally()
        self.context = browser.new_context(base_url=f"http://127.0.0.1:{hall.service.port}", **PHONE)
        self.context.set_default_timeout(30_000)
        self.context.add_init_script(NOTE_CHALLENGES)
        self.page = self.context.new_page()
        self.offline = False
        self.last = 0.0
        self.page.goto(f"/#pair={code}")
        self.page.locator("#event-device").wait_for(state="visible")
        if role == "judge":  # a judge's phone keeps the lexicon to judge offline; a table's never does
            self.page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'", timeout=60_000)
        else:
            self.page.wait_for_function("() => window.LexiconOffline", timeout=60_000)

    def play(self) -> None:
        """One play, if its turn has come (a table device keeps the service's gap)."""
        cut = self.name in self.hall.cut_off
        if cut != self.offline:
            self.context.set_offline(cut)
            self.offline = cut
            if not cut:
                self.send_waiting()
        gap = self.hall.table_gap * 1.15 + 0.1 if self.role == "table" else self.hall.judge_pause
        if time.monotonic() - self.last < gap:
            return
        words = self.hall.play()
        result = self.page.evaluate(PLAY, [list(words), 15_000])
        self.last = time.monotonic()
        if not result["shown"]:  # a message instead (the gap, no connection, ask a judge)
            self.tally.refuse(result["text"].split(".")[0][:60] or "no answer in 15 s")
            if result["key"]:
                self.tally.unshown.append(result["key"])
            return
        if not result["offline"]:
            self.tally.seconds.append(result["seconds"])
        self.tally.shown.append(
            Shown(self.name, self.role, result["key"], words, result["valid"], result["offline"], result["record"])
        )

    def send_waiting(self, limit: float = 60) -> int:
        """Asks the page to send what waits until nothing does (the page itself tries again on
        'online' and every 30 s); what still waits after `limit` seconds."""
        started = time.monotonic()
        while time.monotonic() - started < limit:
            if self.page.evaluate(SEND_WAITING) == 0:
                return 0
            self.page.wait_for_timeout(250)
        return self.page.evaluate("LexiconOffline.waiting()")


class Pages:
    """A thread owning Chromium and the page devices; `do(function, ...)` runs a call there."""

    def __init__(self):
        self.calls: queue.Queue = queue.Queue()
        self.devices: list[PageDevice] = []
        self.thread = threading.Thread(target=self._serve, name="chromium", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            with chromium.launched() as browser:
                self.browser = browser
                while True:
                    function, args, done = self.calls.get()
                    if function is None:
                        break
                    try:
                        done.set_result(function(*args))
                    except BaseException as error:  # handed to the caller
                        done.set_exception(error)
        except BaseException as error:
            self.failure = error
            while True:  # refuse what is queued, so that no caller waits for ever
                try:
                    _, _, done = self.calls.get_nowait()
                except queue.Empty:
                    break
                if done is not None:
                    done.set_exception(error)

    def do(self, function, *args, timeout: float = 120):
        done: Future = Future()
        if not self.thread.is_alive():
            raise RuntimeError(f"Chromium is not running: {getattr(self, 'failure', 'stopped')}")
        self.calls.put((function, args, done))
        return done.result(timeout)

    def pair(self, hall: Hall, name: str, role: str, code: str) -> PageDevice:
        device = self.do(lambda: PageDevice(self.browser, hall, name, role, code))
        self.devices.append(device)
        return device

    def play_until(self, stop: threading.Event) -> None:
        """Each page plays in turn until `stop` (run from the day's thread: it waits here)."""

        def loop():
            while not stop.is_set():
                for device in self.devices:
                    device.play()
                stop.wait(0.05)

        self.do(loop, timeout=3600)

    def send_waiting(self) -> int:
        return self.do(lambda: sum(device.send_waiting() for device in self.devices))

    def close(self) -> None:
        if self.thread.is_alive():
            self.calls.put((None, None, None))
            self.thread.join(30)
