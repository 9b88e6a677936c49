"""A run killed mid-test leaves no server behind (bench/tether.py): a child Python process starts
real servers through the harnesses every test uses, is SIGKILLed (as CI's timeout, or the kernel,
kills pytest or an xdist worker: no teardown runs), and every process of those servers ends and
their ports are free again."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

from tests.support import REPO, until

# What the child starts, through the tests' own harnesses; it prints [[pid, port], …] of each
# server (port None: a browser or its driver, which listens on no port of its own that matters),
# then waits for the end of its standard input, which never comes before it is killed.
SERVE = """
from tests.support import LiveServer, compile_list
lexicon = compile_list(folder / "es.lex", ["CASA", "CARRO"], "es", "es-k", "K")
server = LiveServer(folder, [lexicon])
server.wait_ready()
started = [[server.process.pid, server.port]]
"""
STARTS = {
    "serve": SERVE,
    "nginx": SERVE
    + """
from tests.deploy.test_nginx import Nginx
proxy = Nginx(sys.argv[2], folder, [server])
started += [[proxy.process.pid, proxy.port], [proxy.process.pid, proxy.http_port]]
""",
    "postgres": """
from tests.postgres import PostgresServer
server = PostgresServer(folder)
started = [[server.postmaster(), server.port]]
""",
    "chromium": """
import psutil
from playwright.sync_api import sync_playwright
from bench.chromium import launch
browser = launch(sync_playwright().start())
started = [[driver.pid, None] for driver in psutil.Process().children()]  # Playwright's, and its Chromium
""",
    "webkit": """
from tests.page.engines import WebKit
engine = WebKit()
started = [[engine.web.service.process.pid, None], [engine.display.process.pid, None]]
""",
    "firefox": """
from tests.page.engines import Firefox
started = [[Firefox().web.process_id, None]]
""",
}
CHILD = """
import json, sys
from pathlib import Path
folder = Path(sys.argv[1])
{start}
print(json.dumps(started), flush=True)
sys.stdin.read()
"""


def alive(process: psutil.Process) -> bool:
    """Still running: a zombie (ended, not yet waited for by whoever adopted it) holds nothing."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def port_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:port now (as servers bind: SO_REUSEADDR)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError:
            return False
    return True


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("serve", marks=pytest.mark.server),
        pytest.param("nginx", marks=[pytest.mark.server, pytest.mark.nginx]),
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("chromium", marks=pytest.mark.browser),
        pytest.param("webkit", marks=pytest.mark.webkit),
        pytest.param("firefox", marks=pytest.mark.firefox),
    ],
)
def test_servers_started_by_a_killed_process_end_with_it(kind, request):
    nginx = request.getfixturevalue("nginx_binary") if kind == "nginx" else ""
    if kind == "postgres":
        from tests.postgres import install

        install()
    # not under pytest's temporary folder: that is root's alone, and PostgreSQL may run as `postgres`
    folder = Path(tempfile.mkdtemp(prefix="lexicon-killed-"))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(start=STARTS[kind]), str(folder), nginx],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    processes: list[psutil.Process] = []
    try:
        # waited on, not read blindly: a child stuck starting would hold the run for ever (each
        # harness gives up within its own limit, Firefox's the longest: 120 s)
        until(lambda: select.select([child.stdout], [], [], 0)[0], f"the child to start {kind}", 180, 0.1)
        line = child.stdout.readline()
        assert line, f"the child started nothing (exit {child.wait()})"
        started = json.loads(line)
        leaders = [psutil.Process(pid) for pid, _ in started]
        for leader in leaders:  # (a child may end on its own meanwhile: PostgreSQL's backend of a closed connection)
            processes += [leader, *leader.children(recursive=True)]  # workers, a browser's processes
        assert all(map(alive, leaders)) and not any(port_free(port) for _, port in started if port)
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        until(
            lambda: not any(map(alive, processes)) and all(port_free(port) for _, port in started if port),
            f"every process of the servers a killed process started ({kind}) to end, and their ports to be free",
        )
    finally:
        child.kill()
        child.wait()
        child.stdin.close()
        child.stdout.close()
        for process in filter(alive, processes):  # what a failing run left
            process.kill()
        shutil.rmtree(folder, ignore_errors=True)


def catches(pid: int, number: int) -> bool:
    """Whether process `pid` has a handler of its own for signal `number` (Linux's SigCgt)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        caught = next(line.split()[1] for line in status if line.startswith("SigCgt:"))
    return bool(int(caught, 16) >> (number - 1) & 1)


def watcher_of(script: str, pid: int) -> psutil.Process | None:
    """This process's child running the watcher `script` for `pid`, or None (yet). Other children
    may have ended unreaped (other tests' watchers): a zombie has no command line to read."""
    for child in psutil.Process().children():
        try:
            if script in child.cmdline() and str(pid) in child.cmdline():
                return child
        except psutil.Error:
            continue
    return None


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_watcher_told_to_end_stops_its_server_first(number):
    """A run stopped by killing its programs by name (`pkill -f` of the checkout's Python) kills
    the watchers too: each stops its server before it goes, or that server has nobody left."""
    from bench import tether

    server = tether.start([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        watcher = until(lambda: watcher_of(tether.__file__, server.pid), "the server's watcher")
        # SIGHUP's handler is the last it installs (Python catches SIGINT from the start)
        until(lambda: catches(watcher.pid, signal.SIGHUP), "the watcher's handlers in place")
        watcher.send_signal(number)
        until(lambda: server.poll() is not None, "the server to end once its watcher was told to end")
        assert server.returncode == -signal.SIGTERM  # its stop signal, from the watcher
        until(lambda: not alive(watcher), "the watcher to end")
    finally:
        server.kill()
        server.wait()
        server.stdin.close()


# The watcher run in a process of its own, told to end (SIGHUP, raised) the moment its last handler
# is in place, before it waits: as a signal sent once the test saw that handler (the test above)
# reaches a watcher the machine has not run since. It prints its server's pid, then its exit code.
TOLD_AS_IT_STARTS = """
import os, signal, subprocess, sys
from bench import tether
quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}  # this process's output ends with it
server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True, **quiet)
print(server.pid, flush=True)
read, write = os.pipe()
os.dup2(read, 0)  # its standard input: a pipe whose write end this process holds, as a run's watcher's
install = signal.signal
def installing(number, handler):
    done = install(number, handler)
    if number == signal.SIGHUP:
        signal.raise_signal(signal.SIGHUP)
    return done
signal.signal = installing
tether._watch(server.pid, int(signal.SIGTERM), 1, os.pidfd_open(server.pid))
print(server.wait(20), flush=True)
"""


def test_a_watcher_told_to_end_as_its_handlers_go_in_stops_its_server_too():
    """Its handlers were put in place before the block that catches what they raise: told to end
    after the first and before it waited, the watcher ended on the exception, and its server ran on."""
    child = subprocess.run(
        [sys.executable, "-c", TOLD_AS_IT_STARTS], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    server, *ended = child.stdout.split()
    try:
        assert ended == [str(-signal.SIGTERM)], child.stderr  # its stop signal, from the watcher
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(int(server), signal.SIGKILL)
