"""`lexicon records verify` of exports and against heads on paper, `records export`'s report and
its record check, and `lexicon event backup`."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import sqlite3
import stat
import threading

import pytest

from tournament import open_event, read_export

from .test_event import entry, run


@pytest.fixture
def played(tmp_path):
    """An event file with round 1 (records 1-3), round 2 (4-6) and round 3 open (7-8)."""
    path = tmp_path / "open.db"
    assert run("event", "init", path, "--name", "Open de Lleida 2026").exit_code == 0
    db = open_event(path)
    for number, count in ((1, 3), (2, 3), (3, 2)):
        db.open_round(number)
        db.append_many([entry(valid=n % 2 == 0) for n in range(count)])
        if number < 3:
            db.close_round()
    db.close()
    return path


def tamper(path, sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER IF EXISTS records_append_only_update; DROP TRIGGER IF EXISTS records_append_only_delete; " + sql
    )
    conn.close()


def head_of(path, seq: int) -> str:
    return next(r.hash for r in open_event(path, readonly=True).records() if r.seq == seq)


def test_an_export_is_verified_on_another_computer_whole_or_one_round(played, tmp_path):
    whole, round2 = tmp_path / "todo.json", tmp_path / "ronda2.csv"
    assert run("records", "export", played, "--format", "json", "-o", whole).exit_code == 0
    assert run("records", "export", played, "--round", 2, "-o", round2).exit_code == 0
    played.unlink()  # another computer: no event file at all
    done = run("records", "verify", whole)
    assert done.exit_code == 0 and (
        "intact export (JSON) of the whole record, as it says: 8 records 1 to 8, chained from the first record"
        in done.stdout
    )
    done = run("records", "verify", round2)
    assert done.exit_code == 0 and (
        "intact export (CSV) of round 2 only, as it says: 3 records 4 to 6, chained from record 4's" in done.stdout
    )


def test_a_changed_export_is_caught_naming_the_row(played, tmp_path):
    out = tmp_path / "ronda2.csv"
    run("records", "export", played, "--round", 2, "-o", out)
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"), newline="")))
    valid = rows[0].index("valid")
    rows[2][valid] = "true" if rows[2][valid] == "false" else "false"  # record 5's verdict
    changed = io.StringIO()
    csv.writer(changed).writerows(rows)
    out.write_text(changed.getvalue(), encoding="utf-8")
    result = run("records", "verify", out)
    assert result.exit_code == 1 and "record 5: its contents do not match its hash" in result.stderr


def test_a_file_the_csv_reader_refuses_is_no_export_and_no_traceback(played, tmp_path):
    """A cell longer than Python's csv reader takes (128 KiB), in a row or in the first line (a
    file that is neither JSON nor CSV, such as arrays nested past the JSON parser's limit): exit 2
    saying it is no record export, naming the line, never a traceback."""
    out = tmp_path / "todo.csv"
    run("records", "export", played, "-o", out)
    header, first, *_ = out.read_bytes().decode("utf-8").split("\r\n")
    long_cell = first.replace("true", '"' + "x" * 200_000 + '"', 1)
    for text, line in ((f"{header}\r\n{long_cell}\r\n", 2), ("[" * 200_000, 1)):
        out.write_text(text, encoding="utf-8")
        result = run("records", "verify", out)
        assert result.exit_code == 2, result.exception
        assert result.stderr.startswith(
            f"Error: {out} is not an event file, nor a record export (CSV or JSON): line {line}:"
        )
        assert "field larger than field limit" in result.stderr


def test_a_head_on_paper_catches_the_last_rows_removed(played, tmp_path):
    sheet = f"6:{head_of(played, 6)[:16]}"  # round 2's sheet
    assert run("records", "verify", played, "--head", sheet).exit_code == 0
    tamper(played, "DELETE FROM records WHERE seq >= 6; UPDATE rounds SET head_seq = NULL, head_hash = NULL;")
    result = run("records", "verify", played, "--head", sheet)
    assert result.exit_code == 1 and "record 6 is missing" in result.stderr
    out = tmp_path / "ronda2.csv"
    run("records", "export", played, "--round", 2, "-o", out)
    assert run("records", "verify", out).exit_code == 0  # rows alone cannot show it...
    result = run("records", "verify", out, "--head", sheet)  # ...the sheet does
    assert result.exit_code == 1 and "the rows here end at record 5" in result.stderr
    assert "check the number written on the sheet" in result.stderr
    wrong = run("records", "verify", out, "--head", "5:000000")
    digest = head_of(played, 5)[:6]
    assert wrong.exit_code == 1 and f"its hash begins {digest}, the sheet says 000000" in wrong.stderr
    assert "check the number and the hash written on the sheet" in wrong.stderr
    for bad in ("6", "6:xyz123", "6:abc", "0:abcdef"):
        assert run("records", "verify", out, "--head", bad).exit_code == 2
    outside = run("records", "verify", out, "--head", f"1:{head_of(played, 1)[:16]}")
    assert outside.exit_code == 2 and outside.stderr.startswith(f"Error: {out}: record 1 is not in this export")
    before = run("records", "verify", out, "--head", f"3:{head_of(played, 3)[:16]}")  # round 1's, its prev
    assert before.exit_code == 0


def test_a_head_of_fewer_than_16_digits_is_said_to_prove_little(played, tmp_path):
    """Whoever has the event file can rewrite a closed round's rows and hash them again, and then
    vary a free field of the last one (its idempotency key, its time's microseconds) until its
    hash begins with the digits on the round's sheet: 2**32 tries for 8 hex digits, a laptop's
    hours (a graphics card's minutes). A sheet of 16 digits (64 bits) cannot be matched so; the
    console shows 16. A shorter one (a sheet written before) still matches, said as weak."""
    out = tmp_path / "ronda2.csv"
    run("records", "export", played, "--round", 2, "-o", out)
    for target in (played, out):
        short = run("records", "verify", target, "--head", f"6:{head_of(played, 6)[:8]}")
        assert short.exit_code == 0 and "matches the head given, to its first 8 hex digits only" in short.stdout
        assert "16" in short.stdout.split("only", 1)[1]  # what to write instead
        for digits in (16, 64):
            whole = run("records", "verify", target, "--head", f"6:{head_of(played, 6)[:digits]}")
            assert whole.exit_code == 0 and whole.stdout.rstrip().endswith("matches the head given"), whole.stdout


def test_a_head_malformed_or_asked_about_is_shown_as_the_console_s_16_digits(played):
    """A head's refusal and --help give an example to copy: the console's 16 digits (in its groups
    of 4, as copied from the sheet), not 8, which the line above says a rewrite can be made to match."""
    refused = run("records", "verify", played, "--head", "6:abc")
    assert refused.exit_code == 2 and "e.g. 57:3fa9c2d17b0e55aa or 57:3fa9 c2d1 7b0e 55aa" in refused.stderr
    helped = " ".join(run("records", "verify", "--help").stdout.split())
    assert "the first 16 hex digits of its hash the console shows (at least 6" in helped, helped


def test_a_row_added_to_a_round_after_its_final_head_is_named(played, tmp_path):
    """Round 2 reopened by hand for one more verdict, then closed again: the chain verifies, but
    the row comes after round 2's final head (record 6): the file's check and its export checked
    against round 2's sheet name it."""
    sheet = f"6:{head_of(played, 6)[:16]}"
    db = open_event(played)
    db.close_round()
    closed = db.round(2).closed
    with sqlite3.connect(played) as conn:
        conn.execute("UPDATE rounds SET closed = NULL WHERE number = 2")
    assert db.append(entry()).seq == 9
    with sqlite3.connect(played) as conn:
        conn.execute("UPDATE rounds SET closed = ? WHERE number = 2", (closed,))
    db.close()
    said = "record 9: it is filed in round 2 after that round's head, record 6, was final"
    result = run("records", "verify", played, "--head", sheet)
    assert result.exit_code == 1 and said in result.stderr
    out = tmp_path / "todo.csv"
    run("records", "export", played, "-o", out)
    assert run("records", "verify", out).exit_code == 0  # rows alone cannot show it...
    result = run("records", "verify", out, "--head", sheet)  # ...the sheet does
    assert result.exit_code == 1 and said in result.stderr


def test_export_of_a_changed_record_says_so_marks_the_row_and_exits_1(played, tmp_path):
    tamper(played, "UPDATE records SET valid = 1 - valid WHERE seq = 3;")
    out = tmp_path / "todo.json"
    result = run("records", "export", played, "--format", "json", "-o", out)
    assert result.exit_code == 1 and "record 3: its contents do not match its hash" in result.stderr
    assert "exported all the same" in result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["broken"]["seq"] == 3
    assert [row["intact"] for row in document["records"]] == [True, True, False, True, True, True, True, True]
    assert len(read_export(out.read_text(encoding="utf-8"), "json")) == 8


def test_export_to_a_file_says_what_it_wrote(played, tmp_path):
    out = tmp_path / "ronda2.csv"
    result = run("records", "export", played, "--round", 2, "-o", out)
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == (
        f"wrote {out}: 3 records of round 2 as CSV, records 4 to 6; last hash {head_of(played, 6)}\n"
    )
    assert [row["intact"] for row in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))] == ["true"] * 3


