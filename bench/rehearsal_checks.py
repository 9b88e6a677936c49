"""The rehearsal's checks after the day (bench/rehearsal.py): the record against what every device
showed and the console counted (`check_record`), and the director's checklist of files: verify,
export, back up, and an edit that verify must name (`check_files`). Apart from the day itself,
which plays it: these only read what it left."""

from __future__ import annotations

import sqlite3
import subprocess
from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from lexicon.lexfile import Lexicon
from lexicon.verdict import judge
from tournament import open_event, read_export

from .hall import lexicon_env
from .server import LEXICON, REPOSITORY
from .tournament import percentile

if TYPE_CHECKING:
    from .rehearsal import Day


def check_record(day: Day, event: Path, counts: dict, lexicon: Lexicon) -> None:
    """Every verdict shown is in the record once, as shown; every row is a verdict shown; the
    console's counts are the record's."""
    db = open_event(event, readonly=True)
    try:
        rows = list(db.records())
    finally:
        db.close()
    by_key: dict[str | None, list] = {}
    for row in rows:
        by_key.setdefault(row.entry.idempotency_key, []).append(row)
    shown = [s for tally in day.tallies.values() for s in tally.shown]
    wrong = []
    for s in shown:
        found = by_key.get(s.key, []) if s.key else []
        if len(found) != 1:
            wrong.append(f"{s.device} {s.key}: {len(found)} rows")
            continue
        row = found[0]
        if (row.entry.valid, row.entry.words, row.entry.device_id) != (s.valid, s.words, day.ids[s.device]) or (
            s.seq is not None and s.seq != row.seq
        ):
            wrong.append(
                f"{s.device} {s.key}: row {row.seq} differs (shown {s.valid} {s.words} {s.seq}, recorded "
                f"{row.entry.valid} {row.entry.words} {row.entry.device_name})"
            )
    day.check(
        "every verdict shown is in the record exactly once, as shown",
        not wrong,
        f"{len(shown)} shown; " + ("; ".join(wrong[:5]) or "all found"),
    )
    others = sorted({row.entry.lexicon_checksum[:12] for row in rows} - {lexicon.checksum[:12]})
    day.check(
        "every row judged with the event's lexicon, one checksum across the reload",
        not others,
        f"{lexicon.header.id} {lexicon.checksum[:12]}…" + (f"; also {others}" if others else ""),
    )
    misjudged = [s for s in shown if s.valid != judge(lexicon, s.words)]
    day.check("every verdict shown is the lexicon's", not misjudged, f"{len(misjudged)} not")
    keys = {s.key for s in shown}
    # A page that showed no verdict (a message: ask a judge, no connection) may still have had its
    # challenge recorded, when the service was killed between the record and the answer.
    unshown = {key for tally in day.tallies.values() for key in tally.unshown}
    explained = [row for row in rows if row.entry.idempotency_key not in keys and row.entry.idempotency_key in unshown]
    unexplained = [row.seq for row in rows if row.entry.idempotency_key not in keys | unshown]
    day.check(
        "no row that no device showed, but those explained",
        not unexplained,
        f"{len(rows)} rows; explained {len(explained)}; unexplained: {unexplained[:10]}",
    )
    day.figures["rows no device showed (a page's challenge recorded, its answer lost to the kill)"] = str(
        len(explained)
    )

    console = Counter()
    for item in counts["rounds"]:
        for count in item["challenges"]:
            console[count["device"]] += count["count"]
    for count in counts["outside_rounds"]:
        console[count["device"]] += count["count"]
    recorded = Counter(row.entry.device_id for row in rows)
    told = Counter(day.ids[s.device] for s in shown) + Counter(row.entry.device_id for row in explained)
    day.check(
        "the console's counts per device are the record's and the devices'",
        console == recorded == told,
        f"{len(console)} devices"
        if console == recorded == told
        else f"console {dict(console)}, record {dict(recorded)}, shown {dict(told)}",
    )
    offline = [row for row in rows if row.entry.offline]
    # Only a judge's phone judges offline: a table device offline says to call a judge.
    tables = [row.seq for row in offline if row.entry.role != "judge"]
    day.check("offline verdicts come from judges' phones only", not tables, f"not from a judge: {tables[:10]}")
    day.figures["challenges recorded"] = (
        f"{len(rows)} ({', '.join(f'{n} {r}' for r, n in sorted(Counter(r.entry.role for r in rows).items()))})"
    )
    # A verdict the phone gave itself after 3 s without an answer, while the service recorded the
    # online challenge anyway: the same key, so the online row stands for it (it is not recorded twice).
    late = sum(1 for s in shown if s.offline and not any(row.entry.offline for row in by_key.get(s.key, [])))
    day.figures["offline verdicts synced"] = (
        f"{len(offline)} ({sum(1 for s in shown if s.offline)} shown offline, {late} of them recorded from their "
        f"online request answered after the phone's 3 s; from {len({r.entry.device_id for r in offline})} devices)"
    )
    for role in sorted(set(day.roles.values())):
        seconds = sorted(t for name, tally in day.tallies.items() if day.roles[name] == role for t in tally.seconds)
        if seconds:
            day.figures[f"{role}: p50 / p99 of {len(seconds)} answered challenges"] = (
                f"{percentile(seconds, 0.5) * 1e3:.0f} / {percentile(seconds, 0.99) * 1e3:.0f} ms"
            )
    refused = [f"{name}: {problem} ×{n}" for name, tally in day.tallies.items() for problem, n in tally.refused.items()]
    day.figures["refused (device: problem ×count)"] = ", ".join(refused) or "none"
    # Over HTTP, only the revoked device is ever refused: the others keep their gap and their round.
    others = [item for item in refused if "(API)" in day.roles[item.split(":")[0]] and "device-revoked" not in item]
    day.check("no API device refused but the revoked one", not others, ", ".join(others) or "none")
    day.figures["requests asked again (service unreachable)"] = str(sum(t.retried for t in day.tallies.values()))
    day.rows = rows


