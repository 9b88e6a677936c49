"""Fixtures of the judge's page tests: small lexicons, the LIVE service, one Chromium a session.

- `page_lexicons`: three lexicons compiled once a session with the real compiler (two Spanish,
  one Catalan), so the page offers a real choice;
- `live`: the real `lexicon serve` (gunicorn) on a free port, serving them, with
  LEXICON_VERDICT_SECONDS=4 so the auto-clear can be watched; stopped with SIGTERM at the end;
- `browser`: Debian's Chromium (/usr/bin/chromium), headless, driven by Playwright, started as
  every test, screenshot and bench section starts it (bench/chromium.py's `launch`). `make test`
  installs the package when it is missing; without it every browser test FAILS, loudly: a page
  nobody looked at must not pass as tested;
- `webkit`, `firefox`: WebKit (WebKitWebDriver under Xvfb, through Selenium) and Firefox ESR
  (through Marionette), each started once a session (tests/page/engines.py), failing every test
  that needs them when they cannot start; `webkit_zoomed`, a WebKit at 200 % zoom;
- `engine`, `devices`: a test parametrized over the three engines (each run carrying its engine's
  tier marker), and the phones it opens in its engine (tests/page/engines.py's `Device`), closed
  after it: the flows of test_engines.py;
- `phone`: a fresh browser context (no storage shared between tests) at phone size, 360 x 740
  with touch, set to Spanish (es-ES), whose every request is recorded; after the test, each must have gone to the
  service (and no JavaScript error may have happened).

Screenshots go to test-output/page/ at the repository's root (gitignored), with the page-weight
table (size.txt), which the run also prints at its end (`pytest_terminal_summary`).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench import chromium
from tests.support import PAGE_WEIGHT, REPO, LiveServer, compile_list, stop_soon

from . import engines

SHOTS = REPO / "test-output" / "page"
VERDICT_SECONDS = 4  # the live service's LEXICON_VERDICT_SECONDS
# A Spanish phone unless a test says otherwise. Its service worker (service/installable.py) is
# blocked, so that the requests a test counts are the page's own: the worker, on 127.0.0.1, would
# fetch the whole shell and every lexicon in the background. tests/page/test_installable_browser.py
# allows it.
PHONE = {**chromium.PHONE, "service_workers": "block"}

ES_WORDS = "CARRO CHICO LLAVE CALLE PERRO CASA MESA CAMIÓN ÑANDÚ PINGÜINO ARROZ CHURRO".split()
ES_ALT_WORDS = ES_WORDS + ["XILÓFONO"]
CA_WORDS = "COL·LEGI QUADRE CAVALL LLUNA ANYS CANÇÓ NYAP PLAÇA CASA".split()


@pytest.fixture(scope="session")
def page_lexicons(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("page-lexicons")
    return {
        "es-page": compile_list(folder / "es.lex", ES_WORDS, "es", "es-page", "Prueba español", "2026.1"),
        "es-alt": compile_list(folder / "es-alt.lex", ES_ALT_WORDS, "es", "es-alt", "Otro español", "7"),
        "ca-page": compile_list(folder / "ca.lex", CA_WORDS, "ca", "ca-page", "Prova català", "2.7.15"),
    }


def page_config(page_lexicons: dict[str, Path], **overrides) -> dict:
    """A create_app test config: every LEXICON_* setting explicit, the shell's never used."""
    config = {
        "TESTING": True,
        "LEXICON_FILES": [str(p) for p in page_lexicons.values()],
        "LEXICON_CORS_ORIGINS": "",
        "LEXICON_TOKEN": None,
        "LEXICON_LOG_LEVEL": "warning",
        "LEXICON_VERDICT_SECONDS": None,
    }
    config.update(overrides)
    return config


@pytest.fixture(scope="session")
def live(page_lexicons, tmp_path_factory):
    server = LiveServer(
        tmp_path_factory.mktemp("page-live"),
        page_lexicons.values(),
        LEXICON_VERDICT_SECONDS=str(VERDICT_SECONDS),
        LEXICON_LOG_LEVEL="warning",
    )
    server.wait_ready()
    yield server
    stop_soon(server)


