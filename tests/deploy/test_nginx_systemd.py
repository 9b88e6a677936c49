"""docs/operations.md's drop-in for Debian's nginx unit, written by its own commands: the unit then
looks for nginx's pid where the rendered deploy/nginx.conf writes it, and stops that nginx.

Debian's unit reads /run/nginx.pid; the rendered file writes its pid in NGINX_STATE, so without the
drop-in `systemctl reload nginx` failed (`invalid PID number ""`) and `systemctl start nginx` waited
for a pid that never came. The tests' machine runs no systemd manager, so the block's `systemctl`
lines are not run here; the drop-in is checked by `systemd-analyze verify` on Debian's own unit.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.support import REPO

from .test_nginx import SETTINGS, render

UNIT = Path("/lib/systemd/system/nginx.service")  # Debian's nginx package's
SYSTEM = "/etc/systemd/system/"  # where the drop-in goes, this test's folder here


def the_block() -> str:
    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```sh\n(systemctl stop nginx\n.*?)```", doc, re.S)
    return block


def test_the_drop_in_of_operations_md_points_debians_unit_at_the_rendered_pid(nginx_binary, tmp_path):
    state = tmp_path / "state"
    units = tmp_path / "units"
    units.mkdir()
    shutil.copyfile(UNIT, units / UNIT.name)
    commands = [line for line in the_block().splitlines() if not line.startswith("systemctl ")]
    assert commands[0] == f"mkdir -p {SYSTEM}nginx.service.d", commands
    script = "\n".join(commands).replace(SYSTEM, f"{units}/")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NGINX_STATE": str(state)}
    subprocess.run(["sh", "-c", script], env=env, check=True)
    (written,) = (units / "nginx.service.d").iterdir()
    lines = written.read_text(encoding="utf-8").splitlines()

    values = dict.fromkeys(SETTINGS, "x") | {"NGINX_STATE": str(state), "HTTP_PORT": "80", "HTTPS_PORT": "443"}
    (pid,) = re.findall(r"^pid (\S+);$", render(values), re.M)
    assert f"PIDFile={pid}" in lines
    stops = [line for line in lines if line.startswith("ExecStop=")]
    assert stops[0] == "ExecStop=" and len(stops) == 2  # the package's stop, by /run/nginx.pid, replaced
    assert stops[1].endswith(f"--pidfile {pid}")
    assert "/run/nginx.pid" in UNIT.read_text(encoding="utf-8")  # what the drop-in is for

    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze (Debian's systemd package) checks the drop-in"
    checked = subprocess.run(
        [analyze, "verify", str(units / UNIT.name)],
        env={**env, "SYSTEMD_UNIT_PATH": f"{units}:"},
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0 and not checked.stderr.strip(), checked.stderr
