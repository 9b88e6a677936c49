"""Parsing of DISC model files (build_tools.disc.models)."""

import re

import pytest

from build_tools.disc.models import (
    FIELD_SPLIT_WHITESPACE,
    Rule,
    parse_model,
    read_models,
    to_regex,
)


def rules_of(text, code="1", **kw):
    model, problems = parse_model(text, code, **kw)
    return model, problems


def test_header_and_plain_rule():
    model, problems = rules_of("# 26 cantar\nar o ar VMIP1S0C # canto\n", "26")
    assert problems == []
    assert model.code == "26" and model.reference_lemma == "cantar"
    assert model.rules == (Rule("ar", "o", "ar", "VMIP1S0C", "canto", False, 2),)


def test_zero_means_empty_string_in_strip_and_add():
    model, _ = rules_of("# 1 abatre\n0 0 re VMN00000 # abatre\nre 0 re VMIP1S0Z # abat\n")
    assert [(r.strip, r.add) for r in model.rules] == [("", ""), ("re", "")]


def test_two_spaces_enclose_an_empty_field():
    # 1.model line 2: strip "re", add empty, condition "re" -> abatre gives abat.
    model, problems = rules_of("# 1 abatre\nre  re VMIP3S00 # abat\n")
    assert problems == []
    (rule,) = model.rules
    assert (rule.strip, rule.add, rule.condition, rule.tag) == ("re", "", "re", "VMIP3S00")


def test_spaces_before_the_hash_are_padding_not_a_field():
    # 93.model writes `VMN00000  # ofrenar`.
    model, problems = rules_of("# 93 ofrenar\nr r ar VMN00000  # ofrenar\n", "93")
    assert problems == []
    assert model.rules[0].tag == "VMN00000" and model.rules[0].example == "ofrenar"


def test_whitespace_emulation_drops_the_empty_field_line():
    # The authors' reader splits on any whitespace: the line has 3 fields and is lost.
    model, problems = rules_of("# 1 abatre\nre  re VMIP3S00 # abat\n", field_split=FIELD_SPLIT_WHITESPACE)
    assert model.rules == ()
    assert len(problems) == 1 and "found 3" in problems[0].message


def test_empty_example_is_allowed():
    model, problems = rules_of("# 224 x\noixen óixens oixen NP # \n", "224")
    assert problems == []
    assert model.rules[0].example == "" and not model.rules[0].alternative


def test_alt_marks_an_alternative_form():
    model, _ = rules_of("# 26 cantar\nnar 0 nnar VMIP1S0B # ALT:nan\nar o ar VMIP1S0C # canto\n", "26")
    alt, plain = model.rules
    assert alt.alternative and alt.example == "nan"
    assert not plain.alternative and plain.example == "canto"
    assert str(alt) == "nar 0 nnar VMIP1S0B # ALT:nan"


def test_lines_starting_with_hash_are_disabled_rules():
    text = "# 4 abstraure\n#[ae]ure éiem re VMII1P00 # abstréiem\nure 0 ure VMN # x\n"
    model, problems = rules_of(text, "4")
    assert problems == []
    assert [r.line_no for r in model.rules] == [3]


def test_header_without_lemma_gives_no_reference():
    model, problems = rules_of("# 666\n# els\n", "666")
    assert model.reference_lemma is None and model.rules == () and problems == []


def test_five_fields_is_an_error_that_quotes_the_line():
    line = "0 0 em em P010S000 # em"
    model, problems = rules_of(f"# 609 em\n{line}\nem me em P010S000 # me\n", "609", source="m/609.model")
    assert len(model.rules) == 1
    (problem,) = problems
    assert (problem.source, problem.line_no, problem.line, problem.skipped) == ("m/609.model", 2, line, True)
    assert "found 5" in str(problem) and repr(line) in str(problem) and "m/609.model:2" in str(problem)


def test_a_rule_written_with_tabs_is_an_error_that_says_so():
    """A maintainer's editor that writes tabs between the fields: the rule is left out, and the
    report says why, not only that it found 1 field."""
    model, (problem,) = rules_of("# 201 gat\n0\ts\t.\tNCMP000 # gats\n", "201")
    assert model.rules == ()
    assert (
        problem.message
        == "expected 4 fields 'strip add condition tag', found 1; fields are separated by one space, not a tab"
    )


def test_whitespace_emulation_ignores_extra_fields_like_the_authors():
    model, problems = rules_of("# 609 em\n0 0 em em P010S000 # em\n", "609", field_split=FIELD_SPLIT_WHITESPACE)
    assert problems == []
    assert model.rules[0].tag == "em"  # the authors' tag: the real one, P010S000, is lost


@pytest.mark.parametrize(
    "line, message",
    [
        ("ar o ar VMIP1S0C", "no '# example'"),
        ("ar o VMIP1S0C # canto", "found 3"),
        ("ar o [ar VMIP1S0C # canto", "bad condition pattern"),
        ("a( o ar VMIP1S0C # canto", "bad strip pattern"),
    ],
)
def test_unreadable_rule_lines_are_reported(line, message):
    model, problems = rules_of(f"# 26 cantar\n{line}\n", "26")
    assert model.rules == ()
    assert len(problems) == 1 and message in problems[0].message and problems[0].line_no == 2


def test_header_code_differing_from_file_name_is_a_warning():
    model, problems = rules_of("# 352 espès\n0 0 . NC # x\n", "353")
    assert len(model.rules) == 1
    assert len(problems) == 1 and not problems[0].skipped and "'352'" in problems[0].message


@pytest.mark.parametrize(
    "pattern, regex",
    [
        ("[ix|ss]", "(?:ix|ss)"),
        ("[enir|indre]", "(?:enir|indre)"),
        ("[^n]nar", "[^n]nar"),
        ("[àé]ixer", "[àé]ixer"),
        ("[^n][a|b]", "[^n](?:a|b)"),
        ("ar", "ar"),
        (".", "."),
    ],
)
def test_to_regex(pattern, regex):
    assert to_regex(pattern) == regex
    re.compile(regex)


def test_read_models_orders_codes_numerically(tmp_path):
    for code in ("10", "9", "100"):
        (tmp_path / f"{code}.model").write_text(f"# {code} x\n0 0 . T # x\n", encoding="utf-8")
    models, problems = read_models(tmp_path)
    assert list(models) == ["9", "10", "100"] and problems == []
    assert models["10"].source.endswith("10.model")


def test_verb_models_are_codes_1_to_199():
    assert parse_model("# 199 x\n", "199")[0].is_verb
    assert not parse_model("# 201 x\n", "201")[0].is_verb
    assert not parse_model("# 0 x\n", "0")[0].is_verb


@pytest.mark.parametrize(
    "text, rules, message, skipped",
    [
        ("0 s . NP # gats\n0 0 . NS # gat\n", 2, "missing header '# CODE lemma'; read as a rule", False),
        (
            "not a header\n0 0 . NS # gat\n",
            1,
            "missing header '# CODE lemma', and not a rule: rule line has no '# example' part",
            True,
        ),
        ("\n0 0 . NS # gat\n", 1, "missing header '# CODE lemma'", True),
    ],
)
def test_a_first_line_that_is_no_header_is_one_problem_saying_what_became_of_it(text, rules, message, skipped):
    """One line, one problem: the report counts the skipped lines `--strict` refuses from them, and
    says whether the line was used (a rule) or left out."""
    model, problems = rules_of(text, "201", source="m/201.model")
    assert len(model.rules) == rules
    assert [(p.line_no, p.message, p.skipped) for p in problems] == [(1, message, skipped)]
