"""Parse DISC flexion models (`models/CODE.model`).

A model file is a small hunspell-like rule table written by lexicographers by
hand, so the parser is strict about structure (it must never silently invent
or drop a rule) but reports every line it cannot read instead of raising: a
build report that lists all bad lines at once is more useful to the people
fixing the data than an exception on the first one.

Format (docs/disc.md, "Models")::

    # CODE reference-lemma
    strip add condition tag # example

Fields are separated by ONE space, so two consecutive spaces enclose an empty
field (``re  re VMIP3S00 # abat`` is strip ``re``, add empty, condition ``re``:
abatre -> abat).  ``0`` also means the empty string.  Lines starting with ``#``
after the header are disabled rules (comments).  An example starting with
``ALT:`` marks an alternative form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FIELD_SPLIT_DOCUMENTED",
    "FIELD_SPLIT_WHITESPACE",
    "Model",
    "ParseProblem",
    "Rule",
    "parse_model",
    "read_model",
    "read_models",
    "to_regex",
]

#: Fields separated by exactly one space; ``a  b`` has an empty field between.
FIELD_SPLIT_DOCUMENTED = "documented"
#: Any run of whitespace separates fields (how the authors' generator reads
#: the files).  Kept only to explain their figures: it silently drops rules
#: whose add field is written as an empty field instead of ``0``.
FIELD_SPLIT_WHITESPACE = "whitespace"

_ALT_PREFIX = "ALT:"
_ALT_GROUP = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")


@dataclass(frozen=True, slots=True)
class ParseProblem:
    """A source line that could not be read as intended.

    ``skipped`` tells whether the line was left out (an error) or used anyway
    (a warning, e.g. extra trailing fields), so a report can say whether the
    problem changed the output.
    """

    source: str
    line_no: int
    line: str
    message: str
    skipped: bool = True

    def __str__(self) -> str:
        what = "skipped" if self.skipped else "used"
        return f"{self.source}:{self.line_no}: {self.message} ({what}): {self.line!r}"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule line: replace the end matched by ``strip`` with ``add``.

    ``strip`` and ``condition`` keep the source spelling (``[ix|ss]``); use
    :func:`to_regex` to get a Python regular expression.
    """

    strip: str
    add: str
    condition: str
    tag: str
    example: str
    alternative: bool
    line_no: int

    def __str__(self) -> str:
        alt = _ALT_PREFIX if self.alternative else ""
        return f"{self.strip or '0'} {self.add or '0'} {self.condition} {self.tag} # {alt}{self.example}"


@dataclass(frozen=True, slots=True)
class Model:
    """A flexion model: its code, the lemma its examples inflect, its rules."""

    code: str
    reference_lemma: str | None
    rules: tuple[Rule, ...]
    source: str = ""

    @property
    def is_verb(self) -> bool:
        """Verb models are numbered 1 to 199 (the only ones with test files)."""
        return self.code.isdigit() and 1 <= int(self.code) <= 199


def to_regex(pattern: str) -> str:
    """Translate a DISC pattern to Python regex syntax (not anchored).

    DISC writes alternation as a bracket group holding ``|`` (``[ix|ss]``);
    in a regex that would be a character class of i, x, | and s, so it becomes
    a non-capturing group.  Other brackets (``[^n]``, ``[àé]``) stay classes.
    Each bracket group is translated on its own, so ``[^n][a|b]`` keeps its
    class.
    """
    return _ALT_GROUP.sub(r"(?:\1)", pattern)


def _empty(field: str) -> str:
    return "" if field == "0" else field


def _split_fields(rule_part: str, field_split: str) -> list[str]:
    if field_split == FIELD_SPLIT_WHITESPACE:
        return rule_part.split()
    # Spaces before the '#' are padding, not fields (`VMN00000  # ofrenar`).
    return rule_part.strip(" ").split(" ")


