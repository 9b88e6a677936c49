"""The expander and checks on the real DISC sources (jmontane/disc e8b6e1c).

Figures: the authors' generator writes 897,199 tagged forms (645,491 distinct
spellings) and reports 22 verb models that differ from their test files.
The documented format gives 44 more tagged forms: two rules of 1.model
(``re  re VMIP3S00 # abat``, ``re  re VMM02S00 # abat``) write their empty
add field as two spaces; the authors' reader splits on any whitespace, sees
three fields and drops both rules, for each of the 22 lemmas of model 1.
Emulating that reader (FIELD_SPLIT_WHITESPACE) gives their exact figure.
"""

from collections import Counter

import pytest

from build_tools.disc.checks import (
    EmptyEntry,
    UnusedRule,
    build_report,
    check_reference_lemmas,
    read_tests,
)
from build_tools.disc.expand import compile_models, expand_forms, expand_rows, read_source, stem
from build_tools.disc.models import FIELD_SPLIT_WHITESPACE

# Verb models whose reference lemma does not give exactly tests/CODE.test:
# code -> (forms missing from the generated ones, generated forms not in the test).
EXCEPTIONS = {
    "4": ("", "abstrega abstreguen abstregues"),  # abstraure
    "5": ("acolliguem acolligueu", ""),  # acollir
    "12": ("", "adscrivira adscrivissen adscrivisses adscrivíssem adscrivísseu"),  # adscriure
    "13": ("avenguessen avenguesses avenguéssem avenguésseu", ""),  # avenir
    "17": (  # aparèixer
        "apareixo aparesc aparesca aparescuda aparescudes aparescut aparescuts aparesquem"
        " aparesquen aparesqueren aparesqueres aparesques aparesquessin aparesquessis"
        " aparesqueu aparesqui aparesquin aparesquis aparesqué aparesquérem aparesquéreu"
        " aparesqués aparesquéssim aparesquéssiu aparesquí",
        "",
    ),
    "27": (  # carvendre
        "carvena carveneren carveneres carvenes carvenessen carvenesses carvenessin"
        " carvenessis carvené carvenérem carvenéreu carvenés carvenéssem carvenésseu"
        " carvenéssim carvenéssiu carvení",
        "",
    ),
    "54": (  # deseixir
        "desisquiren desisquires desisquírem desisquíreu",
        "deseixira desisquessen desisquesses desisqué desisqués desisquéssem desisquésseu",
    ),
    "64": ("entrevenguessen entrevenguesses entrevenguéssem entrevenguésseu", ""),  # entrevenir
    "65": ("entrevessen entrevesses entrevèrem entrevéssem entrevésseu", ""),  # entreveure
    "71": ("set seta setes sets", ""),  # ser
    "82": ("ireixessen ireixesses ireixéssem ireixésseu", ""),  # irèixer
    "90": ("renaixessen renaixesses renaixéssem renaixésseu", ""),  # renàixer
    "97": ("paixessen paixesses paixéssem paixésseu", ""),  # péixer
    "105": (  # reeixir
        "reïsquiren reïsquires reïsquírem reïsquíreu",
        "reeixira reïsqui reïsquin reïsquis",
    ),
    "114": ("tixo", ""),  # teixir
    "115": ("tenguessen tenguesses tenguéssem tenguésseu", ""),  # tenir
    "120": (  # vendre
        "vena veneren veneres venes venessen venesses venessin venessis vené venérem"
        " venéreu venés venéssem venésseu venéssim venéssiu vení",
        "",
    ),
    "121": ("venguessen venguesses venguéssem venguésseu", ""),  # venir
    "122": ("vesta vestes vestixi vists", ""),  # vestir
    "123": ("vessen vesses", ""),  # veure
    "190": ("naixessen naixesses naixéssem naixésseu", ""),  # nàixer
    "198": (  # soler
        "soldran soldrem soldreu soldria soldrien soldries soldrà soldràs soldré soldríem"
        " soldríeu solguda solgudes solgut solguts solgué solguí",
        "",
    ),
}


@pytest.fixture(scope="module")
def source(disc_dir):
    return read_source(disc_dir)


@pytest.fixture(scope="module")
def authors_source(disc_dir):
    return read_source(disc_dir, FIELD_SPLIT_WHITESPACE)


@pytest.fixture(scope="module")
def tests(disc_dir):
    return read_tests(disc_dir / "tests")


@pytest.fixture(scope="module")
def rows(source):
    return list(expand_rows(source.entries, source.models))


@pytest.fixture(scope="module")
def report(source, tests):
    return build_report(source, tests)


def test_totals(report):
    assert report.lemmas == 68_746
    assert report.forms == 897_243
    assert report.spellings == 645_491
    assert len(report.test_mismatches) == 22


