"""A judge's phone held sideways at 200 % zoom (640 x 360: 320 x 180 CSS px; 844 x 390: 422 x 195),
in Chromium, WebKit and Firefox (tests/page/engines.py): the page's column beside the dock of tile
keys and Comprobar at the screen's right (docs/judge-page.md, Large text).

- the lexicon's name read whole on the first screen, the longest default one too, with word 1, the
  keys and Comprobar: it was cut ("Prueba esp…");
- the on-screen keyboard open (the page resized to what it leaves: interactive-widget=
  resizes-content), word 1, being typed, and Comprobar still on the screen.
"""

from __future__ import annotations

import pytest

from tests.support import compile_list, stop_soon

from .conftest import ES_WORDS
from .phone_states import DEFAULT_LEXICONS, Director, event_server
from .test_engines import first_screen, in_language, in_view, zoomed_judge

pytestmark = pytest.mark.server  # the event's service is the test's own

SIDEWAYS = pytest.mark.parametrize("size", [(640, 360), (844, 390)], ids=["640x360", "844x390"])
LONGEST = DEFAULT_LEXICONS["es"][1]  # "Letterpress español (lista abierta)", the longest a judge reads


@pytest.fixture
def event(tmp_path):
    """An event whose lexicon has the longest name of the default lexicons'."""
    lexicon = compile_list(tmp_path / "es.lex", ES_WORDS, "es", "es-page", LONGEST, "2026.1")
    server = event_server({"es-page": lexicon}, tmp_path)
    yield server, Director(server)
    stop_soon(server)


# The lexicon's line: whether its name is cut (the line's text wider than its box, or scrolled in
# it), the name's box (left, top, right, bottom) and the dock's left edge.
NAME = """(() => { const line = document.querySelector(".lexicon-line"), name = document.getElementById("lexicon-name");
  const r = name.getBoundingClientRect(), dock = document.getElementById("dock").getBoundingClientRect();
  return { cut: line.scrollWidth > line.clientWidth + 1 || line.scrollHeight > line.clientHeight + 1,
    box: [r.left, r.top, r.right, r.bottom], dock: dock.left, height: innerHeight, text: name.textContent }; })()"""


@SIDEWAYS
def test_held_sideways_at_200_percent_zoom_a_judge_reads_the_lexicon_s_whole_name(event, devices, engine, size):
    """The lexicon's line was cut at the page's column ("Prueba esp…", "Letterpress…"): its name
    wraps, whole on the first screen beside the dock, with word 1, the keys and Comprobar, in
    Catalan and Spanish."""
    phone = zoomed_judge(event, devices, size)
    phone.wait("window.LexiconOfflineData && document.documentElement.dataset.offline", "the page's offline part")
    for lang in ("ca", "es"):
        in_language(phone, lang)
        name = phone.run(NAME)
        left, top, right, bottom = name["box"]
        where = f"{engine}, {lang}: {name}"
        assert name["text"] == LONGEST and not name["cut"], where
        assert left >= 0 and top >= 0 and right <= name["dock"] + 1 and bottom <= name["height"], where
        first_screen(phone)
    in_view(phone, "#lexicon-summary")


@pytest.mark.parametrize("size", [(640, 220), (640, 160), (844, 200)], ids=["640x220", "640x160", "844x200"])
def test_held_sideways_at_200_percent_zoom_with_the_keyboard_open_word_1_and_comprobar_stay(
    event, devices, engine, size
):
    """A phone held sideways at 200 % zoom with its keyboard open: the page is resized to what the
    keyboard leaves (640 x 360 less a landscape keyboard's 140 to 200 px: 320 x 110 or 80 CSS px;
    844 x 390 less 190: 422 x 100), the dock's column taller than that. Word 1, with the focus,
    and Comprobar stay whole on the screen, the keyboard's text beside the button that judges it;
    the tile keys' first row (at 80 px, every key) goes above the screen's top, as measured in the
    three engines alike (docs/judge-page.md, Large text)."""
    phone = zoomed_judge(event, devices, size)
    phone.run("document.getElementById('word-1').focus()")
    phone.run("document.getElementById('word-1').scrollIntoView({ block: 'nearest' })")  # as a phone's keyboard does
    in_view(phone, "#word-1")
    in_view(phone, "#submit")
