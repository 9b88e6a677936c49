"""`python -m bench position` at a tiny size: the section runs, compares each step, never timed.

Its comparison means something only if both plays get the same answer (checked inside the
section: the same bytes), so the test also checks that its Mann-Whitney test tells two samples
of one distribution from two that differ.
"""

from __future__ import annotations

from bench import position
from tests.support import compile_list


def test_the_section_runs_and_compares_every_step(tmp_path):
    spanish = compile_list(tmp_path / "es.lex", position.VALID + [position.CONTROL], "es", "es-mini", "Mini español")
    (table,) = position.run(samples=20, repeat=1, lexicon_files=[str(spanish)])
    assert [row.figure.split(":")[0] for row in table.rows] == ["decode", "keys", "lookup", "whole", "keys, all valid"]
    assert all("p = " in row.value for row in table.rows)


def test_mann_whitney_tells_apart_only_what_differs():
    same = [float(n % 7) for n in range(200)]
    assert position.mann_whitney(same, list(reversed(same))) > 0.5
    assert position.mann_whitney(same, [value + 3 for value in same]) < 1e-6
