"""Helpers shared by the test folders: small lexicons compiled on the spot, and the real server
(the bench's harness, bench/server.py: one for both).

Imported as `tests.support` (pytest runs from the repository root, which is on sys.path).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import struct
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from bench.server import LEXICON, REPOSITORY, Server, ServerFailed, free_port
from build_tools.compiler import build
from lexicon import lexfile
from lexicon.browser import beside, compile_browser
from lexicon.lexfile import LexiconMeta
from lexicon.tokenizer import tokenizer

REPO = REPOSITORY
LEXICON_SCRIPT = LEXICON
__all__ = [
    "LEXICON_SCRIPT",
    "PAGE_WEIGHT",
    "REPO",
    "LiveServer",
    "compile_list",
    "free_port",
    "lock_held_elsewhere",
    "log_lines",
    "stop_all",
    "stop_soon",
    "until",
]

T = TypeVar("T")
PAGE_WEIGHT = "judge's page weight (test-output/page/size.txt)"  # a test's report carries the table under this name


def log_lines(logs: str) -> list[dict]:
    """A live service's log lines, JSON, one an event: what `lexicon serve` prints first for a person
    (where the pages and the API are: `Lexicon Judge…` and its indented lines) aside."""
    shown = [line for line in logs.splitlines() if line.strip() and not line.startswith("{")]
    assert all(line.startswith(("Lexicon Judge", "  ")) for line in shown), shown  # nothing else is not JSON
    return [json.loads(line) for line in logs.splitlines() if line.startswith("{")]


def until(condition: Callable[[], T], what: str, limit: float = 30.0, poll: float = 0.05) -> T:
    """Waits for a condition, not for a time: `condition()` again until it is truthy (given back),
    else the test fails after `limit` seconds saying `what` it waited for. The limit is only how
    long a broken run takes to say so; a passing run waits no longer than the condition needs.

    It looks again soon at first (5 ms), then less and less often, up to every `poll` seconds: a
    condition met in a moment is seen in a moment, and a long wait costs the machine no more than
    a look every `poll` seconds."""
    deadline = time.monotonic() + limit
    pause = min(0.005, poll)
    while not (value := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"still waiting after {limit} s for {what}", pytrace=False)
        time.sleep(pause)
        pause = min(pause * 1.5, poll)
    return value


_stopping: list[Server] = []  # servers told to stop by a teardown, waited for at the session's end


def stop_soon(server: Server) -> None:
    """A server nothing reads again (a fixture's, or one a test stops last) stopped without waiting for it: SIGTERM now, and the process waited for
    (SIGKILL after 15 s, as `stop`) at the session's end (`wait_stopped`, tests/conftest.py). A
    graceful gunicorn stop takes over a second (its gevent worker looks once a second), and up to
    its `keepalive` while a browser keeps a connection open: time no test needs to wait, since
    nothing reads such a server afterwards. A test that reads a server's exit code or last logs
    calls `stop()`. Each server has its own port and folder, so one still stopping is in no
    other test's way (a port whose server is still stopping is not chosen again: bench.server's
    free_port)."""
    _stopping[:] = [earlier for earlier in _stopping if earlier.process.poll() is None]
    if server.process.poll() is None:
        server.terminate()
        _stopping.append(server)


def wait_stopped() -> None:
    """Every server `stop_soon` was given has exited (killed if it still ran 15 s on)."""
    while _stopping:
        _stopping.pop().stopped()


def stop_all(servers) -> None:
    """Stops several servers at once: SIGTERM to each first, then each waited for (as `stop` does,
    SIGKILL after 15 s), so a test's servers take the time of one stop, not of one each."""
    for server in servers:
        server.terminate()
    for server in servers:
        server.stopped()


@contextlib.contextmanager
def lock_held_elsewhere(event: Path, seconds: int = 30) -> Iterator[None]:
    """The event's lock file held by another process (util-linux `flock`, as another worker or a
    command would hold it) until the block ends, or `seconds` at most."""
    holder = subprocess.Popen(
        ["flock", f"{event}-lock", "sh", "-c", f"echo held; exec sleep {seconds}"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        yield
    finally:
        os.killpg(holder.pid, signal.SIGKILL)  # flock and its child, which holds the lock too
        holder.wait()
        holder.stdout.close()


def compile_list(
    path: Path, words: list[str], language: str, lexicon_id: str, name: str, version: str = "test-1"
) -> Path:
    """Compile `words` (natural spelling) into `path`; every word must make it in."""
    meta = LexiconMeta(
        id=lexicon_id, language=language, name=name, version=version, source="tests", licence="test data"
    )
    data, report = build("\n".join(words) + "\n", tokenizer(language, "spelling"), meta)
    assert report.words == len(set(words)), report.lines()
    path.write_bytes(data)
    return path


def rewrite_header(data: bytes, change) -> bytes:
    """A file whose header says something else, with a valid checksum: a forged or stale file."""
    length = struct.unpack_from("<I", data, 12)[0]
    header = json.loads(data[48 : 48 + length])
    change(header)
    encoded = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    trie = data[48 + length + (-(48 + length) % 64) :]
    body = encoded + b"\0" * (-(48 + len(encoded)) % 64) + trie
    return lexfile.MAGIC + struct.pack("<HHI", 1, 0, len(encoded)) + hashlib.sha256(body).digest() + body


def forge_browser_file(lex_path: Path, words: list[str]) -> Path:
    """The attacker's browser file beside `lex_path` (whoever can write the lexicons' folder): made
    from other `words`, yet sound (its own checksum right) and claiming that very `.lex` (its
    `lexicon_sha256`), so the service serves it as the lexicon's and a phone judges with it."""
    lexicon = lexfile.Lexicon.open(lex_path)
    key = tokenizer(lexicon.header.language, "spelling").key
    header = lexicon.header
    forged = compile_browser(
        sorted({key(word) for word in words}),
        lexicon.alphabet,
        id=header.id,
        name=header.name,
        version=header.version,
        words_sha256=header.words_sha256,
        lexicon_sha256=lexicon.checksum,
    )
    path = beside(lex_path)
    path.write_bytes(forged)
    return path


class LiveServer(Server):
    """The one harness (bench/server.py) as the tests use it: its logs kept in `folder`, and a
    server that does not become ready fails the test with its logs, not with a traceback."""

    def __init__(self, folder: Path, files, workers: int = 1, **settings: str):
        super().__init__(files, workers=workers, logs=folder, **settings)

    def wait_ready(self, limit: float = 30.0, poll: float = 0.05) -> float:
        try:
            return super().wait_ready(limit, poll)
        except ServerFailed as failure:
            pytest.fail(str(failure), pytrace=False)

    def logged(self, condition: Callable[[str], T], what: str, limit: float = 30.0) -> T:
        """Waits until its logs meet `condition` (given them, truthy): a line is written once the
        service has answered, a moment after the client has the answer."""
        return until(lambda: condition(self.logs()), what, limit)


def sync_fault(folder: Path) -> Path:
    """tests/tournament/sync_fault.c built into `folder`: a library that, loaded with LD_PRELOAD,
    holds or fails the syncs of an event's -wal file (the disk's fault, real to SQLite). Needs a C
    compiler, which `make check` and `make test` install (Debian's gcc) when missing."""
    compiler = shutil.which("cc")
    assert compiler, "a C compiler builds the disk's fault: apt-get install gcc (make check installs it)"
    library = folder / "sync_fault.so"
    source = REPO / "tests" / "tournament" / "sync_fault.c"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", library, source, "-ldl"], check=True)
    return library
