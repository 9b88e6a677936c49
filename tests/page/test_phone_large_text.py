"""Older judges' settings, in Chromium: 200 % zoom (a 390 x 844 phone is 195 x 422 CSS px) and the
browser's font at 32 px (text sizes follow it: rem, not px); forced colours, light and dark (the
verdict keeps its shape and words, and at 200 % zoom scrolls hidden under Borrar); and what a screen reader is told (field errors as they
appear, the verdict before the button the focus moves to)."""

from __future__ import annotations

import base64
import re

import pytest
from playwright.sync_api import expect

from .axe import assert_accessible
from .phone_states import ZOOM_200, opened, phone_of, typed
from .test_phone_layout import assert_under_the_thumb

PHONE_390 = (390, 844)

# Every element whose words must be read whole: cut (scrolled inside itself) or off the screen's sides.
CUT = """
(selector) => Array.from(document.querySelectorAll(selector)).filter((el) => el.getClientRects().length)
  .filter((el) => !el.closest(".sr-only")).filter((el) => { const r = el.getBoundingClientRect();
    return el.scrollWidth > el.clientWidth + 1 || r.left < -1 || r.right > innerWidth + 1; })
  .map((el) => `${el.id || el.className}: ${el.textContent.trim().slice(0, 30)}`)
"""
PAGE_TEXTS = "button, label, legend, .lang, .key, #lexicon-short, .word-label"
VERDICT_TEXTS = ".v-title, .v-words li, .v-slip, .v-result, .v-lexicon, .clear"


def large(browser, live, setting: str):
    """A phone at 200 % zoom, or with its browser's font at 32 px (the setting Chrome calls
    'Font size', through the DevTools protocol: Playwright has no option for it)."""
    if setting == "zoom":
        return phone_of(browser, live, ZOOM_200, device_scale_factor=4)
    phone = phone_of(browser, live, PHONE_390)
    cdp = phone.context.new_cdp_session(phone.page)
    cdp.send("Page.enable")
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 32, "fixed": 32}})
    return phone


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize("setting", ["zoom", "font"])
def test_large_text_keeps_the_first_screen_and_cuts_nothing(browser, live, setting):
    phone = large(browser, live, setting)
    try:
        page = opened(phone)
        if setting == "font":  # the page's text follows the browser's font: 1.125 of it, 36 px
            assert page.evaluate("getComputedStyle(document.body).fontSize") == "36px"
            assert page.evaluate("parseFloat(getComputedStyle(document.getElementById('word-1-label')).fontSize)") >= 32
        assert no_sideways_scroll(page)
        assert_under_the_thumb(page)
        assert page.evaluate(CUT, PAGE_TEXTS) == []
        assert_accessible(page, f"large text ({setting})")
        page.get_by_role("button", name="Català").click()
        assert page.evaluate(CUT, PAGE_TEXTS) == [] and no_sideways_scroll(page)  # L·L NY QU Ç
        page.get_by_role("button", name="Español").click()
        typed(page, "CARRO", "CHICO", table="12")
        page.locator("#submit").click()
        page.locator("#screen.show").wait_for()
        assert no_sideways_scroll(page)
        assert page.evaluate(CUT, VERDICT_TEXTS) == []
        # the slip's result whole on the verdict's first screen
        result = page.locator(".v-result").bounding_box()
        assert result["y"] >= 0 and result["y"] + result["height"] <= page.viewport_size["height"], result
        assert page.locator(".v-result").inner_text().replace("\n", " ") == "Papeleta: SÍ"
        assert page.locator(".v-words li").all_inner_texts() == ["CARRO", "CHICO"]
        assert_accessible(page, f"a verdict in large text ({setting})")
    finally:
        phone.close()


SIDEWAYS_200 = (320, 180)  # a 640 x 360 phone held sideways at 200 % zoom


def test_held_sideways_at_200_percent_zoom_nothing_is_cut_and_axe_finds_nothing(browser, live):
    """A 640 x 360 phone held sideways at 200 % zoom (320 x 180 CSS px), where the dock is a column
    beside the page (its keys two by two, Comprobar 136 px wide) and the language buttons come
    after the page: in Spanish and Catalan no word is cut and nothing scrolls sideways, and
    axe-core finds nothing on the page nor on its verdict (tests/page/test_engines.py measures
    the first screen in the three engines)."""
    phone = phone_of(browser, live, SIDEWAYS_200, device_scale_factor=4)
    try:
        page = opened(phone)
        for language in ("Català", "Español"):
            page.get_by_role("button", name=language).click()
            assert page.evaluate(CUT, PAGE_TEXTS) == [] and no_sideways_scroll(page), language
        assert_accessible(page, "held sideways at 200 %")
        typed(page, "CARRO", "CHICO", table="12")
        page.locator("#submit").click()
        page.locator("#screen.show").wait_for()
        assert page.evaluate(CUT, VERDICT_TEXTS) == [] and no_sideways_scroll(page)
        assert_accessible(page, "a verdict held sideways at 200 %")
    finally:
        phone.close()


