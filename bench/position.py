"""`make bench` section "position": does a verdict's time depend on which word failed?

    python -m bench position

The promise: the time of an answer says nothing about which word of the play is not valid. A
play with its one bad word first (`CARROZ` and 7 valid words) and the same play with it last
are judged side by side, in process, one call of each in turn (so that drifts of a shared
machine hit both alike), many times, at each step of the challenge's path:

- `decode`: the body read into its type (msgspec, service.decoding);
- `keys`: the words turned into keys (lexicon.tokenizer, its Latin-1 fast path);
- `lookup`: every key looked up (Lexicon.count_in, marisa-trie);
- `whole`: the whole POST /v1/challenge through the WSGI app (Flask, the body read, the answer's
  fixed bytes), without HTTP or gunicorn;
- `keys, all valid`: the control, the same two orders with a valid word (`CARRON`) in the bad
  one's place. The tokenizer never reads the lexicon, so a difference in `keys` is the text's
  order (where its first CH, LL or RR is found), not the verdict: this row shows how large.

Each step's two samples are compared with the Mann-Whitney U test (normal approximation, ties
corrected; written here, no statistics library): p is how likely a difference this large is
between two samples of one distribution. With tens of thousands of samples a real difference
of a few nanoseconds is found; what matters is its size beside the answer's own time and the
network's jitter (tens of microseconds on a venue's Wi-Fi).
"""

from __future__ import annotations

import io
import json
import math
import statistics
import time
from collections.abc import Callable

from bench.table import Table

VALID = ["CARRO", "CHICO", "PERRO", "CASA", "MESA", "GATO", "LUNA"]
BAD = "CARROZ"  # tiles of Spanish, a prefix of a word (CARRO), no word itself
FIRST = [BAD] + VALID
LAST = VALID + [BAD]
CONTROL = "CARRON"  # a valid word of the same length and letters but one, for the control row


def mann_whitney(a: list[float], b: list[float]) -> float:
    """The two-sided p-value of the Mann-Whitney U test, normal approximation with ties corrected.

    >>> round(mann_whitney([1, 2, 3, 4, 5] * 20, [1, 2, 3, 4, 5] * 20), 3)
    1.0
    >>> mann_whitney(list(range(100)), list(range(50, 150))) < 1e-6
    True
    """
    n1, n2 = len(a), len(b)
    merged = sorted([(value, 0) for value in a] + [(value, 1) for value in b])
    ranks_a = 0.0
    ties = 0.0
    index = 0
    while index < len(merged):
        end = index
        while end + 1 < len(merged) and merged[end + 1][0] == merged[index][0]:
            end += 1
        rank = (index + end) / 2 + 1
        count = end - index + 1
        ties += count**3 - count
        ranks_a += rank * sum(1 for k in range(index, end + 1) if merged[k][1] == 0)
        index = end + 1
    u = ranks_a - n1 * (n1 + 1) / 2
    n = n1 + n2
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
    if sigma == 0:
        return 1.0
    z = (u - n1 * n2 / 2) / sigma
    return math.erfc(abs(z) / math.sqrt(2))


def interleaved(
    first: Callable[[], object], last: Callable[[], object], samples: int, repeat: int
) -> tuple[list[float], list[float]]:
    """ns per call of each, `repeat` calls a sample, one sample of each in turn (which first alternates)."""
    clock = time.perf_counter_ns
    a: list[float] = []
    b: list[float] = []
    for _ in range(max(1, samples // 20)):  # warm both
        first()
        last()
    for n in range(samples):
        pair = ((first, a), (last, b)) if n % 2 == 0 else ((last, b), (first, a))
        for call, into in pair:
            start = clock()
            for _ in range(repeat):
                call()
            into.append((clock() - start) / repeat)
    return a, b


def steps(lexicon_files: list[str] | None = None) -> dict[str, tuple[Callable[[], object], Callable[[], object]]]:
    """Each step of the challenge's path, for the play with its bad word first and last."""
    from lexicon.verdict import lookup_all, play_keys
    from service import create_app
    from service.decoding import CHALLENGE, decode

    app = create_app(
        {
            "LEXICON_FILES": lexicon_files,
            "LEXICON_LOG_LEVEL": "warning",
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
        }
    )
    lexicon = app.extensions["lexicon_registry"].find("es").lexicon
    bodies = {
        name: json.dumps({"lexicon": "es", "words": words}).encode()
        for name, words in (("first", FIRST), ("last", LAST))
    }
    keys = {name: play_keys(lexicon, words) for name, words in (("first", FIRST), ("last", LAST))}
    assert not lookup_all(lexicon, keys["first"]) and not lookup_all(lexicon, keys["last"])
    wsgi = app.wsgi_app

    def whole(body: bytes) -> Callable[[], object]:
        def call():
            environ = {
                "REQUEST_METHOD": "POST",
                "PATH_INFO": "/v1/challenge",
                "SERVER_NAME": "judge",
                "SERVER_PORT": "80",
                "wsgi.url_scheme": "http",
                "CONTENT_LENGTH": str(len(body)),
                "CONTENT_TYPE": "application/json",
                "wsgi.input": io.BytesIO(body),
                "SERVER_PROTOCOL": "HTTP/1.1",
                "wsgi.errors": io.StringIO(),
            }
            return b"".join(wsgi(environ, lambda status, headers, exc_info=None: None))

        return call

    assert whole(bodies["first"])() == whole(bodies["last"])()  # the same bytes, whichever word failed
    return {
        "decode": (lambda: decode(CHALLENGE, bodies["first"]), lambda: decode(CHALLENGE, bodies["last"])),
        "keys": (lambda: play_keys(lexicon, FIRST), lambda: play_keys(lexicon, LAST)),
        "lookup": (lambda: lookup_all(lexicon, keys["first"]), lambda: lookup_all(lexicon, keys["last"])),
        "whole": (whole(bodies["first"]), whole(bodies["last"])),
        "keys, all valid": (
            lambda: play_keys(lexicon, [CONTROL] + VALID),
            lambda: play_keys(lexicon, VALID + [CONTROL]),
        ),
    }


def run(samples: int = 25000, repeat: int = 4, lexicon_files: list[str] | None = None) -> list[Table]:
    """The section's table; tests/bench/test_position.py runs it with small counts."""
    table = Table(
        f"position: the bad word first or last of 8, in process ({samples:,} interleaved samples "
        f"of {repeat} calls each; ns per call, medians; p of Mann-Whitney U)"
    )
    for name, (first, last) in steps(lexicon_files).items():
        a, b = interleaved(first, last, samples if name != "whole" else max(1, samples // 5), repeat)
        ma, mb = statistics.median(a), statistics.median(b)
        table.add(
            f"{name}: first / last / last - first",
            f"{ma:,.0f} / {mb:,.0f} / {mb - ma:+,.0f} ns (p = {mann_whitney(a, b):.2g})",
        )
    return [table]
