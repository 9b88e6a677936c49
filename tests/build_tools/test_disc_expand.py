"""Rule semantics of the DISC expander (build_tools.disc.expand), case by case."""

import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from build_tools.disc.expand import (
    TSV_HEADER,
    Entry,
    compile_model,
    expand_rows,
    parse_entries,
    stem,
    tsv_lines,
)
from build_tools.disc.models import parse_model
from tests.support import REPO

from .conftest import disc_source_dir


def model(*rule_lines, code="9", lemma="x"):
    text = "\n".join([f"# {code} {lemma}", *rule_lines]) + "\n"
    parsed, problems = parse_model(text, code)
    assert problems == []
    return parsed


def forms(lemma, *rule_lines, category="v."):
    m = model(*rule_lines)
    return [row[0] for row in expand_rows([Entry(lemma, category, m.code, 1)], {m.code: m})]


# -- anchoring -------------------------------------------------------------


def test_condition_is_anchored_at_the_end():
    rule = "ar o ar T # x"
    assert forms("cantar", rule) == ["canto"]
    assert forms("arbre", rule) == []  # "ar" is at the start, not the end


def test_strip_is_anchored_at_the_end_and_replaces_only_that_end():
    # "ar" occurs twice; only the final one is replaced.
    assert forms("arrossar", "ar em ar T # x") == ["arrossem"]


def test_strip_must_match_too_when_condition_matches():
    # Condition "." always matches, but the strip "er" is not at the end: no form.
    assert forms("cantar", "er 0 . T # x") == []
    assert forms("córrer", "er 0 . T # x") == ["córr"]


def test_condition_must_match_too_when_strip_matches():
    assert forms("cantar", "r 0 nar T # x") == []
    assert forms("sonar", "r 0 nar T # x") == ["sona"]


def test_dot_condition_always_matches():
    assert forms("a", "0 s . T # x") == ["as"]


# -- brackets ----------------------------------------------------------------


def test_bracket_group_with_bar_is_alternation():
    rule = "[enir|indre] éns [enir|indre] T # x"
    assert forms("venir", rule) == ["véns"]
    assert forms("vindre", rule) == ["véns"]
    assert forms("veniir", rule) == []  # not a class of the letters e, n, i, r, d, |
    assert forms("vendre", rule) == []


def test_alternation_in_strip_and_condition():
    # 197.model: caldre and caler share every form.
    rules = ("[ldre|ler] ldre [ldre|ler] A # caldre", "[ldre|ler] lent [ldre|ler] B # calent")
    assert forms("caldre", *rules) == ["caldre", "calent"]
    assert forms("caler", *rules) == ["caldre", "calent"]
    assert forms("batre", *rules) == []
    # Strip alternation differs from the condition's.
    assert forms("cabre", "[re|er] ent [abre|aber] B # cabent") == ["cabent"]
    assert forms("caber", "[re|er] ent [abre|aber] B # cabent") == ["cabent"]
    assert forms("obre", "[re|er] ent [abre|aber] B # x") == []


def test_negated_character_class():
    rule = "ar e [^n]nar T # x"
    assert forms("sonar", rule) == ["sone"]
    assert forms("mannar", rule) == []


def test_character_class_with_accented_letters():
    rule = "[àé]ixer eixem [àé]ixer T # x"
    assert forms("néixer", rule) == ["neixem"]
    assert forms("nàixer", rule) == ["neixem"]
    assert forms("naixer", rule) == []


def test_class_in_condition_literal_strip():
    assert forms("vessar", "ar i [^s]sar T # x") == []
    assert forms("cansar", "ar i [^s]sar T # x") == ["cansi"]


# -- strip and add ------------------------------------------------------------


def test_empty_strip_appends():
    assert forms("gat", "0 s . T # x") == ["gats"]


def test_zero_add_removes_the_strip():
    assert forms("abatre", "re 0 re T # x") == ["abat"]


def test_empty_add_written_as_two_spaces():
    assert forms("abatre", "re  re VMIP3S00 # abat") == ["abat"]


