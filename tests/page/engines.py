"""The three engines a judge's phone runs, driven one way: Chromium, WebKit (Safari's engine) and
Firefox, each started once a session, and a `Device` (one phone in one engine) that the flows of
tests/page/test_engines.py are written against once.

- Chromium: Debian's, through Playwright, as every Chromium test starts it (bench/chromium.py);
- WebKit: Debian's WebKitGTK (`webkit2gtk-driver`: WebKitWebDriver and its MiniBrowser) under an
  Xvfb display of its own, through Selenium's WebKitGTK driver;
- Firefox: Debian's Firefox ESR, headless, through Mozilla's own Marionette client
  (`marionette-driver`); Debian has no geckodriver for Selenium.
Why these libraries, and not Playwright's own builds: docs/testing.md.

A device opens pages at a phone's size (its viewport exactly that many CSS pixels), or at that
phone's size zoomed (200 %: a viewport of half as many CSS pixels each way, the page's own rem and
em unchanged, as a browser's zoom makes it; `ZOOMED`), taps, types, presses Tab and Enter,
reads the page through JavaScript (an expression, a Promise waited for) and waits for a condition
by polling it (tests.support.until). Its network can go and come back (`offline`): Chromium's own
switch; in WebKit and Firefox, which have none a driver reaches, the device talks to the service
through a relay of its own (`Relay`, a TCP port of 127.0.0.1) that stops carrying anything, which
also gives each device an origin of its own (storage is kept by origin; cookies, kept by host,
are deleted when a device closes). `make test` installs the three (Makefile); a missing one fails
its tests, loudly.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench import tether
from tests.support import until

ENGINES = ("chromium", "webkit", "firefox")
# The tier marker of a test driving each engine (tests/tiers.py).
MARKERS = {"chromium": "browser", "webkit": "webkit", "firefox": "firefox"}
PHONE_SIZE = (360, 740)  # bench/chromium.py's PHONE: a small Android phone's screen
ZOOMED = 2  # a phone at 200 % zoom: half as many CSS pixels each way

WEBKIT_DRIVER = Path("/usr/bin/WebKitWebDriver")
MINIBROWSER = Path("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
XVFB = Path("/usr/bin/Xvfb")
FIREFOX = Path("/usr/bin/firefox-esr")

# MiniBrowser's window (GTK 3) has a header bar whose buttons and address field keep the window
# at least 447 px wide: a user style sheet (GTK's documented $XDG_CONFIG_HOME/gtk-3.0/gtk.css)
# shrinks them, so that the page's viewport can be a phone's 360 px.
GTK_CSS = """headerbar, headerbar *, entry, button, box {
  font-size: 1px; padding: 0; margin: 0; min-width: 0; min-height: 0; border-width: 0;
  -gtk-icon-transform: scale(0.1);
}
"""
# Firefox's window keeps its toolbars and a minimum width of 500 px: hidden and lifted in the
# browser's own document (Marionette's chrome context), so the viewport is the window.
FIREFOX_BARE_WINDOW = """
document.documentElement.style.minWidth = "0px";
document.documentElement.style.minHeight = "0px";
document.getElementById("navigator-toolbox").hidden = true;
"""
FIREFOX_PREFS = {
    "intl.accept_languages": "es-ES",  # a Spanish phone, as bench/chromium.py's PHONE
    "intl.locale.requested": "es-ES",
    "browser.shell.checkDefaultBrowser": False,
    "layout.css.devPixelsPerPx": "2",  # a phone's screen: 2 device pixels a CSS pixel, as PHONE's
    # A phone's scrollbars, drawn over the page (as Chromium's phone and WebKitGTK's), not a desktop's
    # 12 px taken from its width.
    "ui.useOverlayScrollbars": 1,
}
SPANISH = {"LANGUAGE": "es_ES:es", "LANG": "es_ES.UTF-8"}
TAB, ENTER, BACKSPACE = "\ue004", "\ue007", "\ue003"  # WebDriver's codes of the Tab, Enter and Backspace keys


class EngineMissing(RuntimeError):
    pass


def close_context(context) -> None:
    """Close a Playwright browser context, its routes' handlers first let go of.

    A route's handler still running as its context closes (a request the page made in its last
    moments, fetched and then fulfilled) fails, and the sync API raises that failure at the next
    call anyone makes on the browser: another test's, which then fails for nothing of its own
    (seen once in CI: "Route.fulfill: Fetch response has been disposed" raised by `new_context`).
    `unroute_all(behavior="ignoreErrors")`, Playwright's documented way, drops the routes and
    silences the handlers already running."""
    for page in context.pages:
        page.unroute_all(behavior="ignoreErrors")
    context.unroute_all(behavior="ignoreErrors")
    context.close()


def need(path: Path, package: str) -> None:
    if not path.exists():
        raise EngineMissing(f"{path} is missing: Debian's {package} (`make test` installs it)")


# -- the network between a device and the service --------------------------------------------------


_RELAY_PORTS: set[int] = set()  # every port a relay of this process has had: each device an origin of its own


class Relay:
    """A TCP relay on a free port of 127.0.0.1 to `port`: what a device's network is in WebKit and
    Firefox. `cut()` closes every connection and refuses new ones (as a network gone: a request
    fails at once), `mend()` carries again.

    Its port is one no relay of this process had (the engine's session): the device's origin is
    http://127.0.0.1:PORT, and the engine keeps what each origin stored (IndexedDB's lexicons and
    verdicts waiting, a service worker) for the session. The system may choose a port again once
    its relay is closed, and a device there found what an earlier one left."""

    def __init__(self, port: int):
        self.target = port
        self.listener = self._listen()
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @staticmethod
    def _listen() -> socket.socket:
        """A listening socket on a port of 127.0.0.1 no relay of this process had."""
        passed: list[socket.socket] = []  # held until one is found, so that none is chosen twice
        try:
            while (listener := socket.create_server(("127.0.0.1", 0))).getsockname()[1] in _RELAY_PORTS:
                passed.append(listener)
        finally:
            for other in passed:
                other.close()
        _RELAY_PORTS.add(listener.getsockname()[1])
        return listener

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            if not self.up:
                _reset(client)
                continue
            try:
                service = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                _reset(client)
                continue
            with self.lock:  # cut() meanwhile (after the look above) found neither end to reset
                carried = self.up
                if carried:
                    self.open |= {client, service}
            if not carried:
                _reset(client)
                _reset(service)
                continue
            for source, sink in ((client, service), (service, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self.lock:  # with the connections' set: one taken as it is cut is reset by one or the other
            self.up = False
            ends, self.open = self.open, set()
        for end in ends:
            _reset(end)

    def mend(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


def _reset(end: socket.socket) -> None:
    """Closes a connection at once with a reset, as a network gone does to a browser's request."""
    with contextlib.suppress(OSError):
        end.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        end.close()


