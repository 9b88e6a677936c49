"""Every word the console shows is in the director's language: every problem the service can
answer (service/problems.py: TYPES) and every break of the record (tournament's BREAK_KINDS) has
its text in Spanish and Catalan, and the console, walked through each of them in both languages,
shows that text and no English (the service's own title and detail, in English, stay in the API
for tools)."""

from __future__ import annotations

import re

import pytest

from service.director import director_texts
from service.problems import TYPE_BASE, TYPES
from tournament import BREAK_KINDS

from .test_director_console import console_at, event_es  # noqa: F401 - a fixture

# English words a Spanish or Catalan sentence never has; commands, quoted «like this», aside
ENGLISH = re.compile(
    r"\b(the|is|are|was|were|not|of|to|and|its|it|from|this|that|with|for|by|have|record|records|round|"
    r"device|password|login|hash|row|rows|missing|deleted|changed|expected|request|body|please|only|cannot)\b",
    re.IGNORECASE,
)
LANGUAGES = ("es", "ca")
FACTS = {"first": 6, "last": 9, "after": 5, "round": 2, "head": 9, "verified": 9}


def english(text: str) -> list[str]:
    return ENGLISH.findall(re.sub(r"«[^»]*»|\{\w+\}", "", text))  # commands and placeholders aside


def test_the_detector_finds_english():  # so that finding none below means something
    assert english("REGISTRO ALTERADO en el nº 3 (its contents do not match its hash (it was changed))")
    assert english("El servicio no lo acepta: round 1 was already played")
    assert not english("Entra con «lexicon event login» en el ordenador del torneo.")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_problem_and_break_has_its_text(language):
    texts = director_texts()[language]
    for name in TYPES:
        assert f"problem.{name}" in texts, f"{language}: no text for the problem {name!r}"
        assert not english(texts[f"problem.{name}"]), (name, texts[f"problem.{name}"])
    for kind, facts in BREAK_KINDS.items():
        text = texts.get(f"break.{kind}")
        assert text is not None, f"{language}: no text for the break {kind!r}"
        assert set(re.findall(r"\{(\w+)\}", text)) <= set(facts), (kind, text)
        assert not english(text), (kind, text)


def test_the_console_says_every_problem_and_break_in_both_languages(browser, event_es):  # noqa: F811
    problems = [
        {"type": TYPE_BASE + name, "title": title, "status": status, "detail": f"{title}: round 1 was already played"}
        for name, (status, title) in TYPES.items()
    ]
    breaks = [
        {
            "seq": 5,
            "kind": kind,
            "facts": {fact: FACTS[fact] for fact in facts},
            "reason": "its contents do not match its hash (it was changed)",
        }
        for kind, facts in BREAK_KINDS.items()
    ]
    laptop, console = console_at(browser, event_es)
    try:
        for language in LANGUAGES:
            console.locator(f'.lang[data-lang="{language}"]').click()
            texts = director_texts()[language]
            said = console.evaluate(
                """(problems) => problems.map((body) => LexiconDirector.failure(
                    { status: body.status, body, retry: null, headers: new Headers() }))""",
                problems,
            )
            for body, text in zip(problems, said, strict=True):
                name = body["type"].removeprefix(TYPE_BASE)
                expected = texts[f"problem.{name}"].replace("{seconds}", "60")
                assert text == expected, (language, name, text)
                assert not english(text) and body["title"] not in text, (language, name, text)
            banners = console.evaluate(
                """(breaks) => breaks.map((broken) => {
                    const chain = LexiconDirector.state.chain;
                    LexiconDirector.state.chain = { last: 9, last_hash: "", verified: 4, broken, intact: false,
                        checking: false, failed: false, guarded: true, checked: null };
                    LexiconDirector.drawChain();
                    const text = document.getElementById("chain-state").textContent;
                    LexiconDirector.state.chain = chain;
                    return text;
                })""",
                breaks,
            )
            for found, text in zip(breaks, banners, strict=True):
                reason = texts[f"break.{found['kind']}"]
                for fact, value in found["facts"].items():
                    reason = reason.replace(f"{{{fact}}}", str(value))
                assert reason in text, (language, found["kind"], text)
                assert not english(text), (language, found["kind"], text)
    finally:
        laptop.close()
    assert laptop.problems == []
