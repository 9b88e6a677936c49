"""Compiler and verdict figures on the real Spanish list, side by side in one run."""

from __future__ import annotations

import itertools
import os
import re
import tempfile
import timeit
from pathlib import Path

import ahocorasick
import marisa_trie

from build_tools.compiler import build, write_atomically
from build_tools.sources import load_source
from lexicon.lexfile import Lexicon, LexiconMeta
from lexicon.tokenizer import tokenizer
from lexicon.verdict import judge

from .table import Table, median_seconds, peak_memory_mb

SOURCE = Path(__file__).resolve().parents[1] / "data" / "es-letterpress" / "words.txt.xz"
META = LexiconMeta(id="letterpress-es", language="es", name="Letterpress", version="2.0.0")
PLAY = ["CARRO", "CHICO", "LLAVE"]


def _end_to_end(out: Path) -> None:
    """What `lexicon build` does: read, normalize, tokenize, build, write."""
    data, _ = build(load_source(str(SOURCE)).text, tokenizer("es"), META)
    write_atomically(out, data)


def _bare_marisa(keys: list[str], out: Path) -> None:
    marisa_trie.Trie(keys).save(str(out))


def _naive_tokenize(words: list[str]) -> list[str]:
    """The per-word reading a first version would write: a Python loop per word."""
    key = tokenizer("es").key
    return [key(word) for word in words]


def _scan_re(text: str, pattern: re.Pattern, codes: dict) -> str:
    return pattern.sub(lambda m: codes[m.group()], text)


def _scan_ahocorasick(text: str, automaton) -> str:
    out, position = [], 0
    for end, (length, code) in automaton.iter_long(text):
        out.append(text[position : end - length + 1])
        out.append(code)
        position = end + 1
    out.append(text[position:])
    return "".join(out)


def _leftmost_longest(text: str, spellings) -> list[tuple[int, str]]:
    """The reference reading: at each place the longest spelling, else move on one character."""
    found, at, longest = [], 0, max(map(len, spellings))
    while at < len(text):
        for size in range(min(longest, len(text) - at), 0, -1):
            if text[at : at + size] in spellings:
                found.append((at + size - 1, text[at : at + size]))
                at += size
                break
        else:
            at += 1
    return found


def scanners() -> Table:
    """The multi-character spelling scan: `re` (used) against pyahocorasick and str.replace."""
    table = Table("Longest-match scan of the Spanish digraph spellings (pyahocorasick vs the alternatives)")
    tokens = tokenizer("es")
    text = tokens.fold(load_source(str(SOURCE)).text)
    codes = tokens._multi_code  # the data the tokenizer scans with, not a copy of it
    automaton = ahocorasick.Automaton()
    for spelling, code in codes.items():
        automaton.add_word(spelling, (len(spelling), code))
    automaton.make_automaton()
    ordered = sorted(codes, key=len, reverse=True)

    def replace_chain() -> str:
        out = text
        for spelling in ordered:
            out = out.replace(spelling, codes[spelling])
        return out

    expected = _scan_re(text, tokens._multi, codes)
    timings = {
        "str.replace per spelling, longest first (used: no overlaps)": median_seconds(replace_chain),
        "re alternation, longest first (used when spellings overlap)": median_seconds(
            lambda: _scan_re(text, tokens._multi, codes)
        ),
        "pyahocorasick Automaton.iter_long": median_seconds(lambda: _scan_ahocorasick(text, automaton)),
    }
    base = timings["str.replace per spelling, longest first (used: no overlaps)"]
    for name, seconds in timings.items():
        table.add(f"scan 6.5 MB list: {name}", f"{seconds * 1000:.0f} ms ({seconds / base:.2f}×)")
    same = _scan_ahocorasick(text, automaton) == expected == replace_chain()
    table.add("the three give the same text on the real list", "yes" if same else "no")
    # Every string of up to 5 characters over the characters of the spellings plus one letter.
    alphabet = sorted(set("".join(codes)) | {"A"})
    inputs = ["".join(p) for n in range(1, 6) for p in itertools.product(alphabet, repeat=n)]
    wrong = [
        s
        for s in inputs
        if [(e, v) for e, (_, v) in ((e, x) for e, x in automaton.iter_long(s))]
        != [(e, codes[v]) for e, v in _leftmost_longest(s, codes)]
    ]
    example = f", e.g. {wrong[0]!r}" if wrong else ""
    table.add(
        "inputs up to 5 characters where iter_long is not leftmost-longest",
        f"{len(wrong):,} of {len(inputs):,}{example}",
    )
    return table


def compiler() -> Table:
    table = Table("Compiling the Spanish list (636,598 words) and judging")
    with tempfile.TemporaryDirectory() as tmp:
        out, bare = Path(tmp) / "es.lex", Path(tmp) / "bare.marisa"
        words = load_source(str(SOURCE)).text.split()
        keys = sorted(_naive_tokenize(words))
        ours = median_seconds(lambda: _end_to_end(out))
        marisa = median_seconds(lambda: _bare_marisa(keys, bare))
        naive = median_seconds(lambda: _naive_tokenize(words), repeat=3)
        bulk = median_seconds(lambda: tokenizer("es").encode("\n".join(words)), repeat=5)
        table.add(
            "compile end to end (read .xz, normalize, tokenize, build, write), median of 5",
            f"{ours:.2f} s",
            "≤ 1.5 s",
            ours <= 1.5,
        )
        table.add("bare marisa_trie.Trie build + save of the tokenized keys, median of 5", f"{marisa:.2f} s")
        table.add("ratio end to end / bare marisa (same run)", f"{ours / marisa:.2f}×", "≤ 3×", ours / marisa <= 3)
        table.add("tokenize the list, whole-text passes (used)", f"{bulk:.2f} s")
        table.add("tokenize the list, Tokenizer.key word by word", f"{naive:.2f} s ({naive / bulk:.1f}× slower)")
        size, bare_size = out.stat().st_size, bare.stat().st_size
        table.add("compiled size", f"{size / 1e6:.3f} MB ({size:,} B)", "≤ 1.4 MB", size <= 1.4e6)
        table.add(
            "bare marisa on the same keys", f"{bare_size / 1e6:.3f} MB (header + padding: {size - bare_size:,} B)"
        )
        lexicon = Lexicon.open(out)
        runs = 200_000
        seconds = min(timeit.repeat(lambda: judge(lexicon, PLAY), number=runs, repeat=5)) / runs
        table.add(
            "verdict, 3-word play in process, tokenization included (best of 5 × 200k)",
            f"{seconds * 1e6:.2f} µs",
            "≤ 10 µs",
            seconds <= 10e-6,
        )
        peak = peak_memory_mb(
            [
                "build",
                os.fspath(SOURCE),
                "--lang",
                "es",
                "--id",
                "b",
                "--version",
                "1",
                "-o",
                os.fspath(Path(tmp) / "cli.lex"),
            ]
        )
        table.add(
            "peak memory of `lexicon build` (peak resident size of the process, VmHWM)",
            f"{peak:.0f} MB",
            "≤ 300 MB",
            peak <= 300,
        )
    return table


def run() -> list[Table]:
    return [compiler(), scanners()]
