"""`lexicon reload` against the real `lexicon serve` (2 workers), under load from 8 clients.

A reload verifies the new files first, then new workers serve them while the old ones finish:
no request is lost, and every verdict is the old lexicon's answer or the new one's, never
anything else. A file that fails leaves everything as it was (exit code 2, the reason said).
A new venue token takes effect for the next connection.
"""

from __future__ import annotations

import http.client
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time

import pytest

from tests.support import LEXICON_SCRIPT, REPO, LiveServer, until

PLAY = json.dumps({"lexicon": "es", "words": ["CARRO", "XILÓFONO"]}).encode()  # valid in es-alt only
HEADERS = {"Content-Type": "application/json"}


def reload(port: int, **variables: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env.update(variables)
    return subprocess.run(
        [str(LEXICON_SCRIPT), "reload", "--port", str(port)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


class Load:
    """Threads asking the same play on kept-alive connections; every answer is recorded."""

    def __init__(self, server: LiveServer, clients: int = 8, headers: dict | None = None):
        self.server, self.headers = server, {**HEADERS, **(headers or {})}
        self.answers: list[tuple[float, object, bytes]] = []
        self._stop = threading.Event()
        self.clients = clients
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(clients)]

    def _run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=20)
        while not self._stop.is_set():
            try:
                connection.request("POST", "/v1/challenge", body=PLAY, headers=self.headers)
                response = connection.getresponse()
                answer = (time.monotonic(), response.status, response.read())
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
            except (OSError, http.client.HTTPException) as error:
                answer = (time.monotonic(), "error", repr(error).encode())
                connection.close()
            self.answers.append(answer)
        connection.close()

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        until(lambda: len(self.answers) >= 2 * self.clients, "the load to get going")  # every client under way
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)


@pytest.fixture
def served(tmp_path, lexicon_files):
    path = tmp_path / "served.lex"
    shutil.copyfile(lexicon_files["es-mini"], path)
    server = LiveServer(tmp_path, [path, lexicon_files["ca-mini"]], workers=2)
    server.wait_ready()
    yield server, path
    assert server.stop() == 0


def verdicts(server) -> dict:
    _status, _, body = server.request("POST", "/v1/challenge", PLAY, HEADERS)
    return json.loads(body)


@pytest.mark.server
def test_reload_under_load_serves_the_new_file_and_loses_nothing(served, lexicon_files):
    server, path = served
    old = verdicts(server)
    assert old["valid"] is False
    new_path = path.with_name("new.lex")
    shutil.copyfile(lexicon_files["es-alt"], new_path)
    new_path.replace(path)  # as `lexicon build -o` does
    with Load(server) as load:
        done = reload(server.port, LEXICON_FILES=f"{path}{os.pathsep}{lexicon_files['ca-mini']}")
        # the new lexicon takes over: the last answers of every client all new (the old workers
        # have finished what they had accepted), however long a loaded machine takes
        late = until(
            lambda: (
                (last := load.answers[-4 * load.clients :])
                and all(b'"valid":true' in body for _, _, body in last)
                and last
            ),
            "only the new lexicon's verdicts",
        )
    assert done.returncode == 0, done.stderr
    new = verdicts(server)
    assert new["valid"] is True and new["lexicon"]["id"] == "es-alt"
    assert new["lexicon"]["checksum"] in done.stdout
    answers = {(status, body) for _, status, body in load.answers}
    allowed = {(200, json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode()) for v in (old, new)}
    assert answers == allowed, answers ^ allowed  # no error, no other answer; the old, then the new
    assert late and all(b'"valid":true' in body for _, _, body in late)  # only the new lexicon, at last


@pytest.mark.server
def test_a_reload_with_a_bad_file_changes_nothing_and_says_why(served, tmp_path, lexicon_files):
    server, _path = served
    before = verdicts(server)
    broken = tmp_path / "broken.lex"
    broken.write_bytes(lexicon_files["es-alt"].read_bytes()[:-10])
    with Load(server) as load:
        done = reload(server.port, LEXICON_FILES=str(broken))
        server.logged(lambda logs: "reload refused" in logs, "the refusal in the service's log")
        asked = len(load.answers)  # the workers forked after the refusal answer as before
        until(lambda: len(load.answers) >= asked + 4 * load.clients, "answers after the refusal")
    assert done.returncode == 2
    assert "broken.lex" in done.stderr and "still serving" in done.stderr
    assert verdicts(server) == before
    assert {status for _, status, _ in load.answers} == {200}
    assert "reload refused" in server.logs()


def documented_block() -> str:
    """docs/operations.md's "Reload without a restart" example, its ```sh block."""
    text = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    section = text[text.index("## Reload without a restart") :]
    return section[section.index("```sh\n") + 6 : section.index("```", section.index("```sh\n") + 6)]


