"""`make screenshots`: every state of the phone pages as PNG files, to be looked at.

    .venv/bin/python -m tests.page.screenshots [FOLDER]   (default: test-output/screenshots/)

At 390 x 844 and 360 x 640 (portrait phones), the verdict also in landscape (844 x 390) and the
page with the keyboard open (390 x 450), at 200 % zoom (195 x 422) and in forced colours,
light and dark: the judge's page in Spanish and Catalan, the lexicon's
identity open, tiles typed, an input error, both verdicts, the last verdict to recall, a verdict
judged offline; an event's page as a judge's phone, as a table device (and its verdict) and
unpaired; the single-file judge; the director's console (at 1280 x 800 and 390 x 844) signed
out, signed in with the devices and the record, a slip, the pairing panel, and a closed round.
The states are tests/page/phone_states.py's, the ones the layout and accessibility tests check.
The judge's page also in WebKit (Safari's engine) and Firefox at both phone sizes, the way
tests/page/test_engines.py drives them (webkit-*.png, firefox-*.png): the start, a play typed with
an error, both verdicts, a verdict judged offline, a paired judge's phone, a table device's
verdict, the single-file judge. Small lexicons compiled on the spot; the real `lexicon serve`;
Debian's Chromium, WebKitGTK and Firefox ESR. No test looks
at the pictures, but tests/page/test_screenshots.py runs this whole and checks every file is
written at its size, so the command cannot break unseen.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.chromium import launch
from lexicon_cli.common import open_lexicon
from service.single_file import single_file
from tests.support import REPO, LiveServer, compile_list, stop_all
from tournament import create_event

from . import engines
from .conftest import CA_WORDS, ES_ALT_WORDS, ES_WORDS
from .phone_states import (
    DEFAULT_LEXICONS,
    EVENT_NAME,
    KEYBOARD,
    LANDSCAPE,
    PASSWORD,
    SIZES,
    ZOOM_200,
    Director,
    pair,
    pairing_code,
    ready,
    typed,
    verdict,
)
from .test_engines import ask, borrar, drawn, ready_offline
from .test_page_browser import wait_guard

OUT = REPO / "test-output" / "screenshots"
CONSOLE_SIZES = {"1280x800": (1280, 800), "390x844": (390, 844)}  # the director's laptop, and a phone


def lexicons(folder: Path) -> list[Path]:
    return [
        # the default lexicons' names (data/manifest.toml): what a judge reads on the lexicon's line
        compile_list(folder / "es.lex", ES_WORDS, "es", "es-page", DEFAULT_LEXICONS["es"][1], "2026.1"),
        compile_list(folder / "es-alt.lex", ES_ALT_WORDS, "es", "es-alt", "Otro español", "7"),
        compile_list(folder / "ca.lex", CA_WORDS, "ca", "ca-page", DEFAULT_LEXICONS["ca"][1], "2.7.15"),
    ]


class Shooter:
    def __init__(self, browser, out: Path):
        self.browser, self.out = browser, out
        self.written: list[Path] = []

    def context(self, server: LiveServer | None, size: tuple[int, int], locale: str = "es-ES", **options):
        return self.browser.new_context(
            base_url=server.url if server else None,
            viewport={"width": size[0], "height": size[1]},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            locale=locale,
            service_workers="block",
            **options,
        )

    def shot(self, page, name: str, full_page: bool = False) -> None:
        path = self.out / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.written.append(path)

    def judge(self, server: LiveServer, label: str, size: tuple[int, int]) -> None:
        context = self.context(server, size)
        page = context.new_page()
        page.goto("/")
        ready(page)
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        self.shot(page, f"judge-01-start-{label}")
        page.locator("#lexicon-summary").click()
        self.shot(page, f"judge-02-lexicon-open-{label}")
        page.locator("#lexicon-summary").click()
        page.locator("#word-1").click()
        page.keyboard.type("CA")
        page.get_by_role("button", name="RR", exact=True).click()
        page.keyboard.type("O")
        page.locator("#add").click()
        page.keyboard.type("KIWI")
        self.shot(page, f"judge-03-typed-with-an-error-{label}")
        page.locator("#word-2").fill("CHICO")
        page.locator("#table").fill("12")
        page.locator("#round").fill("3")
        page.locator("#submit").click()
        page.locator("#screen.show").wait_for()
        self.shot(page, f"judge-04-valid-{label}")
        wait_guard(page)  # the verdict takes taps once its first moment is over
        page.locator("#clear").click()
        self.shot(page, f"judge-05-cleared-recall-{label}")
        verdict(page, "CARRO", "CHOCO")
        self.shot(page, f"judge-06-not-valid-{label}")
        page.keyboard.press("Escape")
        context.set_offline(True)
        verdict(page, "CASA", "PERRO")
        self.shot(page, f"judge-07-offline-valid-{label}")
        context.close()

        context = self.context(server, size, "ca-ES")
        page = context.new_page()
        page.goto("/")
        ready(page)
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        self.shot(page, f"judge-08-catalan-{label}")
        context.close()

    def event(self, server: LiveServer, director: Director, label: str, size: tuple[int, int]) -> None:
        for role in ("judge", "table"):
            context = self.context(server, size)
            page = context.new_page()
            pair(page, director, role)
            self.shot(page, f"event-{role}-01-paired-{label}")
            verdict(page, "CARRO", "CHICO", table="12")
            self.shot(page, f"event-{role}-02-verdict-{label}")
            context.close()
        context = self.context(server, size)
        page = context.new_page()
        page.goto("/")
        page.locator("#pair-box").wait_for()
        self.shot(page, f"event-unpaired-{label}")
        context.close()

    def console(self, server: LiveServer, director: Director, label: str, size: tuple[int, int]) -> None:
        """The director's console signed out, then signed in (devices, record, counts, whole
        page), a slip, and the pairing panel with its QR code."""
        context = self.console_context(server, size)
        page = context.new_page()
        page.goto("/director")
        page.locator("#password").wait_for()
        self.shot(page, f"console-01-sign-in-{label}")
        self.sign_in(context, server, director)
        page.goto("/director")
        page.locator("#chain-state").wait_for(state="visible")
        page.locator("#records tbody tr").first.wait_for()
        self.shot(page, f"console-02-signed-in-{label}", full_page=True)
        page.locator('#records tr[data-seq="1"] [data-slip]').click()
        page.locator("#slip").wait_for(state="visible")
        self.shot(page, f"console-03-slip-{label}")
        page.get_by_role("button", name="Cerrar", exact=True).click()
        page.locator("#device-name").fill(f"Juez {label}")
        page.get_by_role("button", name="Vincular").click()
        page.locator("#pairing").wait_for(state="visible")
        page.wait_for_function("() => document.getElementById('pairing-qr').naturalWidth > 0")
        self.shot(page, f"console-04-pairing-{label}")
        context.close()

    def round_closed(self, server: LiveServer, director: Director, label: str, size: tuple[int, int]) -> None:
        """The console once the round is closed: its record's head, large, for the round sheet."""
        context = self.console_context(server, size)
        self.sign_in(context, server, director)
        page = context.new_page()
        page.goto("/director")
        page.locator("#round-head").wait_for(state="visible")
        self.shot(page, f"console-05-round-closed-{label}")
        context.close()

    def console_context(self, server: LiveServer, size: tuple[int, int]):
        """The director's laptop (scale 1, a mouse), or a phone below 800 px wide (scale 2, touch)."""
        phone = size[0] < 800
        return self.browser.new_context(
            base_url=server.url,
            viewport={"width": size[0], "height": size[1]},
            device_scale_factor=2 if phone else 1,
            is_mobile=phone,
            has_touch=phone,
            locale="es-ES",
        )

    @staticmethod
    def sign_in(context, server: LiveServer, director: Director) -> None:
        name, value = director.cookie.split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": server.url}])

    def landscape_and_keyboard(self, server: LiveServer) -> None:
        context = self.context(server, LANDSCAPE)
        page = context.new_page()
        page.goto("/")
        ready(page)
        verdict(page, "CARRO", "CHICO", "LLAVE", table="12")
        self.shot(page, "judge-valid-landscape-844x390")
        context.close()
        context = self.context(server, KEYBOARD)
        page = context.new_page()
        page.goto("/")
        ready(page)
        typed(page, "CARRO", "CHICO")
        page.locator("#word-2").focus()
        self.shot(page, "judge-keyboard-open-390x450")
        context.close()

    def large_and_forced(self, server: LiveServer) -> None:
        """Older judges' settings: 200 % zoom on a 390 x 844 phone (195 x 422 CSS px), and forced
        colours, light and dark: the page, and a verdict of each kind."""
        for name, size, options in (
            ("zoom200", ZOOM_200, {}),
            ("forced-light", SIZES["390x844"], {"forced_colors": "active", "color_scheme": "light"}),
            ("forced-dark", SIZES["390x844"], {"forced_colors": "active", "color_scheme": "dark"}),
        ):
            label = "x".join(map(str, size))
            context = self.context(server, size, **options)
            page = context.new_page()
            page.goto("/")
            ready(page)
            self.shot(page, f"judge-{name}-01-start-{label}")
            verdict(page, "CARRO", "CHICO", table="12")
            self.shot(page, f"judge-{name}-02-valid-{label}")
            page.keyboard.press("Escape")
            verdict(page, "CARRO", "CHOCO", table="12")
            self.shot(page, f"judge-{name}-03-not-valid-{label}")
            context.close()

    def single(self, folder: Path, label: str, size: tuple[int, int]) -> None:
        path = folder / "juez.html"
        if not path.exists():
            path.write_bytes(single_file(open_lexicon(str(folder / "es.lex"))))
        context = self.browser.new_context(
            viewport={"width": size[0], "height": size[1]},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            locale="es-ES",
        )
        context.set_offline(True)
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        self.shot(page, f"single-file-{label}")
        context.close()


