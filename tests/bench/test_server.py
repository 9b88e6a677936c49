"""The harness's choice of port (bench/server.py): free, and no running `lexicon serve`'s."""

from __future__ import annotations

import os
import subprocess
import sys

from bench import server
from service.reloading import pid_file


def test_a_port_whose_pid_file_names_a_running_process_is_still_taken():
    """A server told to stop lets its port go at once, and keeps its pid file until it exits: a
    server started there meanwhile would refuse to start, so the harness picks another port."""
    port = server.free_port()
    path = pid_file(port)
    path.parent.mkdir(parents=True, exist_ok=True)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    try:
        assert not server._still_running(port)  # no pid file
        path.write_text(f"{os.getpid()}\n")
        assert server._still_running(port)
        path.write_text(f"{gone.stdout.strip()}\n")  # a process that has exited: a stale file
        assert not server._still_running(port)
        path.write_text("not a pid\n")
        assert not server._still_running(port)
    finally:
        path.unlink(missing_ok=True)
