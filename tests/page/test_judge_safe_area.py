"""A notched phone's safe area on the judge's page (judge.css; the page covers the screen,
viewport-fit=cover, so env(safe-area-inset-*) is the phone's): where the layout touches an edge
(the top bar, the page's column, the dock upright and held sideways, a refusal held sideways, the
verdict's screen), its content is inside the safe area and its ground drawn to the edge.

- In the three engines, a phone with no notch (every inset zero): each of those lays out as it did
  before the insets were honoured (the declarations are applied, the insets read as 0, not dropped);
- In Chromium, whose DevTools protocol sets a phone's insets (Emulation.setSafeAreaInsetsOverride):
  an iPhone's (390 x 844) upright (47 px at the top, 34 at the foot) and held sideways at 200 %
  zoom (its 47 px each side and 21 at the foot, halved in CSS px): nothing a judge reads or taps
  is under them, and word 1, the keys and Comprobar are still on the first screen.
"""

from __future__ import annotations

import pytest

from tests.support import stop_soon

from . import engines
from .phone_states import Director, event_server
from .test_engines import first_screen, zoomed_judge

pytestmark = pytest.mark.server  # the event's service is the test's own


@pytest.fixture
def event(page_lexicons, tmp_path):
    server = event_server(page_lexicons, tmp_path)
    yield server, Director(server)
    stop_soon(server)


# The computed paddings (left, right, bottom, in px) of what touches an edge, the dock's box and the
# body's right padding (the dock's room held sideways).
LAID_OUT = """(() => { const pad = (el) => { const s = getComputedStyle(el);
    return [s.paddingLeft, s.paddingRight, s.paddingBottom].map(parseFloat); };
  const dock = document.getElementById("dock").getBoundingClientRect();
  return { bar: pad(document.querySelector(".bar")), main: pad(document.querySelector("main")),
    dock: pad(document.getElementById("dock")), screen: pad(document.getElementById("screen")),
    body: parseFloat(getComputedStyle(document.body).paddingRight), box: [dock.left, dock.right, dock.width],
    width: innerWidth }; })()"""


def judge(event, devices, size, zoomed: bool):
    """A judge's phone of this size (at 200 % zoom: `zoomed`), paired in a round the director opened."""
    if zoomed:
        return zoomed_judge(event, devices, size)
    server, director = event
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {})
    phone = devices(server.url, size)
    phone.open(f"/?pair={code}")
    phone.wait("document.getElementById('event-device').textContent", "the phone paired")
    return phone


@pytest.mark.parametrize("sideways", [False, True], ids=["360x740", "sideways-640x360-200%"])
def test_with_no_notch_the_page_is_laid_out_as_before(event, devices, engine, sideways):
    phone = judge(event, devices, (640, 360) if sideways else (360, 740), sideways)
    laid = phone.run(LAID_OUT)
    where = f"{engine}: {laid}"
    assert laid["bar"][:2] == [12, 12], where
    assert laid["screen"] == [16, 16, 16 if not sideways else 8], where
    if sideways:  # the dock a column 9 rem wide at the right, the page's column beside it
        assert laid["main"][:2] == [6.4, 6.4] and laid["body"] == 144, where
        assert laid["box"][1] == laid["width"] and laid["box"][2] == 144, where
        assert laid["dock"] == [4, 4, 5.6], where
    else:  # the dock the screen's width
        assert laid["main"][:2] == [12, 12] and laid["body"] == 0, where
        assert laid["box"][:2] == [0, laid["width"]], where
        assert laid["dock"] == [12, 12, 9.6], where


