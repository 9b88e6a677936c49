"""Only *Comprobar* judges: a judge types a play word by word, and the keyboard's action key (Enter)
or a space in word N goes to word N+1, added when N is the last (up to eight). Ctrl/Cmd+Enter, or
the button, judges; nothing else does (a partial play was judged and recorded with one word)."""

from __future__ import annotations

import pytest

from .phone_states import opened, phone_of
from .test_page_browser import open_page, verdict, word


def challenges(phone) -> list[str]:
    return [url for method, url in phone.requests if url.endswith("/v1/challenge")]


def values(page) -> list[str]:
    return page.locator("input.word-input").evaluate_all("inputs => inputs.map((i) => i.value)")


def focused(page) -> str:
    return page.evaluate("document.activeElement.name || document.activeElement.id")


def test_the_action_key_and_a_space_go_to_the_next_word_and_never_judge(phone):
    page = open_page(phone)
    assert word(page, 1).get_attribute("enterkeyhint") == "next"
    word(page, 1).tap()
    page.keyboard.type("CARRO")
    page.keyboard.press("Enter")  # the phone keyboard's action key: word 2, added
    assert values(page) == ["CARRO", ""] and focused(page) == "word-2"
    page.keyboard.type("CHICO ")  # a space: word 3
    assert values(page) == ["CARRO", "CHICO", ""] and focused(page) == "word-3"
    page.keyboard.type("LLAVE")
    assert page.locator("#word-3-error").inner_text() == ""  # no space refused as an error
    word(page, 1).tap()
    page.keyboard.press("End")
    page.keyboard.press("Enter")  # word 2 exists: no new field, the caret at its end
    assert values(page) == ["CARRO", "CHICO", "LLAVE"] and focused(page) == "word-2"
    assert page.evaluate("document.activeElement.selectionStart") == 5
    assert challenges(phone) == [] and page.locator("#screen.show").count() == 0
    page.keyboard.press("Control+Enter")  # judges the whole play
    text = verdict(page)
    assert text.startswith("JUGADA VÁLIDA") and all(w in text for w in ("CARRO", "CHICO", "LLAVE"))
    assert len(challenges(phone)) == 1


@pytest.mark.parametrize("keys", ["Meta+Enter", "button"])
def test_cmd_enter_or_the_button_judges_the_play(phone, keys):
    page = open_page(phone)
    word(page, 1).tap()
    page.keyboard.type("CARRO CHOCO")
    assert values(page) == ["CARRO", "CHOCO"]
    if keys == "button":
        page.get_by_role("button", name="Comprobar").tap()
    else:
        page.keyboard.press(keys)
    assert verdict(page).startswith("JUGADA NO VÁLIDA")


def test_a_play_pasted_whole_fills_a_field_a_word_up_to_eight(phone):
    page = open_page(phone)
    word(page, 1).tap()
    page.keyboard.insert_text("  CARRO  CHICO LLAVE")
    assert values(page) == ["CARRO", "CHICO", "LLAVE"] and focused(page) == "word-3"
    page.keyboard.insert_text(" MESA CASA PERRO ARROZ CHURRO ÑANDÚ")
    assert values(page)[3:] == ["MESA", "CASA", "PERRO", "ARROZ", "CHURRO ÑANDÚ"]  # no ninth field
    page.keyboard.press("Enter")
    assert len(values(page)) == 8 and page.locator("#word-8-error").inner_text() != ""  # the space said
    assert challenges(phone) == [] and page.locator("#screen.show").count() == 0


def test_enter_in_the_slip_fields_judges_nothing(phone):
    page = open_page(phone)
    word(page, 1).fill("CARRO")
    page.locator("#table").tap()
    page.keyboard.type("12")
    page.keyboard.press("Enter")
    assert focused(page) == "round"
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    assert focused(page) == "submit"
    assert challenges(phone) == [] and page.locator("#screen.show").count() == 0
    page.keyboard.press("Enter")  # on Comprobar itself: the button's own key
    assert verdict(page).startswith("JUGADA VÁLIDA")


KEYBOARD_360 = (360, 340)  # 360 x 640 with the on-screen keyboard open (the page resized to what is left)


def test_with_the_keyboard_open_the_action_key_adds_the_next_word_in_view(browser, live):
    """One thumb, the keyboard open at 360 x 640: the next word is added from the keyboard itself
    (its action key), and lands in view above the dock: no scroll, no closing the
    keyboard to reach *Añadir palabra*."""
    phone = phone_of(browser, live, KEYBOARD_360)
    try:
        page = opened(phone)
        for n, text in enumerate(("CARRO", "CHICO", "LLAVE"), 1):
            if n == 1:
                word(page, 1).tap()
            page.keyboard.type(text)
            page.keyboard.press("Enter")
            assert focused(page) == f"word-{n + 1}"
            field, dock = (page.locator(selector).bounding_box() for selector in (f"#word-{n + 1}", "#dock"))
            assert field["y"] >= 0 and field["y"] + field["height"] <= dock["y"], (field, dock)
        assert values(page) == ["CARRO", "CHICO", "LLAVE", ""]
        assert challenges(phone) == []
    finally:
        phone.close()
