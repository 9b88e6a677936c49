"""A federation's service under its failures: two `lexicon serve` instances on one event in
PostgreSQL, behind deploy/nginx.conf, while paired judges' devices challenge without a pause as
the judge's page does (event.js, offline.js): each play with a new idempotency key and the
witness fields (`event_file`, `last_key`); a verdict shown with its record's number when the
record answered 200; otherwise (a 5xx, or no answer at all) the device says so, judges on its own
copy of the lexicon, and sends that verdict again later with the same key (`offline`), until the
record has it. Meanwhile:

- any instance is killed with SIGKILL mid-round (then the other), and started again;
  the instances serving the one event (LEXICON_EVENT its URL), or every event of its database
  (the database's URL: the event at /e/ID/);
- PostgreSQL is stopped (`pg_ctl stop -m fast`, and `-m immediate`: a crash) mid-round and started
  again: while it is away every challenge is answered 503 `record-unavailable` within the
  event's write bound (BUSY_SECONDS), each instance's /readyz answers 503 saying the database
  cannot be reached (without its password), and once it is back both instances record again
  without a restart.

Then every verdict a device showed is in the record exactly once (a number shown is that row,
with the verdict shown), no row is one no device showed, and `lexicon records verify` passes.
"""

from __future__ import annotations

import http.client
import json
import secrets
import shutil
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.federation import LOOK_AGAIN
from tests.postgres import OWNER, SERVICE, PostgresServer
from tests.service.event.test_http_e2e import PASSWORD, Console, lexicon
from tests.support import LiveServer, stop_all, until
from tournament import create_event, open_event
from tournament.storage import BUSY_SECONDS

from .test_nginx import Nginx

pytestmark = pytest.mark.postgres  # its own PostgreSQL (stopped and started by the tests)

DEVICES = 6
SECRET = "not-asked"  # a password in the instances' URL (trust authentication lets any in): never shown


@dataclass
class Shown:
    """A verdict a device showed: its key, the verdict, the record's number (None: judged offline,
    the number it got once recorded, when the record answered one)."""

    key: str
    valid: bool
    record: int | None
    offline: bool


class Device:
    """A paired judge's phone as its page behaves (see the module's docstring), in a thread of its own.
    It plays `plays[True]` (a valid play) twice, then `plays[False]` (not valid), in `lexicon`, its event's."""

    lexicon = "es"
    plays = (("CARRO", "ZURDO"), ("CARRO", "CHICO"))  # indexed by the verdict: not valid, valid

    def __init__(self, proxy: Nginx, path: str, token: str, file: str, checksum: str, number: int):
        self.proxy, self.path, self.token, self.number = proxy, path, token, number
        self.file, self.checksum = file, checksum
        self.shown: list[Shown] = []
        self.waiting: list[dict] = []  # offline verdicts not yet in the record, oldest first
        self.told: list[tuple[int, str, float]] = []  # (status, type, seconds) of each error answer
        self.wrong: list[str] = []  # anything the page would not take
        self.last_key: str | None = None
        self.halt = threading.Event()
        self.connection = proxy.connection()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def online(self) -> int:
        return sum(not s.offline for s in self.shown)

    def post(self, body: dict) -> tuple[int, dict, float]:
        """POST /v1/challenge through nginx: status (0: no answer), body, seconds."""
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        started = time.monotonic()
        try:
            self.connection.request("POST", self.path, json.dumps(body).encode(), headers)
            response = self.connection.getresponse()
            data = response.read()
            kind = response.getheader("Content-Type", "")
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = self.proxy.connection()
            return 0, {}, time.monotonic() - started
        seconds = time.monotonic() - started
        if response.status != 200 and kind != "application/problem+json":
            self.wrong.append(f"{response.status} {kind}: {data[:200]!r}")
        try:
            return response.status, json.loads(data), seconds
        except ValueError:
            self.wrong.append(f"{response.status}: not JSON {data[:200]!r}")
            return response.status, {}, seconds

    def play(self, index: int) -> None:
        valid = index % 3 != 0
        key = secrets.token_hex(16)
        body = {
            "lexicon": self.lexicon,
            "words": list(self.plays[valid]),
            "notation": "spelling",
            "idempotency_key": key,
            "event_file": self.file,
            **({"last_key": self.last_key} if self.last_key else {}),
        }
        status, answer, seconds = self.post(body)
        if status == 200 and isinstance(answer.get("record"), int):
            if answer.get("valid") is not valid:
                self.wrong.append(f"record {answer['record']}: {answer.get('valid')} for {valid}")
            self.shown.append(Shown(key, valid, answer["record"], offline=False))
            self.last_key = key
            return
        if status and status < 500:
            self.wrong.append(f"{status}: {answer}")
            return
        # No verdict from the service (no answer, or a 5xx): the page judges on its own copy,
        # shows it, and keeps it to send again with the same key (offline.js).
        self.told.append((status, str(answer.get("type", "")), seconds))
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        self.waiting.append({**body, "offline": True, "device_time": stamp, "checksum": self.checksum, "round": 1})
        self.shown.append(Shown(key, valid, None, offline=True))

    def flush(self) -> None:
        """The waiting verdicts, oldest first, until one is not taken now (offline.js's flush)."""
        while self.waiting:
            status, answer, _ = self.post(self.waiting[0])
            kind = str(answer.get("type", ""))
            if status == 200 and isinstance(answer.get("record"), int):
                for shown in self.shown:
                    if shown.key == self.waiting[0]["idempotency_key"]:
                        shown.record = answer["record"]
            elif not (status == 409 and kind.endswith("/idempotency-conflict")):
                if not status or status >= 500:
                    return  # not now: tried again later
                self.wrong.append(f"offline verdict refused: {status} {answer}")
            self.waiting.pop(0)

    def run(self) -> None:
        index = 0
        while not self.halt.is_set():
            self.flush()
            told = len(self.told)
            self.play(index)
            index += 1
            if len(self.told) > told:  # a judge reads the phone before the next play
                self.halt.wait(0.25)
        self.connection.close()


