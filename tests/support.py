"""Helpers shared by the test folders: small lexicons compiled on the spot, and the real server.

Imported as `tests.support` (pytest runs from the repository root, which is on sys.path).
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from build_tools.compiler import build
from lexicon.lexfile import LexiconMeta
from lexicon.tokenizer import tokenizer

REPO = Path(__file__).resolve().parents[1]
LEXICON_SCRIPT = Path(sys.executable).parent / "lexicon"


def compile_list(path: Path, words: list[str], language: str, lexicon_id: str, name: str,
                 version: str = "test-1") -> Path:
    """Compile `words` (natural spelling) into `path`; every word must make it in."""
    meta = LexiconMeta(id=lexicon_id, language=language, name=name, version=version,
                       source="tests", licence="test data")
    data, report = build("\n".join(words) + "\n", tokenizer(language, "spelling"), meta)
    assert report.words == len(set(words)), report.lines()
    path.write_bytes(data)
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiveServer:
    """The real `lexicon serve` (gunicorn) in its own process group, as a director starts it.

    Its settings are only those given here: the shell's LEXICON_* variables are left out.
    Standard output and error go to files in `folder`, read back by `logs()`.
    """

    def __init__(self, folder: Path, files, workers: int = 1, **settings: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.out, self.err = folder / f"stdout-{self.port}.log", folder / f"stderr-{self.port}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
        env.update(PYTHONUNBUFFERED="1", **settings)
        if files is not None:  # None: the default lexicons
            env["LEXICON_FILES"] = os.pathsep.join(str(f) for f in files)
        self.started = time.monotonic()
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.process = subprocess.Popen(
                [str(LEXICON_SCRIPT), "serve", "--port", str(self.port), "--workers", str(workers)],
                cwd=REPO, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        """(status, header pairs, body) of one request on a fresh connection."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            connection.close()

    def get(self, path: str) -> tuple[int, bytes]:
        status, _, body = self.request("GET", path)
        return status, body

    def wait_ready(self, limit: float = 30.0) -> float:
        """Seconds from start until /readyz answers 200; the test fails, with the logs, if never."""
        while time.monotonic() - self.started < limit:
            if self.process.poll() is not None:
                pytest.fail(f"lexicon serve exited with {self.process.returncode}:\n{self.logs()}")
            try:
                if self.get("/readyz")[0] == 200:
                    return time.monotonic() - self.started
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"lexicon serve not ready after {limit} s:\n{self.logs()}")

    def stop(self) -> int:
        """SIGTERM, as a director's Ctrl-C; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)  # the group this test started
                self.process.wait(5)
        return self.process.returncode

    def logs(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")
