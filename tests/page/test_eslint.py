"""ESLint holds the page scripts to their headers and to one layout (eslint.config.mjs), as `make
check` runs it: a script that uses a name it does not declare, or is laid out otherwise, fails.

Each case lints a real part with one line changed, through ESLint's standard input under the
part's own path (so the part's rules apply), and the part as written, which passes.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from service.static_files import STATIC

from .conftest import REPO

pytestmark = pytest.mark.node

ESLINT = REPO / "build" / "node" / "node_modules" / ".bin" / "eslint"
PART = STATIC / "judge" / "words.js"


def lint(source: str, path=PART, *options: str) -> subprocess.CompletedProcess:
    assert ESLINT.exists(), "ESLint is not installed: `make eslint`"
    return subprocess.run(
        [str(ESLINT), "--max-warnings", "0", *options, "--stdin", "--stdin-filename", str(path)],
        input=source,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


def test_the_part_as_written_passes():
    result = lint(PART.read_text())
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_name_no_part_declares_fails():
    source = PART.read_text().replace("function drawKeys() {\n", "function drawKeys() {\n  planted();\n", 1)
    assert "planted();" in source
    result = lint(source)
    assert result.returncode == 1
    assert "'planted' is not defined" in result.stdout and "no-undef" in result.stdout


def test_a_name_used_from_another_part_but_not_in_the_header_fails():
    source = PART.read_text()
    header = re.match(r"/\* global [^*]*\*/\n", source)
    assert header and "submitButton" in header.group(0)
    result = lint(source.replace("submitButton, ", "", 1))
    assert result.returncode == 1 and "'submitButton' is not defined" in result.stdout


def test_a_top_level_name_neither_used_nor_exported_fails():
    result = lint(PART.read_text() + "const orphan = 1;\n")
    assert result.returncode == 1 and "'orphan' is assigned a value but never used" in result.stdout


def test_another_layout_or_the_older_language_fails_and_make_format_puts_the_layout_back():
    original = PART.read_text()
    moved = original.replace("\n  capital = ", "\n      capital = ", 1)
    assert moved != original
    result = lint(moved)
    assert result.returncode == 1 and "@stylistic/indent" in result.stdout
    fixed = lint(moved, PART, "--fix-dry-run", "--format", "json")
    assert json.loads(fixed.stdout)[0]["output"] == original  # what `make format` writes
    old = lint(original.replace("const addButton = ", "var addButton = ", 1))
    assert old.returncode == 1 and "no-var" in old.stdout


def test_a_service_worker_name_is_not_a_page_name():
    """Each script is linted with its own environment's globals: the page's `document` is no
    name in the service worker."""
    worker = STATIC / "sw.js"
    result = lint(worker.read_text() + 'document.title = "";\n', worker)
    assert result.returncode == 1 and "'document' is not defined" in result.stdout