# -- a device ---------------------------------------------------------------------------------------


class Device:
    """One phone in one engine, on one service (`url`, or None for a page opened from a file).

    What every engine does the same way is here, in JavaScript; each engine's subclass opens,
    taps, types, switches the network and takes screenshots its own way."""

    engine: str

    def __init__(self, url: str | None):
        self.service = url

    # each engine's own
    def goto(self, url: str) -> None:
        raise NotImplementedError

    def run(self, expression: str, *args):
        """The value of a JavaScript expression in the page (a Promise: its value once settled),
        with `args` as `args[0]`…"""
        raise NotImplementedError

    def tap(self, selector: str) -> None:
        raise NotImplementedError

    def confirm(self, selector: str) -> str:
        """Taps the element and answers yes to the browser's own question it asks (confirm());
        what it asked."""
        raise NotImplementedError

    def type(self, selector: str, text: str) -> None:
        """Types `text` into the field at its end, key by key, as a phone's keyboard would."""
        raise NotImplementedError

    def tab(self) -> None:
        """The Tab key, pressed on a keyboard: the focus on to the next element."""
        raise NotImplementedError

    def enter(self) -> None:
        """The Enter key (a phone keyboard's action key), pressed on the element with the focus."""
        raise NotImplementedError

    def backspace(self) -> None:
        """The Backspace key, pressed in the field with the focus: the character before the caret gone."""
        raise NotImplementedError

    def switch(self, gone: bool) -> None:
        """The network off (`gone`) or on, the engine's way."""
        raise NotImplementedError

    def screenshot(self, path: Path) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # the same in every engine
    def offline(self, gone: bool) -> None:
        """The network gone, or back: back once the page reaches the service again (a browser may
        still hold a connection the network's loss broke, and fail one request on it)."""
        self.switch(gone)
        if not gone and self.service:
            self.wait("fetch('/readyz', {cache: 'no-store'}).then((r) => r.ok, () => false)", "the network back")

    def open(self, path: str = "/") -> None:
        """A page of the service (`path` from its root), or a file (`path` a file:// URL)."""
        self.goto(path if path.startswith("file:") else self.base + path)

    @property
    def base(self) -> str:
        return self.service

    def wait(self, expression: str, what: str, seconds: float = 15, *args):
        """Until the JavaScript expression is truthy in the page; its value. Past `seconds`, an
        AssertionError (with the test's line) saying what never happened, in which engine."""
        deadline = time.monotonic() + seconds
        while not (value := self.run(expression, *args)):
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.engine}: still waiting after {seconds} s for {what} ({expression})")
            time.sleep(0.1)
        return value

    def text(self, selector: str) -> str:
        return self.run("document.querySelector(args[0]).innerText", selector)

    def visible(self, selector: str) -> bool:
        return self.run(
            """(() => { const e = document.querySelector(args[0]);
            return Boolean(e && e.getClientRects().length && getComputedStyle(e).visibility !== "hidden"); })()""",
            selector,
        )

    def count(self, selector: str) -> int:
        return self.run("document.querySelectorAll(args[0]).length", selector)

    def storage(self) -> dict[str, str]:
        """The page's localStorage."""
        return self.run("Object.fromEntries(Object.entries(localStorage))")

    def size(self) -> tuple[int, int]:
        width, height = self.run("[innerWidth, innerHeight]")
        return width, height


