"""`lexicon event init` and `lexicon records verify|export`: exit codes, output, no service needed."""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from lexicon_cli import main
from tests.support import LEXICON_SCRIPT, compile_list, lock_held_elsewhere
from tests.test_docs import matches
from tournament import Entry, open_event, read_export
from tournament.stores.sqlite import connection

LEXICON_ENV = "LEXICON_DIRECTOR_PASSWORD"


def run(*args, env=None):
    try:
        runner = CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        runner = CliRunner()  # click 8.2 and later keep standard error apart already
    return runner.invoke(main, [str(a) for a in args], env={LEXICON_ENV: None, **(env or {})}, catch_exceptions=False)


def entry(**fields) -> Entry:
    values = dict(
        lexicon_id="disc-ca",
        lexicon_version="2.9",
        lexicon_checksum="5f" * 32,
        notation="spelling",
        words=("COL·LEGI", "QUADRE"),
        tiles=("COL·LEGI", "QUADRE"),
        valid=True,
    )
    return Entry(**values | fields)


@pytest.fixture
def event(tmp_path):
    path = tmp_path / "open.db"
    result = run("event", "init", path, "--name", "Open de Lleida 2026", "--lexicon", "ca")
    assert result.exit_code == 0, result.output
    return path, result.stdout.strip()


def test_init_prints_only_the_generated_password_on_standard_output(event):
    path, password = event
    assert len(password) >= 12 and "\n" not in password
    db = open_event(path)
    assert db.check_password(password).ok
    assert (db.event().name, db.event().lexicon) == ("Open de Lleida 2026", "ca")


def test_init_takes_the_password_from_the_environment_and_never_prints_it(tmp_path):
    path = tmp_path / "open.db"
    result = run("event", "init", path, "--name", "Open", env={LEXICON_ENV: "una-clave-larga-2026"})
    assert result.exit_code == 0 and result.stdout == ""
    assert "una-clave" not in result.stderr
    assert open_event(path).check_password("una-clave-larga-2026").ok


def test_init_refuses_an_existing_file_and_a_short_password(event, tmp_path):
    path, _ = event
    before = path.read_bytes()
    refused = run("event", "init", path, "--name", "Otro")
    assert refused.exit_code == 2 and "never overwritten" in refused.stderr and path.read_bytes() == before
    short = run("event", "init", tmp_path / "new.db", "--name", "Otro", env={LEXICON_ENV: "corta"})
    assert short.exit_code == 2 and LEXICON_ENV in short.stderr and not (tmp_path / "new.db").exists()


def test_init_refuses_a_lexicon_that_is_no_default_nor_file(tmp_path):
    result = run("event", "init", tmp_path / "open.db", "--name", "Open", "--lexicon", "fr")
    assert result.exit_code == 2 and "unknown lexicon 'fr': not a compiled file, nor a default" in result.stderr
    assert not (tmp_path / "open.db").exists() and result.stdout == ""


def test_init_records_a_default_in_lower_case_and_a_file_by_its_id(tmp_path):
    upper = run("event", "init", tmp_path / "a.db", "--name", "Open", "--lexicon", "CA")
    assert upper.exit_code == 0 and open_event(tmp_path / "a.db").event().lexicon == "ca"
    lexicon = compile_list(tmp_path / "club.lex", ["CASA", "CARRO"], "es", "club-2026", "Club")
    by_file = run("event", "init", tmp_path / "b.db", "--name", "Open", "--lexicon", lexicon)
    assert by_file.exit_code == 0 and open_event(tmp_path / "b.db").event().lexicon == "club-2026"


def test_init_in_a_folder_that_does_not_exist_is_refused_with_the_reason(tmp_path):
    result = run("event", "init", tmp_path / "no" / "such" / "open.db", "--name", "Open")
    assert result.exit_code == 2 and "cannot create" in result.stderr and "No such file" in result.stderr
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", [("event", "password"), ("event", "login")])
def test_a_command_that_writes_gives_up_at_the_bound_when_the_lock_is_held_elsewhere(event, monkeypatch, command):
    """A command never waits for ever on a service (or another command) holding the write lock:
    after BUSY_SECONDS it says so, exit 2, and changes nothing."""
    path, password = event
    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.5)
    with lock_held_elsewhere(path):
        started = time.monotonic()
        result = run(*command, path)
        waited = time.monotonic() - started
    assert result.exit_code == 2 and result.stdout == "" and 0.5 <= waited < 10
    assert "write lock was not free within 0.5 s" in result.stderr and "try again" in result.stderr
    assert "not an event file" not in result.stderr
    assert open_event(path).check_password(password).ok