ICON_AND_GROUND = """() => [getComputedStyle(document.querySelector(".v-icon")).stroke,
  getComputedStyle(document.getElementById("screen")).backgroundColor,
  getComputedStyle(document.getElementById("verdict-title")).color]"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_forced_colours_keep_the_verdict_s_shape_and_words(browser, live, scheme):
    phone = phone_of(browser, live, forced_colors="active", color_scheme=scheme)
    try:
        page = opened(phone)
        assert_accessible(page, f"forced colours ({scheme})")
        shapes = {}
        for words, kind in ((("CARRO",), "valid"), (("CHOCO",), "invalid")):
            typed(page, *words)
            page.locator("#submit").click()
            page.locator(f"#screen.show.{kind}").wait_for()
            stroke, ground, title = page.evaluate(ICON_AND_GROUND)
            assert stroke != ground and title != ground, (stroke, ground)  # the icon drawn, not lost on the ground
            shapes[kind] = page.locator(".v-icon").inner_html()
            assert_accessible(page, f"a verdict ({kind}) in forced colours ({scheme})")
            page.keyboard.press("Escape")
            page.locator("#screen.show").wait_for(state="detached")
        assert shapes["valid"] != shapes["invalid"]  # a tick in a circle, a cross in an octagon
    finally:
        phone.close()


def test_a_screen_reader_hears_field_errors_and_the_verdict_before_the_button(browser, live):
    phone = phone_of(browser, live)
    try:
        page = opened(phone)
        typed(page, "CARRO", "KIWI")
        for n in (1, 2):  # every field's error is a live region, the one added too
            assert page.locator(f"#word-{n}-error").get_attribute("aria-live") == "polite"
        expect(page.locator("#word-2-error")).to_contain_text("ficha K")
        page.locator("#word-2").fill("CHICO")
        page.locator("#submit").click()
        # A dialog named by the verdict and described by all of it: what a screen reader says as the
        # focus enters it, before the button the focus lands on.
        dialog = page.get_by_role("dialog", name="JUGADA VÁLIDA")
        expect(dialog).to_be_visible()
        expect(dialog).to_have_accessible_description(re.compile(r"^JUGADA VÁLIDA CARRO CHICO Papeleta: SÍ "))
        assert dialog.get_attribute("aria-modal") == "true"
        assert page.evaluate("document.getElementById('screen').contains(document.activeElement)")
        assert page.evaluate("document.activeElement.id") == "clear"
        page.keyboard.press("Escape")
        expect(dialog).to_have_count(0)  # gone from the tree when cleared, not an empty dialog
    finally:
        phone.close()


# The strip between Borrar (sticky at the foot of a verdict taller than the screen) and the screen's
# foot (inside its border), the verdict's last line scrolled to cross it: the strip's box, and
# whether that line is there, under it (where the band drawn under Borrar must hide it).
UNDER_BORRAR = """() => { const screen = document.getElementById("screen"), line = document.querySelector("#verdict > :last-child");
  const foot = () => screen.getBoundingClientRect().top + screen.clientTop + screen.clientHeight;
  const clear = () => document.getElementById("clear").getBoundingClientRect();
  const middle = (clear().bottom + foot()) / 2, r = line.getBoundingClientRect();
  screen.scrollTop += r.top + r.height / 2 - middle;
  const now = line.getBoundingClientRect(), c = clear();
  return { x: c.left, y: c.bottom + 1, width: c.width, height: foot() - c.bottom - 2, line: line.className,
    crossed: now.top < middle && now.bottom > middle }; }"""

# The colours of an image (a PNG's bytes, base64), counted by a canvas of a blank page.
COLOURS = """async (png) => { const image = await createImageBitmap(await (await fetch("data:image/png;base64," + png)).blob());
  const canvas = new OffscreenCanvas(image.width, image.height), pen = canvas.getContext("2d");
  pen.drawImage(image, 0, 0);
  const data = pen.getImageData(0, 0, image.width, image.height).data, seen = new Set();
  for (let i = 0; i < data.length; i += 4) seen.add(data.slice(i, i + 4).join());
  return seen.size; }"""


@pytest.mark.parametrize(
    ("forced", "scheme"),
    [("none", "light"), ("active", "light"), ("active", "dark")],
    ids=["colours", "forced-light", "forced-dark"],
)
def test_at_200_percent_zoom_the_verdict_scrolls_hidden_under_borrar_in_forced_colours_too(
    browser, live, forced, scheme
):
    """A verdict taller than the screen at 200 % zoom scrolls under Borrar, which stays at the
    screen's foot; a band of the verdict's ground, drawn under Borrar as a shadow, hid the 16 px
    strip between it and the screen's foot. Forced colours draw no shadow: the verdict's words
    scrolled through the strip, under the button. In the page's colours and in forced colours,
    light and dark, the strip is one colour with the verdict's last line scrolled across it."""
    phone = phone_of(browser, live, ZOOM_200, device_scale_factor=4, forced_colors=forced, color_scheme=scheme)
    blank = browser.new_page()
    try:
        page = opened(phone)
        typed(page, "CARRO", "CHICO", "CASA", table="12")
        page.locator("#submit").click()
        page.locator("#screen.show").wait_for()
        strip = page.evaluate(UNDER_BORRAR)
        assert strip["crossed"] and strip["height"] >= 8, strip
        png = page.screenshot(clip={k: strip[k] for k in ("x", "y", "width", "height")})
        colours = blank.evaluate(COLOURS, base64.b64encode(png).decode())
        assert colours == 1, f"the verdict's words under Borrar ({colours} colours): {strip}"
    finally:
        blank.close()
        phone.close()
