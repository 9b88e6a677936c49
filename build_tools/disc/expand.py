"""Expand DISC lemmas (`entrades.txt`) into inflected forms.

Semantics (docs/disc.md, "Expansion semantics"): a rule applies to a lemma when
its condition matches the END of the lemma and, if its strip pattern is not
empty, the strip pattern matches the end too; the form is the lemma with the
end matched by strip replaced by add (an empty strip appends add).  When a
pattern could match ends of different lengths, the longest end is replaced
(the leftmost match that reaches the end), which is what an end-anchored
regex search finds.  Pronominal verb lemmas (``-se``, ``'s``, ``’s``) lose that
ending before any rule sees them.

Speed matters (the whole Catalan build must fit in a few seconds), so each
distinct (condition, strip) pair is compiled once into a matcher, literal
patterns use ``str.endswith`` instead of a regex, and within a model each
pair is evaluated once per lemma however many rules share it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

from .models import FIELD_SPLIT_DOCUMENTED, Model, ParseProblem, Rule, read_models, to_regex

__all__ = [
    "PRONOMINAL_ENDINGS",
    "TSV_HEADER",
    "CompiledModel",
    "DiscSource",
    "Entry",
    "Row",
    "compile_model",
    "compile_models",
    "expand_forms",
    "expand_rows",
    "parse_entries",
    "read_entries",
    "read_source",
    "row_of",
    "stem",
    "tsv_lines",
]

#: Endings of pronominal verb lemmas, removed before inflecting.
PRONOMINAL_ENDINGS = ("-se", "'s", "\u2019s")
TSV_HEADER = "form\tlemma\tcategory\tmodel\ttag"
_REGEX_CHARS = frozenset(".^$*+?{}[]\\|()")

# A matcher returns where the replaced end starts, or None if the rule's
# (condition, strip) pair does not apply to the stem.
Matcher = Callable[[str], "int | None"]
#: ``(form, lemma, category, model, tag)``
Row = tuple[str, str, str, str, str]


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of entrades.txt: ``lemma|category|model``."""

    lemma: str
    category: str
    model: str
    line_no: int
    #: One of the categories (``adj.~v.``) is ``v.``: a pronominal ending is removed.
    is_verb: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Computed once here: every pass over the entries asks it of each one.
        object.__setattr__(self, "is_verb", "v." in self.category.split("~"))


@dataclass(frozen=True, slots=True)
class Applying:
    """The rules of a model that apply to every stem matching the same (condition, strip) pairs."""

    steps: tuple[tuple[int, str], ...]  # (matcher index, add) of each rule that applies
    rules: tuple[int, ...]  # the index of each of those rules in the model
    tags: tuple[str, ...]  # and its tag


@dataclass(frozen=True, slots=True)
class CompiledModel:
    """A model ready for fast expansion.

    ``matchers`` holds one matcher per distinct (condition, strip) pair of the
    model (``pairs``); ``steps`` follows rule order as ``(matcher index, add,
    rule index)``; ``rules`` holds the rules as parsed and ``tags`` their tags.
    The lemmas of a model fall into a few patterns of which pairs match, so
    the rules that apply are worked out once per pattern (``plans``).
    """

    code: str
    matchers: tuple[Matcher, ...]
    pairs: tuple[tuple[str, str], ...]
    steps: tuple[tuple[int, str, int], ...]
    rules: tuple[Rule, ...]
    tags: tuple[str, ...]
    plans: dict[tuple[bool, ...], Applying] = field(default_factory=dict, compare=False, repr=False)

    def inflect(self, lemma: str, is_verb: bool = True) -> tuple[list[str], Applying]:
        """The forms ``lemma`` gives, in rule order, and the rules that gave them.

        The one expansion loop: the TSV rows, the compiler's forms and the
        checks of the reference lemmas are all read from it.  Each (condition,
        strip) pair is tried once, however many rules share it, and only the
        rules that apply are visited.
        """
        s = stem(lemma, is_verb)
        starts = [m(s) for m in self.matchers]
        applying = self.plans.get(key := tuple([start is None for start in starts])) or self._plan(key)
        return [s[: starts[i]] + add for i, add in applying.steps], applying

    def applying(self, lemma: str, is_verb: bool = True) -> Applying:
        """The rules that apply to ``lemma``, without building its forms."""
        s = stem(lemma, is_verb)
        key = tuple([m(s) is None for m in self.matchers])
        return self.plans.get(key) or self._plan(key)

    def _plan(self, key: tuple[bool, ...]) -> Applying:
        """The rules that apply to a stem whose pairs fail where ``key`` is true."""
        steps = [(i, add, k) for i, add, k in self.steps if not key[i]]
        applying = self.plans[key] = Applying(
            tuple((i, add) for i, add, _ in steps), tuple(k for *_, k in steps), tuple(self.tags[k] for *_, k in steps)
        )
        return applying