def test_the_two_space_rules_disc_md_quotes_are_the_source_s_and_its_model_has_22_lemmas():
    """docs/disc.md ("Why 897,243 forms") quotes lines 2 and 3 of models/1.model, the rules the
    authors' reader drops, and counts the lemmas of model 1 they miss forms of: as the source has them."""
    doc = (REPO / "docs" / "disc.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Why 897,243 forms") :]
    quoted = re.search(r"```\n(.*?)```", section, re.S).group(1).splitlines()
    source = disc_source_dir()
    assert quoted == (source / "models" / "1.model").read_text(encoding="utf-8").splitlines()[1:3]
    assert [forms("abatre", rule) for rule in quoted] == [["abat"], ["abat"]]
    lemmas = [
        line for line in (source / "entrades.txt").read_text(encoding="utf-8").splitlines() if line.endswith("|1")
    ]
    assert f"for the {len(lemmas)} lemmas of model 1" in " ".join(section.split())


def test_empty_strip_and_add_gives_the_lemma():
    assert forms("cantar", "0 0 ar T # x") == ["cantar"]


def test_rules_that_do_not_apply_give_no_form_and_keep_order():
    m = model("ar o ar A # x", "er o er B # x", "0 s . C # x", "ar em ar D # x")
    rows = list(expand_rows([Entry("cantar", "v.", "9", 1)], {"9": m}))
    assert rows == [
        ("canto", "cantar", "v.", "9", "A"),
        ("cantars", "cantar", "v.", "9", "C"),
        ("cantem", "cantar", "v.", "9", "D"),
    ]


def test_inflect_gives_each_rule_that_applies_its_form_and_rule_index():
    """The one expansion loop: every reader of forms (rows, compiler, checks) goes through it."""
    m = compile_model(model("ar o ar A # x", "er o er B # x", "0 s . C # x", "ar em ar D # x"))
    assert m.pairs == (("ar", "ar"), ("er", "er"), (".", ""))  # rules A and D share one matcher

    def inflect(lemma, is_verb=True):
        forms, applying = m.inflect(lemma, is_verb)
        assert applying == m.applying(lemma, is_verb)
        return forms, applying.rules, applying.tags

    assert inflect("cantar") == (["canto", "cantars", "cantem"], (0, 2, 3), ("A", "C", "D"))
    assert inflect("adonar-se") == (["adono", "adonars", "adonem"], (0, 2, 3), ("A", "C", "D"))
    assert inflect("adonar-se", is_verb=False) == (["adonar-ses"], (2,), ("C",))
    assert inflect("témer") == (["témo", "témers"], (1, 2), ("B", "C"))
    # Lemmas that match the same pairs share one plan: cantar and saltar; témer has its own.
    assert inflect("saltar")[0] == ["salto", "saltars", "saltem"] and len(m.plans) == 3


def test_alt_rule_is_applied_like_any_other():
    assert forms("cantar", "ar o ar A # ALT:canto") == ["canto"]


# -- pronominal verbs ------------------------------------------------------------


@pytest.mark.parametrize("lemma", ["adonar-se", "adonar's", "adonar\u2019s"])
def test_pronominal_ending_is_removed_before_inflecting(lemma):
    rows = list(expand_rows([Entry(lemma, "v.", "9", 1)], {"9": model("ar o ar T # x", "0 0 . N # x")}))
    assert rows == [("adono", lemma, "v.", "9", "T"), ("adonar", lemma, "v.", "9", "N")]


def test_only_verbs_are_pronominal():
    assert stem("creure's", is_verb=True) == "creure"
    assert stem("creure's", is_verb=False) == "creure's"
    assert forms("cas-se", "0 s . T # x", category="m.") == ["cas-ses"]


def test_verb_category_inside_a_compound_category():
    assert Entry("x-se", "adj.~v.", "9", 1).is_verb
    assert not Entry("x", "adv.", "9", 1).is_verb


# -- entries --------------------------------------------------------------------------


def test_parse_entries_skips_comments_and_reports_bad_lines():
    text = "a|f.|201\n#els|pron.|666\n\nsucamulla|f.|203|sucamulla|no\nbad line\n|m.|201\nb|m.|201 \n"
    entries, problems = parse_entries(text, "e.txt")
    assert [(e.lemma, e.model, e.line_no) for e in entries] == [
        ("a", "201", 1),
        ("sucamulla", "203", 4),
        ("b", "201", 7),
    ]
    assert [(p.line_no, p.skipped) for p in problems] == [(4, False), (5, True), (6, True)]
    assert "extra field" in problems[0].message and "'bad line'" in str(problems[1])
    assert problems[1].message == "expected 'lemma|category|model', found 1 field(s)"
    assert problems[2].message == "expected 'lemma|category|model', found an empty lemma"
    (empty_model,) = parse_entries("gat|m.| \n", "e.txt")[1]
    assert str(empty_model) == "e.txt:1: expected 'lemma|category|model', found an empty model (skipped): 'gat|m.|'"