def test_one_record_is_said_one_record(event, tmp_path):
    """`records verify` and `event move` of an event with a single verdict say "1 record", as the
    export and an export's verify do (they said "1 records")."""
    path, _ = event
    (row,) = open_event(path).append_many([entry()])
    intact = run("records", "verify", path)
    assert intact.exit_code == 0 and f"{path}: intact, 1 record; last record 1, hash {row.hash}" in intact.stdout
    moved = run("event", "move", path, tmp_path / "moved.db")
    assert moved.exit_code == 0 and f": 1 record, last record 1, hash {row.hash} in both, verified" in moved.stderr


def test_verify_of_a_file_that_is_not_there_says_so_without_telling_to_create_an_event(tmp_path):
    """An export's name mistyped (`ronda3.csv` for `ronda-3.csv`): it said "no such event file
    (create it with `lexicon event init`)", advice for the wrong file."""
    missing = run("records", "verify", tmp_path / "ronda3.csv")
    assert missing.exit_code == 2
    assert f"{tmp_path / 'ronda3.csv'}: no such file (an event file, or a CSV or JSON export of one)" in missing.stderr
    assert "event init" not in missing.stderr


def test_verify_is_0_when_intact_and_1_naming_the_row_edited_with_sqlite3(event):
    path, _ = event
    db = open_event(path)
    rows = db.append_many([entry() for _ in range(4)])
    intact = run("records", "verify", path)
    assert intact.exit_code == 0
    assert f"intact, 4 records; last record 4, hash {rows[-1].hash}" in intact.stdout
    subprocess.run(
        [
            "sqlite3",
            str(path),
            "DROP TRIGGER records_append_only_update; "
            'UPDATE records SET words = \'["COL·LEGI","QUADRES"]\' WHERE seq = 2;',
        ],
        check=True,
    )
    broken = run("records", "verify", path)
    assert broken.exit_code == 1
    assert "record 2: its contents do not match its hash" in broken.stderr


def test_verify_names_the_rows_stamped_before_the_row_before_them_and_still_exits_0(event, tmp_path):
    """Each row's time is the clock of the process that recorded it: an instance whose clock is
    behind the others' (or a clock set back) stamps a row before the one before it, and nothing
    said so. `records verify` of the event and of its export names each row stamped back by more
    than a second (the chain still holds: exit 0); less is clocks in agreement, no mark."""
    path, _ = event
    times = iter(["10:00:05", "10:00:01.5", "10:00:01.9", "10:00:01.2", "10:00:03", "09:59:00"])
    db = open_event(path, clock=lambda: datetime.fromisoformat(f"2026-11-22T{next(times)}+00:00"))
    for _ in range(6):  # one append each, as instances take turns: one clock reading each
        db.append_many([entry()])
    db.close()
    said = (
        "2 records stamped before the record before it, by more than 1 s (an instance's clock disagreeing "
        "with the others', or a clock set back): their order is their numbers, not their times: "
        "record 2 is stamped 3.5 s before record 1; record 6 is stamped 63 s before record 5"
    )
    verified = run("records", "verify", path)
    assert verified.exit_code == 0 and "intact, 6 records" in verified.stdout
    assert f"{path}: {said}" in verified.stdout, verified.stdout
    out = tmp_path / "all.json"
    assert run("records", "export", path, "--format", "json", "-o", out).exit_code == 0
    exported = run("records", "verify", out)
    assert exported.exit_code == 0 and f"{out}: {said}" in exported.stdout, exported.stdout


def test_verify_names_a_row_nested_past_the_json_parser_s_limit_without_a_traceback(event):
    path, _ = event
    open_event(path).append_many([entry() for _ in range(3)])
    with sqlite3.connect(path) as conn:
        conn.executescript("DROP TRIGGER records_append_only_update;")
        conn.execute("UPDATE records SET tiles = ? WHERE seq = 2", ("[" * 100_000 + "]" * 100_000,))
    broken = run("records", "verify", path)
    assert broken.exit_code == 1 and "Traceback" not in broken.stderr
    assert "record 2: tiles is not a list of words" in broken.stderr and len(broken.stderr) < 500