@pytest.fixture
def page_weight(request):
    """Keeps the page-weight table: test-output/page/size.txt, and printed after the run's results
    (by tests/conftest.py, from the test's report: with several workers, the run's own process
    prints it, not the worker that measured)."""

    def record(report: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "size.txt").write_text(report + "\n")
        request.node.user_properties.append((PAGE_WEIGHT, report))

    return record


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


@pytest.fixture(scope="session")
def browser():
    """Chromium as bench/chromium.py's `launch` starts it for every caller (tests, screenshots, figures)."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = chromium.launch(playwright)
    except Exception as error:
        playwright.stop()
        pytest.fail(f"the judge's page cannot be tested: {error}", pytrace=False)
    yield browser
    browser.close()
    playwright.stop()


class Phone:
    """One browser context at phone size on one service, recording every request it makes."""

    def __init__(self, browser, server: LiveServer, **options):
        self.server = server
        self.context = browser.new_context(base_url=server.url, **{**PHONE, **options})
        self.context.set_default_timeout(10_000)
        self.requests: list[tuple[str, str]] = []
        self.problems: list[str] = []
        self.context.on("request", lambda request: self.requests.append((request.method, request.url)))
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("console", self._console)

    def _console(self, message) -> None:
        # Chromium logs every 4xx answer and every failed fetch; the tests cause those on purpose.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.problems.append(f"console error: {message.text}")

    def foreign_requests(self) -> list[str]:
        origin = urlsplit(self.server.url)
        return [
            f"{method} {url}"
            for method, url in self.requests
            if not url.startswith("data:")
            and (urlsplit(url).scheme, urlsplit(url).netloc) != (origin.scheme, origin.netloc)
        ]

    def close(self) -> None:
        engines.close_context(self.context)


@pytest.fixture
def phone(browser, live):
    device = Phone(browser, live)
    yield device
    device.close()
    assert device.foreign_requests() == [], "the page asked something of another origin"
    assert device.problems == [], "the page had JavaScript errors"


@pytest.fixture(scope="session")
def webkit():
    engine = engines.start("webkit")
    yield engine
    engine.quit()


@pytest.fixture(scope="session")
def webkit_zoomed():
    """WebKit at 200 % zoom (engines.WebKit): started only for the tests that ask for it."""
    engine = engines.start("webkit", zoom=engines.ZOOMED)
    yield engine
    engine.quit()


@pytest.fixture(scope="session")
def firefox():
    engine = engines.start("firefox")
    yield engine
    engine.quit()


@pytest.fixture(
    params=[pytest.param(name, marks=getattr(pytest.mark, engines.MARKERS[name])) for name in engines.ENGINES]
)
def engine(request) -> str:
    """The engine a flow runs in this time: each of engines.ENGINES, each with its tier marker."""
    return request.param


@pytest.fixture
def devices(engine, request):
    """Opens phones in this test's engine: `devices(url)` (a service's URL, or None for a page from a
    file), at engines.PHONE_SIZE unless `size=(width, height)`, and at 200 % zoom with `zoomed`
    (its viewport half the size each way: Chromium's and Firefox's as smaller, each CSS pixel
    taking twice the device pixels in Chromium; WebKit's zoomed, `webkit_zoomed`); each closed
    after the test. WebKit and Firefox have one window a session: one device at a time there."""
    opened: list[engines.Device] = []

    def make(url, size, zoomed):
        if engine == "chromium":
            scale = {"device_scale_factor": 2 * engines.ZOOMED} if zoomed else {}
            return engines.ChromiumDevice(request.getfixturevalue("browser"), url, size, **scale)
        return request.getfixturevalue("webkit_zoomed" if zoomed and engine == "webkit" else engine).device(url, size)

    def device(url: str | None, size: tuple[int, int] = engines.PHONE_SIZE, zoomed: bool = False) -> engines.Device:
        if zoomed:
            size = (size[0] // engines.ZOOMED, size[1] // engines.ZOOMED)
        opened.append(make(url, size, zoomed))
        return opened[-1]

    yield device
    for phone in opened:
        phone.close()
