"""`make screenshots` (tests/page/screenshots.py) run whole into a temporary folder: every state's
PNG file is written, at its viewport's size times its scale. Nobody looks at the pictures here;
this keeps the command from breaking unseen when a page, a state or a helper it uses changes."""

from __future__ import annotations

import struct

import pytest

from .phone_states import SIZES
from .screenshots import CONSOLE_SIZES, ENGINE_STATES, shoot

# the session's Chromium, WebKit and Firefox (their fixtures mark it), and two live services of its own
pytestmark = [pytest.mark.server, pytest.mark.slow]

PHONE = [  # at each of SIZES
    *("judge-01-start", "judge-02-lexicon-open", "judge-03-typed-with-an-error", "judge-04-valid"),
    *("judge-05-cleared-recall", "judge-06-not-valid", "judge-07-offline-valid", "judge-08-catalan"),
    *("event-judge-01-paired", "event-judge-02-verdict", "event-table-01-paired", "event-table-02-verdict"),
    *("event-unpaired", "single-file"),
]
CONSOLE = [
    "console-01-sign-in",
    "console-02-signed-in",
    "console-03-slip",
    "console-04-pairing",
    "console-05-round-closed",
]
EXPECTED = {
    *(f"{state}-{label}.png" for state in PHONE for label in SIZES),
    *(f"{state}-{label}.png" for state in CONSOLE for label in CONSOLE_SIZES),
    *(
        f"{engine}-{state}-{label}.png"
        for engine in ("webkit", "firefox")
        for state in ENGINE_STATES
        for label in SIZES
    ),
    "judge-valid-landscape-844x390.png",
    "judge-keyboard-open-390x450.png",
    *(
        f"judge-{name}-{state}-{size}.png"
        for name, size in (("zoom200", "195x422"), ("forced-light", "390x844"), ("forced-dark", "390x844"))
        for state in ("01-start", "02-valid", "03-not-valid")
    ),
}
FULL_PAGE = ("console-02-signed-in",)  # as tall as the page, at least the viewport


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_make_screenshots_writes_every_state_at_its_size(browser, webkit, firefox, tmp_path):
    written = shoot(browser, tmp_path, [webkit, firefox])
    assert sorted(path.name for path in written) == sorted(path.name for path in tmp_path.iterdir())
    assert {path.name for path in written} == EXPECTED
    for path in written:
        width, height = map(int, path.stem.rsplit("-", 1)[1].split("x"))
        scale = 1 if (width, height) == CONSOLE_SIZES["1280x800"] else 2  # the laptop; every phone at 2, in each engine
        got = png_size(path.read_bytes())
        if path.stem.startswith(FULL_PAGE):
            assert got[0] == width * scale and got[1] >= height * scale, path.name
        else:
            assert got == (width * scale, height * scale), path.name
