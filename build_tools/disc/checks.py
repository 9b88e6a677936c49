"""Quality checks of a DISC source: the build report.

The authors' generator writes a problems file; this module computes the same
kind of findings (and a few more) as plain data, so the CLI can render them,
tests can assert on them, and a lexicographer can see at once what a release
changed: unreadable lines, lemmas pointing to missing models, rules that no
lemma ever uses, verb models whose reference lemma does not give the forms
of ``tests/CODE.test``, and entries that give no form at all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .expand import CompiledModel, DiscSource, Entry, compile_models, expand_rows
from .models import Model, ParseProblem

__all__ = [
    "DiscReport",
    "DuplicateEntry",
    "EmptyEntry",
    "ExampleMismatch",
    "MissingModel",
    "TestMismatch",
    "UnusedRule",
    "build_report",
    "check_examples",
    "check_reference_lemmas",
    "duplicate_entries",
    "parse_test",
    "read_tests",
    "rule_usage",
]

EXAMPLES = 5


@dataclass(frozen=True, slots=True)
class MissingModel:
    """A model code used by entries but with no ``models/CODE.model``."""

    code: str
    count: int
    examples: tuple[tuple[int, str], ...]  # (line number, lemma)

    def __str__(self) -> str:
        shown = ", ".join(f"{lemma} (line {n})" for n, lemma in self.examples)
        return f"model {self.code}: {self.count} lemma(s), e.g. {shown}"


@dataclass(frozen=True, slots=True)
class UnusedRule:
    """A rule of a model that applies to none of the model's lemmas."""

    model: str
    line_no: int
    rule: str

    def __str__(self) -> str:
        return f"{self.model}.model:{self.line_no}: {self.rule}"


@dataclass(frozen=True, slots=True)
class EmptyEntry:
    """An entry whose model exists but none of whose rules applies."""

    line_no: int
    lemma: str
    model: str

    def __str__(self) -> str:
        return f"line {self.line_no}: {self.lemma} (model {self.model})"


@dataclass(frozen=True, slots=True)
class DuplicateEntry:
    """An entry line repeated verbatim: its forms are generated twice."""

    lemma: str
    category: str
    model: str
    line_nos: tuple[int, ...]

    def __str__(self) -> str:
        lines = ", ".join(map(str, self.line_nos))
        return f"{self.lemma}|{self.category}|{self.model} (lines {lines})"


@dataclass(frozen=True, slots=True)
class ExampleMismatch:
    """A verb-model rule whose output on the reference lemma is not its example.

    In verb models the ``# example`` of each rule is the reference lemma's
    form, so a mismatch means the rule or the example is wrong (a rule marked
    ``ALT:`` may simply not apply).
    """

    model: str
    line_no: int
    rule: str
    generated: str | None

    def __str__(self) -> str:
        got = "rule does not apply" if self.generated is None else f"gives {self.generated!r}"
        return f"{self.model}.model:{self.line_no}: {self.rule}: {got}"


