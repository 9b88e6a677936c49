"""Every problem the service can answer (service/problems.py: TYPES) is said on the judge's page in
the page's language, from the same texts as the console's (`texts/problems/`), never with the
service's own title or detail, which are in English and stay in the API for tools; before those
texts have come (they load after first paint) or for a type the page does not know, a short
sentence of its own, in its language."""

from __future__ import annotations

import json

from service.director import director_texts
from service.page_texts import interface_texts, problem_texts
from service.problems import TYPE_BASE, TYPES

from .test_director_words import LANGUAGES, english
from .test_page_browser import open_page, type_word

OWN = {"unknown-lexicon": "unknownLexicon"}  # the page's own sentence (a 401 is tokenWrong)


def test_every_problem_has_its_text_in_both_languages():
    texts = problem_texts()
    assert sorted(texts) == sorted(LANGUAGES)
    for language in LANGUAGES:
        for name in TYPES:
            text = texts[language].get(f"problem.{name}")
            assert text, f"{language}: no text for the problem {name!r}"
            assert not english(text), (language, name, text)
        assert not english(interface_texts()[language]["refused"])


# Who can give a director a login link: on a hall's laptop the director runs `lexicon event login`;
# on a federation's service only its operator can, so the director is told to ask.
OPERATOR = {"es": "quien lleva el servicio", "ca": "qui porta el servei"}


def test_a_locked_or_refused_login_names_the_laptop_and_whoever_runs_the_service():
    for language, operator in OPERATOR.items():
        texts = director_texts()[language]  # its own and the problems' texts
        for key in ("problem.login-locked", "problem.link-refused", "loginLocked"):
            assert "lexicon event login" in texts[key] and operator in texts[key], (language, key, texts[key])


def said(page, body: dict, headers: dict) -> str:
    """What the page shows when the service answers its challenge with this problem."""
    page.route(
        "**/v1/challenge",
        lambda route: route.fulfill(status=body["status"], headers=headers, body=json.dumps(body)),
    )
    try:
        page.locator("#submit").tap()
        page.wait_for_function("() => document.getElementById('form-error').textContent")
        return page.locator("#form-error").text_content()
    finally:
        page.unroute("**/v1/challenge")


BUTTONS = {"es": "Español", "ca": "Català"}


def expected(language: str, name: str, status: int) -> str:
    """What the page says of the problem `name` in `language`."""
    texts, own = problem_texts()[language], interface_texts()[language]
    text = own["tokenWrong"] if status == 401 else own.get(OWN.get(name, ""), texts[f"problem.{name}"])
    return text.replace("{seconds}", "60")


def test_the_page_says_every_problem_in_its_language_and_no_english(phone):
    """Each problem in the page's language; and, once the judge taps the other language, in that
    one (it stayed in the language it was said in)."""
    page = open_page(phone, offline_copy=False)  # no copy: a 5xx is said, never judged on the phone
    page.wait_for_function("() => window.LexiconOfflineData")
    headers = {"Content-Type": "application/problem+json", "Retry-After": "60"}
    for language, other in zip(LANGUAGES, reversed(LANGUAGES), strict=True):
        page.get_by_role("button", name=BUTTONS[language]).tap()
        type_word(page, 1, "CASA")
        own = interface_texts()[language]
        for name, (status, title) in TYPES.items():
            body = {
                "type": TYPE_BASE + name,
                "title": title,
                "status": status,
                "detail": f"{title}: the round is not open",
            }
            text = said(page, body, headers)
            assert text == expected(language, name, status), (language, name, text)
            assert not english(text) and title not in text, (language, name, text)
            page.get_by_role("button", name=BUTTONS[other]).tap()
            assert page.locator("#form-error").text_content() == expected(other, name, status), (other, name)
            page.get_by_role("button", name=BUTTONS[language]).tap()
        # without the texts that come after first paint (a page that has not got them yet)
        page.evaluate("() => { window.kept = LexiconOfflineData.problems; delete LexiconOfflineData.problems; }")
        body = {"type": TYPE_BASE + "round-conflict", "title": "The rounds do not allow it", "status": 409}
        assert said(page, body, headers) == own["refused"]
        page.evaluate("() => { LexiconOfflineData.problems = window.kept; }")
