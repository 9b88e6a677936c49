"""The DISC build report on a tiny hand-written source (tests/data/disc/README.md)."""

import pytest

from build_tools.disc.checks import (
    DuplicateEntry,
    EmptyEntry,
    ExampleMismatch,
    MissingModel,
    TestMismatch,
    UnusedRule,
    build_report,
    check_reference_lemmas,
    parse_test,
    read_tests,
)
from build_tools.disc.expand import compile_models, expand_forms, read_source
from build_tools.disc.models import parse_model


@pytest.fixture(scope="module")
def report(disc_fixture_dir):
    return build_report(read_source(disc_fixture_dir), read_tests(disc_fixture_dir / "tests"))


def test_counts(report):
    assert report.lemmas == 8
    # cantar and adonar-se: 3 forms each; gat twice: 2 each; sucamulla: 1.
    assert report.forms == 11
    assert report.spellings == 9


def test_unreadable_lines_are_located_and_quoted(report):
    found = [(p.source.rsplit("/", 1)[-1], p.line_no, p.line, p.skipped) for p in report.problems]
    assert found == [
        ("26.model", 6, "0 0 ar ar VMN00000 # cantar", True),
        ("entrades.txt", 9, "sucamulla|f.|203|sucamulla|no", False),
        ("entrades.txt", 10, "bad line", True),
    ]


def test_missing_models_with_examples(report):
    assert report.missing_models == (MissingModel("404", 2, ((6, "peix"), (7, "peixera"))),)
    assert str(report.missing_models[0]) == "model 404: 2 lemma(s), e.g. peix (line 6), peixera (line 7)"


def test_unused_models_and_rules(report):
    assert report.unused_models == ("27",)
    assert report.unused_rules == (UnusedRule("26", 5, "nar 0 nnar VMIP1S0B # ALT:nan"),)


def test_entries_that_give_no_form(report):
    assert report.empty_entries == (EmptyEntry(8, "em", "666"),)


def test_reference_lemma_against_test_file(report):
    assert report.test_mismatches == (TestMismatch("26", "cantar", ("cantar",), ("canta",)),)
    assert report.verb_models_without_test == ("27",)


def test_test_files_of_no_verb_model_are_said_to_check_nothing(disc_fixture_dir, tmp_path):
    """tests/201.test (201 is no verb model), tests/150.test (no such model), tests/abc.test: the
    report said nothing of them, so a list keeper who wrote one believed it checked. Listed now."""
    tests = read_tests(disc_fixture_dir / "tests")
    tests |= {code: frozenset({"x"}) for code in ("150", "201", "abc")}
    report = build_report(read_source(disc_fixture_dir), tests)
    assert report.tests_without_verb_model == ("150", "201", "abc")
    assert "test files of no verb model (not checked): 3\n  150\n  201\n  abc" in str(report)
    assert report.test_mismatches == (TestMismatch("26", "cantar", ("cantar",), ("canta",)),)  # 26 still checked


def test_examples_of_verb_models(report):
    assert report.example_mismatches == (ExampleMismatch("26", 4, "ar em ar VMIP1P00 # cantam", "cantem"),)


def test_duplicates(report):
    assert report.duplicate_entries == (DuplicateEntry("gat", "m.", "201", (3, 5)),)


def test_rendering_names_every_finding(report):
    text = str(report)
    for needle in (
        "forms generated: 11",
        "26.model:6",
        "'bad line'",
        "model 404: 2 lemma(s)",
        "26.model:5: nar 0 nnar VMIP1S0B # ALT:nan",
        "line 8: em (model 666)",
        "model 26 (cantar):",
        "missing (1): cantar",
        "extra (1): canta",
        "gives 'cantem'",
        "gat|m.|201 (lines 3, 5)",
    ):
        assert needle in text, needle
    assert report.lines() == text.splitlines()


def test_parse_test_ignores_comments_and_blanks():
    assert parse_test("canto\n\n#cantarem\n canta \n") == {"canto", "canta"}


def test_parse_test_reads_a_file_saved_with_a_byte_order_mark_and_windows_line_ends():
    assert parse_test("\ufeffcaçar\r\ncaço\r\n") == {"caçar", "caço"}


def test_reference_lemma_without_header_lemma_is_reported():
    model, _ = parse_model("# 5\nar o ar T # x\n", "5")
    (mismatch,) = check_reference_lemmas({"5": model}, {"5": frozenset({"canto"})})
    assert mismatch.reference_lemma is None and mismatch.missing == ("canto",)
    assert "no reference lemma" in str(mismatch)


def test_matching_model_is_not_reported():
    model, _ = parse_model("# 5 cantar\nar o ar T # canto\n0 0 . N # cantar\n", "5")
    assert check_reference_lemmas({"5": model}, {"5": frozenset({"canto", "cantar"})}) == []


def test_the_checks_read_from_the_expansion_equal_the_checks_alone(disc_fixture_dir, report):
    source = read_source(disc_fixture_dir)
    compiled = compile_models(source.models)
    forms, ends = expand_forms(source.entries, compiled)
    counts = (len(forms), len(set(forms)))
    assert build_report(source, read_tests(disc_fixture_dir / "tests"), counts, (compiled, ends)) == report
