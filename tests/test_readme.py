"""Every console example of the README is run, and its output must be the README's.

The convention (for whoever adds an example):

- A block fenced as ```console is an example, and is run. Any other fence (```sh for a template
  with names the reader substitutes, like FILE2017.txt, or a plain ``` for make) is not.
- In a console block, a line starting with `$ ` is a command, run by bash; a command line ending
  with a backslash goes on to the next line. The lines after it, up to the next `$ `, are its
  output exactly: standard output and standard error together, as a terminal shows them.
- `…` in an output line stands for any text within that line (a checksum, say); nothing else is
  loose. A command whose exit code matters says so itself: `…; echo "exit $?"`.
- Each block runs alone, in a new empty directory where `data/` and `tests/` of the checkout are
  at hand (so `lexicon build tests/data/mini-es.txt … -o mini.lex` writes there, not into the
  checkout), with the test environment's `lexicon` first on PATH and no LEXICON_* variable; the
  default lexicons are the checkout's (built once before the first block). A block never relies
  on another one.
- `curl` examples talk to http://127.0.0.1:8000: the test starts `lexicon serve` with the
  default lexicons on a free port and puts that port in place of 8000.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, LiveServer

README = REPO / "README.md"
BIN = Path(sys.executable).parent


def console_blocks(text: str) -> list[tuple[int, list[tuple[str, list[str]]]]]:
    """(line number, [(command, expected output lines)]) of every ```console block."""
    blocks = []
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        if lines[number].strip() != "```console":
            number += 1
            continue
        start, body = number + 1, []
        number += 1
        while lines[number].strip() != "```":
            body.append(lines[number])
            number += 1
        examples: list[tuple[str, list[str]]] = []
        index = 0
        while index < len(body):
            assert body[index].startswith("$ "), f"README line {start + index + 1}: output before any `$ ` command"
            command = body[index][2:]
            while command.endswith("\\"):
                index += 1
                command += "\n" + body[index]  # bash reads the backslash-newline
            index += 1
            output = []
            while index < len(body) and not body[index].startswith("$ "):
                output.append(body[index])
                index += 1
            examples.append((command, output))
        blocks.append((start, examples))
    return blocks


def matches(expected: str, actual: str) -> bool:
    """`…` is any text within the line; everything else is exact.

    >>> matches('"checksum": "7405…"}', '"checksum": "74056e85aa"}')
    True
    >>> matches("VALID", "NOT VALID")
    False
    """
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


BLOCKS = console_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_console_examples():
    assert len(BLOCKS) >= 2 and any("lexicon check" in c for _, block in BLOCKS for c, _ in block)


@pytest.fixture(scope="session")
def defaults_built():
    """The checkout's default lexicons, built before any example (whose output would show it)."""
    subprocess.run([str(BIN / "lexicon"), "build-defaults"], cwd=REPO, check=True, capture_output=True)


@pytest.fixture(scope="session")
def served(defaults_built, tmp_path_factory):
    """`lexicon serve` with the default lexicons, for the curl examples: its port."""
    server = LiveServer(tmp_path_factory.mktemp("readme-serve"), None)
    server.wait_ready()
    yield server.port
    server.stop()


def example_blocks() -> list:
    """BLOCKS as test parameters; a block with a curl example talks to a live server, and says so."""
    return [pytest.param(start, examples, id=f"line-{start}",
                         marks=[pytest.mark.server] if any("curl" in c for c, _ in examples) else [])
            for start, examples in BLOCKS]


@pytest.mark.parametrize("start, examples", example_blocks())
def test_console_example(start, examples, defaults_built, tmp_path, request):
    (tmp_path / "data").symlink_to(REPO / "data")
    (tmp_path / "tests").symlink_to(REPO / "tests")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    port = request.getfixturevalue("served") if any("curl" in c for c, _ in examples) else None
    for command, expected in examples:
        if port is not None:
            command = command.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=300)
        actual = done.stdout.split("\n")
        if actual and actual[-1] == "":
            actual.pop()
        assert len(actual) == len(expected) and all(map(matches, expected, actual)), (
            f"README line {start}: $ {command}\nexpected:\n" + "\n".join(expected) + "\nactual:\n" + done.stdout)