def test_white_space_around_a_field_is_not_data():
    """`col·legi | m. | 201`, written so for legibility, is col·legi of model 201: its fields were
    read as 'col·legi ' and ' 201', a model with no file, and the lemma gave no form."""
    entries, problems = parse_entries("col·legi | m. | 201\n\tany\t|\tm.\t|\t201\t\n  | m. | 201\n", "e.txt")
    assert [(e.lemma, e.category, e.model) for e in entries] == [("col·legi", "m.", "201"), ("any", "m.", "201")]
    assert [(p.line_no, p.skipped) for p in problems] == [(3, True)]  # a lemma of white space alone is none


def test_missing_model_gives_no_form_and_duplicates_repeat():
    m = model("0 s . T # x")
    entries = [Entry("gat", "m.", "9", 1), Entry("gos", "m.", "404", 2), Entry("gat", "m.", "9", 3)]
    assert [row[0] for row in expand_rows(entries, {"9": m})] == ["gats", "gats"]


def test_rows_carry_lemma_category_model_and_tag_of_the_rules_that_apply():
    m = model("ar o ar A # canto", "er o er B # x")
    assert list(expand_rows([Entry("cantar", "v.", "9", 1)], {"9": m})) == [("canto", "cantar", "v.", "9", "A")]


# -- TSV --------------------------------------------------------------------------------


def test_tsv_lines_and_the_file_the_cli_writes():
    from lexicon_cli.expand import _CHUNK, _write

    rows = [("canto", "cantar", "v.", "26", "VMIP1S0C")]
    assert list(tsv_lines(rows)) == ["canto\tcantar\tv.\t26\tVMIP1S0C"]
    assert list(tsv_lines(rows, header=True)) == [TSV_HEADER, "canto\tcantar\tv.\t26\tVMIP1S0C"]
    out = io.BytesIO()
    count = 2 * _CHUNK + 3  # chunks joined with no line lost or doubled at their edges
    _write(out, tsv_lines(rows * count, header=True))
    assert out.getvalue().decode("utf-8") == TSV_HEADER + "\n" + "canto\tcantar\tv.\t26\tVMIP1S0C\n" * count


# -- the matcher against an independent reference -------------------------------------


def reference_form(lemma, strip, add, condition):
    """Naive reading of docs/disc.md ("Expansion semantics"): try every end of the lemma, longest first."""

    def longest_end(pattern):
        regex = re.sub(r"\[([^\[\]]*\|[^\[\]]*)\]", r"(\1)", pattern)
        for k in range(len(lemma) + 1):
            if re.fullmatch(regex, lemma[k:]):
                return k
        return None

    if condition != "." and longest_end(condition) is None:
        return None
    if not strip:
        return lemma + add
    k = longest_end(strip)
    return None if k is None else lemma[:k] + add


LETTERS = "abeèr"
# Pattern atoms with the strings each one matches, so that lemmas can be
# drawn to end in an instance of a pattern (random lemmas rarely would).
ATOMS = {
    **{c: [c] for c in LETTERS},
    "[ae]": ["a", "e"],
    "[^r]": ["a", "b", "e", "è"],
    "[èe]": ["è", "e"],
    "[ab|re]": ["ab", "re"],
    "[e|èr]": ["e", "èr"],
}


@st.composite
def pattern_and_instance(draw):
    atoms = draw(st.lists(st.sampled_from(sorted(ATOMS)), min_size=1, max_size=3))
    instance = "".join(draw(st.sampled_from(ATOMS[a])) for a in atoms)
    return "".join(atoms), instance


@st.composite
def rule_and_lemma(draw):
    strip, strip_end = draw(st.one_of(st.just(("", "")), pattern_and_instance()))
    condition, cond_end = draw(st.one_of(st.just((".", "")), pattern_and_instance()))
    ending = draw(st.sampled_from([strip_end, cond_end, strip_end + cond_end, cond_end + strip_end, ""]))
    lemma = draw(st.text(LETTERS, max_size=4)) + ending
    return lemma or "a", strip, draw(st.text(LETTERS, max_size=3)), condition


@given(rule_and_lemma())
def test_expander_agrees_with_naive_reading(case):
    lemma, strip, add, condition = case
    m = model(f"{strip or '0'} {add or '0'} {condition} T # x")
    got = [row[0] for row in expand_rows([Entry(lemma, "m.", "9", 1)], {"9": m})]
    expected = reference_form(lemma, strip, add, condition)
    assert got == ([] if expected is None else [expected])
