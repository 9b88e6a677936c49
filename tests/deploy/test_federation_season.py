"""A federation's season, end to end, by the operator's own steps (docs/operations.md, "A
federation's service"): a new PostgreSQL, the docs' SQL making its roles and database, the docs'
`lexicon event init` of two events as the owner, two instances of the docs' service of every event
(as the instances' role) behind deploy/nginx.conf, a judge's phone paired to each event through
nginx as the director's console and the page do it (the director's session with the password
`init` printed, a pairing code, the pairing), both phones challenging without a pause as the page
does (test_nginx_postgres.Device: a new idempotency key per play, a verdict judged on the phone and
sent again when the service gave none), one instance killed with SIGKILL mid-round, PostgreSQL
crashed (`pg_ctl stop -m immediate`'s signal) and started again mid-round. Then `lexicon records
export` of each event, and `lexicon records verify` of each export: each holds exactly the
verdicts its phone showed (the number shown, the words played, the verdict), once, and nothing of
the other event's.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.postgres import OWNER, SERVICE, PostgresServer
from tests.service.event.test_http_e2e import Console
from tests.support import REPO, until

from .test_nginx import Nginx
from .test_nginx_postgres import Device, Federation

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # its own PostgreSQL; the default lexicons

OPERATIONS = REPO / "docs" / "operations.md"
DOCS_DATABASE = "db.example/lexicon"  # the docs' database, in their URLs
BIN = Path(sys.executable).parent  # the test environment's `lexicon`
# The docs' event, and a second one made by the same command (another id, name and lexicon).
EVENTS = {
    "open-lleida-2026": ("Open de Lleida 2026", "ca", (("CASA", "ZURDOX"), ("CASA", "TAULA"))),
    "open-girona-2026": ("Open de Girona 2026", "es", (("CARRO", "ZURDOX"), ("CARRO", "CHICO"))),
}


def section() -> str:
    """docs/operations.md's "A federation's service", down to its next section of that level."""
    text = OPERATIONS.read_text()
    start = text.index("\n## A federation's service\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def fenced(language: str, containing: str) -> str:
    """The first block of the section fenced as `language` holding `containing`, its continued
    lines joined."""
    for block in re.findall(rf"```{language}\n(.*?)```", section(), re.S):
        if containing in block:
            return block.replace("\\\n", " ")
    raise AssertionError(f"docs/operations.md has no {language} block with {containing!r}")


class DocsPostgres(PostgresServer):
    """The tests' PostgreSQL, its roles and database made by the docs' own SQL (passwords made up:
    the tests' server trusts local connections)."""

    def setup_roles(self) -> None:
        sql = fenced("sql", "CREATE ROLE").replace("'…'", "'a-season-secret'")
        with self.connect(database="postgres") as conn:
            for statement in filter(str.strip, sql.split(";")):
                conn.execute(statement)


class Season(Federation):
    """Federation's parts (its instances, nginx, devices, finish and close), put together by the docs."""

    def __init__(self, folder: Path, nginx_binary: str):
        self.folder = folder
        self.files = None  # the default lexicons, as an operator's `lexicon serve`
        self.started = 0
        self.instances = []
        self.proxy = None
        self.devices = []
        self.database = DocsPostgres(Path(tempfile.mkdtemp(prefix="lexicon-postgres-")))
        try:
            self.address = f"127.0.0.1:{self.database.port}/lexicon"
            self.passwords = {event: self.init(event, *EVENTS[event][:2]) for event in EVENTS}
            served = dict(word.split("=", 1) for word in shlex.split(fenced("sh", "LEXICON_PUBLIC_URL")) if "=" in word)
            # as Federation.start serves (LEXICON_PUBLIC_URL left out: nginx's address is made after)
            assert served["LEXICON_EVENT"] == f"postgresql://{SERVICE}@{DOCS_DATABASE}", served
            assert served["LEXICON_TRUSTED_PROXIES"] == "127.0.0.1", served
            self.served = served["LEXICON_EVENT"].replace(DOCS_DATABASE, self.address)
            self.serve(folder, nginx_binary)
        except BaseException:
            self.close()
            raise

    def run(self, command: str) -> subprocess.CompletedProcess:
        """A command of the docs, on this database, as an operator's shell runs it."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        command = command.replace(DOCS_DATABASE, self.address)
        return subprocess.run(
            ["bash", "-c", command], cwd=self.folder, env=env, capture_output=True, text=True, timeout=120
        )

    def init(self, event: str, name: str, language: str) -> str:
        """The docs' `lexicon event init` of an event, as the owner; the password it printed."""
        command = fenced("sh", "lexicon event init").strip()
        assert f"postgresql://{OWNER}@{DOCS_DATABASE}?event=open-lleida-2026" in command, command
        command = command.replace("open-lleida-2026", event).replace("Open de Lleida 2026", name)
        done = self.run(command.replace("--lexicon ca", f"--lexicon {language}"))
        assert done.returncode == 0, done.stderr
        assert f"'{name}', lexicon {language}" in done.stderr, done.stderr
        return done.stdout.strip()

    def pair(self, event: str) -> Device:
        """A judge's phone paired to `event` through nginx: the director's console signs in with
        the password `init` printed, opens the first round and adds the device; the phone opens
        the pairing URL (its QR code) and its page sends the code there, without the director's
        cookie (event.js's pair)."""
        front = Front(self.proxy, f"/e/{event}")
        console = Console(front)
        assert console.login(self.passwords[event])[0] == 201
        assert console.call("POST", "/v1/rounds", {"number": 1})[0] == 201
        status, _, added = console.call("POST", "/v1/devices", {"name": "Juez 1", "role": "judge"})
        assert status == 201, added
        page, _, code = added["pairing_url"].partition("#pair=")
        assert page == f"{front.url}/e/{event}/" and code == added["code"], added
        status, _, body = self.proxy.request(
            "POST",
            f"/e/{event}/v1/devices/pair",
            json.dumps({"code": code}).encode(),
            {"Content-Type": "application/json", "Origin": front.url},
        )
        assert status == 201, body
        token = json.loads(body)["token"]
        status, _, body = front.request("GET", "/readyz")
        assert status == 200, body
        ready = json.loads(body)
        device = Device(self.proxy, f"/e/{event}/v1/challenge", token, ready["event_file"], ready["event_lexicon"], 0)
        device.lexicon, device.plays = EVENTS[event][1], EVENTS[event][2]
        self.devices.append(device)
        return device

    def export(self, event: str) -> list[dict]:
        """`lexicon records export` of the event, as the instances' role, and `lexicon records
        verify` of the export alone; its rows."""
        url = f"'postgresql://{SERVICE}@{DOCS_DATABASE}?event={event}'"
        exported = self.folder / f"{event}.json"
        done = self.run(f"lexicon records export {url} --format json -o {exported}")
        assert done.returncode == 0, done.stderr
        done = self.run(f"lexicon records verify {exported}")
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(exported.read_text())["records"]


class Front:
    """nginx as a director's browser reaches one event: every path under `prefix`, the Origin its own."""

    def __init__(self, proxy: Nginx, prefix: str):
        self.proxy, self.prefix = proxy, prefix
        self.url = f"https://127.0.0.1:{proxy.port}"

    def request(self, method: str, path: str, body=None, headers=None):
        return self.proxy.request(method, self.prefix + path, body, headers)


def told(season: Season) -> list[int]:
    return [len(device.told) for device in season.devices]


def test_a_season_by_the_docs_two_events_two_instances_an_instance_killed_and_the_database_restarted(
    tmp_path, nginx_binary
):
    season = Season(tmp_path, nginx_binary)
    try:
        phones = {event: season.pair(event) for event in EVENTS}
        for phone in phones.values():
            phone.thread.start()
        season.each_recorded(3, "before any failure")

        killed = season.instances[0]
        killed.kill()  # SIGKILL of its master and workers
        season.each_recorded(3, "with an instance killed")
        season.instances[0] = season.start(port=killed.port)
        season.served_by(killed.port)

        before = told(season)
        season.database.stop("immediate")  # a crash: recovered from its log at the next start
        until(
            lambda: all(n >= b + 2 for n, b in zip(told(season), before, strict=True)),
            "each phone told twice that the record cannot be written",
        )
        season.database.start()
        season.each_recorded(3, "once the database is back")
        season.finish()

        for event, phone in phones.items():
            assert phone.wrong == []
            assert any(shown.offline for shown in phone.shown), "no verdict judged on the phone"
            rows = season.export(event)
            assert [row["seq"] for row in rows] == list(range(1, len(rows) + 1))
            keys = [row["idempotency_key"] for row in rows]
            assert len(keys) == len(set(keys)), f"{event}: a verdict recorded twice"
            shown = {s.key: s for s in phone.shown}
            assert set(keys) == set(shown), f"{event}: a verdict shown and not exported, or exported and never shown"
            for row in rows:
                seen = shown[row["idempotency_key"]]
                assert (row["words"], row["valid"]) == (list(phone.plays[seen.valid]), seen.valid), (row, seen)
                # a verdict judged on the phone may be the row of its first ask, whose answer was lost
                assert seen.offline or not row["offline"], (row, seen)
                # the number shown is this row's (an offline verdict shows one once the record has it)
                assert seen.record == row["seq"] or (seen.offline and seen.record is None), (row, seen)
                assert row["lexicon_checksum"] == phone.checksum, row
            assert sum(not s.offline for s in phone.shown) >= 9
    finally:
        season.close()