class ChromiumDevice(Device):
    """A fresh Playwright context of the session's Chromium (conftest.Phone: every request
    recorded, JavaScript errors kept), at the phone's size, with touch."""

    engine = "chromium"

    def __init__(self, browser, url: str | None, size=PHONE_SIZE, **options):
        from .conftest import PHONE, Phone

        super().__init__(url)
        options = {**options, "viewport": {"width": size[0], "height": size[1]}}
        if url is None:  # a page from a file: a context of its own, no service
            self.phone = None
            self.context = browser.new_context(**{**PHONE, **options})
            self.context.set_default_timeout(10_000)
            self.page = self.context.new_page()
            self.problems: list[str] = []
            self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        else:
            self.phone = Phone(browser, _Url(url), **options)
            self.context, self.page = self.phone.context, self.phone.page

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def run(self, expression: str, *args):
        return self.page.evaluate(f"(args) => ({expression})", list(args))

    def tap(self, selector: str) -> None:
        self.page.locator(selector).tap()

    def confirm(self, selector: str) -> str:
        asked: list[str] = []
        self.page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        self.tap(selector)
        return asked[0] if asked else ""

    def type(self, selector: str, text: str) -> None:
        self.page.locator(selector).tap()
        self.page.keyboard.press("End")
        self.page.keyboard.type(text)

    def tab(self) -> None:
        self.page.keyboard.press("Tab")

    def enter(self) -> None:
        self.page.keyboard.press("Enter")

    def backspace(self) -> None:
        self.page.keyboard.press("Backspace")

    def switch(self, gone: bool) -> None:
        self.context.set_offline(gone)

    def screenshot(self, path: Path) -> None:
        self.page.screenshot(path=str(path))

    def close(self) -> None:
        close_context(self.context)
        problems = self.phone.problems if self.phone else self.problems
        assert problems == [], f"the page had JavaScript errors in Chromium: {problems}"
        if self.phone:
            assert self.phone.foreign_requests() == [], "the page asked something of another origin"


class _Url:
    """What conftest.Phone reads of a LiveServer: its URL."""

    def __init__(self, url: str):
        self.url = url