def test_export_to_dash_writes_standard_output_as_expand_does(played, tmp_path, monkeypatch):
    """`-o -` is standard output, as for `lexicon expand -o -` and `lexicon build -`: not a file
    named `-` in the current folder, with the export nowhere on the screen."""
    monkeypatch.chdir(tmp_path)
    result = run("records", "export", played, "--round", 2, "-o", "-")
    assert result.exit_code == 0 and not (tmp_path / "-").exists()
    assert result.stdout == run("records", "export", played, "--round", 2).stdout and result.stderr == ""
    assert [row["seq"] for row in csv.DictReader(io.StringIO(result.stdout))] == ["4", "5", "6"]


def test_export_to_a_file_named_dash_is_written_there_when_its_path_says_so(played, tmp_path, monkeypatch):
    """`-o -` alone is standard output: `-o ./-`, a file named `-` written on purpose, is that file
    (pathlib reads './-' as '-', so the export went to the screen and no file was written)."""
    monkeypatch.chdir(tmp_path)
    result = run("records", "export", played, "--round", 2, "-o", "./-")
    assert result.exit_code == 0 and result.stdout == "", result.stdout
    assert [row["seq"] for row in csv.DictReader(io.StringIO((tmp_path / "-").read_text(encoding="utf-8")))] == [
        "4",
        "5",
        "6",
    ]
    assert result.stderr.startswith("wrote ./-: 3 records of round 2 as CSV")


