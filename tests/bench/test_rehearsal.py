"""`python -m bench rehearsal` at small scale: the director's whole day (rounds of seconds, a 1 s
table gap, 3 s offline) and its faults, with the record checked against what every device showed;
and the checks themselves, shown to fail on a record that does not hold what was shown."""

from __future__ import annotations

import re

from bench import rehearsal, rehearsal_checks
from bench.hall import Shown, Tally
from bench.table import Table
from lexicon.lexfile import Lexicon
from tests.support import compile_list
from tournament import Entry, create_event, open_event

# About a minute on 2 busy cores (55 to 75 s measured at load averages of 7 to 13): rounds of 6 s.
SMALL = rehearsal.Size(round_seconds=6, offline_seconds=3, table_gap=1, judge_pause=0.3)


def test_a_whole_day_leaves_a_record_of_every_verdict_shown_once(tmp_path):
    lexicon = compile_list(tmp_path / "es.lex", rehearsal.WORDS, "es", "es-ensayo", "Ensayo")
    day = rehearsal.rehearse(tmp_path, [lexicon], lexicon, SMALL)
    failed = {name: found for name, (passed, found) in day.checks.items() if not passed}
    assert failed == {}, failed

    shown = [s for tally in day.tallies.values() for s in tally.shown]
    # Every fault happened: verdicts given offline by the three judges cut off (the page's among
    # them), devices that waited through the restart, the revoked device refused, the kiosk refused.
    offline_by = {s.device for s in shown if s.offline}
    assert {"Juez 1", "Juez 2", "Juez 3"} <= offline_by, offline_by
    assert "Juez 4" not in offline_by  # never cut off, so it waited for the restart instead
    assert not [s for s in shown if s.offline and s.role != "judge"]  # a table device offline calls a judge
    assert sum(tally.retried for tally in day.tallies.values()) > 0
    assert day.tallies[f"Mesa {SMALL.tables}"].refused == {"device-revoked": 1}
    assert [s for s in shown if s.device == "Consulta"] and all(s.seq for s in shown if s.device == "Consulta")
    # Both pages showed verdicts with their record numbers.
    for name in ("Juez 1", "Mesa 1"):
        assert any(s.seq for s in day.tallies[name].shown), name
    assert {row.round for row in day.rows} == {None, 1, 2, 3}

    table = Table("t")
    rehearsal.add_rows(table, day)
    print(table.render())  # shown with -s
    figures = {row.figure: row for row in table.rows}
    for name in ("juez (API)", "mesa (API)", "juez (page)", "mesa (page)"):
        [row] = [row for figure, row in figures.items() if figure.startswith(f"{name}: p50 / p99 of ")]
        assert re.fullmatch(r"\d+ / \d+ ms", row.value), row.value
    assert re.fullmatch(r"\d+\.\d s \(lexicon serve ready in \d+\.\d s\)", figures["restart: kill to ready"].value)
    assert re.fullmatch(
        r"\d+ \(\d+ shown offline, \d+ of them recorded from their online request answered after "
        r"the phone's 3 s; from \d+ devices\)",
        figures["offline verdicts synced"].value,
    )
    assert all(row.met for row in table.rows if row.met is not None)


def small_record(tmp_path, verdicts: list[tuple[str, bool]], checksum: str | None = None):
    """An event whose device "Juez 2" recorded these (key, valid) verdicts of CASA (with the
    lexicon's checksum, or `checksum`)."""
    lexicon = Lexicon.open(compile_list(tmp_path / "es.lex", rehearsal.WORDS, "es", "es-ensayo", "Ensayo"))
    path = tmp_path / "event.db"
    create_event(path, "Ensayo", rehearsal.PASSWORD, lexicon="es-ensayo").close()
    db = open_event(path)
    device, _ = db.add_device("Juez 2", "judge")
    for key, valid in verdicts:
        db.append(
            Entry.for_device(
                device,
                lexicon_id="es-ensayo",
                lexicon_version="test-1",
                lexicon_checksum=checksum or lexicon.checksum,
                notation="spelling",
                words=("CASA",),
                tiles=("CASA",),
                valid=valid,
                idempotency_key=key,
            )
        )
    counts = {"rounds": [], "outside_rounds": [{"device": device.id, "name": "Juez 2", "count": len(verdicts)}]}
    db.close()
    day = rehearsal.Day(tallies={"Juez 2": Tally()}, roles={"Juez 2": "juez (API)"}, ids={"Juez 2": device.id})
    return day, path, counts, lexicon