class Prefixed:
    """An instance as the console reaches one event of it: every path under `prefix`."""

    def __init__(self, instance: LiveServer, prefix: str):
        self.instance, self.prefix, self.url = instance, prefix, instance.url

    def request(self, method: str, path: str, body=None, headers=None):
        return self.instance.request(method, self.prefix + path, body, headers)


class Federation:
    """PostgreSQL, an event in it, two instances on it behind nginx, and paired devices. `every`:
    the instances serve every event of the database (the event under /e/ID/), else the one event."""

    def __init__(self, folder: Path, nginx_binary: str, lexicon_file: Path, every: bool = False):
        self.folder = folder
        self.files = [lexicon_file]
        self.started = 0
        self.instances: list[LiveServer] = []
        self.proxy: Nginx | None = None
        self.devices: list[Device] = []
        # Not under pytest's folder, which is root's alone: the server may run as `postgres`.
        self.database = PostgresServer(Path(tempfile.mkdtemp(prefix="lexicon-postgres-")))
        try:
            self.event = f"open-{uuid.uuid4().hex[:8]}"
            owner = self.database.url(OWNER, event=self.event)
            create_event(owner, "Open de Lleida 2026", PASSWORD, lexicon="es").close()
            self.url = self.database.url(SERVICE, event=self.event, tcp=True).replace(
                f"{SERVICE}@", f"{SERVICE}:{SECRET}@"
            )
            self.served = self.url.split("?")[0] if every else self.url  # what LEXICON_EVENT names
            self.prefix = f"/e/{self.event}" if every else ""
            self.serve(folder, nginx_binary)
        except BaseException:
            self.close()
            raise

    def serve(self, folder: Path, nginx_binary: str) -> None:
        """Two instances of what `self.served` names, behind deploy/nginx.conf."""
        for _ in range(2):
            self.instances.append(self.start())
        (folder / "nginx").mkdir()
        self.proxy = Nginx(nginx_binary, folder / "nginx", self.instances)

    def start(self, port: int | None = None) -> LiveServer:
        """An instance on the event (on `port`: started again where nginx knows it), ready."""
        self.started += 1
        logs = self.folder / f"instance-{self.started}"  # each start's logs kept
        logs.mkdir()
        instance = LiveServer(
            logs, self.files, port=port, LEXICON_EVENT=self.served, LEXICON_TRUSTED_PROXIES="127.0.0.1"
        )
        instance.wait_ready()
        return instance

    def pair(self) -> None:
        console = Console(Prefixed(self.instances[0], self.prefix))
        assert console.login()[0] == 201
        assert console.call("POST", "/v1/rounds", {"number": 1})[0] == 201
        ready = json.loads(self.instances[0].get(f"{self.prefix}/readyz")[1])
        path = f"{self.prefix}/v1/challenge"
        for number in range(DEVICES):
            token = console.pair(f"Juez {number + 1}")
            self.devices.append(Device(self.proxy, path, token, ready["event_file"], ready["event_lexicon"], number))

    def verdicts(self) -> int:
        return sum(device.online() for device in self.devices)

    def each_recorded(self, more: int, what: str, limit: float = 60) -> None:
        """Waits until every device has had `more` verdicts recorded online from now."""
        before = [device.online() for device in self.devices]
        until(
            lambda: all(d.online() >= b + more for d, b in zip(self.devices, before, strict=True)),
            f"every device recording {more} more verdicts {what}",
            limit,
        )

    def served_by(self, port: int) -> None:
        """Waits until a challenge from now on was recorded by the instance on `port` (nginx's log)."""
        log = self.proxy.access_log

        def written() -> list[str]:  # whole lines only: nginx may be writing the last one as it is read
            text = log.read_text()
            return text[: text.rfind("\n") + 1].splitlines()

        start = len(written())

        def answered() -> bool:
            lines = [json.loads(line) for line in written()[start:]]
            return any(
                line["method"] == "POST" and line["status"] == 200 and line["upstream"].endswith(f":{port}")
                for line in lines
            )

        until(answered, f"a challenge recorded by the instance on port {port}")

    def finish(self) -> None:
        """The devices stop asking, then send what they still hold until the record has it all."""
        for device in self.devices:
            device.halt.set()
        for device in self.devices:
            device.thread.join(60)
            assert not device.thread.is_alive()
        for device in self.devices:
            device.connection = self.proxy.connection()
            until(lambda d=device: d.flush() or not d.waiting, f"device {device.number}'s waiting verdicts recorded")
            device.connection.close()

    def check(self) -> list:
        """The record holds every verdict shown exactly once, and nothing else; it verifies."""
        assert [w for d in self.devices for w in d.wrong] == []
        shown = {s.key: s for d in self.devices for s in d.shown}
        assert len(shown) == sum(len(d.shown) for d in self.devices)
        db = open_event(self.database.url(SERVICE, event=self.event), readonly=True)
        try:
            rows = list(db.records())
            assert db.verify() is None
        finally:
            db.close()
        keys = [row.entry.idempotency_key for row in rows]
        assert len(keys) == len(set(keys)), "a verdict recorded twice"
        assert set(keys) == set(shown), "a verdict shown and not recorded, or recorded and never shown"
        for row in rows:
            seen = shown[row.entry.idempotency_key]
            assert row.entry.valid == seen.valid, row
            if seen.record is not None:
                assert row.seq == seen.record, (row, seen)
        verified = lexicon("records", "verify", self.url)
        assert verified.returncode == 0, verified.stderr
        assert SECRET not in verified.stdout + verified.stderr
        return rows

    def close(self) -> None:
        for device in self.devices:
            device.halt.set()
        if self.proxy is not None:
            self.proxy.stop()
        stop_all(self.instances)
        self.database.stop()
        shutil.rmtree(self.database.folder, ignore_errors=True)