def lexicon_cli(*arguments: str) -> tuple[int, str]:
    done = subprocess.run(
        [str(LEXICON), *arguments], cwd=REPOSITORY, env=lexicon_env(), capture_output=True, text=True, timeout=120
    )
    return done.returncode, (done.stdout + done.stderr).strip()


def check_files(day: Day, event: Path, folder: Path) -> None:
    """After the day, the director's checklist (docs/event-guide.md): verify, export (CSV, JSON) and
    verify the exports, back up and verify the copy; then someone edits the file, and verify says
    which row."""

    def run(*arguments: str) -> tuple[int, str]:
        code, said = lexicon_cli(*arguments)
        return code, said.replace(f"{folder}/", "")

    code, said = run("records", "verify", str(event))
    day.check("lexicon records verify: intact", code == 0 and f"intact, {len(day.rows):,} records" in said, said)
    for form in ("csv", "json"):
        path = folder / f"ensayo.{form}"
        code, said = run("records", "export", str(event), "--format", form, "-o", str(path))
        exported = read_export(path.read_text(encoding="utf-8"), form) if code == 0 else []
        code, said = run("records", "verify", str(path))
        day.check(
            f"the {form.upper()} export verifies",
            code == 0 and "intact" in said and exported == day.rows,
            f"{said} ({len(exported)} rows, as recorded)" if exported == day.rows else said,
        )
    copy = folder / "ensayo-copia.db"
    code, said = run("event", "backup", str(event), str(copy))
    verified, found = run("records", "verify", str(copy))
    day.check("lexicon event backup, and the copy verifies", code == 0 and verified == 0, f"{said}; {found}")
    edited = day.rows[len(day.rows) // 2].seq
    with closing(sqlite3.connect(event)) as connection:
        connection.executescript(
            f"DROP TRIGGER records_append_only_update; UPDATE records SET valid = 1 - valid WHERE seq = {edited};"
        )
    code, said = run("records", "verify", str(event))
    day.check(f"after the edit, verify names record {edited}", code == 1 and f"record {edited}:" in said, said)