def test_the_checks_read_from_the_expansion_equal_the_checks_alone(source, tests, report):
    """The build hands the report its expansion instead of letting it match every lemma again."""
    compiled = compile_models(source.models)
    forms, ends = expand_forms(source.entries, compiled)
    assert build_report(source, tests, (len(forms), len(set(forms))), (compiled, ends)) == report


def test_authors_reading_gives_their_figures(authors_source, tests):
    report = build_report(authors_source, tests)
    assert (report.forms, report.spellings, len(report.test_mismatches)) == (897_199, 645_491, 22)


def test_difference_from_the_authors_is_the_two_empty_add_rules_of_model_1(rows, authors_source):
    ours, theirs = Counter(rows), Counter(expand_rows(authors_source.entries, authors_source.models))
    assert theirs - ours == Counter()
    extra = ours - theirs
    assert sum(extra.values()) == 44
    assert Counter((model, tag) for _f, _l, _c, model, tag in extra) == {
        ("1", "VMIP3S00"): 22,
        ("1", "VMM02S00"): 22,
    }
    assert all(form == stem(lemma)[: -len("re")] for form, lemma, *_ in extra)
    assert ("abat", "abatre", "v.", "1", "VMIP3S00") in extra
    # Their output has the same spelling from another rule, so spellings agree.
    assert ("abat", "abatre", "v.", "1", "VMIP1S0Z") in theirs


def test_every_verb_model_with_a_test_file_differs_exactly_as_listed(source, tests):
    assert len(tests) == 132
    assert all(source.models[code].is_verb for code in tests)
    found = {m.model: (set(m.missing), set(m.extra)) for m in check_reference_lemmas(source.models, tests)}
    expected = {code: (set(missing.split()), set(extra.split())) for code, (missing, extra) in EXCEPTIONS.items()}
    assert found == expected


def test_pronominal_lemmas_lose_their_ending(rows, source):
    pronominal = {e.lemma for e in source.entries if e.is_verb and stem(e.lemma) != e.lemma}
    assert len(pronominal) > 400
    assert {"adonar-se", "condoldre’s"} <= pronominal
    forms = {form for form, lemma, *_ in rows if lemma in pronominal}
    assert not [f for f in forms if f.endswith(("-se", "'s", "’s"))]
    assert ("condolent", "condoldre’s", "v.", "125", "VMG00000") in rows


def test_order_is_entries_then_rules(rows, source):
    lemmas = [lemma for _f, lemma, *_ in rows]
    first_lines = {}
    line_of = {e.lemma: e.line_no for e in reversed(source.entries)}
    for lemma in lemmas:
        first_lines.setdefault(lemma, line_of[lemma])
    assert list(first_lines.values()) == sorted(first_lines.values())
    abatre = [(f, tag) for f, lemma, _c, _m, tag in rows if lemma == "abatre"]
    assert abatre[:3] == [("abat", "VMIP3S00"), ("abat", "VMM02S00"), ("abatre", "VMN00000")]


def test_real_problems_are_reported(report):
    found = {(p.source.rsplit("/", 1)[-1], p.line_no, p.skipped) for p in report.problems}
    assert found == {
        ("353.model", 1, False),  # header says 352
        ("501.model", 1, False),  # header says 500
        ("502.model", 1, False),
        ("531.model", 1, False),
        ("532.model", 1, False),
        ("631.model", 1, False),  # header says 630
        ("609.model", 2, True),  # `0 0 em em P010S000`: five fields
        ("609.model", 3, True),
        ("610.model", 2, True),
        ("entrades.txt", 68334, False),  # sucamulla|f.|203|sucamulla|sucamulla|no
    }
    assert report.lines_left_out == 3  # the three lines of 609 and 610: `lexicon build --strict` fails (docs/disc.md)


def test_real_findings(report):
    assert report.missing_models == ()
    assert report.unused_models == ("609", "610", "611", "612", "613", "614")
    assert [(r.model, r.line_no) for r in report.unused_rules] == [
        ("26", 16),
        ("212", 4),
        ("220", 4),
        ("224", 4),
        ("224", 5),
        ("366", 4),
        ("366", 5),
        ("605", 4),
        ("618", 4),
        ("618", 5),
        ("631", 4),
    ]
    assert report.unused_rules[0] == UnusedRule("26", 16, "nar 0 nnar VMIP1S0B # ALT:nan")
    assert {e.model for e in report.empty_entries} == {"666"}
    assert len(report.empty_entries) == 10 and EmptyEntry(23108, "em", "666") in report.empty_entries
    assert report.example_mismatches == ()
    assert report.verb_models_without_test == ("138",)
    assert len(report.duplicate_entries) == 748
