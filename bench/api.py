"""`make bench` section "api": reading a request body into its type, by the three ways measured.

    python -m bench api

The service reads every body with msgspec into the types of service/types.py. This section
measures why: decoding and validating the same 3-word challenge body (and a 100-play batch)

- with msgspec, as the service does (service.decoding.decode, plus the count of member names that
  catches a member given twice),
- with pydantic v2 (`model_validate_json` of an equivalent model: the other usual choice),
- with the hand-written path the service had before (json.JSONDecoder, then isinstance checks of
  every member; copied here as the reference, the service no longer has it).

All in one process, interleaved rounds, medians of CPU time (the process's own, which other
loads on a shared machine disturb less than wall time): the ratios are what to read.
pydantic is a dev dependency only (the bench's); if it is missing its rows say so.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.table import Table

PLAY3 = json.dumps({"lexicon": "es", "words": ["CARRO", "CHICO", "PERRO"]}).encode()
BATCH = json.dumps(
    {"lexicon": "es", "plays": [{"id": f"t{n}-r12", "words": ["PINGÜINO", "CAMIÓN", "LLAVE"]} for n in range(100)]},
    ensure_ascii=False,
).encode()


# -- the reference: the hand-written reading the service had before service/types.py -----------

_DECODER = json.JSONDecoder(parse_int=float)
_MEMBERS = ("lexicon", "words", "notation")


def handwritten(data: bytes) -> tuple[str, list[str], str]:
    body = _DECODER.decode(data.decode("utf-8"))
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    for name in body:
        if name not in _MEMBERS:
            raise ValueError(f"unknown member {name!r}")
    for name in ("lexicon", "words"):
        if name not in body:
            raise ValueError(f"lacks {name!r}")
    words = body["words"]
    if not isinstance(words, list):
        raise ValueError("words must be an array")
    if not 1 <= len(words) <= 8:
        raise ValueError("play size")
    for word in words:
        if not isinstance(word, str):
            raise ValueError("a word must be a string")
    if not isinstance(body["lexicon"], str):
        raise ValueError("lexicon must be a string")
    notation = body.get("notation", "spelling")
    if notation not in ("spelling", "tiles"):
        raise ValueError("notation")
    return body["lexicon"], words, notation


def pydantic_reader() -> Callable[[bytes], Any] | None:
    try:
        from typing import Annotated, Literal

        from pydantic import BaseModel, ConfigDict, Field, StrictStr
    except ImportError:
        return None

    class ChallengeRequest(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        lexicon: StrictStr
        words: Annotated[list[Annotated[StrictStr, Field(max_length=64)]], Field(min_length=1, max_length=8)]
        notation: Literal["spelling", "tiles"] = "spelling"

    return ChallengeRequest.model_validate_json


def msgspec_readers() -> tuple[Callable[[bytes], Any], Callable[[bytes], Any], Callable[[bytes], Any]]:
    """The service's own reading: alone, with its count of member names, and a whole batch."""
    from msgspec import UNSET

    from service.decoding import BATCH, CHALLENGE, PLAY, decode, members

    def decoder_alone(data: bytes):
        return CHALLENGE.decode(data)

    def challenge(data: bytes):
        body = decode(CHALLENGE, data)
        if members(data) != 2 + (body.notation is not UNSET):
            raise AssertionError("a member given twice in the bench's own body?")
        return body

    def batch(data: bytes):
        envelope = decode(BATCH, data)
        counts = [members(bytes(raw)) for raw in envelope.plays]
        assert members(data) - sum(counts) == 2
        return [decode(PLAY, raw) for raw in envelope.plays]

    return decoder_alone, challenge, batch


def per_call_us(
    runs: dict[str, Callable[[], object]], number: int, rounds: int = 15, clock: Callable[[], float] = time.process_time
) -> dict[str, float]:
    """Median µs per call of each run (CPU time unless another clock is given), measured in
    interleaved rounds (drifts hit all alike)."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for run in runs.values():
        run()
    for _ in range(rounds):
        for name, run in runs.items():
            start = clock()
            for _ in range(number):
                run()
            samples[name].append((clock() - start) / number * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def run(number: int = 5000, rounds: int = 15, batch_number: int = 50, batch_rounds: int = 7) -> list[Table]:
    """The section's table; tests/bench/test_api.py runs it with small counts."""
    decode, challenge, batch = msgspec_readers()
    pydantic = pydantic_reader()
    runs: dict[str, Callable[[], object]] = {
        "hand-written": lambda: handwritten(PLAY3),
        "msgspec": lambda: challenge(PLAY3),
        "msgspec decode alone": lambda: decode(PLAY3),
    }
    if pydantic is not None:
        runs["pydantic"] = lambda: pydantic(PLAY3)
    figures = per_call_us(runs, number=number, rounds=rounds)
    batch_us = per_call_us({"batch": lambda: batch(BATCH)}, number=batch_number, rounds=batch_rounds)["batch"]

    table = Table(
        "api: reading a 3-word challenge body into its type, in process "
        f"(CPU time, median of {rounds} interleaved rounds of {number:,})"
    )
    base = figures["hand-written"]
    table.add("hand-written json + isinstance checks (before service/types.py)", f"{base:.2f} µs")
    table.add(
        "msgspec, as the service reads it (decode into ChallengeRequest + count of member names)",
        f"{figures['msgspec']:.2f} µs ({base / figures['msgspec']:.1f}× faster)",
        "faster than hand-written",
        figures["msgspec"] < base,
    )
    table.add(
        "msgspec: the decoder alone (no count of member names, no call around it)",
        f"{figures['msgspec decode alone']:.2f} µs",
    )
    if pydantic is not None:
        import pydantic as library

        table.add(
            f"pydantic {library.VERSION} (model_validate_json, strict, same constraints)",
            f"{figures['pydantic']:.2f} µs ({base / figures['pydantic']:.1f}× faster)",
        )
    else:
        table.add("pydantic", "not measured: not installed (pip install -e '.[dev]')")
    table.add(f"msgspec, a batch of 100 plays ({len(BATCH):,} bytes), each play apart", f"{batch_us:.1f} µs")
    return [table]
