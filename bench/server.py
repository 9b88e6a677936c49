"""The real `lexicon serve` (gunicorn) as a child process: the one harness of the bench and the tests.

Why here: the bench measures the server a director starts, and the tests (tests/support.py) check
it, the same way: on a free port of 127.0.0.1, in its own process group, with only the LEXICON_*
settings given (the shell's are left out), ready when /readyz answers 200, stopped with SIGTERM (as
`kill` stops it; a director's Ctrl-C is SIGINT to the group, which the master alone heeds), and
SIGKILL of its group if it hangs; SIGTERM too if the process that started it ends first, killed
or not (bench/tether.py). The bench may not import the tests,
and the tests already import the bench, so it lives in the bench package.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench import tether

REPOSITORY = Path(__file__).resolve().parents[1]
LEXICON = Path(sys.executable).parent / "lexicon"  # the command of the venv running this


def lexicon_files() -> tuple[list[Path], list[str]]:
    """The manifest's default lexicons and their languages, brought up to date first by
    `lexicon build-defaults` (a fraction of a second when they are): a stale list, or a missing
    file beside one (its browser file and that file's compressed forms, which the service would
    otherwise make as it starts), would change what the sections measure."""
    from build_tools.manifest import load_manifest

    subprocess.run([str(LEXICON), "build-defaults"], check=True, cwd=REPOSITORY, stdout=subprocess.DEVNULL)
    entries = [entry for entry in load_manifest().entries if entry.default]
    return [entry.output for entry in entries], [entry.language for entry in entries]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port of `host` free now (the system's choice), held for the server that binds it next,
    and no running `lexicon serve`'s.

    Held: between this choice and the server's bind (a second for gunicorn, seconds for PostgreSQL,
    whose initdb comes first), a port merely let go may be the system's choice again, for the next
    call here (nginx's two ports) or another test process's: two servers given one port, one of
    which cannot start (1 in some 14,000 choices each, and a run makes hundreds). So the port is
    left in TIME_WAIT for a minute, by a connection this side closes first: the system's choice
    of a free port passes over it, and a server binds it all the same (SO_REUSEADDR, which
    gunicorn, nginx and PostgreSQL set).

    Not a running `lexicon serve`'s: one told to stop lets its port go at once but keeps the port's
    pid file until it has exited (service.reloading.pid_file), and a server started on that port
    meanwhile refuses to start (gunicorn's "Already running"). A port of 127.0.0.1 is not one of
    0.0.0.0 (every address): a connection from this computer's network address holds its port
    there, and a busy machine (a bench, the tests of the hall's address) holds thousands."""
    while True:
        port = _held(host)
        if not _still_running(port):
            return port


def _held(host: str) -> int:
    """A port of `host` the system chose, left in TIME_WAIT (free_port says why)."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            accepted, _ = listener.accept()
            accepted.close()  # closed first: this end of the connection, the port's, waits in TIME_WAIT
    return port


def _still_running(port: int) -> bool:
    """Whether the pid file of a `lexicon serve` on `port` names a process that is still there."""
    from service.reloading import pid_file

    try:
        pid = int(pid_file(port).read_text().strip())
        os.kill(pid, 0)
    except PermissionError:  # there, another user's
        return True
    except (OSError, ValueError):  # no pid file, nothing readable in it, or its process gone
        return False
    return True


class ServerFailed(RuntimeError):
    """`lexicon serve` exited, or was not ready in time; the message carries its output, if kept."""


class Server:
    """`lexicon serve` on a free port, started at once; `wait_ready()` before asking it anything.

    `files`: the lexicon files to serve (None: the default lexicons). `logs`: a folder for its
    standard output and error (stdout-PORT.log, stderr-PORT.log, read back by `logs()`); None
    discards them. `port`: a given port instead of a free one (a service started again where its
    clients knew it). `settings`: LEXICON_* variables, as strings. Usable as a context manager,
    which waits until ready on entry and stops on exit.
    """

    def __init__(self, files, *, workers: int = 1, logs: Path | None = None, port: int | None = None, **settings: str):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.out = logs / f"stdout-{self.port}.log" if logs is not None else None
        self.err = logs / f"stderr-{self.port}.log" if logs is not None else None
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
        env.update(PYTHONUNBUFFERED="1", **settings)
        if files is not None:
            env["LEXICON_FILES"] = os.pathsep.join(str(f) for f in files)
        self.started = time.perf_counter()
        with contextlib.ExitStack() as kept:  # the child has its own copies of the log files
            out = kept.enter_context(open(self.out, "wb")) if self.out else subprocess.DEVNULL
            err = kept.enter_context(open(self.err, "wb")) if self.err else subprocess.DEVNULL
            self.process = tether.start(
                [str(LEXICON), "serve", "--port", str(self.port), "--workers", str(workers)],
                cwd=REPOSITORY,
                env=env,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
            )
        self.ready_after: float | None = None  # seconds from start to ready, once wait_ready() has seen it

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

    def wait_ready(self, limit: float = 30.0, poll: float = 0.01) -> float:
        """Seconds from start until /readyz answered 200. ServerFailed (the server stopped) if it
        exits or is not ready in `limit` seconds."""
        while time.perf_counter() - self.started < limit:
            if self.process.poll() is not None:
                raise ServerFailed(f"lexicon serve exited with {self.process.returncode}:\n{self.logs()}")
            try:
                if self.get("/readyz")[0] == 200:
                    self.ready_after = time.perf_counter() - self.started
                    return self.ready_after
            except OSError:
                pass
            time.sleep(poll)
        self.stop()
        raise ServerFailed(f"lexicon serve not ready after {limit} s:\n{self.logs()}")

    def stop(self) -> int:
        """SIGTERM, as `kill -TERM` or systemd's stop; SIGKILL of its process group after 15 s. The exit code."""
        self.terminate()
        return self.stopped()

    def terminate(self) -> None:
        """SIGTERM, not waited for: `stopped` waits (several servers told at once stop together)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def stopped(self, limit: float = 15.0) -> int:
        """The exit code once the process has exited; SIGKILL of its process group if it still runs
        after `limit` seconds."""
        try:
            self.process.wait(limit)
        except subprocess.TimeoutExpired:
            self.kill()
        return self.process.returncode

    def kill(self) -> None:
        """SIGKILL to the process group started here (master and workers), as a laptop that loses
        power: nothing of it runs on."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def logs(self) -> str:
        """What it wrote to standard output and error ('' when they were discarded)."""
        return "".join(path.read_text(errors="replace") for path in (self.out, self.err) if path is not None)

    def __enter__(self) -> Server:
        if self.ready_after is None:
            self.wait_ready()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