def shown(key: str, valid: bool = True, seq: int | None = None) -> Shown:
    return Shown("Juez 2", "judge", key, ("CASA",), valid, seq=seq)


def test_the_checks_pass_on_a_record_of_what_was_shown(tmp_path):
    day, path, counts, lexicon = small_record(tmp_path, [("a" * 32, True), ("b" * 32, True)])
    day.tallies["Juez 2"].shown += [shown("a" * 32, seq=1), shown("b" * 32)]
    rehearsal_checks.check_record(day, path, counts, lexicon)
    assert all(passed for passed, _ in day.checks.values()), day.checks


def test_a_verdict_shown_but_missing_or_recorded_otherwise_fails_the_day(tmp_path):
    day, path, counts, lexicon = small_record(tmp_path, [("a" * 32, True), ("b" * 32, True), ("c" * 32, True)])
    day.tallies["Juez 2"].shown += [
        shown("a" * 32, seq=2),  # the screen said another number
        shown("b" * 32, valid=False),  # another verdict than recorded
        shown("d" * 32),  # never recorded
    ]  # and "c": recorded, never shown
    rehearsal_checks.check_record(day, path, counts, lexicon)
    failed = {name: found for name, (passed, found) in day.checks.items() if not passed}
    assert set(failed) == {
        "every verdict shown is in the record exactly once, as shown",
        "every verdict shown is the lexicon's",
        "no row that no device showed, but those explained",
    }, failed
    missing = failed["every verdict shown is in the record exactly once, as shown"]
    assert "row 1 differs" in missing and "row 2 differs" in missing and f"{'d' * 32}: 0 rows" in missing
    assert "unexplained: [3]" in failed["no row that no device showed, but those explained"]


def test_console_counts_that_are_not_the_record_s_fail_the_day(tmp_path):
    day, path, counts, lexicon = small_record(tmp_path, [("a" * 32, True)])
    day.tallies["Juez 2"].shown.append(shown("a" * 32))
    counts["outside_rounds"][0]["count"] = 2
    rehearsal_checks.check_record(day, path, counts, lexicon)
    failed = [name for name, (passed, _) in day.checks.items() if not passed]
    assert failed == ["the console's counts per device are the record's and the devices'"]


def test_a_row_judged_with_another_lexicon_file_fails_the_day(tmp_path):
    day, path, counts, lexicon = small_record(tmp_path, [("a" * 32, True)], checksum="5f" * 32)
    day.tallies["Juez 2"].shown.append(shown("a" * 32))
    rehearsal_checks.check_record(day, path, counts, lexicon)
    failed = [name for name, (passed, _) in day.checks.items() if not passed]
    assert failed == ["every row judged with the event's lexicon, one checksum across the reload"]


def test_a_page_s_challenge_recorded_with_no_verdict_shown_is_explained(tmp_path):
    day, path, counts, lexicon = small_record(tmp_path, [("a" * 32, True), ("b" * 32, True)])
    day.tallies["Juez 2"].shown.append(shown("a" * 32))
    day.tallies["Juez 2"].unshown.append("b" * 32)
    rehearsal_checks.check_record(day, path, counts, lexicon)
    assert all(passed for passed, _ in day.checks.values()), day.checks
    assert day.figures["rows no device showed (a page's challenge recorded, its answer lost to the kill)"] == "1"