class WebDriverDevice(Device):
    """A device in WebKit or Firefox: the engine's one window, sized to the phone, on the
    service through a relay of its own (its network, and its own origin)."""

    def __init__(self, engine: Engine, url: str | None, size=PHONE_SIZE):
        super().__init__(url)
        self.engine = engine.name
        self.driver = engine
        self.relay = Relay(urlsplit(url).port) if url else None
        engine.resize(*size)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.relay.port}"

    def goto(self, url: str) -> None:
        """The page, and from then on its JavaScript errors kept (WebDriver has no hook before the
        page's own scripts run: an error while it loads shows as what it breaks)."""
        self.errors()
        self.driver.goto(url)
        self.run(
            """(window.testErrors = [], addEventListener("error", (e) => testErrors.push(String(e.message))),
            addEventListener("unhandledrejection", (e) => testErrors.push(String(e.reason))))"""
        )

    def errors(self) -> None:
        """Fails if the page open has had a JavaScript error since it was opened."""
        errors = self.run("window.testErrors || []")
        assert errors == [], f"the page had JavaScript errors in {self.engine}: {errors}"

    def run(self, expression: str, *args):
        return self.driver.run(expression, list(args))

    def tap(self, selector: str) -> None:
        if self.driver.zoom != 1:  # WebKitWebDriver's pointer misses a zoomed page's elements (`unzoomed`)
            self.run("document.querySelector(args[0]).click()", self.into_view(selector))
            return
        self.driver.element(self.into_view(selector)).click()

    def confirm(self, selector: str) -> str:
        """The tap in a task of its own (WebDriver answers nothing while the page waits on its
        question), then the question answered through WebDriver's user prompts."""
        self.run("setTimeout(() => document.querySelector(args[0]).click(), 0)", self.into_view(selector))
        return self.driver.accept()

    def into_view(self, selector: str) -> str:
        """Scrolls the element to the middle of the screen, as a thumb would bring it out from
        under the dock of tile keys (a WebDriver click only brings it to an edge)."""
        self.run("document.querySelector(args[0]).scrollIntoView({block: 'center', behavior: 'instant'})", selector)
        return selector

    def type(self, selector: str, text: str) -> None:
        if self.driver.zoom != 1:  # `unzoomed`: typed by the page's own editing command, as a keyboard's text
            self.run(
                """(f => (f.focus(), f.setSelectionRange(f.value.length, f.value.length),
                document.execCommand("insertText", false, args[1])))(document.querySelector(args[0]))""",
                self.into_view(selector),
                text,
            )
            return
        field = self.driver.element(self.into_view(selector))
        field.click()
        self.run(
            "(f => f.setSelectionRange(f.value.length, f.value.length))(document.querySelector(args[0]))", selector
        )
        field.send_keys(text)

    def tab(self) -> None:
        self.driver.key(TAB)

    def enter(self) -> None:
        self.driver.key(ENTER)

    def backspace(self) -> None:
        self.driver.key(BACKSPACE)

    def switch(self, gone: bool) -> None:
        if self.relay is None:
            return  # a page from a file uses no network
        self.relay.cut() if gone else self.relay.mend()

    def screenshot(self, path: Path) -> None:
        path.write_bytes(self.driver.png())

    def close(self) -> None:
        """What the next device must not find: this origin's storage, the host's cookies."""
        try:
            self.errors()
        finally:
            with contextlib.suppress(Exception):
                if self.relay is not None and self.relay.up:
                    self.run("(localStorage.clear(), sessionStorage.clear())")
                    self.driver.clear_cookies()
            self.driver.goto("about:blank")
            if self.relay is not None:
                self.relay.close()


# -- the engines, one of each a session -------------------------------------------------------------