# Where a judge's things are drawn and the insets the page reads (env(), through a probe): each
# element's box (left, top, right, bottom), the dock's, and the screen's size.
DRAWN = """(() => { const probe = document.createElement("div");
  probe.style.cssText = "position: fixed; inset: 0; padding: env(safe-area-inset-top) env(safe-area-inset-right) env(safe-area-inset-bottom) env(safe-area-inset-left)";
  document.body.append(probe); const s = getComputedStyle(probe);
  const insets = [s.paddingLeft, s.paddingTop, s.paddingRight, s.paddingBottom].map(parseFloat); probe.remove();
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const keys = [...document.querySelectorAll("#keys .key"), document.getElementById("submit"), document.getElementById("word-1"),
    document.getElementById("lexicon-summary"), ...document.querySelectorAll(".lang")];
  return { insets, boxes: Object.fromEntries(keys.map((el) => [el.id || el.dataset.tile || el.dataset.lang, box(el)])),
    dock: box(document.getElementById("dock")), size: [innerWidth, innerHeight] }; })()"""


@pytest.mark.parametrize(
    "size, zoomed, insets",
    [
        ((390, 844), False, (0, 47, 0, 34)),
        ((844, 390), False, (47, 0, 47, 21)),  # held sideways at 100 %: the dock a column there too
        ((844, 390), True, (24, 0, 24, 11)),
        ((812, 375), True, (22, 0, 22, 10)),  # the narrowest notched iPhone (a mini)
        ((640, 360), True, (24, 0, 0, 11)),  # an Android phone: the inset on its cutout's side
        ((640, 360), True, (0, 0, 24, 11)),
    ],
    ids=[
        "upright-390x844",
        "sideways-844x390",
        "sideways-844x390-200%",
        "sideways-812x375-200%",
        "sideways-640x360-200%-left",
        "right",
    ],
)
def test_on_a_notched_phone_nothing_a_judge_reads_or_taps_is_under_the_notch(event, browser, size, zoomed, insets):
    """Chromium, the insets (left, top, right, bottom) set as an iPhone's (390 x 844; held sideways
    at 200 % zoom, 422 x 195 CSS px): the language buttons, the lexicon's line, word 1, the keys and
    Comprobar inside the safe area, the keys and Comprobar above the foot's, on the first screen;
    the dock's ground to the screen's edges (the language buttons come after the page held so). Before, held sideways, the dock's keys and
    Comprobar were under the right inset, word 1 and the lexicon's line under the left one. The
    narrowest notched iPhone held so (812 x 375) and a 640 x 360 phone with its cutout's inset on
    either side alone, at 200 % zoom, too (both sides at once there: docs/judge-page.md)."""
    server, director = event
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {})
    scale = {"device_scale_factor": 2 * engines.ZOOMED} if zoomed else {}
    css = (size[0] // engines.ZOOMED, size[1] // engines.ZOOMED) if zoomed else size
    phone = engines.ChromiumDevice(browser, server.url, css, **scale)
    try:
        left, top, right, bottom = insets
        session = phone.context.new_cdp_session(phone.page)
        session.send(
            "Emulation.setSafeAreaInsetsOverride", {"insets": dict(left=left, top=top, right=right, bottom=bottom)}
        )
        phone.open(f"/?pair={code}")
        phone.wait("document.getElementById('event-device').textContent", "the phone paired")
        phone.run("scrollTo(0, 0)")
        drawn = phone.run(DRAWN)
        assert drawn["insets"] == list(insets), drawn  # the page reads the phone's insets
        width, height = drawn["size"]
        out = {
            name: box
            for name, box in drawn["boxes"].items()
            if box[0] < left - 0.5
            or box[2] > width - right + 0.5
            or (name not in ("ca", "es") and box[1] < top - 0.5)
            or (name not in ("word-1", "lexicon-summary", "ca", "es") and box[3] > height - bottom + 0.5)
        }
        assert out == {}, f"under the notch or the foot's inset: {out}; {drawn}"
        dock_left, _, dock_right, dock_bottom = drawn["dock"]
        sideways = width > height  # the dock a column at the right; upright, the screen's width
        assert dock_right == width and dock_bottom == height and (sideways or dock_left == 0), drawn
        first_screen(phone)
    finally:
        phone.close()
