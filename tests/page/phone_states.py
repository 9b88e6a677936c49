"""The phone pages' states, each reached the way a judge reaches it: shared by the layout and
accessibility tests (test_phone_layout.py, test_phone_axe.py) and the screenshots command
(`make screenshots`, tests/page/screenshots.py), so that what is looked at is what is tested.

A state is a function of a Playwright page already on its page: it brings it there and returns.
The event's states need a device paired first: `pair` (a judge's phone or a table device).
"""

from __future__ import annotations

import json
import time
import tomllib

from tests.support import REPO, LiveServer
from tournament import create_event

from .conftest import Phone

PASSWORD = "k7qh-3mxp-wz9c-r2td"
EVENT_NAME = "Open de Lleida 2026"

SIZES = {"390x844": (390, 844), "360x640": (360, 640)}  # portrait phones, a large one and a small one
LANDSCAPE = (844, 390)
KEYBOARD = (390, 450)  # 390 x 844 with the on-screen keyboard open (the page resized to what is left)
ZOOM_200 = (195, 422)  # 390 x 844 at 200 % zoom (or with the browser's font at 32 px: the same ems)

# A table device's wait between two challenges (LEXICON_RATE_TABLE) where a test asks its second
# inside the wait: ten minutes, so that it is inside however long a loaded machine takes between the
# two (a browser's screenshots, taps and typing); the default 10 s was not always.
TABLE_WAIT = 600

# language: (id, name) of the lexicons a service serves by default (data/manifest.toml): the names
# a judge reads on the lexicon's line, the longest of them "Letterpress español (lista abierta)"
DEFAULT_LEXICONS = {
    entry["language"]: (entry["id"], entry["name"])
    for entry in tomllib.loads((REPO / "data" / "manifest.toml").read_text(encoding="utf-8"))["lexicon"]
    if entry.get("default")
}


def ready(page) -> None:
    """The page drawn, its script run, and its offline part settled (after first paint)."""
    page.locator("#keys .key").first.wait_for()
    page.wait_for_function("() => window.LexiconOffline && document.readyState === 'complete'")


def phone_of(browser, server: LiveServer, size: tuple[int, int] = SIZES["390x844"], **options) -> Phone:
    """A phone of this screen size (width, height) on `server`."""
    return Phone(browser, server, viewport={"width": size[0], "height": size[1]}, **options)


def opened(phone: Phone):
    """The judge's page on this phone, ready (a page out of an event)."""
    page = phone.page
    page.goto("/")
    ready(page)
    return page


def typed(page, *words: str, table: str = "") -> None:
    for n, text in enumerate(words, 1):
        if n > 1:
            page.locator("#add").click()
        page.locator(f'input[name="word-{n}"]').fill(text)
    if table and page.locator("#table").is_visible():
        page.locator("#table").fill(table)


def verdict(page, *words: str, table: str = "") -> None:
    """A play asked and its verdict on screen."""
    typed(page, *words, table=table)
    page.locator("#submit").click()
    page.locator("#screen.show").wait_for()
    page.wait_for_function("() => !document.getElementById('submit').disabled")


def offline(page, context) -> None:
    """The network gone: the service cannot be reached, the page judges with its own copy."""
    page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
    context.set_offline(True)


class Director:
    """The tournament API with the director's session cookie."""

    def __init__(self, server: LiveServer, password: str = PASSWORD):
        self.server = server
        status, headers, body = server.request(
            "POST",
            "/v1/director/session",
            json.dumps({"password": password}).encode(),
            {"Content-Type": "application/json"},
        )
        assert status == 201, body
        self.cookie = next(value for name, value in headers if name.lower() == "set-cookie").split(";")[0]
        self.named: dict[str, int] = {}

    def ask(self, method: str, path: str, body=None):
        headers = {"Cookie": self.cookie, "Content-Type": "application/json"}
        status, _, data = self.server.request(
            method, path, None if body is None else json.dumps(body).encode(), headers
        )
        assert 200 <= status < 300, (method, path, status, data)
        return json.loads(data) if data else None

    def device(self, name: str, role: str, table: str | None = None) -> str:
        """A new device's pairing code."""
        return self.ask("POST", "/v1/devices", {"name": name, "role": role, **({"table": table} if table else {})})[
            "code"
        ]

    def fresh_name(self, base: str) -> str:
        """`base` the first time, then `base (2)`, `base (3)`...: a device's name is unique in its
        event, and a test may pair several pages (sizes, languages) with one role."""
        self.named[base] = self.named.get(base, 0) + 1
        return base if self.named[base] == 1 else f"{base} ({self.named[base]})"