@pytest.fixture(params=["one event", "every event"])
def federation(request, tmp_path, nginx_binary, spanish_file):
    """Instances serving the event by its URL, or every event of its database (the event at /e/ID/)."""
    made = Federation(tmp_path, nginx_binary, spanish_file, every=request.param == "every event")
    try:
        made.pair()
        for device in made.devices:
            device.thread.start()
        made.each_recorded(3, "before any failure")
        yield made
    finally:
        made.close()


def test_an_instance_killed_mid_round_loses_no_verdict_and_doubles_none(federation):
    """Each instance in turn killed with SIGKILL (its master and workers, as a machine losing power)
    while the devices challenge, then started again on its port: nginx sends what never reached
    it to the other; a challenge that did gets 503 or no answer, and its device's verdict, judged
    on the phone, reaches the record once."""
    for index in (0, 1):
        killed = federation.instances[index]
        killed.kill()
        federation.each_recorded(3, f"with instance {index} killed")
        federation.instances[index] = federation.start(port=killed.port)
        federation.served_by(killed.port)  # once nginx tries it again (its fail_timeout, 5 s)
        federation.each_recorded(3, f"with instance {index} started again")
    federation.finish()
    rows = federation.check()
    assert len(rows) >= 12 * DEVICES
    for device in federation.devices:  # an error answer says so: nginx's 503, or no answer at all
        assert {status for status, _, _ in device.told} <= {0, 503}, device.told


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_the_database_restarted_mid_round_answers_503_meanwhile_and_is_used_again(federation, mode):
    """PostgreSQL stopped (fast: connections ended, a checkpoint; immediate: a crash, recovered from
    its log at the next start) while the devices challenge: every challenge meanwhile is 503
    `record-unavailable` within the write bound, /readyz says why on each instance, and both
    instances record again once it is back, without a restart."""
    database = federation.database
    told = [len(device.told) for device in federation.devices]
    database.stop(mode)
    until(
        lambda: all(len(d.told) >= n + 2 for d, n in zip(federation.devices, told, strict=True)),
        "every device told twice that the record cannot be written",
    )
    probes = {"/readyz", f"{federation.prefix}/readyz"}  # the service's, and the event's
    for instance in federation.instances:
        for probe in probes:
            # the service's root asks the database at most every LOOK_AGAIN seconds (so no client can
            # make it ask more often): a look shortly before the stop is said until the next one
            status, body = until(
                lambda i=instance, p=probe: (lambda answer: answer if answer[0] == 503 else None)(i.get(p)),
                f"{probe} not ready while the database is away",
                limit=LOOK_AGAIN + 5,
            )
            said = json.loads(body)
            assert "database" in said["detail"] and "cannot be reached" in said["detail"], said
            assert SECRET not in body.decode()
    database.start()
    federation.each_recorded(3, "once the database is back")
    for instance in federation.instances:
        for probe in probes:
            until(lambda i=instance, p=probe: i.get(p)[0] == 200, f"{probe} ready again")
    federation.finish()
    federation.check()
    away = [t for d, n in zip(federation.devices, told, strict=True) for t in d.told[n:]]
    assert away, "no challenge was answered while the database was away"
    for status, kind, seconds in away:
        assert status == 503 and kind.endswith("/record-unavailable"), (status, kind)
        assert seconds < BUSY_SECONDS + 3, seconds
    for instance in federation.instances:
        assert SECRET not in instance.logs()
