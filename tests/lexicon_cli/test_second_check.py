"""`lexicon check --second LEXICON`: the verdict, then a second opinion of another lexicon of the
same language on the same words (new.lex has CHICOS, old.lex NANDU; both CASA; neither ZURDO)."""

from __future__ import annotations

import json

import pytest

from lexicon.lexfile import Lexicon
from tests.support import compile_list

from .conftest import invoke, run


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    folder = tmp_path_factory.mktemp("second-cli")
    new = compile_list(folder / "new.lex", ["CASA", "CHICOS"], "es", "file2017", "FILE 2017", "2017")
    old = compile_list(folder / "old.lex", ["CASA", "NANDU"], "es", "file2016", "FILE 2016", "2016")
    catalan = compile_list(folder / "ca.lex", ["CASA", "QUADRE"], "ca", "ca-mini", "Mini")
    return new, old, catalan


@pytest.mark.parametrize(
    "word, lines",
    [
        ("CASA", ["VALID", "second (file2016): VALID"]),
        ("CHICOS", ["VALID", "second (file2016): NOT VALID"]),
        ("NANDU", ["NOT VALID", "second (file2016): VALID"]),
        ("ZURDO", ["NOT VALID", "second (file2016): NOT VALID"]),
    ],
)
def test_the_four_combinations(pair, word, lines):
    new, old, _ = pair
    assert run("check", "--second", old, new, "CASA", word).output.splitlines() == lines
    assert run("check", new, "CASA", word).output.splitlines() == lines[:1]  # the main verdict as without


def test_json_carries_the_second_beside_the_verdict(pair):
    new, old, _ = pair
    answer = json.loads(run("check", "--json", "--second", old, new, "CHICOS").output)
    assert answer["valid"] is True and answer["lexicon"]["id"] == "file2017"
    assert answer["second"] == {
        "valid": False,
        "lexicon": {"id": "file2016", "name": "FILE 2016", "version": "2016", "checksum": Lexicon.open(old).checksum},
    }


def test_another_language_is_refused_naming_both(pair):
    new, _, catalan = pair
    result = invoke("check", "--second", catalan, new, "CASA")
    assert result.exit_code == 2
    assert "--second" in result.output and "'ca-mini' is a lexicon of language 'ca'" in result.output
    assert "VALID" not in result.output
    result = invoke("check", "--json", "--second", catalan, new, "CASA")
    assert result.exit_code == 2 and "a second opinion is of the same language" in json.loads(result.output)["error"]


def test_a_word_that_is_no_tiles_is_the_same_error_with_a_second(pair):
    new, old, _ = pair
    plain, second = invoke("check", new, "CASA", "KIWI"), invoke("check", "--second", old, new, "CASA", "KIWI")
    assert second.exit_code == plain.exit_code == 2 and second.output == plain.output
    assert "word 2: 'K' at 1 in 'KIWI'" in second.output