def documented_reload() -> tuple[dict[str, str], list[str]]:
    """The settings and the command of docs/operations.md's "Reload without a restart" example."""
    (line,) = [line for line in documented_block().splitlines() if " reload " in line]
    words = shlex.split(line)
    settings = dict(word.split("=", 1) for word in words if "=" in word)
    return settings, [word for word in words if "=" not in word]


def test_the_reload_examples_build_and_export_lines_make_the_files_its_reload_serves(tmp_path):
    """docs/operations.md's "Reload without a restart", its two lines before the reload, as
    written, run by bash in a new directory with the test environment's `lexicon` first on PATH, on
    a two-word fed-2027.txt: they exit 0 and write the list with the id and version they give and
    its browser copy beside it, and the reload line's LEXICON_FILES names that list first (the
    reload itself is test_a_new_token_takes_effect_and_an_empty_one_is_refused's)."""
    lines = [line.partition("#")[0].strip() for line in documented_block().splitlines() if line.strip()]
    build, export, _ = lines
    assert shlex.split(build)[:2] == ["lexicon", "build"] and shlex.split(export)[:2] == ["lexicon", "export"]
    (tmp_path / "fed-2027.txt").write_text("CARRO\nCASA\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env["PATH"] = f"{LEXICON_SCRIPT.parent}{os.pathsep}{env.get('PATH', '')}"
    for command in (build, export):
        done = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, (command, done.stderr)
    from lexicon.browser import beside
    from lexicon.lexfile import Lexicon

    header = Lexicon.open(tmp_path / "fed-2027.lex").header
    assert (header.id, header.version, header.language, header.words) == ("fed-2027", "2027", "es", 2)
    assert beside(tmp_path / "fed-2027.lex").is_file()
    settings, _ = documented_reload()
    assert settings["LEXICON_FILES"].split(":")[0] == "fed-2027.lex"


@pytest.mark.server
def test_a_new_token_takes_effect_and_an_empty_one_is_refused(served, lexicon_files):
    """With docs/operations.md's own reload command and token (its port the server's, its two
    files the two this server serves: the doc's new list and a default)."""
    server, path = served
    settings, command = documented_reload()
    assert command == [".venv/bin/lexicon", "reload", "--port", "8000"]
    assert list(settings) == ["LEXICON_FILES", "LEXICON_TOKEN"] and len(settings["LEXICON_FILES"].split(":")) == 2
    token = settings["LEXICON_TOKEN"]
    assert server.request("GET", "/v1/lexicons")[0] == 200
    done = reload(server.port, LEXICON_FILES=f"{path}:{lexicon_files['ca-mini']}", LEXICON_TOKEN=token)
    assert done.returncode == 0, done.stderr
    assert server.request("GET", "/v1/lexicons")[0] == 401
    assert server.request("GET", "/v1/lexicons", headers={"Authorization": f"Bearer {token}"})[0] == 200
    assert token not in server.logs()
    done = reload(server.port, LEXICON_TOKEN="")  # `LEXICON_TOKEN=$TYPO`: never opens the venue
    assert done.returncode == 2 and "LEXICON_TOKEN is set but empty" in done.stderr
    assert server.request("GET", "/v1/lexicons")[0] == 401


@pytest.mark.server
def test_sighup_rereads_the_files(served, lexicon_files):
    server, path = served
    new_path = path.with_name("new.lex")
    shutil.copyfile(lexicon_files["es-alt"], new_path)
    new_path.replace(path)
    os.kill(server.process.pid, 1)  # SIGHUP to the master this test started
    until(lambda: verdicts(server)["lexicon"]["id"] == "es-alt", "the new file's verdicts after SIGHUP")


def test_reload_with_no_server_is_exit_2(tmp_path):
    from tests.support import free_port

    done = reload(free_port())
    assert done.returncode == 2 and "no `lexicon serve` runs on port" in done.stderr


@pytest.mark.server
def test_sigterm_answers_every_request_already_sent_then_exits(tmp_path, lexicon_files):
    """A stop must not reset requests that were sent before it (they were, under the old worker)."""
    import socket

    server = LiveServer(tmp_path, [lexicon_files["es-mini"]], workers=1)
    server.wait_ready()
    sent = []
    for _ in range(20):
        connection = socket.create_connection(("127.0.0.1", server.port), timeout=20)
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: judge\r\n\r\n")
        sent.append(connection)
    server.process.send_signal(15)  # SIGTERM, at once
    answers = []
    for connection in sent:
        try:
            answers.append(connection.recv(100)[:12])
        except OSError as error:
            answers.append(repr(error).encode())
        connection.close()
    assert answers == [b"HTTP/1.1 200"] * 20
    assert server.process.wait(20) == 0


def test_a_stale_pid_file_never_signals_another_process():
    """A server killed with SIGKILL leaves its pid file; the pid may belong to anyone later."""
    from service.reloading import pid_file
    from tests.support import free_port

    port = free_port()
    pid_file(port).write_text(str(os.getpid()))  # this test's own process: a SIGHUP would end it
    try:
        done = reload(port)
    finally:
        pid_file(port).unlink()
    assert done.returncode == 2 and "is not one" in done.stderr


@pytest.mark.server
def test_when_reload_returns_no_old_worker_answers_not_even_a_kept_alive_connection(served):
    """`lexicon reload` returns once the old workers can answer nothing: a connection opened
    before the reload and kept alive (idle on an old worker) is never answered with the old token
    after that; the old worker has closed it, and a browser's retry on a new connection meets the
    new workers. A new connection meets them at once. (The old worker answered that kept-alive
    connection's next request once more before it closed it: the command must wait for it.)"""
    server, _ = served
    kept = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    kept.request("GET", "/v1/lexicons")
    answer = kept.getresponse()
    assert answer.status == 200 and answer.read()
    done = reload(server.port, LEXICON_TOKEN="ronda3-def456")
    assert done.returncode == 0, done.stderr
    assert server.request("GET", "/v1/lexicons")[0] == 401  # a new connection: the new token at once
    try:  # the kept-alive connection, idle since before the reload
        kept.request("GET", "/v1/lexicons")
        status = kept.getresponse().status
    except (http.client.RemoteDisconnected, ConnectionError):  # closed by the old worker: retried, as
        kept.close()  # browsers retry a request on a reused connection the server had closed
        kept.request("GET", "/v1/lexicons")
        status = kept.getresponse().status
    kept.close()
    assert status == 401


def test_without_proc_the_old_workers_are_still_found_and_awaited(monkeypatch, tmp_path):
    """On macOS (no /proc) `lexicon reload` must still know the master's workers and wait while one
    exists; knowing none, it returned as soon as the master had built the new app, while the old
    workers still answered with the old settings."""
    from service import reloading

    monkeypatch.setattr(reloading, "PROC", tmp_path / "no-proc")
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert worker.pid in reloading._children(os.getpid())
        assert reloading._may_answer(worker.pid)
    finally:
        worker.kill()
        worker.wait()
    assert worker.pid not in reloading._children(os.getpid())
    assert not reloading._may_answer(worker.pid)


FAKE_MASTER = r"""
import json, signal, sys, time
from service import reloading

port = int(sys.argv[1])

def taken(*_):  # what the master's on_reload hook reports: the new app is built
    asked = json.loads(reloading.request_file(port).read_text())
    reloading._write_private(reloading.result_file(port), {"id": asked["id"], "ok": True, "ms": 1, "lexicons": []})

signal.signal(signal.SIGHUP, taken)
print("ready", flush=True)
time.sleep(60)
"""


def test_reload_is_never_reported_done_while_an_old_worker_may_still_answer(monkeypatch):
    """A master that took the reload but whose old worker never lets go of its sockets: the
    command fails when its time is up, instead of saying the new settings are served."""
    from service import reloading
    from tests.support import free_port

    port = free_port()
    master = subprocess.Popen(
        [sys.executable, "-c", FAKE_MASTER, str(port)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert master.stdout.readline() == "ready\n"
        reloading.pid_file(port).write_text(str(master.pid))
        monkeypatch.setattr(reloading, "_is_server", lambda pid: pid == master.pid)
        monkeypatch.setattr(reloading, "_children", lambda pid: {master.pid})  # a worker from before ...
        monkeypatch.setattr(reloading, "_may_answer", lambda worker: True)  # ... that keeps its sockets
        with pytest.raises(TimeoutError, match="workers from before it still answered"):
            reloading.ask_reload(port, {}, timeout=1)
    finally:
        master.kill()
        master.wait()
        for path in (reloading.pid_file(port), reloading.request_file(port), reloading.result_file(port)):
            path.unlink(missing_ok=True)


def test_a_master_that_dies_instead_of_answering_is_reported_at_once(monkeypatch):
    """The command used to wait out its minute for a result that could never come."""
    from service import reloading
    from tests.support import free_port

    port = free_port()
    master = subprocess.Popen(
        [
            sys.executable,
            "-c",
            # SIGHUP's default restored: a test run under nohup would hand the child SIG_IGN
            "import signal, time; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
            "print('ready', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )  # SIGHUP ends it, as a crash would
    try:
        assert master.stdout.readline() == "ready\n"
        reloading.pid_file(port).write_text(str(master.pid))
        monkeypatch.setattr(reloading, "_is_server", lambda pid: pid == master.pid)
        reaper = threading.Thread(target=master.wait)  # as init reaps an orphan
        reaper.start()
        # Waiting out the 30 s would be a TimeoutError ("did not answer the reload in 30 s").
        with pytest.raises(LookupError, match="stopped before it answered"):
            reloading.ask_reload(port, {}, timeout=30)
        reaper.join()
    finally:
        master.kill()
        master.wait()
        for path in (reloading.pid_file(port), reloading.request_file(port), reloading.result_file(port)):
            path.unlink(missing_ok=True)
