"""The console's list (service/static/director/records.js) marks the rows `lexicon records verify`
names (tournament/times.py): stamped more than the tolerance before the row numbered before them,
or with a time that cannot be read. Both rules run here on the same rows, in Node.js and in
Python, at the tolerance's boundary: a Date keeps milliseconds, and the console missed a row
1.0005 s back that verify named; and it skipped a row whose time it could not read, which verify
names."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.support import REPO
from tournament.chain import GENESIS, seal
from tournament.entry import Entry
from tournament.times import TOLERANCE, stamped_back

pytestmark = pytest.mark.node  # records.js runs in Node.js beside Python

SCRIPT = REPO / "service" / "static" / "director" / "records.js"
# records.js in a context of its own: what it finds of the page (the document, its elements) is
# anything at all, so its listeners are added to nothing; `t` gives a text's key, and its marks
# are read from stampedBack, the function drawRecords asks for each row and the row before it.
HARNESS = r"""
const vm = require("vm"), fs = require("fs");
const [script, rows, tolerance] = [process.argv[1], JSON.parse(process.argv[2]), Number(process.argv[3])];
const anything = new Proxy(function () {}, { get: (_, key) => key === Symbol.toPrimitive ? () => "" : anything, apply: () => anything });
const context = vm.createContext({ $: anything, document: anything, window: anything, t: (key) => key,
  data: { stampTolerance: tolerance }, state: { ui: "en" } });
vm.runInContext(fs.readFileSync(script, "utf8"), context);
const stampedBack = vm.runInContext("stampedBack", context);
console.log(JSON.stringify(rows.map((row, i) => [row.seq, stampedBack(row, rows[i - 1])])));
"""
ONE = Entry("disc-ca", "2.9", "5f" * 32, "spelling", ("CASA",), ("CASA",), True)
AT = "2026-11-22T10:00:0"  # each row below at a second of 10:00 given as its last characters


def console_marks(rows: list) -> dict[int, str]:
    node = shutil.which("node")
    assert node, "Node.js is not installed: `make test` installs it (apt-get install nodejs)"
    sent = json.dumps([{"seq": row.seq, "time": row.time} for row in rows])
    done = subprocess.run(
        [node, "-e", HARNESS, str(SCRIPT), sent, str(TOLERANCE.total_seconds())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return {seq: mark for seq, mark in json.loads(done.stdout) if mark}


def verify_marks(rows: list) -> dict[int, str]:
    return {mark.seq: "timeUnread" if mark.by is None else "stampedBack" for mark in stamped_back(rows)}


def chained(*times: str) -> list:
    rows, prev = [], GENESIS
    for seq, time in enumerate(times, 1):
        rows.append(seal(seq, time, None, ONE, prev, 3))
        prev = rows[-1].hash
    return rows


@pytest.mark.parametrize(
    "before, time, marked",
    [
        ("2.000900Z", "1.001900Z", False),  # 999 ms back
        ("2.000900Z", "1.000900Z", False),  # 1000 ms: the tolerance itself
        ("2.000001Z", "1.000000Z", True),  # 1000.001 ms: a Date reads 2000 ms and 1000 ms
        ("2.000900Z", "1.000500Z", True),  # 1000.4 ms: a Date reads 1000 ms
        ("2.000900Z", "0.999900Z", True),  # 1001 ms
    ],
)
def test_the_console_marks_a_row_stamped_back_exactly_when_verify_names_it(before, time, marked):
    rows = chained(AT + before, AT + time)
    assert console_marks(rows) == verify_marks(rows) == ({2: "stampedBack"} if marked else {})


@pytest.mark.parametrize(
    "time",
    [
        "garbage",
        AT + "1Z",  # no microseconds: not as the service writes a time
        AT + "1.5Z",
        "2026-02-30T10:00:01.000000Z",  # a day no month has (a Date rolls it over to March)
        "2026-11-22T24:00:00.000000Z",
    ],
)
def test_the_console_marks_a_row_whose_time_it_cannot_read_as_verify_names_it(time):
    """Marked, not skipped; and the row after it compared with none, in both."""
    rows = chained(AT + "5.000000Z", time, AT + "0.000000Z")
    assert console_marks(rows) == verify_marks(rows) == {2: "timeUnread"}
