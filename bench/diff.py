"""`lexicon diff` figures: two lists of about 640,000 words in ≤ 2 s and ≤ 300 MB.

The one older release of the default list's package, an-array-of-spanish-words 1.0.1, is another
list altogether (about 250,000 words from another source), so it cannot give the size figure.
The two sizes are measured on the default list (636,598 words) against a deterministic variant
of it, shaped like a new release of the same list: every 27th word removed, and every 25th word
spelled backwards added (about 24,000 and 25,000 words, as FILE2017 and the default list each
hold some 23,000 to 26,000 words the other lacks). The real 1.0.1 → 2.0.0 comparison is measured
too, from the npm tarball (650 KB), fetched once with `npm pack` and checked against its published
SHA-512, then kept in build/bench/; it is never committed.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from build_tools.compiler import build
from build_tools.sources import load_source
from lexicon.diff import diff
from lexicon.lexfile import Lexicon, LexiconMeta
from lexicon.tokenizer import tokenizer

from .table import Table, median_seconds, peak_memory_mb

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "data" / "es-letterpress" / "words.txt.xz"
CACHE = REPO / "build" / "bench"
LEXICON_BIN = Path(sys.executable).parent / "lexicon"
SECONDS_TARGET, MEMORY_TARGET_MB = 2.0, 300

# The older release, as the npm registry publishes it (`npm view an-array-of-spanish-words@1.0.1 dist`).
OLD_RELEASE = "an-array-of-spanish-words-1.0.1.tgz"
OLD_RELEASE_SPEC = "an-array-of-spanish-words@1.0.1"
OLD_RELEASE_SHA512 = "ycyyh41CSz6hP+vQVFhx7RiL7moAHdj80jPGPQrq6PdRr9u8Tle3pn+tpo9WLThMD4+sM7GA+Lv0a5Gi3Eyi2g=="


def variant_words(words: list[str]) -> list[str]:
    """The default list as a new release might change it: deterministic, about 4 % each way."""
    kept = [word for i, word in enumerate(words) if i % 27 != 13]
    return kept + [word[::-1] for word in words[::25]]


def _compile(text: str, lexicon_id: str, out: Path) -> tuple[Path, int]:
    data, report = build(text, tokenizer("es"), LexiconMeta(lexicon_id, "es", lexicon_id, "bench"))
    out.write_bytes(data)
    return out, report.words


def _old_release(compiled: Path) -> Path:
    """1.0.1 compiled into `compiled` (what is no word of tiles is left out, as `lexicon build`
    does); only the tarball is kept, so the compiled file is always this compiler's."""
    CACHE.mkdir(parents=True, exist_ok=True)
    tarball = CACHE / OLD_RELEASE
    if not tarball.is_file():  # npm, the registry's own client, fetches it
        subprocess.run(
            ["npm", "pack", OLD_RELEASE_SPEC, "--pack-destination", os.fspath(CACHE), "--silent"],
            check=True,
            capture_output=True,
            timeout=300,
        )
    if base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode() != OLD_RELEASE_SHA512:
        tarball.unlink()
        raise RuntimeError(f"{OLD_RELEASE}: not the published {OLD_RELEASE_SPEC} (SHA-512 differs)")
    with tarfile.open(tarball) as archive:
        words = json.load(io.TextIOWrapper(archive.extractfile("package/palabras.json"), encoding="utf-8"))
    _compile("\n".join(words) + "\n", "npm-1.0.1", compiled)
    return compiled


def _command_seconds(old: Path, new: Path) -> tuple[float, float]:
    """`lexicon diff OLD NEW > /dev/null` as a person runs it, interpreter start to exit: the
    median wall time of 3, and the median CPU time (user + system) of the same runs, which a
    machine loaded by other work disturbs far less than the wall time."""
    walls, cpus = [], []
    for _ in range(3):
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(
            [str(LEXICON_BIN), "diff", os.fspath(old), os.fspath(new)], check=True, stdout=subprocess.DEVNULL
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def sizes(words: list[str] | None = None, old_release: Callable[[Path], Path] = _old_release) -> Table:
    """The section's table; `words` (default: the default list) and `old_release` let
    tests/bench/test_diff.py run it on a small list without the network."""
    table = Table("`lexicon diff` on two lists of about 640,000 words")
    with tempfile.TemporaryDirectory() as tmp:
        if words is None:
            words = load_source(str(SOURCE)).text.split()
        old, old_words = _compile("\n".join(words) + "\n", "default", Path(tmp) / "old.lex")
        new, new_words = _compile("\n".join(variant_words(words)) + "\n", "variant", Path(tmp) / "new.lex")
        change = diff(Lexicon.open(old), Lexicon.open(new))
        counts = change.counts()
        table.add(
            "the lists: the default, and its deterministic variant (bench/diff.py)",
            f"{old_words:,} and {new_words:,} words",
        )
        table.add("added / removed / kept", f"{counts['added']:,} / {counts['removed']:,} / {counts['kept']:,}")
        core = median_seconds(lambda: diff(Lexicon.open(old), Lexicon.open(new)).lines())
        table.add("open both, compare, lines in tile order (in process, median of 5)", f"{core:.2f} s")
        command, cpu = _command_seconds(old, new)
        table.add(
            "`lexicon diff OLD NEW > /dev/null`, start to exit (median of 3)",
            f"{command:.2f} s",
            f"≤ {SECONDS_TARGET:.0f} s",
            command <= SECONDS_TARGET,
        )
        table.add("the same, CPU time of the process (user + system, median of 3)", f"{cpu:.2f} s")
        peak = peak_memory_mb(["diff", os.fspath(old), os.fspath(new)])
        table.add(
            "peak memory of `lexicon diff` (VmHWM of the process)",
            f"{peak:.0f} MB",
            f"≤ {MEMORY_TARGET_MB} MB",
            peak <= MEMORY_TARGET_MB,
        )
        default = Path(tmp) / "old.lex"
        try:
            release = old_release(Path(tmp) / "npm-1.0.1.lex")
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:
            table.add("an-array-of-spanish-words 1.0.1 → 2.0.0 (the real releases)", f"not measured: {error}")
            return table
        change = diff(Lexicon.open(release), Lexicon.open(default))
        counts = change.counts()
        seconds, cpu = _command_seconds(release, default)
        table.add(
            f"an-array-of-spanish-words 1.0.1 ({len(Lexicon.open(release)):,} words once compiled) "
            f"→ 2.0.0: added / removed / kept",
            f"{counts['added']:,} / {counts['removed']:,} / {counts['kept']:,}",
        )
        table.add(
            "`lexicon diff` of those two, start to exit / CPU time (medians of 3)", f"{seconds:.2f} s / {cpu:.2f} s"
        )
    return table


def run() -> list[Table]:
    return [sizes()]