def parse_entries(text: str, source: str = "entrades.txt") -> tuple[list[Entry], list[ParseProblem]]:
    """Parse entrades.txt text; blank lines and ``#`` lines are skipped.

    A line with more than three fields keeps its first three (reported as a
    warning, because the extra fields are data nobody reads); a line with
    fewer, or with an empty lemma or model, is reported and skipped.
    """
    entries: list[Entry] = []
    problems: list[ParseProblem] = []
    for line_no, raw in enumerate(text.splitlines(), 1):
        # Surrounding whitespace is never data, of the line or of a field: a
        # maintainer who writes "col·legi | m. | 201" for legibility means the
        # model "201", not " 201" (no file: the lemma silently gave no form).
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("#"):
            continue
        fields = [field.strip() for field in line.split("|")]
        if len(fields) < 3 or not fields[0] or not fields[2]:
            why = (
                f"{len(fields)} field(s)"
                if len(fields) < 3
                else "an empty lemma"
                if not fields[0]
                else "an empty model"
            )
            problems.append(ParseProblem(source, line_no, line, f"expected 'lemma|category|model', found {why}"))
            continue
        if len(fields) > 3:
            problems.append(
                ParseProblem(
                    source,
                    line_no,
                    line,
                    f"{len(fields) - 3} extra field(s) after 'lemma|category|model' ignored",
                    skipped=False,
                )
            )
        entries.append(Entry(fields[0], fields[1], fields[2], line_no))
    return entries, problems


def read_entries(path: str | Path) -> tuple[list[Entry], list[ParseProblem]]:
    path = Path(path)
    return parse_entries(path.read_text(encoding="utf-8"), str(path))


@dataclass(frozen=True, slots=True)
class DiscSource:
    """A DISC source directory as read: entries, models and what went wrong."""

    entries: tuple[Entry, ...]
    models: Mapping[str, Model]
    problems: tuple[ParseProblem, ...]


def read_source(directory: str | Path, field_split: str = FIELD_SPLIT_DOCUMENTED) -> DiscSource:
    """Read ``entrades.txt`` and ``models/*.model`` of a DISC source directory."""
    directory = Path(directory)
    entries, entry_problems = read_entries(directory / "entrades.txt")
    models, model_problems = read_models(directory / "models", field_split)
    return DiscSource(tuple(entries), models, tuple(model_problems + entry_problems))


def stem(lemma: str, is_verb: bool = True) -> str:
    """The lemma the rules see: a pronominal verb loses ``-se``/``'s``/``’s``."""
    if is_verb and lemma.endswith(PRONOMINAL_ENDINGS):  # one C call for the usual case, no ending
        for ending in PRONOMINAL_ENDINGS:
            if lemma.endswith(ending):
                return lemma[: -len(ending)]
    return lemma


def _is_literal(pattern: str) -> bool:
    return not _REGEX_CHARS.intersection(pattern)


def _make_matcher(condition: str, strip: str) -> Matcher:
    """Build the matcher for one (condition, strip) pair."""
    always = condition == "."
    cond_literal = _is_literal(condition)
    cond_re = None if always or cond_literal else re.compile(f"(?:{to_regex(condition)})\\Z")

    def condition_holds(s: str) -> bool:
        if always:
            return True
        if cond_literal:
            return s.endswith(condition)
        return cond_re.search(s) is not None

    if not strip:
        return lambda s: len(s) if condition_holds(s) else None
    if _is_literal(strip):
        cut = len(strip)
        return lambda s: len(s) - cut if s.endswith(strip) and condition_holds(s) else None
    strip_re = re.compile(f"(?:{to_regex(strip)})\\Z")

    def match(s: str) -> int | None:
        m = strip_re.search(s)
        return m.start() if m is not None and condition_holds(s) else None

    return match


