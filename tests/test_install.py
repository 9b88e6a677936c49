"""A real, non-editable install in a fresh virtual environment, used from another directory.

What a federation or a director does: `pip install .`, then `lexicon check es CARRO` anywhere. The
wheel is built from a copy of the sources (so nothing is written into the checkout) with the
test environment's setuptools and no build isolation, and installed with `--no-deps` into a new
venv whose dependencies come from the test environment's site-packages (a path file): offline,
and a few seconds plus the two default builds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench import tether
from build_tools.sources import load_source
from lexicon_cli import main
from tests.support import REPO, free_port

NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "test-output",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".import_linter_cache",
)


class Installed:
    def __init__(self, root: Path):
        self.venv = root / "venv"
        self.home = root / "home"  # the user's home: compiled defaults go under it
        self.elsewhere = root / "elsewhere"  # not the checkout
        self.home.mkdir()
        self.elsewhere.mkdir()
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8"}

    def lexicon(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.venv / "bin" / "lexicon"), *args],
            cwd=self.elsewhere,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    @property
    def lexicons(self) -> Path:
        return self.home / ".local" / "share" / "lexicon-judge" / "lexicons"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    shutil.copytree(REPO, root / "src", ignore=NOT_SOURCES)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(root / "wheels"),
            str(root / "src"),
        ],
        check=True,
        cwd=root,
    )
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    target = Path(
        subprocess.run(
            [str(root / "venv" / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (target / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next((root / "wheels").glob("lexicon_judge-*.whl"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(root / "venv" / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
    )
    return Installed(root)


def test_the_installed_command_checks_both_defaults_from_another_directory(installed):
    where = installed.lexicon("info", "es", "--json")  # what lives where, before any build
    assert where.returncode == 0, where.stderr
    assert json.loads(where.stdout)["path"] == str(installed.lexicons / "letterpress-es.lex")
    spanish = installed.lexicon("check", "es", "CARRO")
    assert (spanish.returncode, spanish.stdout) == (0, "VALID\n"), spanish.stderr
    catalan = installed.lexicon("check", "ca", "COL·LEGI")
    assert (catalan.returncode, catalan.stdout) == (0, "VALID\n"), catalan.stderr
    assert len(catalan.stderr.splitlines()) <= 2  # built on first use: a line, not the DISC report
    assert (installed.lexicons / "disc-e8b6e1c.report.json").is_file()
    assert installed.lexicon("check", "es", "CARRO", "KIWI").returncode == 2


def test_the_installed_build_is_the_checkout_s_byte_for_byte(installed, tmp_path, monkeypatch):
    installed.lexicon("info", "es")  # built once
    monkeypatch.setenv("LEXICON_HOME", str(tmp_path))
    result = CliRunner().invoke(main, ["info", "es"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "lexicons" / "letterpress-es.lex").read_bytes() == (
        installed.lexicons / "letterpress-es.lex"
    ).read_bytes()
    header = json.loads(installed.lexicon("info", "ca", "--json").stdout)
    assert header["build"]["source_sha256"] == load_source(str(REPO / "data" / "ca-disc"), "disc").sha256


@pytest.mark.server
def test_the_installed_service_serves_both_defaults(installed):
    port = free_port()
    server = tether.start(
        [str(installed.venv / "bin" / "lexicon"), "serve", "--port", str(port), "--workers", "1"],
        cwd=installed.elsewhere,
        env=installed.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline, listed = time.monotonic() + 120, None
        while listed is None and time.monotonic() < deadline:
            assert server.poll() is None, server.stderr.read().decode()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/lexicons", timeout=5) as response:
                    listed = json.load(response)
            except OSError:
                time.sleep(0.1)
        assert listed is not None, "lexicon serve never answered"
        assert {(item["id"], item["default"]) for item in listed["lexicons"]} == {
            ("letterpress-es", True),
            ("disc-e8b6e1c", True),
        }
    finally:
        server.terminate()
        server.wait(30)
        server.stderr.close()