ENGINE_STATES = (  # at each of SIZES, in WebKit and in Firefox
    *("01-start", "02-typed-with-an-error", "03-valid", "04-not-valid", "05-offline-valid"),
    *("06-event-judge-paired", "07-event-table-verdict", "08-single-file"),
)


def in_engine(
    engine: engines.Engine, plain: LiveServer, event: LiveServer, director: Director, folder: Path, out: Path
):
    """The judge's page in WebKit or Firefox, at each phone size: ENGINE_STATES."""
    written = []

    def shot(device, state: str, label: str) -> None:
        written.append(out / f"{engine.name}-{state}-{label}.png")
        device.screenshot(written[-1])

    for label, size in SIZES.items():
        device = engine.device(plain.url, size)
        try:
            device.open("/")
            drawn(device)
            ready_offline(device)
            shot(device, "01-start", label)
            device.type('input[name="word-1"]', "CARRO")
            device.tap("#add")
            device.type('input[name="word-2"]', "KIWI")
            device.wait("document.getElementById('word-2-error').textContent", "the field's error")
            shot(device, "02-typed-with-an-error", label)
            device.run("document.querySelector('input[name=\"word-2\"]').value = ''")
            device.type('input[name="word-2"]', "CHICO")
            device.type("#table", "12")
            device.tap("#submit")
            device.wait("document.querySelector('#screen.show')", "the verdict")
            shot(device, "03-valid", label)
            borrar(device)
            ask(device, "CARRO", "CHOCO")
            shot(device, "04-not-valid", label)
            borrar(device)
            device.offline(True)
            ask(device, "CASA", "PERRO")
            shot(device, "05-offline-valid", label)
        finally:
            device.close()
        for role, state in (("judge", "06-event-judge-paired"), ("table", "07-event-table-verdict")):
            device = engine.device(event.url, size)
            try:
                if role == "judge":
                    code = pairing_code(director, role)
                else:  # a table of its own: a table waits between challenges, whichever device asks
                    table = str(20 + len(written))
                    code = director.device(director.fresh_name(f"Mesa {table}"), "table", table)
                device.open(f"/?pair={code}")
                device.wait("document.getElementById('event-device').textContent", "the device paired")
                drawn(device)
                if role == "table":
                    ask(device, "CARRO", "CHICO")
                shot(device, state, label)
            finally:
                device.close()
        device = engine.device(None, size)
        try:
            device.open((folder / "juez.html").as_uri())
            ready_offline(device)
            shot(device, "08-single-file", label)
        finally:
            device.close()
    return written