def compile_model(model: Model, cache: dict[tuple[str, str], Matcher] | None = None) -> CompiledModel:
    """Group a model's rules by (condition, strip) and build their matchers.

    ``cache`` shares matchers between models (many models repeat ``ar`` or
    ``.``), so each distinct pair is compiled once per build.
    """
    cache = {} if cache is None else cache
    index: dict[tuple[str, str], int] = {}
    steps = []
    for k, rule in enumerate(model.rules):
        pair = (rule.condition, rule.strip)
        if pair not in index:
            index[pair] = len(index)
            if pair not in cache:
                cache[pair] = _make_matcher(*pair)
        steps.append((index[pair], rule.add, k))
    pairs = tuple(index)
    return CompiledModel(
        model.code,
        tuple(cache[p] for p in pairs),
        pairs,
        tuple(steps),
        model.rules,
        tuple(rule.tag for rule in model.rules),
    )


def compile_models(models: Mapping[str, Model | CompiledModel]) -> dict[str, CompiledModel]:
    """Every model compiled (those already compiled are kept), sharing one matcher cache."""
    cache: dict[tuple[str, str], Matcher] = {}
    return {code: m if isinstance(m, CompiledModel) else compile_model(m, cache) for code, m in models.items()}


def expand_rows(entries: Iterable[Entry], models: Mapping[str, Model | CompiledModel]) -> Iterator[Row]:
    """Every form as a plain ``(form, lemma, category, model, tag)`` tuple.

    Entry order, then rule order.  This is the fast path (the compiler and
    the TSV writer use it): building ~900,000 frozen dataclasses would cost
    more than the expansion itself.  Entries whose model does not exist give
    no form (the checks report them); duplicate entry lines give duplicate
    rows, since the source says them twice.
    """
    compiled = compile_models(models)
    for entry in entries:
        model = compiled.get(entry.model)
        if model is None:
            continue
        forms, applying = model.inflect(entry.lemma, entry.is_verb)
        yield from zip(forms, repeat(entry.lemma), repeat(entry.category), repeat(entry.model), applying.tags)


def expand_forms(entries: Iterable[Entry], models: Mapping[str, Model | CompiledModel]) -> tuple[list[str], list[int]]:
    """The spellings alone, in the order of :func:`expand_rows`, and where each entry's end.

    ``ends[k]`` is the number of forms given by entries ``0..k``, so entry ``k``
    gave ``forms[ends[k - 1]:ends[k]]``.  This is the compiler's path: one
    string per form and one integer per entry, nothing else kept; the rare
    form a report has to name is found again by :func:`row_of`.
    """
    compiled = compile_models(models)
    forms: list[str] = []
    ends: list[int] = []
    for entry in entries:
        model = compiled.get(entry.model)
        if model is not None:
            forms += model.inflect(entry.lemma, entry.is_verb)[0]
        ends.append(len(forms))
    return forms, ends


def row_of(
    index: int,
    entries: Sequence[Entry],
    models: Mapping[str, Model | CompiledModel],
    ends: Sequence[int],
) -> Row:
    """The row of form ``index`` of :func:`expand_forms` (its lemma, category, model, tag).

    Finds the entry by bisection and expands that entry alone again: cheap
    enough for every form a report names, with nothing stored per form (pass
    the models compiled, see :func:`compile_models`, when calling it often).
    """
    k = _entry_index(index, ends)
    entry = entries[k]
    first = ends[k - 1] if k else 0
    return list(expand_rows([entry], {entry.model: models[entry.model]}))[index - first]


def entry_of(index: int, entries: Sequence[Entry], ends: Sequence[int]) -> Entry:
    """The entry (its line of entrades.txt) that gave form ``index`` of :func:`expand_forms`."""
    return entries[_entry_index(index, ends)]


def _entry_index(index: int, ends: Sequence[int]) -> int:
    if not 0 <= index < (ends[-1] if ends else 0):
        raise IndexError(f"form {index} out of range")
    return bisect_right(ends, index)


def tsv_lines(rows: Iterable[Row], header: bool = False) -> Iterator[str]:
    """``form\\tlemma\\tcategory\\tmodel\\ttag`` lines (no newline) from rows."""
    if header:
        yield TSV_HEADER
    for row in rows:
        yield "\t".join(row)