def _parse_rule(line: str, line_no: int, source: str, field_split: str) -> Rule | ParseProblem:
    if "#" not in line:
        return ParseProblem(source, line_no, line, "rule line has no '# example' part")
    rule_part, example = line.split("#", 1)
    fields = _split_fields(rule_part, field_split)
    if len(fields) != 4:
        if field_split == FIELD_SPLIT_WHITESPACE and len(fields) > 4:
            # Emulation of the authors' reader: extra fields are ignored.
            fields = fields[:4]
        else:
            tabs = "; fields are separated by one space, not a tab" if "\t" in rule_part else ""
            return ParseProblem(
                source,
                line_no,
                line,
                f"expected 4 fields 'strip add condition tag', found {len(fields)}{tabs}",
            )
    strip, add, condition, tag = fields
    if not condition or not tag:
        return ParseProblem(source, line_no, line, "empty condition or tag field")
    for name, pattern in (("strip", strip), ("condition", condition)):
        try:
            re.compile(to_regex(pattern))
        except re.error as exc:
            return ParseProblem(source, line_no, line, f"bad {name} pattern: {exc}")
    example = example.strip()
    alternative = example.startswith(_ALT_PREFIX)
    if alternative:
        example = example[len(_ALT_PREFIX) :].strip()
    return Rule(_empty(strip), _empty(add), condition, tag, example, alternative, line_no)


def parse_model(
    text: str,
    code: str,
    source: str = "",
    field_split: str = FIELD_SPLIT_DOCUMENTED,
) -> tuple[Model, list[ParseProblem]]:
    """Parse the text of one model file.

    Returns the model (with every rule that could be read, in file order) and
    the problems found.  ``field_split`` selects the reading of the fields;
    only :data:`FIELD_SPLIT_DOCUMENTED` follows the documented format.
    """
    source = source or f"{code}.model"
    rules: list[Rule] = []
    problems: list[ParseProblem] = []
    reference: str | None = None
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.lstrip("\ufeff") if line_no == 1 else raw
        if line_no == 1:
            parts = line.lstrip("#").split()
            if not line.startswith("#") or not parts:
                problems.append(_no_header(line, source, field_split, rules))
                continue
            if parts[0] != code:
                problems.append(
                    ParseProblem(
                        source, 1, line, f"header code {parts[0]!r} is not the file's code {code!r}", skipped=False
                    )
                )
            if len(parts) >= 2:
                reference = parts[1]
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parsed = _parse_rule(line, line_no, source, field_split)
        if isinstance(parsed, ParseProblem):
            problems.append(parsed)
        else:
            rules.append(parsed)
    return Model(code, reference, tuple(rules), source), problems


def _no_header(line: str, source: str, field_split: str, rules: list[Rule]) -> ParseProblem:
    """The one problem of a first line that is no header: used if it reads as a rule, else skipped
    (one line, one problem: the report counts skipped lines from them)."""
    what = "missing header '# CODE lemma'"
    rule = line.strip() and not line.startswith("#")  # blank, or a comment: no rule to read
    parsed = _parse_rule(line, 1, source, field_split) if rule else None
    if isinstance(parsed, Rule):
        rules.append(parsed)
        return ParseProblem(source, 1, line, f"{what}; read as a rule", skipped=False)
    reason = f", and not a rule: {parsed.message}" if parsed else ""
    return ParseProblem(source, 1, line, what + reason)


def read_model(path: str | Path, field_split: str = FIELD_SPLIT_DOCUMENTED) -> tuple[Model, list[ParseProblem]]:
    """Read one ``CODE.model`` file; the code is the file name's stem."""
    path = Path(path)
    return parse_model(path.read_text(encoding="utf-8"), path.stem, str(path), field_split)


def _code_key(code: str) -> tuple[int, int, str]:
    return (0, int(code), "") if code.isdigit() else (1, 0, code)


def read_models(
    directory: str | Path, field_split: str = FIELD_SPLIT_DOCUMENTED
) -> tuple[dict[str, Model], list[ParseProblem]]:
    """Read every ``*.model`` in a directory, keyed by code in numeric order."""
    models: dict[str, Model] = {}
    problems: list[ParseProblem] = []
    paths = sorted(Path(directory).glob("*.model"), key=lambda p: _code_key(p.stem))
    for path in paths:
        model, found = read_model(path, field_split)
        models[model.code] = model
        problems.extend(found)
    return models, problems