def test_verify_of_a_json_export_nested_past_the_parser_s_limit_exits_2_without_a_traceback(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"event": "Open", "round": null, "records": ' + "[" * 100_000 + "]" * 100_000 + "}")
    refused = run("records", "verify", deep)
    assert refused.exit_code == 2 and "Traceback" not in refused.stderr
    assert "nor a record export (CSV or JSON): its JSON is nested deeper than any export's" in refused.stderr


def test_verify_and_export_refuse_a_file_that_is_no_event(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hola\n")
    for command in (["records", "verify", other], ["records", "export", other]):
        result = run(*command)
        assert result.exit_code == 2 and "not an event file" in result.stderr
    assert other.read_text() == "hola\n"


def test_export_writes_csv_or_json_of_a_round_or_all(event, tmp_path):
    path, _ = event
    db = open_event(path)
    db.append(entry())
    db.open_round(1)
    db.append(entry(valid=False))
    db.close_round()
    rows = list(db.records())
    csv_text = run("records", "export", path).stdout
    assert read_export(csv_text, "csv") == rows
    out = tmp_path / "ronda1.json"
    assert run("records", "export", path, "--round", 1, "--format", "json", "-o", out).exit_code == 0
    assert read_export(out.read_text(encoding="utf-8"), "json") == rows[1:]
    assert json.loads(out.read_text(encoding="utf-8"))["round"] == 1
    bad = run("records", "export", path, "--format", "xml")
    assert bad.exit_code == 2


def test_export_of_a_round_that_never_was_is_refused_naming_the_rounds(event, tmp_path):
    # A director who types --round 33 for round 3 gets a sentence, not an empty spreadsheet.
    path, _ = event
    db = open_event(path)
    db.open_round(3)
    db.close_round()
    out = tmp_path / "ronda33.csv"
    result = run("records", "export", path, "--round", 33, "-o", out)
    assert result.exit_code == 2 and not out.exists()
    assert "no round 33 in this event (its rounds: 3); nothing exported" in result.stderr
    empty = run("records", "export", path, "--round", 3)  # a round without challenges: an empty export
    assert empty.exit_code == 0 and read_export(empty.stdout, "csv") == []
    huge = run("records", "export", path, "--round", "9" * 23)  # past SQLite's integers: no such round either
    assert huge.exit_code == 2 and f"no round {'9' * 23} in this event" in huge.stderr


def test_export_of_a_row_edited_into_nonsense_is_refused_naming_it(event, tmp_path):
    path, _ = event
    open_event(path).append_many([entry(), entry()])
    subprocess.run(
        [
            "sqlite3",
            str(path),
            "DROP TRIGGER records_append_only_update; UPDATE records SET role = 'director' WHERE seq = 2;",
        ],
        check=True,
    )
    out = tmp_path / "out.csv"
    result = run("records", "export", path, "-o", out)
    assert result.exit_code == 1 and "record 2: role 'director' is not one of" in result.stderr
    assert not out.exists()
    assert "record 2: role" in run("records", "verify", path).stderr


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "event-guide.md"
# The guide's lines that serve its event, which its test does not run (a service runs until stopped):
# an event file served is tests/lexicon_cli/test_serve.py's (what serve prints first, its hall-network
# `--host 0.0.0.0`), a restored copy served tests/lexicon_cli/test_restore.py's.
GUIDE_SERVES = re.compile(r"LEXICON_EVENT=[\w.-]+\.db lexicon serve --host 0\.0\.0\.0")


def guide_examples() -> list[tuple[list[str], list[str]]]:
    """(command, the output the guide shows for it, perhaps none) of every `$ lexicon …` line in
    a fenced block of the director's guide, docs/event-guide.md, in order. Every other `$ ` line
    must serve the event (GUIDE_SERVES): a command of another kind would not be run by anything."""
    examples: list[tuple[list[str], list[str]]] = []
    fenced, current = False, None
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced, current = not fenced, None
        elif fenced and stripped.startswith("$ "):
            current = (shlex.split(stripped[2:], comments=True), []) if stripped.startswith("$ lexicon ") else None
            if current is not None:
                examples.append(current)
            else:
                assert GUIDE_SERVES.fullmatch(stripped[2:]), f"event-guide.md: `{stripped}` is run by no test"
        elif fenced and current is not None:
            current[1].append(stripped)
    return examples


def as_shown(text: str) -> str:
    """An output line with what differs from one event to another (hashes, passwords) named."""
    text = re.sub(r"\b[0-9a-f]{6,64}\b", "HASH", text)
    return re.sub(r"^[a-z0-9]{4}(-[a-z0-9]{4}){3}$", "PASSWORD", text)


def play_the_guides_event(path: Path) -> None:
    """Records 1 to 111 in rounds 1 and 2 and round 3's 112 to 151, as in the guide's outputs."""
    db = open_event(path)
    for number, count in ((1, 56), (2, 55), (3, 40)):
        db.open_round(number)
        for start in range(0, count, 20):
            db.append_many([entry() for _ in range(min(20, count - start))])
        db.close_round()
    db.close()


def _sheet_heads(arguments: list[str], event: Path) -> list[str]:
    """The arguments with each `--head SEQ:HASH` of the guide's event made that record's head in `event`,
    to as many digits as the guide writes (as many as the console shows)."""
    heads = {index + 1: arguments[index + 1].split(":") for index, name in enumerate(arguments) if name == "--head"}
    if not heads:
        return arguments
    db = open_event(event, readonly=True)
    try:
        hashes = {row.seq: row.hash for row in db.records()}
    finally:
        db.close()
    return [
        f"{heads[i][0]}:{hashes[int(heads[i][0])][: len(heads[i][1])]}" if i in heads else argument
        for i, argument in enumerate(arguments)
    ]


@pytest.mark.slow
def test_the_guide_commands_for_running_an_event_work_and_print_what_it_shows(tmp_path):
    """Every `$ lexicon` command of the guide, in order, each once (a later repetition is the same
    command), runs and prints what the guide shows under it (`…` any text, as in
    tests/test_docs.py; hashes and passwords are any): but `build-defaults` (the lexicons, built
    elsewhere) and the lines serving the event (GUIDE_SERVES, other tests'); a `--head` copied
    from a round's sheet of the guide's own event is that record's head in this one."""
    examples: dict[tuple[str, ...], list[str]] = {}
    for command, shown in guide_examples():
        if command[1] != "build-defaults":
            examples[tuple(command)] = examples.get(tuple(command)) or shown
    kinds = {command[1:3] for command in examples}
    assert kinds == {
        ("event", "init"),
        ("records", "export"),
        ("records", "verify"),
        ("event", "backup"),
        ("event", "restore"),
        ("event", "password"),
        ("event", "login"),
    }
    assert sum(bool(shown) for shown in examples.values()) >= 4  # init, export, verify, backup
    env = {k: v for k, v in os.environ.items() if k != LEXICON_ENV} | {"XDG_RUNTIME_DIR": str(tmp_path / "run")}
    outputs = []
    for command, shown in examples.items():
        done = subprocess.run(
            [str(LEXICON_SCRIPT), *_sheet_heads(command[1:], tmp_path / "open-lleida.db")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (command, done.stderr)
        outputs.append(done.stdout)
        printed = (done.stderr + done.stdout).splitlines()  # as a terminal shows them: messages, then the result
        if shown:
            assert len(printed) == len(shown) and all(map(matches, map(as_shown, shown), map(as_shown, printed))), (
                f"$ {shlex.join(command)}\nthe guide shows:\n" + "\n".join(shown) + "\nprinted:\n" + "\n".join(printed)
            )
        if command[1:3] == ("event", "init"):
            verified = run("records", "verify", tmp_path / "open-lleida.db")
            assert verified.stdout == "open-lleida.db: intact, no records yet\n".replace(
                "open-lleida.db", str(tmp_path / "open-lleida.db")
            )  # as the guide says, for no verdicts
            play_the_guides_event(tmp_path / "open-lleida.db")
    new = next(out for command, out in zip(examples, outputs, strict=True) if command[1:3] == ("event", "password"))
    assert open_event(tmp_path / "open-lleida.db").check_password(new.strip()).ok  # the last one set
    assert (tmp_path / "ronda3.csv").read_text(encoding="utf-8").startswith("seq,time,round,table,")
    assert json.loads((tmp_path / "open-lleida.json").read_text(encoding="utf-8"))["event"] == "Open de Lleida 2026"
    assert (tmp_path / "copia.db").is_file()


def _drop_records(path):
    subprocess.run(["sqlite3", str(path), "DROP TABLE records;"], check=True)


def _overwrite_records_page(path):
    root = subprocess.run(
        ["sqlite3", str(path), "SELECT rootpage FROM sqlite_master WHERE name = 'records'"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big")
    start = (int(root) - 1) * size
    data[start : start + size] = b"\xa5" * size
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_drop_records, _overwrite_records_page])
def test_verify_and_export_of_a_damaged_event_exit_2_with_a_sentence(event, tmp_path, damage):
    path, _ = event
    db = open_event(path)
    db.append_many([entry() for _ in range(40)])
    db.close()
    assert not path.with_name(path.name + "-wal").exists() or not path.with_name(path.name + "-wal").stat().st_size
    damage(path)
    for command in (["records", "verify", path], ["records", "export", path]):
        result = run(*command)
        assert result.exit_code == 2, (command, result.stderr)
        assert str(path) in result.stderr and "Traceback" not in result.stderr


def test_export_to_a_missing_directory_is_refused_and_no_directory_is_made(event, tmp_path):
    path, _ = event
    missing = tmp_path / "no" / "such" / "dir"
    result = run("records", "export", path, "-o", missing / "out.csv")
    assert result.exit_code == 2 and f"no directory {missing}" in result.stderr
    assert not (tmp_path / "no").exists()


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_first_event_steps() -> list[tuple[str, str]]:
    """(command line, its comment: what it prints, perhaps nothing) of each line of the fenced `sh`
    block of the README's "A first event" (step 5: verify, export, back up)."""
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## A first event\n")
    section = text[start : text.index("\n## ", start + 1)]
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.S)
    steps = []
    for line in filter(str.strip, block.splitlines()):
        command, _, comment = line.strip().partition("#")
        steps.append((command.strip(), comment.strip()))
    return steps


@pytest.mark.slow  # three runs of the installed `lexicon`: seconds
def test_the_readme_first_event_closing_commands_run_and_print_what_its_comment_says(tmp_path):
    """The README's step 5, each line as written, run by bash in a new directory with the test
    environment's `lexicon` first on PATH (as a reader types it), on an event made by its step 1's
    command and played: each exits 0 and prints what its comment shows, if any (`N` the count of
    records, `…` any text); the export and the backup are written where it says, and the
    backup is intact."""
    steps = readme_first_event_steps()
    assert [shlex.split(command)[:3] for command, _ in steps] == [
        ["lexicon", "records", "verify"],
        ["lexicon", "records", "export"],
        ["lexicon", "event", "backup"],
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env["PATH"] = f"{LEXICON_SCRIPT.parent}{os.pathsep}{env.get('PATH', '')}"
    made = run("event", "init", tmp_path / "open-lleida.db", "--name", "Open de Lleida 2026", "--lexicon", "ca")
    assert made.exit_code == 0, made.stderr
    db = open_event(tmp_path / "open-lleida.db")
    db.open_round(1)
    db.append_many([entry() for _ in range(7)])
    db.close_round()
    db.close()
    for command, comment in steps:
        done = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, (command, done.stderr)
        if comment:
            said = re.sub(r"\b7\b", "N", done.stdout.strip())
            assert matches(comment, said), (command, comment, done.stdout)
    assert len(read_export((tmp_path / "open-lleida.csv").read_text(encoding="utf-8"), "csv")) == 7
    assert run("records", "verify", tmp_path / "open-lleida-copia.db").exit_code == 0


def test_init_refuses_a_name_too_long_for_a_phone_s_first_screen(tmp_path):
    long = "Open " * 40  # 200 characters
    result = run("event", "init", tmp_path / "open.db", "--name", long)
    assert result.exit_code == 2 and not (tmp_path / "open.db").exists() and result.stdout == ""
    assert "1 to 80 printable characters" in result.stderr and "(200 characters)" in result.stderr
    longest = "C" * 80
    assert run("event", "init", tmp_path / "a.db", "--name", longest).exit_code == 0
    assert open_event(tmp_path / "a.db").event().name == longest
