"""The interface texts (service/texts/*.toml): every language says the same things."""

from __future__ import annotations

import re

import pytest

from service.page_texts import interface_texts, read_texts

SPANISH = """name = "Español"
word = "Palabra {n}"
why.letter = "el juego {set} no tiene ficha {letter}"
"""


def test_the_shipped_languages_have_the_same_keys_and_placeholders():
    texts = interface_texts()
    assert sorted(texts) == ["ca", "es"]
    assert texts["es"].keys() == texts["ca"].keys()
    for key in texts["es"]:
        assert set(re.findall(r"\{(\w+)\}", texts["es"][key])) == set(re.findall(r"\{(\w+)\}", texts["ca"][key]))
    # dotted keys are the flat keys judge.js asks for; each language names itself on its button
    assert texts["ca"]["why.letter"] == "el joc {set} no té fitxa {letter}"
    assert (texts["es"]["name"], texts["ca"]["name"]) == ("Español", "Català")
    for language in texts:  # every language can name every other one, and its tile set
        assert {f"lang.{other}" for other in texts} | {f"set.{other}" for other in texts} <= texts[language].keys()


def test_a_second_language_is_read_like_the_first(tmp_path):
    (tmp_path / "es.toml").write_text(SPANISH, encoding="utf-8")
    (tmp_path / "ca.toml").write_text(
        SPANISH.replace("Español", "Català").replace("Palabra", "Paraula"), encoding="utf-8"
    )
    (tmp_path / "README").write_text("not a language")
    texts = read_texts(tmp_path)
    assert list(texts) == ["ca", "es"]
    assert texts["ca"] == {
        "name": "Català",
        "word": "Paraula {n}",
        "why.letter": "el juego {set} no tiene ficha {letter}",
    }


@pytest.mark.parametrize(
    "catalan, message",
    [
        (
            'name = "Català"\nword = "Paraula {n}"\n',
            r"ca\.toml and es\.toml differ: keys only in ca\.toml \[\], only in es\.toml \['why\.letter'\]",
        ),
        (SPANISH + 'extra = "x"\n', r"keys only in ca\.toml \['extra'\], only in es\.toml \[\]"),
        (
            SPANISH.replace("Palabra {n}", "Paraula"),
            r"word has other placeholders in ca\.toml \('Paraula'\) than in es\.toml \('Palabra \{n\}'\)",
        ),
        (SPANISH.replace("{letter}", "{lettre}"), r"why\.letter has other placeholders"),
        (SPANISH + "count = 3\n", r"count = 3 is not a text"),
        ("name = ", r"ca\.toml: "),
    ],
)
def test_a_language_that_says_less_or_other_things_is_refused(tmp_path, catalan, message):
    (tmp_path / "es.toml").write_text(SPANISH, encoding="utf-8")
    (tmp_path / "ca.toml").write_text(catalan, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_texts(tmp_path)


def test_no_texts_at_all_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"no LANG\.toml"):
        read_texts(tmp_path)
