"""DISC figures: the whole Catalan build from lemmas and models, its stages, its memory.

The target: expansion + normalization + compile of the whole DISC source in at
most 4 s median on this machine, where the authors' generator alone (expansion, checks, writing
its output; no compiling) takes about 4 s. That generator is not in this repository, so its time
is quoted, not measured; `lexicon expand` (read, expand, write every form and tag as TSV) is the
nearest thing to it here and is measured side by side.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path

from build_tools.compiler import build, collect_keys, write_atomically
from build_tools.disc.checks import build_report, read_tests
from build_tools.disc.expand import compile_models, expand_forms, read_source
from build_tools.report import BuildReport
from build_tools.sources import load_source
from lexicon.lexfile import LexiconMeta, compile_lexicon
from lexicon.tokenizer import tokenizer
from lexicon_cli.expand import expand as expand_command

from .table import Table, median_seconds, peak_memory_mb

SOURCE = Path(__file__).resolve().parents[1] / "data" / "ca-disc"
META = LexiconMeta(id="disc-bench", language="ca", name="DISC", version="bench")
AUTHORS_SECONDS = 4.0  # the authors' generator alone, on this machine; quoted, never judged
END_TO_END_TARGET = 4.0
MEMORY_TARGET_MB = 300  # as the Spanish build's


def _end_to_end(out: Path) -> int:
    """What `lexicon build DIR --from disc` does: checksum, read, expand, check, tokenize, compile, write."""
    source = load_source(str(SOURCE), "disc")
    data, report = build(source.text, tokenizer("ca"), META, source.locate)
    report.notes.extend(source.notes)
    write_atomically(out, data)
    return report.words


def _expansion() -> int:
    source = read_source(SOURCE)
    forms, _ = expand_forms(source.entries, compile_models(source.models))
    return len(forms)


def _expand_command(out: Path) -> None:
    with contextlib.redirect_stderr(io.StringIO()):  # its one-line summary is not a figure
        expand_command.main([str(SOURCE), "-o", str(out)], standalone_mode=False)


def _stages() -> list[tuple[str, float]]:
    """Each stage alone, median of 3, in the order the build runs them."""
    source = read_source(SOURCE)
    tests = read_tests(SOURCE / "tests")
    compiled = compile_models(source.models)
    forms, ends = expand_forms(source.entries, compiled)
    spellings = list(dict.fromkeys(forms))
    text = "\n".join(spellings)
    keys = collect_keys(text, tokenizer("ca"), BuildReport())
    return [
        (
            "read entrades.txt, models, tests",
            median_seconds(lambda: (read_source(SOURCE), read_tests(SOURCE / "tests")), 3),
        ),
        ("expand (forms only)", median_seconds(lambda: expand_forms(source.entries, compiled), 3)),
        ("distinct spellings, first form of each", median_seconds(lambda: dict.fromkeys(forms), 3)),
        (
            "DISC checks (rule usage, tests, duplicates)",
            median_seconds(lambda: build_report(source, tests, (len(forms), len(spellings)), (compiled, ends)), 3),
        ),
        (
            "normalize + tokenize + sort out (collect_keys)",
            median_seconds(lambda: collect_keys(text, tokenizer("ca"), BuildReport()), 3),
        ),
        (
            "compile the trie (compile_lexicon)",
            median_seconds(lambda: compile_lexicon(keys, META, tokenizer("ca").alphabet), 3),
        ),
    ]


def _peak_memory_mb(out: Path) -> float:
    """`lexicon build --from disc` in a child process: the peak resident size of that process."""
    return peak_memory_mb(
        [
            "build",
            os.fspath(SOURCE),
            "--from",
            "disc",
            "--lang",
            "ca",
            "--id",
            "b",
            "--version",
            "1",
            "-o",
            os.fspath(out),
        ]
    )


def run() -> list[Table]:
    table = Table("Catalan lexicon from the DISC sources : 68,746 lemmas, 897,243 forms")
    with tempfile.TemporaryDirectory() as tmp:
        out, tsv = Path(tmp) / "ca.lex", Path(tmp) / "forms.tsv"
        words = _end_to_end(out)
        ours = median_seconds(lambda: _end_to_end(out))
        table.add(
            "expansion + checks + normalization + compile + write (`lexicon build --from disc`), median of 5",
            f"{ours:.2f} s",
            f"≤ {END_TO_END_TARGET:.0f} s",
            ours <= END_TO_END_TARGET,
        )
        expansion = median_seconds(_expansion)
        table.add("expansion alone (read entrades.txt + models, expand every form), median of 5", f"{expansion:.2f} s")
        command = median_seconds(lambda: _expand_command(tsv), 3)
        table.add_reference(
            "`lexicon expand` (read, expand, write every form and tag as TSV), median of 3",
            f"{command:.2f} s",
            f"the authors' generator, about {AUTHORS_SECONDS:.0f} s (quoted)",
        )
        for stage, seconds in _stages():
            table.add(f"stage: {stage}", f"{seconds:.2f} s")
        peak = _peak_memory_mb(Path(tmp) / "peak.lex")
        table.add(
            "peak memory of `lexicon build --from disc` (peak resident size of the process, VmHWM)",
            f"{peak:.0f} MB",
            f"≤ {MEMORY_TARGET_MB} MB",
            peak <= MEMORY_TARGET_MB,
        )
        table.add("words compiled", f"{words:,}", "about 583,000 (expected)", abs(words - 583_000) < 1_000)
    return [table]
