"""DISC (Catalan Scrabble word list) sources: flexion models, expansion, checks.

DISC is published as lemmas plus flexion models, not as a finished list, so
the compiler expands them itself; these modules are the project's own reading
of the format described in docs/disc.md.

Typical use::

    source = read_source("data/ca-disc")
    rows = expand_rows(source.entries, source.models)   # (form, lemma, category, model, tag)
    forms, ends = expand_forms(source.entries, source.models)  # spellings only (the compiler)
    report = build_report(source, read_tests("data/ca-disc/tests"))
"""

from .checks import DiscReport, build_report, read_tests
from .expand import DiscSource, expand_forms, expand_rows, read_source, row_of, tsv_lines
from .models import FIELD_SPLIT_DOCUMENTED, FIELD_SPLIT_WHITESPACE, ParseProblem

__all__ = [
    "FIELD_SPLIT_DOCUMENTED",
    "FIELD_SPLIT_WHITESPACE",
    "DiscReport",
    "DiscSource",
    "ParseProblem",
    "build_report",
    "expand_forms",
    "expand_rows",
    "read_source",
    "read_tests",
    "row_of",
    "tsv_lines",
]
