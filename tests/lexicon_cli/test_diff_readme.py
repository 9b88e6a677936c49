"""README's `lexicon diff` example, run exactly as written (commands and their whole output).

Until a test runs every console example of the README, this one runs the diff section's: each
`$ ` line goes to bash from the repository root with the installed `lexicon` first on PATH, and
what follows it, up to the next `$ ` line, is its output. Only `/tmp/` is moved to a temporary
folder of this test, so runs at the same time do not share files. The last step compiles the
dump of the default Spanish list (a few seconds).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lexicon_cli import open_lexicon

REPO = Path(__file__).resolve().parents[2]
MARKER = "**What changed between two releases: `lexicon diff`.**"


def example() -> list[tuple[str, list[str]]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert MARKER in text, "README has no `lexicon diff` section"
    block = text.split(MARKER, 1)[1].split("```\n", 2)[1]
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def test_readme_diff_example_runs_as_written(tmp_path):
    open_lexicon("es")  # built first if missing, so that no "building it now" joins the output
    steps = example()
    assert sum("lexicon diff" in command for command, _ in steps) >= 3
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command, expected in steps:
        done = subprocess.run(["bash", "-c", command.replace("/tmp/", f"{tmp_path}/")], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=120)
        assert (done.stdout + done.stderr).splitlines() == expected, command
