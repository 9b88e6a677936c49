"""A reload under load (part of `make bench` service): requests lost, and time until the new file is served.

`lexicon serve` runs with a copy of the Spanish default; wrk asks verdicts on 64 connections;
meanwhile a smaller Spanish list (the same three words valid in both) replaces the file and
`lexicon reload` runs. wrk counts every failed or non-2xx answer; a poller in this process
times the moment /v1/lexicons first shows the new checksum after the command started.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from bench.table import Table

WORDS = ["CARRO", "CHICO", "PERRO", "CASA", "MESA"]


def small_spanish(path: Path) -> str:
    import hashlib

    from build_tools.compiler import build
    from lexicon.lexfile import LexiconMeta
    from lexicon.tokenizer import tokenizer

    meta = LexiconMeta(id="letterpress-es", language="es", name="reload bench", version="bench")
    data, _ = build("\n".join(WORDS) + "\n", tokenizer("es", "spelling"), meta)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def measure(wrk, server_class, script: Path, lexicon: Path, scratch: Path, seconds: int = 8) -> Table:
    served = scratch / "served-es.lex"
    served.write_bytes(lexicon.read_bytes())
    new = scratch / "new-es.lex"
    checksum = small_spanish(new)
    table = Table(f"service: `lexicon reload` under load (POST /v1/challenge, 64 connections, {seconds} s of wrk)")
    with server_class([served], "gevent", 2, 1) as server:
        outcome: dict = {}

        def load() -> None:
            outcome["wrk"] = wrk.run(f"{server.url}/v1/challenge", 64, seconds, post=True)

        loader = threading.Thread(target=load)
        loader.start()
        time.sleep(seconds / 3)
        new.replace(served)
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
        started = time.perf_counter()
        done = subprocess.run([str(script), "reload", "--port", str(server.port)], env=env,
                              capture_output=True, text=True)
        returned = time.perf_counter() - started
        served_after = None
        while time.perf_counter() - started < 30:
            with urllib.request.urlopen(f"{server.url}/v1/lexicons", timeout=5) as answer:
                if json.loads(answer.read())["lexicons"][0]["checksum"] == checksum:
                    served_after = time.perf_counter() - started
                    break
            time.sleep(0.02)
        loader.join()
    result = outcome["wrk"]
    table.add("`lexicon reload` exit code, and time until it returned", f"{done.returncode}, {returned:.2f} s",
              "0", done.returncode == 0)
    table.add("new checksum first served (from the command's start)",
              "never" if served_after is None else f"{served_after:.2f} s", "≤ 3 s",
              served_after is not None and served_after <= 3)
    table.add("requests answered during the run / failed (socket errors) / non-2xx",
              f"{result['requests']:,} / {result['failed']} ({result['errors'] or 'none'}) / {result['bad']}",
              "0 failed, 0 non-2xx", not result["failed"] and not result["bad"])
    table.add("p99 during the run (reload included)", f"{result['p99']:.1f} ms")
    return table