def event_server(page_lexicons, folder, **settings: str) -> LiveServer:
    """A live service running a new event (its lexicon es-page, its file `server.event_path`),
    ready. The caller stops the server."""
    path = folder / "open.db"
    create_event(path, EVENT_NAME, PASSWORD, lexicon="es-page").close()
    server = LiveServer(
        folder, page_lexicons.values(), LEXICON_EVENT=str(path), LEXICON_LOG_LEVEL="warning", **settings
    )
    server.wait_ready()
    server.event_path = path
    return server


def event_with_a_round(page_lexicons, folder, **settings: str) -> tuple[LiveServer, Director]:
    """A live service running an event (its lexicon es-page) with round 1 open, and its director.
    The caller stops the server."""
    server = event_server(page_lexicons, folder, **settings)
    director = Director(server)
    director.ask("POST", "/v1/rounds", {})
    return server, director


def pairing_code(director: Director, role: str) -> str:
    """A new judge's phone's code ("judge", named "Juez 1" the first time) or a table's device's
    ("table", table 7, "Mesa 7" the first time)."""
    if role == "judge":
        return director.device(director.fresh_name("Juez 1"), "judge")
    return director.device(director.fresh_name("Mesa 7"), "table", "7")


def pair(page, director: Director, role: str) -> None:
    """This page paired as a judge's phone or a table's device (`pairing_code`), on the page."""
    code = pairing_code(director, role)
    page.goto(f"/#pair={code}")
    page.wait_for_function("() => document.getElementById('event-device').textContent !== ''")
    ready(page)


def fingerprint(text: str) -> str:
    """event.js's fingerprint of a device token (FNV-1a, 32 bits, hex), under which the page keeps
    the service's last answer."""
    value = 0x811C9DC5
    for char in text:
        value = ((value ^ ord(char)) * 0x01000193) & 0xFFFFFFFF
    return format(value, "x")


def paired_storage(director: Director, role: str) -> dict:
    """A browser context's `storage_state` for a device paired already, by the API, as a phone
    that paired before: what the page keeps (localStorage): its device token and the service's
    last answer about it (GET v1/event, as the page stores it at its first answer), and nothing
    else (no cookie, no cache), so that its first load is measured as such."""
    server = director.server
    status, _, body = server.request(
        "POST",
        "/v1/devices/pair",
        json.dumps({"code": pairing_code(director, role)}).encode(),
        {"Content-Type": "application/json"},
    )
    assert status == 201, body
    token = json.loads(body)["token"]
    status, _, body = server.request("GET", "/v1/event", None, {"Authorization": f"Bearer {token}"})
    assert status == 200, body
    last = {"token": fingerprint(token), "at": int(time.time() * 1000), "body": json.loads(body)}
    return {
        "origins": [
            {
                "origin": server.url,
                "localStorage": [
                    {"name": "lexicon-judge.device", "value": token},
                    {"name": "lexicon-judge.event", "value": json.dumps(last)},
                ],
            }
        ]
    }


__all__ = [
    "DEFAULT_LEXICONS",
    "EVENT_NAME",
    "KEYBOARD",
    "LANDSCAPE",
    "PASSWORD",
    "SIZES",
    "ZOOM_200",
    "Director",
    "offline",
    "pair",
    "paired_storage",
    "pairing_code",
    "ready",
    "typed",
    "verdict",
]
