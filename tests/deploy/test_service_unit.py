"""docs/operations.md's systemd unit for a service of every event of a database, written by its own
command: systemd-analyze accepts it, its reload signals the master (`$MAINPID` kept by the quoted
here-document, not expanded by the shell), and its ExecStart with its Environment serves the
database's events until the SIGTERM its stop sends (KillMode=mixed: to the master alone), then
exits 0. The tests' machine runs no systemd manager: the block's `systemctl`, `adduser` and
`install` lines are not run here."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.support import REPO, free_port, until

UNIT = "/etc/systemd/system/lexicon-judge.service"
CHECKOUT = "/srv/lexicon-judge"
BIN = Path(sys.executable).parent


def the_unit(folder: Path) -> dict[str, list[str]]:
    """The unit, written into `folder` by the docs' own here-document; its keys' values."""
    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```sh\n(adduser --system .*?)```", doc, re.S)
    (written,) = re.findall(rf"^(cat > {UNIT} <<'EOF'\n.*?\nEOF)$", block, re.S | re.M)
    subprocess.run(["sh", "-c", written.replace(UNIT, str(folder / "lexicon-judge.service"))], check=True)
    values: dict[str, list[str]] = {}
    for line in (folder / "lexicon-judge.service").read_text(encoding="utf-8").splitlines():
        key, equals, value = line.partition("=")
        if equals:
            values.setdefault(key, []).append(value)
    return values


def test_the_unit_of_operations_md_serves_the_databases_events_and_stops_on_its_signal(tmp_path, postgres_server):
    unit = the_unit(tmp_path)
    assert unit["ExecReload"] == ["/bin/kill -HUP $MAINPID"] and unit["KillMode"] == ["mixed"]
    assert unit["RestartPreventExitStatus"] == ["2"]  # a setting refused is said once, not retried

    # systemd's own reading of it, with this checkout in place of /srv/lexicon-judge
    text = (tmp_path / "lexicon-judge.service").read_text(encoding="utf-8")
    text = text.replace(f"{CHECKOUT}/.venv/bin/", f"{BIN}/").replace(CHECKOUT, str(REPO))
    units = tmp_path / "units"
    units.mkdir()
    (units / "lexicon-judge.service").write_text(text, encoding="utf-8")
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze (Debian's systemd package) checks the unit"
    checked = subprocess.run(
        [analyze, "verify", str(units / "lexicon-judge.service")],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SYSTEMD_UNIT_PATH": f"{units}:"},
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr
    assert not [line for line in checked.stderr.splitlines() if "lexicon-judge" in line], checked.stderr

    # its command, with its environment, on a database of the tests' PostgreSQL with one event in it
    database = f"127.0.0.1:{postgres_server.port}/{postgres_server.create_database('unit_season')}"
    environment = dict(value.split("=", 1) for value in unit["Environment"])
    assert environment["LEXICON_EVENT"] == "postgresql://lexicon@db.example/lexicon", environment
    environment["LEXICON_EVENT"] = environment["LEXICON_EVENT"].replace("db.example/lexicon", database)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    made = subprocess.run(
        [f"{BIN}/lexicon", "event", "init", f"postgresql://lexicon_owner@{database}?event=open-unit", "--name", "Open"],
        env=env | {"LEXICON_DIRECTOR_PASSWORD": "una-clave-de-prueba"},
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    (start,) = unit["ExecStart"]
    port = free_port()
    command = [*shlex.split(start.replace(f"{CHECKOUT}/.venv/bin/", f"{BIN}/")), "--port", str(port)]
    with open(tmp_path / "serve.log", "wb") as log:
        served = subprocess.Popen(
            command, cwd=REPO, env=env | environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:

        def ready() -> dict | None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/e/open-unit/readyz", timeout=2) as answer:
                    return json.load(answer)
            except OSError:
                assert served.poll() is None, (tmp_path / "serve.log").read_text(errors="replace")
                return None

        assert until(ready, "the unit's service ready on the event")["status"] == "ready"
        served.send_signal(signal.SIGTERM)  # systemctl stop, KillMode=mixed: the master alone
        assert served.wait(timeout=60) == 0, (tmp_path / "serve.log").read_text(errors="replace")
    finally:
        if served.poll() is None:
            os.killpg(served.pid, signal.SIGKILL)
            served.wait()
