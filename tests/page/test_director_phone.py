"""The console on a phone (390 x 844) and on a laptop (1280 x 800), with a hall's record: the list
pages (20 cards at a time on a phone, not a page tens of thousands of pixels tall), its "older
records" button right under the list it pages, the counts within the width, and no accessibility
rule broken (axe) at either size, signed in with devices of every state."""

from __future__ import annotations

import pytest

from tests.tournament.conftest import entry
from tournament import open_event

from .axe import assert_accessible
from .conftest import Phone
from .phone_states import PASSWORD, Director
from .test_director_browser import LAPTOP
from .test_director_console import event_es  # noqa: F401 - a fixture
from .test_director_live import paired, verdict

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}


@pytest.fixture
def hall(event_es):  # noqa: F811
    """The event with 120 records, a judge's phone that judged in round 1 (open), another never
    heard from since pairing (silent) and a table device not paired yet."""
    director = Director(event_es)
    judge = paired(event_es, director, "Juez 1")
    paired(event_es, director, "Juez 2")
    director.device("Mesa 3", "table", "3")
    db = open_event(event_es.event_path)
    try:
        db.append_many([entry(table=str(n % 12 + 1), valid=n % 3 > 0) for n in range(119)])
    finally:
        db.close()
    director.ask("POST", "/v1/rounds", {"number": 1})
    verdict(event_es, judge, "CARRO")
    return event_es


@pytest.mark.parametrize("size", SIZES)
def test_the_console_fits_and_breaks_no_rule_with_a_hall_s_record(browser, hall, size, shots):
    laptop = Phone(browser, hall, **{**LAPTOP, "viewport": SIZES[size]})
    console = laptop.page
    try:
        console.goto("/director")
        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        console.locator("#chain-state.intact").wait_for()
        console.locator('#records tr[data-seq="120"]').wait_for()
        shown = console.locator("#records tbody tr").count()
        assert shown == (20 if size == "phone" else 100)
        width = SIZES[size]["width"]
        assert console.evaluate("document.documentElement.scrollWidth") <= width
        counts = console.locator("#counts")
        assert counts.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth")  # no sideways scroll
        more = console.locator("#records-more")
        assert more.is_visible()
        gap = more.bounding_box()["y"] - (lambda b: b["y"] + b["height"])(console.locator("#records").bounding_box())
        assert 0 <= gap < 50, gap  # right under the list it pages
        if size == "phone":
            assert console.evaluate("document.documentElement.scrollHeight") < 12_000
        assert console.locator("#devices tbody tr.silent").count() == 1  # Juez 2, never heard from
        console.screenshot(path=str(shots / f"director-hall-{size}.png"), full_page=True)
        assert_accessible(console, f"the console signed in, a hall's record, {size}")
        more.click()
        console.wait_for_function(f"() => document.querySelectorAll('#records tbody tr').length > {shown}")
        assert_accessible(console, f"the console with older records, {size}")
    finally:
        laptop.close()
    assert laptop.problems == []