def shoot(browser, out: Path, others: list[engines.Engine] = ()) -> list[Path]:
    """Every state into `out` with `browser` (the tests' session Chromium, or main's), and the
    judge's page's in each of `others` (WebKit, Firefox), on two live services of their own; the
    files written."""
    out.mkdir(parents=True, exist_ok=True)
    shooter = Shooter(browser, out)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        files = lexicons(folder)
        plain = LiveServer(folder, files, LEXICON_LOG_LEVEL="warning")
        create_event(folder / "open.db", EVENT_NAME, PASSWORD, lexicon="es-page").close()
        event = LiveServer(folder, files, LEXICON_EVENT=str(folder / "open.db"), LEXICON_LOG_LEVEL="warning")
        try:
            plain.wait_ready()
            event.wait_ready()
            director = Director(event)
            director.ask("POST", "/v1/rounds", {})
            for label, size in SIZES.items():
                shooter.judge(plain, label, size)
                shooter.event(event, director, label, size)
                shooter.single(folder, label, size)
            shooter.landscape_and_keyboard(plain)
            shooter.large_and_forced(plain)
            for label, size in CONSOLE_SIZES.items():
                shooter.console(event, director, label, size)
            for engine in others:  # while the round is open: a table device asks only then
                shooter.written += in_engine(engine, plain, event, director, folder, out)
            director.ask("POST", "/v1/rounds/close", {})
            for label, size in CONSOLE_SIZES.items():
                shooter.round_closed(event, director, label, size)
        finally:
            stop_all([plain, event])
    return shooter.written


def main(out: Path = OUT) -> list[Path]:
    others = []
    try:
        others = [engines.WebKit(), engines.Firefox()]
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                written = shoot(browser, out, others)
            finally:
                browser.close()
    finally:
        for engine in others:
            engine.quit()
    for path in written:
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return written


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