class Engine:
    """One engine, started once a session; what differs between Selenium and Marionette. `zoom`:
    how many of the window's pixels a CSS pixel takes, beyond the phone's 2 device pixels (1, or
    2 for a WebKit zoomed to 200 %)."""

    name: str
    zoom = 1

    def device(self, url: str | None, size=PHONE_SIZE) -> Device:
        return WebDriverDevice(self, url, size)

    def resize(self, width: int, height: int) -> None:
        """The window so that the page's viewport is `width` x `height` CSS pixels: the window's
        size less what its own bars take, measured."""
        outer = (width * self.zoom, height * self.zoom)
        for _ in range(5):
            inner = self.sized(*outer)
            if inner == [width, height]:
                return
            outer = (outer[0] + (width - inner[0]) * self.zoom, outer[1] + (height - inner[1]) * self.zoom)
        raise RuntimeError(f"{self.name}: the viewport is {inner}, not {width} x {height}")

    def sized(self, width: int, height: int) -> list[int]:
        """The window made `width` x `height`, and then the page's viewport once the page has the
        window's new size: a window manager's resize lands in the page a while after the driver
        has done it (later still on a loaded machine), and until then the page says the old one.
        So each side of the viewport whose window's side changed is waited for until it changes
        too (the bars stay as they were: a side of the window and its viewport's change together)."""
        viewport = "[innerWidth, innerHeight]"
        was, before = self.run(viewport, []), self.window_size()
        after = self.window(width, height)
        changed = [a != b for a, b in zip(after, before, strict=True)]

        def seen() -> list[int] | None:
            inner = self.run(viewport, [])
            return inner if all(i != w for i, w, c in zip(inner, was, changed, strict=True) if c) else None

        return until(seen, f"{self.name}: the page's viewport once the window is {after[0]} x {after[1]}")

    def window_size(self) -> tuple[int, int]:
        """The window's size, as its driver says it."""
        raise NotImplementedError

    def window(self, width: int, height: int) -> tuple[int, int]:
        """The window made `width` x `height`; its size then, as its driver says it."""
        raise NotImplementedError


class WebKit(Engine):
    """Debian's WebKitGTK: WebKitWebDriver starting its MiniBrowser on an Xvfb display of its own,
    driven by Selenium (its WebKitGTK driver). Spanish, as the other engines' phones.

    Zoomed (`zoom` 2: 200 %), through GTK's text scale (GDK_DPI_SCALE), which WebKitGTK follows as
    its page's zoom: its window cannot be narrower than 290 px, so a phone at 200 % (180 CSS px
    wide) is a window of the phone's own width, zoomed, as on the phone. WebKitWebDriver places its
    pointer unzoomed there (an element off its place: "not interactable"), so a zoomed device taps
    and types through the page (WebDriverDevice.tap, .type)."""

    name = "webkit"

    def __init__(self, zoom: int = 1):
        self.zoom = zoom
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        for path, package in ((XVFB, "xvfb"), (WEBKIT_DRIVER, "webkit2gtk-driver"), (MINIBROWSER, "webkit2gtk-driver")):
            need(path, package)
        self.home = Path(tempfile.mkdtemp(prefix="webkit-"))
        (self.home / "config" / "gtk-3.0").mkdir(parents=True)
        (self.home / "config" / "gtk-3.0" / "gtk.css").write_text(GTK_CSS)
        self.display = Display()
        environment = {
            **os.environ,
            **SPANISH,
            "DISPLAY": self.display.name,
            "GDK_SCALE": "2",  # a phone's screen: 2 device pixels a CSS pixel, as PHONE's
            "GDK_DPI_SCALE": str(zoom),
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_DATA_HOME": str(self.home / "data"),
            "XDG_CACHE_HOME": str(self.home / "cache"),
        }
        options = Options()
        options.binary_location = str(MINIBROWSER)
        options.add_argument("--automation")
        service = Service(
            executable_path=str(WEBKIT_DRIVER),
            env=environment,
            log_output=str(self.home / "driver.log"),
            popen_kw={"start_new_session": True},  # a group of its own with its MiniBrowser: tethered
        )
        try:
            self.web = webdriver.WebKitGTK(options=options, service=service)
        except BaseException:
            self.display.stop()
            raise
        try:
            tether.tether(service.process.pid)
        except BaseException:
            self.quit()
            raise
        self.web.set_script_timeout(30)

    def window_size(self) -> tuple[int, int]:
        rect = self.web.get_window_rect()
        return rect["width"], rect["height"]

    def window(self, width: int, height: int) -> tuple[int, int]:
        rect = self.web.set_window_rect(width=width, height=height)
        return rect["width"], rect["height"]

    def goto(self, url: str) -> None:
        self.web.get(url)

    def run(self, expression: str, args: list):
        return self.web.execute_script(f"const args = arguments[0]; return ({expression});", args)

    def element(self, selector: str):
        from selenium.webdriver.common.by import By

        return self.web.find_element(By.CSS_SELECTOR, selector)

    def accept(self) -> str:
        """Yes to the page's question (confirm()), once it is asked; what it asked."""
        from selenium.common.exceptions import NoAlertPresentException

        def asked():
            with contextlib.suppress(NoAlertPresentException):
                return self.web.switch_to.alert
            return None

        alert = until(asked, "the page's question", 10)
        text = alert.text
        alert.accept()
        return text

    def key(self, key: str) -> None:
        """A key pressed and let go (WebDriver's key actions: to the element with the focus, no pointer)."""
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.web).send_keys(key).perform()

    def png(self) -> bytes:
        return self.web.get_screenshot_as_png()

    def clear_cookies(self) -> None:
        self.web.delete_all_cookies()

    def quit(self) -> None:
        try:
            self.web.quit()
        finally:
            self.display.stop()
            shutil.rmtree(self.home, ignore_errors=True)


