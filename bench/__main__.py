"""`make bench`: every benchmark section, each printing a table of figures (Markdown), all written
into docs/figures.md (bench/report.py says how).

    python -m bench                         all sections
    python -m bench compile api             only the named sections; the file keeps the others
    python -m bench --figures F.md compile  write F.md instead of docs/figures.md

At the end of a run every guard measured (bench.table.Table.guard: the plain challenge's cost
beside /healthz, the recorded challenge's beside the unrecorded one) is named again with yes or NO.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from bench import report

# name: what it measures (the title of its part of docs/figures.md), in the order they run.
SECTIONS = {
    "compile": "The compiler and the verdict on the default Spanish list (636,598 words).",
    "disc": "The Catalan lexicon built from the DISC sources: expansion, checks, compile, memory.",
    "diff": "`lexicon diff` on two lists of about 640,000 words.",
    "api": "Reading a challenge's body into its type: msgspec, pydantic and hand-written checks.",
    "service": "The real `lexicon serve` under wrk: start, memory, throughput, tails, slow clients, reload.",
    "browser": "The browser lexicon: sizes on the wire, build time, and lexicon.js in Node.",
    "chromium": "The browser lexicon in Chromium with the CPU throttled 4×, a phone's stand-in.",
    "offline": "The judge's page keeping and using its copy of the lexicon, in Chromium.",
    "single_file": "The single-file judge: size, export, and opening it offline in Chromium.",
    "lighthouse": "Lighthouse's mobile preset on the judge's page (plain, in an event: unpaired, "
    "on a paired judge's phone and table device) and the director's console (empty, and on a record of "
    "1,000 rows, with what its reading of the event every 3 s costs).",
    "connections": "Thousands of silent connections from one address, with no front end: the others' challenges.",
    "tournament": "The event's store: what recording a verdict costs, before the answer leaves.",
    "event": "A recorded challenge (tournament mode) beside an unrecorded one, under wrk.",
    "federation": "A federation's events in PostgreSQL: a recorded challenge beside an event file's, "
    "four instances appending to one event, and a Saturday of 20 events × 20 devices at once.",
    "record": "The record at a big event's length while the service runs: verdicts during exports, an edit seen.",
    "position": "Whether a verdict's time depends on which word failed: first or last of 8, in process.",
    "rehearsal": "A director's whole day rehearsed: 24 devices, 3 rounds, a hall's faults, the record checked.",
    "quick": "The two guards of a challenge's cost, in under a minute (`make bench-quick`): the plain "
    "challenge beside /healthz in process, the recorded challenge beside the unrecorded one.",
}


def main(argv: list[str]) -> int:
    figures = report.FIGURES
    if argv[:1] == ["--figures"]:
        if len(argv) < 2:
            print("--figures needs a file name", file=sys.stderr)
            return 2
        figures, argv = Path(argv[1]), argv[2:]
    wanted = argv or list(SECTIONS)
    unknown = [name for name in wanted if name not in SECTIONS]
    if unknown:
        print(f"unknown section(s) {unknown}; known: {list(SECTIONS)}", file=sys.stderr)
        return 2
    if not figures.parent.is_dir():
        print(f"cannot write {figures}: no directory {figures.parent}", file=sys.stderr)
        return 2
    measured: dict[str, report.Part] = {}
    for name in wanted:
        module = importlib.import_module(f"bench.{name}")
        measured[name] = report.measure(name, SECTIONS[name], module.run, lambda text: print(text, flush=True))
        report.write(figures, SECTIONS, measured)  # after each section: a stopped run keeps what it measured
    print(f"wrote {figures}", file=sys.stderr)
    lines = report.verdicts(measured.values())
    if lines:  # last, where a missed goal cannot be overlooked in a long table
        print("\nguards (a goal missed says NO):\n" + "\n".join(lines), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