def test_a_backup_is_consistent_while_the_service_writes_checked_and_never_overwrites(played, tmp_path):
    db = open_event(played)
    stop = threading.Event()

    def write():
        while not stop.is_set():
            db.append(entry())

    writer = threading.Thread(target=write)
    writer.start()
    try:
        copy = tmp_path / "copia.db"
        result = run("event", "backup", played, copy)
    finally:
        stop.set()
        writer.join()
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith(f"wrote {copy}: a checked copy of {played}; last record ")
    assert not list(tmp_path.glob(".copia.db.partial*")) and not (tmp_path / "copia.db-wal").exists()
    assert copy.stat().st_mode & 0o777 == 0o600
    assert run("records", "verify", copy).exit_code == 0
    assert open_event(copy, readonly=True).event().name == "Open de Lleida 2026"
    before = copy.read_bytes()
    again = run("event", "backup", played, copy)
    assert again.exit_code == 2 and "never overwrites" in again.stderr and copy.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("hola\n")
    assert run("event", "backup", notes, tmp_path / "x.db").exit_code == 2 and not (tmp_path / "x.db").exists()


def test_a_backup_to_a_stick_without_hard_links_is_copied_exclusively_and_synced(played, tmp_path, monkeypatch):
    """FAT and exFAT refuse link() with EPERM: the checked copy is copied into a file created
    exclusively under its name instead; the copy and its folder are synced before "wrote"."""
    copy = tmp_path / "stick" / "copia.db"
    copy.parent.mkdir()
    synced = []
    real_fsync = os.fsync

    def no_link(source, target, *args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted", str(source))

    def fsync(fd):
        status = os.fstat(fd)
        synced.append((status.st_dev, status.st_ino))
        real_fsync(fd)

    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(os, "fsync", fsync)
    result = run("event", "backup", played, copy)
    assert result.exit_code == 0, result.stderr
    original = open_event(played, readonly=True).event().file.identity
    assert result.stderr == (
        f"wrote {copy}: a checked copy of {played}; last record 8, hash {head_of(played, 8)}; "
        f"marked as a copy of file {original}, served only once restored (`lexicon event restore {copy} NEW.db`)\n"
    )
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600 and os.listdir(copy.parent) == ["copia.db"]
    assert run("records", "verify", copy).exit_code == 0
    for synced_path in (copy, copy.parent):
        status = synced_path.stat()
        assert (status.st_dev, status.st_ino) in synced
    again = run("event", "backup", played, copy)  # a name taken meanwhile is never overwritten, copy or not
    assert again.exit_code == 2 and "never overwrites" in again.stderr


def test_the_partial_copy_is_0600_before_sqlite_writes_the_password_hash_to_it(played, tmp_path, monkeypatch):
    """Whatever the umask, the partial copy is created 0600 and exclusively before SQLite opens
    it: it is never readable by others, not even for a moment."""
    copy = tmp_path / "copia.db"
    seen = []
    real_connect = sqlite3.connect

    def connect(database, *args, **kwargs):
        if str(database).startswith(str(tmp_path / ".copia.db.partial")):
            seen.append(stat.S_IMODE(os.stat(database).st_mode) if os.path.exists(database) else None)
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
    old_umask = os.umask(0o022)
    try:
        result = run("event", "backup", played, copy)
    finally:
        os.umask(old_umask)
    assert result.exit_code == 0, result.stderr
    assert seen and seen[0] == 0o600 and set(seen) == {0o600}


def test_records_verify_export_and_the_password_take_a_database_url_and_never_show_its_password(postgres_server):
    """An event in PostgreSQL is named by its URL in every event command: kept whole (a path's
    `//` would collapse), and shown without its password, in the netloc or the query."""
    from tests.postgres import OWNER

    event = f"t-{os.urandom(8).hex()}"
    url = (
        postgres_server.url(OWNER, event=event, tcp=True).replace(f"{OWNER}@", f"{OWNER}:n0tshown@")
        + "&password=s3cret"
    )
    shown = f"postgresql://{OWNER}@127.0.0.1:{postgres_server.port}/lexicon?event={event}&password=***"
    assert run("event", "init", url, "--name", "Open de Lleida 2026").exit_code == 0
    db = open_event(url)
    db.append_many([entry(), entry(valid=False)])
    db.close()
    done = run("records", "verify", url)
    assert done.exit_code == 0 and done.stdout.startswith(f"{shown}: intact, 2 records; last record 2")
    exported = run("records", "export", url, "--format", "json")
    assert exported.exit_code == 0 and [row.seq for row in read_export(exported.stdout, "json")] == [1, 2]
    changed = run("event", "password", url, env={"LEXICON_DIRECTOR_PASSWORD": "una-clave-larga-2026"})
    assert changed.exit_code == 0 and f"{shown}: a new director's password" in changed.stderr
    db = open_event(url)
    assert db.check_password("una-clave-larga-2026").ok
    db.close()
    other = url.replace(event, "t-not-there")
    for command in (("records", "verify"), ("records", "export"), ("event", "password")):
        missing = run(*command, other)
        assert missing.exit_code == 2 and "t-not-there" in missing.stderr
        assert "postgresql://" in missing.stderr and "s3cret" not in missing.stderr and "n0tshown" not in missing.stderr
    for result in (done, exported, changed):
        assert "s3cret" not in result.stdout + result.stderr and "n0tshown" not in result.stdout + result.stderr


def test_a_head_after_the_last_row_of_a_filtered_export_is_not_called_rows_deleted(played, tmp_path):
    """The console exports one table's or one device's rows; checked against the round's sheet,
    the rows after its last were said to be deleted, 'the last rows were deleted', to an appeal
    committee, where they are only other tables'. An export with gaps is known to be filtered:
    its head cannot be compared there (exit 2, saying where to check it). One without gaps may
    be filtered too: the sentence says so before it says the rows were deleted. (Exports that do not
    say their filter, made before exports said it: one that says it is checked as it says, above.)"""
    sheet = f"6:{head_of(played, 6)[:16]}"  # round 2's sheet
    whole = tmp_path / "todo.json"
    assert run("records", "export", played, "--format", "json", "-o", whole).exit_code == 0
    document = json.loads(whole.read_text(encoding="utf-8"))
    del document["filter"]

    def only(path, *seqs):
        path.write_text(
            json.dumps(document | {"records": [r for r in document["records"] if r["seq"] in seqs]}), encoding="utf-8"
        )
        return path

    table = only(tmp_path / "mesa-12.json", 1, 3, 4)  # records 2 and 5, 6 are other tables'
    assert run("records", "verify", table).exit_code == 0
    result = run("records", "verify", table, "--head", sheet)
    assert result.exit_code == 2 and result.stderr == (
        f"Error: {table}: record 6 is after this export's last row, record 4, and the export is filtered (by table or "
        "device: record 2 not in it), so the rows after its last may be other tables' or devices': check the head "
        "on the round's whole export or on the event file; it does not say what it holds (an export from before "
        "exports said their filter, or its filter removed)\n"
    )
    device = only(tmp_path / "dispositivo-1.json", 4, 5)
    result = run("records", "verify", device, "--head", sheet)
    assert result.exit_code == 1 and "records 6 is missing" not in result.stderr
    assert "if it is right, and this export is not filtered by table or device, the last rows were deleted" in (
        result.stderr
    )


# -- what an export says it holds (its filter) ---------------------------------------------------


def edit_export(path, keep=lambda seq: True, filter=None, only_line=None) -> None:
    """An export edited as a text editor or a spreadsheet would: rows removed, and its filter (the
    JSON member, the CSV column) said otherwise, on every row or on one CSV line only; `filter`
    False removes it, as an export from before exports said it."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        document = json.loads(text)
        document["records"] = [row for row in document["records"] if keep(row["seq"])]
        if filter is False:
            del document["filter"]
        elif filter is not None:
            document["filter"] = filter
        path.write_text(json.dumps(document), encoding="utf-8")
        return
    header, *rows = list(csv.reader(io.StringIO(text, newline="")))
    column = header.index("filter") if "filter" in header else len(header)
    rows = [row for row in rows if keep(int(row[0]))]
    for line, row in enumerate(rows, 2):
        if filter is not None and filter is not False and only_line in (None, line):
            row[column] = json.dumps(filter, separators=(",", ":"))
    if filter is False:
        header, rows = header[:column], [row[:column] for row in rows]
    out = io.StringIO()
    csv.writer(out).writerows([header, *rows])
    path.write_text(out.getvalue(), encoding="utf-8")


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_whole_export_says_so_and_verifies_against_the_last_head(played, tmp_path, fmt):
    out = tmp_path / f"todo.{fmt}"
    assert run("records", "export", played, "--format", fmt, "-o", out).exit_code == 0
    done = run("records", "verify", out, "--head", f"8:{head_of(played, 8)[:16]}")
    assert done.exit_code == 0 and done.stdout == (
        f"{out}: intact export ({fmt.upper()}) of the whole record, as it says: 8 records 1 to 8, chained from the "
        f"first record; last hash {head_of(played, 8)}; matches the head given\n"
    )


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_whole_export_with_a_middle_row_and_its_tail_deleted_exits_1_rows_missing(played, tmp_path, fmt):
    """It exited 2, "check the head on the round's whole export": the export was taken for a
    filtered one. It says it is the whole record, so a gap in it is rows deleted, head or not."""
    out = tmp_path / f"todo.{fmt}"
    assert run("records", "export", played, "--format", fmt, "-o", out).exit_code == 0
    edit_export(out, keep=lambda seq: seq not in (4, 7, 8))
    for heads in ((), ("--head", f"8:{head_of(played, 8)[:16]}")):
        result = run("records", "verify", out, *heads)
        assert result.exit_code == 1 and result.stderr == (
            f"Error: {out}: record 5: record 4 is missing before it: the export says it holds the whole record, "
            "so it was deleted from it\n"
        )


def test_a_round_s_export_is_checked_as_filtered_and_says_what_it_cannot_tell(played, tmp_path):
    out = tmp_path / "ronda2.csv"
    assert run("records", "export", played, "--round", 2, "-o", out).exit_code == 0
    done = run("records", "verify", out, "--head", f"6:{head_of(played, 6)[:16]}")
    assert done.exit_code == 0 and done.stdout == (
        f"{out}: intact export (CSV) of round 2 only, as it says: 3 records 4 to 6, chained from record 4's "
        f"previous-row hash {head_of(played, 3)[:12]}… (record 3's, as given); last hash {head_of(played, 6)}; "
        "matches the head given\n"
    )
    later = run("records", "verify", out, "--head", f"8:{head_of(played, 8)[:16]}")  # round 3's head
    assert later.exit_code == 1 and "records 7 to 8 are missing" in later.stderr
    assert "unless they were filed outside rounds or in another round" in later.stderr


def test_an_export_s_filter_edited_to_hide_deleted_rows_is_caught_or_said(played, tmp_path):
    """Whoever holds the laptop can edit an export's filter as well as its rows: said to be round 2's
    only, a whole export with rows deleted breaks at its first row of another round (exit 1); with
    every row of other rounds deleted too it is a round 2 export, and verify says so first; a
    filter edited on one CSV line is refused naming it."""
    round_two = {"round": 2, "table": None, "device": None}
    for fmt in ("csv", "json"):
        out = tmp_path / f"todo.{fmt}"
        assert run("records", "export", played, "--format", fmt, "-o", out).exit_code == 0
        edit_export(out, keep=lambda seq: seq not in (4, 7, 8), filter=round_two)
        result = run("records", "verify", out, "--head", f"8:{head_of(played, 8)[:16]}")
        assert result.exit_code == 1 and result.stderr == (
            f"Error: {out}: record 1: it is of round 1, not of round 2 as the export says it holds: its filter "
            "was edited, or the row added\n"
        )
    out = tmp_path / "todo.csv"
    assert run("records", "export", played, "-o", out).exit_code == 0
    edit_export(out, keep=lambda seq: seq in (5, 6), filter=round_two)
    said = run("records", "verify", out)
    assert said.exit_code == 0 and said.stdout.startswith(f"{out}: intact export (CSV) of round 2 only, as it says")
    assert run("records", "verify", out, "--head", f"8:{head_of(played, 8)[:16]}").exit_code == 1
    assert run("records", "export", played, "-o", out).exit_code == 0
    edit_export(out, filter=round_two, only_line=3)
    refused = run("records", "verify", out)
    assert (
        refused.exit_code == 2
        and (
            'line 3: its filter \'{"round":2,"table":null,"device":null}\' is not line 2\'s '
            '\'{"round":null,"table":null,"device":null}\''
        )
        in refused.stderr
    )


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_filter_edited_into_a_long_text_is_quoted_cut_not_whole(played, tmp_path, fmt):
    """A refusal quotes the bad value, but a filter edited into ten thousand characters is quoted
    as its first ones and its length: a sentence, not a screenful on every row."""
    out = tmp_path / f"todo.{fmt}"
    assert run("records", "export", played, "--format", fmt, "-o", out).exit_code == 0
    edit_export(out, filter="x" * 10_000)
    refused = run("records", "verify", out)
    assert refused.exit_code == 2 and "its filter is 'xxxxxxxx" in refused.stderr
    assert "x… (10,000 characters), not an object of round, table, device" in refused.stderr
    assert len(refused.stderr) < 500, len(refused.stderr)


def test_an_export_with_no_records_says_what_it_says_it_holds(played, tmp_path):
    """An appeal committee handed an empty export (a round with no challenge, a table that made
    none) sees it is the one it asked for: it said only "an export with no records"."""
    db = open_event(played)
    db.close_round()
    db.open_round(4)
    db.close()
    out = tmp_path / "ronda4.json"
    assert run("records", "export", played, "--round", 4, "--format", "json", "-o", out).exit_code == 0
    done = run("records", "verify", out)
    assert done.exit_code == 0 and done.stdout == f"{out}: an export with no records, of round 4 only, as it says\n"
    edit_export(out, filter=False)  # one that does not say: no claim made for it
    assert run("records", "verify", out).stdout == f"{out}: an export with no records\n"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_export_from_before_exports_said_their_filter_verifies_as_before(played, tmp_path, fmt):
    """Without its filter (made before exports said it, or removed) an export is checked as it
    was: a gap is read as a filter's, so a head after its last row cannot be compared (exit 2); and
    verify says the export does not say what it holds."""
    out = tmp_path / f"todo.{fmt}"
    assert run("records", "export", played, "--format", fmt, "-o", out).exit_code == 0
    edit_export(out, filter=False)
    done = run("records", "verify", out)
    assert done.exit_code == 0 and done.stdout == (
        f"{out}: intact export ({fmt.upper()}), 8 records 1 to 8, chained from the first record; last hash "
        f"{head_of(played, 8)}; it does not say what it holds (an export from before exports said their filter, "
        "or its filter removed)\n"
    )
    edit_export(out, keep=lambda seq: seq not in (4, 7, 8))
    assert run("records", "verify", out).exit_code == 0
    refused = run("records", "verify", out, "--head", f"8:{head_of(played, 8)[:16]}")
    assert refused.exit_code == 2 and "the export is filtered (by table or device: record 4 not in it)" in (
        refused.stderr
    )
    assert "it does not say what it holds" in refused.stderr
