"""`python -m bench api` at small scale: the three readings it compares, never timed.

Its ratios mean something only if the three do the same work: each reads the bench's body into
the same lexicon, words and notation, and each refuses the same bad bodies. And the section's
table has the rows docs/figures.md shows.
"""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from bench import api
from service.problems import Problem

DECODE, CHALLENGE, BATCH = api.msgspec_readers()
PYDANTIC = api.pydantic_reader()

BAD = [
    {"lexicon": "es", "words": ["CARRO"], "colour": "red"},  # unknown member
    {"words": ["CARRO"]},  # no lexicon
    {"lexicon": "es", "words": "CARRO"},  # words not an array
    {"lexicon": "es", "words": []},  # too few
    {"lexicon": "es", "words": ["CARRO"] * 9},  # too many
    {"lexicon": "es", "words": ["CARRO", 3]},  # a word not a string
    {"lexicon": 7, "words": ["CARRO"]},
    {"lexicon": "es", "words": ["CARRO"], "notation": "braille"},
    ["es", "CARRO"],  # not an object
]


def test_the_three_readings_read_the_bench_s_body_alike():
    assert api.handwritten(api.PLAY3) == ("es", ["CARRO", "CHICO", "PERRO"], "spelling")
    body = CHALLENGE(api.PLAY3)
    assert (body.lexicon, list(body.words)) == ("es", ["CARRO", "CHICO", "PERRO"])
    assert DECODE(api.PLAY3).words == body.words
    model = PYDANTIC(api.PLAY3)
    assert (model.lexicon, model.words, model.notation) == ("es", ["CARRO", "CHICO", "PERRO"], "spelling")


@pytest.mark.parametrize("bad", BAD, ids=[json.dumps(bad) for bad in BAD])
def test_the_three_readings_refuse_the_same_bodies(bad):
    data = json.dumps(bad).encode()
    with pytest.raises(ValueError):
        api.handwritten(data)
    with pytest.raises(Problem):
        CHALLENGE(data)
    with pytest.raises(ValidationError):
        PYDANTIC(data)


def test_the_service_s_reading_counts_a_member_given_twice():
    with pytest.raises(AssertionError, match="given twice"):
        CHALLENGE(b'{"lexicon":"es","words":["CARRO"],"words":["CHICO"]}')


def test_the_batch_reading_gives_each_play():
    plays = BATCH(api.BATCH)
    assert [play.id for play in plays] == [f"t{n}-r12" for n in range(100)]
    assert {tuple(play.words) for play in plays} == {("PINGÜINO", "CAMIÓN", "LLAVE")}


def test_per_call_us_runs_each_reading_and_gives_one_median_each():
    calls = {"a": 0, "b": 0}

    def count(name):
        calls[name] += 1

    figures = api.per_call_us({"a": lambda: count("a"), "b": lambda: count("b")}, number=4, rounds=3)
    assert calls == {"a": 1 + 4 * 3, "b": 1 + 4 * 3}  # one warm-up call, then the rounds
    assert set(figures) == {"a", "b"} and all(value >= 0 for value in figures.values())


def test_the_table_has_the_readme_s_rows():
    [table] = api.run(number=20, rounds=3, batch_number=2, batch_rounds=1)
    assert table.title.endswith("(CPU time, median of 3 interleaved rounds of 20)")
    figures = [row.figure for row in table.rows]
    assert figures[0] == "hand-written json + isinstance checks (before service/types.py)"
    assert figures[1].startswith("msgspec, as the service reads it")
    assert figures[2].startswith("msgspec: the decoder alone")
    assert re.fullmatch(r"pydantic 2\.\d+\.\d+ \(model_validate_json, strict, same constraints\)", figures[3])
    assert figures[4] == f"msgspec, a batch of 100 plays ({len(api.BATCH):,} bytes), each play apart"
    assert re.fullmatch(r"\d+\.\d\d µs", table.rows[0].value)
    for row in (table.rows[1], table.rows[3]):
        assert re.fullmatch(r"\d+\.\d\d µs \(\d+\.\d× faster\)", row.value), row.value
    judged = table.rows[1]
    assert judged.target == "faster than hand-written" and isinstance(judged.met, bool)
    assert re.fullmatch(r"\d+\.\d µs", table.rows[4].value)
