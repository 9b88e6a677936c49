"""Benchmark figures as a table: what was measured, the value, the target, and whether it is met.

Only what this run measured is judged. A figure quoted from elsewhere (another program's time,
a number from a specification) is shown beside a measured one as a reference (`Table.add_reference`),
never as a target it meets or misses.

Times are medians of several runs measured in one process, side by side with their reference,
because the machines are shared and noisy: a ratio measured in one run means more than two
absolute times measured on different days.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Row:
    figure: str
    value: str
    target: str = ""
    met: bool | None = None
    guard: bool = False  # one of the figures `make bench` sums up at its end (bench.__main__)


@dataclass
class Table:
    title: str
    rows: list[Row] = field(default_factory=list)

    def add(self, figure: str, value: str, target: str = "", met: bool | None = None) -> None:
        """A figure measured in this run; ``met`` judges it against ``target`` (a goal we set)."""
        self.rows.append(Row(figure, value, target, met))

    def guard(self, figure: str, value: str, target: str, met: bool) -> None:
        """A figure that guards a goal the code must keep (the plain challenge's cost, the
        recorded challenge's): judged like any other, and named again at the end of the run,
        with a clear NO when it is missed, so a regression is not left in a long table."""
        self.rows.append(Row(figure, value, target, met, guard=True))

    def guards(self) -> list[Row]:
        return [row for row in self.rows if row.guard]

    def add_reference(self, figure: str, value: str, reference: str) -> None:
        """A figure measured in this run, shown beside one that was not (quoted from elsewhere).

        Never judged: a comparison is only as good as its weaker side, and a quoted figure was
        measured on another day, under another load, perhaps on another machine.
        """
        self.rows.append(Row(figure, value, f"reference, not measured in this run: {reference}"))

    def render(self) -> str:
        lines = [f"### {self.title}", "", "| figure | measured | target | met |", "|---|---|---|---|"]
        for row in self.rows:
            met = "" if row.met is None else ("yes" if row.met else "**NO**")
            lines.append(f"| {row.figure} | {row.value} | {row.target} | {met} |")
        return "\n".join(lines) + "\n"


def median_seconds(run: Callable[[], object], repeat: int = 5) -> float:
    """Median wall time of `repeat` runs of `run`."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# The child reports its own peak from /proc (VmHWM, KiB): getrusage's ru_maxrss would not do,
# since Linux carries the forking parent's resident size over the exec into the child's figure.
_MEASURE = """
import re, resource, sys
from lexicon_cli import main
main(sys.argv[1:], standalone_mode=False)
try:
    with open("/proc/self/status") as status:
        peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, file=sys.stderr)
"""


def peak_memory_mb(arguments: list[str]) -> float:
    """`lexicon ARGUMENTS` in a child process: the peak resident size of that process, in MB."""
    command = [sys.executable, "-c", _MEASURE, *arguments]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024