class Firefox(Engine):
    """Debian's Firefox ESR, headless, started and driven by Marionette (mozrunner gives it a
    fresh profile), set to Spanish."""

    name = "firefox"

    def __init__(self):
        from marionette_driver.marionette import Marionette

        need(FIREFOX, "firefox-esr")
        self.home = Path(tempfile.mkdtemp(prefix="firefox-"))
        self.web = Marionette(
            bin=str(FIREFOX),
            headless=True,
            host="127.0.0.1",
            port=0,
            prefs=FIREFOX_PREFS,
            gecko_log=str(self.home / "gecko.log"),
            startup_timeout=120,
        )
        try:
            self.web.start_session()
            tether.tether(self.web.process_id)  # mozprocess starts it leading a group of its own
            with self.web.using_context("chrome"):
                self.web.execute_script(FIREFOX_BARE_WINDOW)
            self.web.timeout.script = 30
        except BaseException:
            self.quit()
            raise

    def window_size(self) -> tuple[int, int]:
        rect = self.web.window_rect
        return rect["width"], rect["height"]

    def window(self, width: int, height: int) -> tuple[int, int]:
        rect = self.web.set_window_rect(width=width, height=height)
        return rect["width"], rect["height"]

    def goto(self, url: str) -> None:
        self.web.navigate(url)

    def run(self, expression: str, args: list):
        # in the page's own scope (no sandbox), where its scripts' globals are
        return self.web.execute_script(
            f"const args = arguments[0]; return ({expression});", script_args=[args], new_sandbox=False, sandbox=None
        )

    def element(self, selector: str):
        from marionette_driver.by import By

        return self.web.find_element(By.CSS_SELECTOR, selector)

    def accept(self) -> str:
        """Yes to the page's question (confirm()), once it is asked; what it asked."""
        from marionette_driver.errors import NoAlertPresentException
        from marionette_driver.marionette import Alert

        def asked():
            with contextlib.suppress(NoAlertPresentException):
                return Alert(self.web).text
            return None

        text = until(asked, "the page's question", 10)
        Alert(self.web).accept()
        return text

    def key(self, key: str) -> None:
        self.web.actions.sequence("key", "keyboard").key_down(key).key_up(key).perform()

    def png(self) -> bytes:
        return self.web.screenshot(format="binary", full=False)

    def clear_cookies(self) -> None:
        self.web.delete_all_cookies()

    def quit(self) -> None:
        try:
            if self.web.session is not None:
                self.web.delete_session()
        finally:
            self.web.cleanup()
            self.web.instance = None  # its profile's files removed now, not as Python exits
            shutil.rmtree(self.home, ignore_errors=True)


class Display:
    """Xvfb on a display number it chooses itself (-displayfd), for WebKit's windows."""

    def __init__(self):
        read, write = os.pipe()
        self.process = tether.start(
            [str(XVFB), "-displayfd", str(write), "-screen", "0", "2048x2048x24", "-nolisten", "tcp"],
            pass_fds=[write],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as answer:
            number = answer.readline().strip()
        if not number:
            self.process.kill()
            raise RuntimeError("Xvfb did not start")
        self.name = f":{number}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(name: str, zoom: int = 1) -> Engine:
    """WebKit or Firefox (WebKit zoomed: `zoom` 2), or a test failure saying why not (never a skip)."""
    try:
        return WebKit(zoom) if name == "webkit" else Firefox()
    except Exception as error:
        pytest.fail(f"the judge's page cannot be tested in {name}: {error}", pytrace=False)


__all__ = ["ENGINES", "MARKERS", "ZOOMED", "ChromiumDevice", "Device", "Engine", "Relay", "start"]
