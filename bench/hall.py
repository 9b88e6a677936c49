"""The hall of `bench.rehearsal`'s day: the service on the director's laptop, the director's API,
and the devices that talk to it over HTTP (the judges' phones and the tables' devices driven
without a browser; bench.hall_pages drives the two that run the real judge's page).

Everything here is on the loopback and bounded: every request has a timeout, every retry loop a
deadline. What a device showed is kept as a `Shown` (its idempotency key, words and verdict, and
the record number when the answer carried one), so that the day can check the record against it.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from lexicon.browser import BrowserLexicon
from lexicon.tokenizer import tokenizer

from .server import LEXICON, REPOSITORY, Server, free_port

REQUEST_SECONDS = 10  # one request's timeout
RETRY_SECONDS = 0.2  # a device's pause before asking again when the service cannot be reached


def lexicon_env(**settings: str) -> dict[str, str]:
    """The environment of a `lexicon` command: the shell's LEXICON_* left out, `settings` in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env.update(PYTHONUNBUFFERED="1", **settings)
    return env


class Unreachable(Exception):
    """No answer from the service (refused, reset, timed out), or an answer that is not its own."""


def ask(port: int, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, dict, object]:
    """(status, headers, JSON body or None) of one request on a fresh connection; Unreachable when none came."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_SECONDS)
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        answer_headers = {name.lower(): value for name, value in response.getheaders()}
    except (OSError, http.client.HTTPException) as error:
        raise Unreachable(f"{method} {path}: {error!r}") from None
    finally:
        connection.close()
    try:
        return response.status, answer_headers, json.loads(raw) if raw else None
    except ValueError:
        raise Unreachable(f"{method} {path}: {response.status}, not JSON") from None


class Service:
    """`lexicon serve` in tournament mode (bench.server's harness), on one port for the whole day:
    a restarted laptop serves at the same address, so the devices find it again."""

    def __init__(self, folder: Path, files: list[Path], event: Path, workers: int = 2, **settings: str):
        self.folder, self.files, self.port, self.workers = folder, files, free_port(), workers
        self.settings = {"LEXICON_EVENT": str(event), "LEXICON_LOG_LEVEL": "warning", **settings}
        self.server: Server | None = None
        self.starts = 0

    def start(self, limit: float = 60) -> float:
        """Starts it (its logs in start-N/ of the folder); the seconds until /readyz answered 200."""
        self.starts += 1
        logs = self.folder / f"start-{self.starts}"
        logs.mkdir()
        self.server = Server(self.files, workers=self.workers, logs=logs, port=self.port, **self.settings)
        return self.server.wait_ready(limit)

    def kill(self) -> None:
        """SIGKILL to the whole process group it started (master and workers), as a laptop that
        loses power or is switched off hard."""
        self.server.kill()

    def reload(self) -> tuple[int, str, float]:
        """`lexicon reload --port PORT` from a shell without LEXICON_* (the settings it started with):
        its exit code, output, and seconds."""
        started = time.monotonic()
        done = subprocess.run(
            [str(LEXICON), "reload", "--port", str(self.port)],
            cwd=REPOSITORY,
            env=lexicon_env(),
            capture_output=True,
            text=True,
            timeout=90,
        )
        return done.returncode, done.stdout + done.stderr, time.monotonic() - started

    def stop(self) -> None:
        """SIGTERM, the service stopped at the end of the day (SIGKILL to the group if it hangs)."""
        if self.server is not None:
            self.server.stop()


class Director:
    """The director's API with the session cookie (a tool without a browser: no Origin header)."""

    def __init__(self, service: Service, password: str):
        self.service = service
        status, headers, body = ask(service.port, "POST", "/v1/director/session", {"password": password})
        if status != 201:
            raise RuntimeError(f"director login: {status} {body}")
        self.cookie = headers["set-cookie"].split(";")[0]

    def call(self, method: str, path: str, body=None):
        status, _, answer = ask(self.service.port, method, path, body, {"Cookie": self.cookie})
        if not 200 <= status < 300:
            raise RuntimeError(f"director {method} {path}: {status} {answer}")
        return answer

    def add(self, name: str, role: str, table: str | None = None) -> tuple[int, str]:
        """A new device: its id and pairing code."""
        made = self.call("POST", "/v1/devices", {"name": name, "role": role, **({"table": table} if table else {})})
        return made["device"]["id"], made["code"]


@dataclass
class Shown:
    """A verdict a device showed its players: what the record must hold once, under `key`."""

    device: str
    role: str
    key: str | None
    words: tuple[str, ...]
    valid: bool
    offline: bool = False
    seq: int | None = None  # the record number on the screen (None: judged offline, or none given)


@dataclass
class Tally:
    """What one device did: what it showed, its answers' times, and what it was refused."""

    shown: list[Shown] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # answered at the first try
    refused: dict[str, int] = field(default_factory=dict)  # problem type -> how many
    retried: int = 0  # requests asked again because the service could not be reached
    gave_up: int = 0
    back: list[float] = field(default_factory=list)  # monotonic times a waiting device got an answer again
    unshown: list[str] = field(default_factory=list)  # keys of challenges sent that showed no verdict (a page's)

    def refuse(self, problem: str) -> None:
        self.refused[problem] = self.refused.get(problem, 0) + 1


def device_time() -> str:
    """The phone's clock as the record writes times (2026-11-22T10:31:07.120034Z)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Hall:
    """What every device shares: where the service is, the event's lexicon, the plays, the gap of
    a table device, and the faults in force (which judges are cut off)."""

    def __init__(
        self,
        service: Service,
        lexicon_id: str,
        language: str,
        plays: list[tuple[str, ...]],
        table_gap: float,
        judge_pause: float,
        seed: int = 7,
    ):
        self.service, self.lexicon_id, self.language = service, lexicon_id, language
        self.plays, self.table_gap, self.judge_pause = plays, table_gap, judge_pause
        self.cut_off: set[str] = set()  # names of the devices without network now
        self.random = random.Random(seed)
        self.lock = threading.Lock()

    def play(self) -> tuple[str, ...]:
        with self.lock:
            return self.random.choice(self.plays)


class ApiDevice:
    """A judge's phone or a table's device talking to the API as the judge's page does: a fresh
    idempotency key for every challenge, the same key again when it asks again; a judge cut off
    from the network judges with its copy of the browser lexicon and sends those verdicts
    (`"offline": true`, its key, device_time, checksum) once it is back, oldest first."""

    def __init__(self, hall: Hall, name: str, role: str, token: str):
        self.hall, self.name, self.role, self.token = hall, name, role, token
        self.tally = Tally()
        self.copy: BrowserLexicon | None = None
        self.waiting: list[dict] = []  # offline verdicts not yet recorded
        self.revoked = False
        self.last = 0.0  # when its last challenge was answered (monotonic): a table keeps its gap across rounds

    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"}

    def keep_copy(self) -> None:
        """Downloads the browser lexicon, as the page keeps it after first paint (judges only)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.hall.service.port, timeout=REQUEST_SECONDS)
        try:
            connection.request("GET", f"/v1/lexicons/{self.hall.lexicon_id}/browser", headers=self.headers())
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        if response.status != 200:
            raise RuntimeError(f"{self.name}: the browser lexicon answered {response.status}")
        self.copy = BrowserLexicon(data)

    def judge_here(self, words: tuple[str, ...]) -> bool:
        """The joint verdict by the phone's copy: every word looked up, as lexicon.js does."""
        keys = tokenizer(self.hall.language, "spelling").keys(list(words))
        return all(key in self.copy for key in keys)

    def send(self, body: dict, deadline: float) -> tuple[int, dict, object, float]:
        """POST /v1/challenge until the service answers (asked again, same body, while it cannot be
        reached or says 503): status, headers, body, and the seconds of the answered request."""
        first = True
        while True:
            started = time.monotonic()
            try:
                status, headers, answer = ask(self.hall.service.port, "POST", "/v1/challenge", body, self.headers())
                if status != 503:
                    if not first:
                        self.tally.back.append(time.monotonic())
                    return status, headers, answer, (time.monotonic() - started) if first else -1.0
            except Unreachable:
                pass
            first = False
            self.tally.retried += 1
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: no answer before the deadline")
            time.sleep(RETRY_SECONDS)

    def challenge(self, words: tuple[str, ...], deadline: float) -> None:
        """One play: online, or (a judge cut off) judged on the phone and kept for the record."""
        key = secrets.token_hex(16)
        if self.name in self.hall.cut_off:
            valid = self.judge_here(words)
            self.waiting.append(
                {
                    "lexicon": self.hall.lexicon_id,
                    "words": list(words),
                    "idempotency_key": key,
                    "offline": True,
                    "device_time": device_time(),
                    "checksum": self.copy.header.lexicon_sha256,
                }
            )
            self.tally.shown.append(Shown(self.name, self.role, key, words, valid, offline=True))
            return
        body = {"lexicon": self.hall.lexicon_id, "words": list(words), "idempotency_key": key}
        status, headers, answer, seconds = self.send(body, deadline)
        self.last = time.monotonic()
        if status == 200:
            self.tally.shown.append(Shown(self.name, self.role, key, words, answer["valid"], seq=answer["record"]))
            if seconds >= 0:
                self.tally.seconds.append(seconds)
            return
        problem = str((answer or {}).get("type", status)).rsplit("/", 1)[-1]
        self.tally.refuse(problem)
        if problem == "device-revoked":
            self.revoked = True
        elif problem == "rate-limited":
            time.sleep(min(float(headers.get("retry-after", 1)), 15))

    def sync(self, deadline: float) -> None:
        """Sends the verdicts judged offline, oldest first; each recorded once (a 409 for the key
        recorded already counts as recorded, as the page counts it)."""
        while self.waiting:
            status, _, answer, _ = self.send(self.waiting[0], deadline)
            problem = str((answer or {}).get("type", "")).rsplit("/", 1)[-1]
            if status == 200 or problem == "idempotency-conflict":
                self.waiting.pop(0)
                continue
            self.tally.refuse(f"offline {problem or status}")
            if status == 429:
                time.sleep(min(float((answer or {}).get("retry_after", 1)), 15))
                continue
            self.waiting.pop(0)  # refused for good: the phone keeps it apart for the director

    def play_until(self, stop: threading.Event, deadline: float) -> None:
        """Challenges until `stop`: a judge at its own pace, a table device keeping its gap."""
        pause = self.hall.table_gap * 1.15 + 0.1 if self.role == "table" else self.hall.judge_pause
        # The devices do not all start at once, and none before its gap since its last challenge.
        stop.wait(max(self.hall.random.uniform(0, pause), self.last + pause - time.monotonic()))
        while not stop.is_set() and not self.revoked:
            if self.waiting and self.name not in self.hall.cut_off:
                self.sync(deadline)
            self.challenge(self.hall.play(), deadline)
            stop.wait(pause)
        if self.waiting and self.name not in self.hall.cut_off:
            self.sync(deadline)