@dataclass(frozen=True, slots=True)
class TestMismatch:
    """A verb model whose reference lemma does not give its test file's forms."""

    __test__ = False  # not a pytest class, despite the name

    model: str
    reference_lemma: str | None
    missing: tuple[str, ...]  # in the test file, not generated
    extra: tuple[str, ...]  # generated, not in the test file

    def lines(self) -> list[str]:
        out = [f"model {self.model} ({self.reference_lemma or 'no reference lemma'}):"]
        if self.missing:
            out.append(f"  missing ({len(self.missing)}): {', '.join(self.missing)}")
        if self.extra:
            out.append(f"  extra ({len(self.extra)}): {', '.join(self.extra)}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


@dataclass(frozen=True, slots=True)
class DiscReport:
    """Everything a build of a DISC source should tell its reader."""

    lemmas: int
    forms: int
    spellings: int
    problems: tuple[ParseProblem, ...]
    missing_models: tuple[MissingModel, ...]
    unused_models: tuple[str, ...]
    unused_rules: tuple[UnusedRule, ...]
    empty_entries: tuple[EmptyEntry, ...]
    test_mismatches: tuple[TestMismatch, ...]
    example_mismatches: tuple[ExampleMismatch, ...] = field(default=())
    duplicate_entries: tuple[DuplicateEntry, ...] = field(default=())
    verb_models_without_test: tuple[str, ...] = field(default=())
    tests_without_verb_model: tuple[str, ...] = field(default=())  # tests/CODE.test checked against nothing

    @property
    def lines_left_out(self) -> int:
        """Source lines whose forms are not in the build: lines that cannot be read (skipped, not
        a warning) and entries naming a model with no file. `lexicon build --strict` fails on
        them, as on a word list's line left out: a broken rule loses words as silently."""
        return sum(problem.skipped for problem in self.problems) + sum(m.count for m in self.missing_models)

    def lines(self) -> list[str]:
        out = [
            f"lemmas read: {self.lemmas:,}",
            f"forms generated: {self.forms:,}",
            f"distinct spellings: {self.spellings:,}",
        ]

        def section(title: str, items: Iterable[object], limit: int | None = None) -> None:
            items = list(items)
            out.append(f"{title}: {len(items) if items else 'none'}")
            for item in items[:limit]:
                out.extend("  " + line for line in str(item).splitlines())
            if limit is not None and len(items) > limit:
                out.append(f"  ... and {len(items) - limit} more")

        section("lines that cannot be parsed or were read with a warning", self.problems)
        section("model codes with no model file", self.missing_models)
        section("models no lemma uses", self.unused_models)
        section("rules that never apply to any lemma", self.unused_rules)
        section("entries that give no form", self.empty_entries)
        section("verb models whose reference lemma does not give tests/CODE.test", self.test_mismatches)
        section("verb-model rules whose example is not what they give", self.example_mismatches)
        section("verb models with no test file", self.verb_models_without_test)
        section("test files of no verb model (not checked)", self.tests_without_verb_model)
        section("entry lines repeated verbatim", self.duplicate_entries, limit=10)
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def parse_test(text: str) -> frozenset[str]:
    """Expected forms of a test file: one per line; ``#`` lines are comments. A byte-order mark
    (a file saved by Notepad) is not part of the first form, as it is of no entry or model line:
    the report listed 'caçar' as both missing and extra."""
    lines = (line.strip() for line in text.removeprefix("\ufeff").splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def read_tests(directory: str | Path) -> dict[str, frozenset[str]]:
    """Read every ``CODE.test`` of a directory, keyed by code."""
    directory = Path(directory)
    if not directory.is_dir():
        return {}
    return {path.stem: parse_test(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.test"))}


def check_reference_lemmas(models: Mapping[str, Model], tests: Mapping[str, frozenset[str]]) -> list[TestMismatch]:
    """Verb models (1-199) with a test file whose reference lemma differs from it.

    The reference lemma is inflected exactly like an entry of category ``v.``
    (so a pronominal reference lemma would lose its ending too).
    """
    compiled = compile_models({c: m for c, m in models.items() if m.is_verb and c in tests})
    out = []
    for code, model in compiled.items():
        ref = models[code].reference_lemma
        generated = set(model.inflect(ref)[0]) if ref else set()
        expected = tests[code]
        missing, extra = expected - generated, generated - expected
        if missing or extra or not ref:
            out.append(TestMismatch(code, ref, tuple(sorted(missing)), tuple(sorted(extra))))
    return out


def check_examples(models: Mapping[str, Model]) -> list[ExampleMismatch]:
    """Verb-model rules whose form of the reference lemma differs from the example."""
    out = []
    for code, model in compile_models({c: m for c, m in models.items() if m.is_verb}).items():
        ref = models[code].reference_lemma
        if not ref:
            continue
        forms, applying = model.inflect(ref)
        given = dict(zip(applying.rules, forms, strict=True))
        for k, rule in enumerate(model.rules):
            generated = given.get(k)
            if not rule.example or (generated is None and rule.alternative):
                continue
            if generated != rule.example:
                out.append(ExampleMismatch(code, rule.line_no, str(rule), generated))
    return out


def duplicate_entries(entries: Iterable[Entry]) -> list[DuplicateEntry]:
    """Entry lines (lemma, category, model) that occur more than once."""
    seen: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for e in entries:
        seen[(e.lemma, e.category, e.model)].append(e.line_no)
    return [DuplicateEntry(*key, tuple(nos)) for key, nos in seen.items() if len(nos) > 1]


def rule_usage(
    entries: Sequence[Entry],
    models: Mapping[str, Model | CompiledModel],
    ends: Sequence[int] | None = None,
) -> tuple[dict[str, set[int]], list[EmptyEntry], dict[str, list[Entry]]]:
    """Which rules apply to at least one lemma, per model.

    Returns (model code -> indexes of rules that applied somewhere, entries
    that give no form, model code -> entries of codes with no model file).

    ``ends``, from :func:`expand_forms` run on these entries with these very
    compiled ``models`` (and on nothing else), saves matching every lemma a
    second time: an entry gave no form exactly when no rule applied to it,
    and the rules that applied somewhere are those of the plans the
    expansion made for each model.
    """
    compiled = compile_models(models)
    matched: dict[str, set[int]] = defaultdict(set)
    empty: list[EmptyEntry] = []
    missing: dict[str, list[Entry]] = defaultdict(list)
    for k, entry in enumerate(entries):
        model = compiled.get(entry.model)
        if model is None:
            missing[entry.model].append(entry)
            continue
        # Creates the model's set even when empty: a model with lemmas is
        # used, whether or not any of its rules applies.
        used = matched[entry.model]
        if ends is None:
            rules = model.applying(entry.lemma, entry.is_verb).rules
            used.update(rules)
            gave_forms = bool(rules)
        else:
            gave_forms = ends[k] > (ends[k - 1] if k else 0)
        if not gave_forms:
            empty.append(EmptyEntry(entry.line_no, entry.lemma, entry.model))
    if ends is not None:
        for code, used in matched.items():
            for applying in compiled[code].plans.values():
                used.update(applying.rules)
    return matched, empty, missing


def build_report(
    source: DiscSource,
    tests: Mapping[str, frozenset[str]] | None = None,
    counts: tuple[int, int] | None = None,
    expanded: tuple[Mapping[str, CompiledModel], Sequence[int]] | None = None,
) -> DiscReport:
    """Expand the source and run every check on it.

    ``counts``, (forms, distinct spellings), saves expanding the source again
    when the caller has already done so; ``expanded``, the compiled models and
    the ``ends`` that :func:`expand_forms` used and gave for ``source.entries``,
    saves matching its lemmas again (see :func:`rule_usage`).
    """
    if counts is None:
        spellings = [row[0] for row in expand_rows(source.entries, source.models)]
        counts = len(spellings), len(set(spellings))
    matched, empty, missing = rule_usage(source.entries, *(expanded or (source.models,)))
    unused_models = tuple(code for code in source.models if code not in matched)
    unused_rules = tuple(
        UnusedRule(code, rule.line_no, str(rule))
        for code, model in source.models.items()
        if code in matched
        for k, rule in enumerate(model.rules)
        if k not in matched[code]
    )
    missing_models = tuple(
        MissingModel(code, len(es), tuple((e.line_no, e.lemma) for e in es[:EXAMPLES])) for code, es in missing.items()
    )
    tests = tests or {}
    verb_codes = [c for c, m in source.models.items() if m.is_verb]
    return DiscReport(
        lemmas=len(source.entries),
        forms=counts[0],
        spellings=counts[1],
        problems=tuple(source.problems),
        missing_models=missing_models,
        unused_models=unused_models,
        unused_rules=unused_rules,
        empty_entries=tuple(empty),
        test_mismatches=tuple(check_reference_lemmas(source.models, tests)),
        example_mismatches=tuple(check_examples(source.models)),
        duplicate_entries=tuple(duplicate_entries(source.entries)),
        verb_models_without_test=tuple(c for c in verb_codes if c not in tests),
        tests_without_verb_model=tuple(c for c in tests if c not in verb_codes),
    )
