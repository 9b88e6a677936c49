"""`make check` starts no browser, server, nginx, Node.js, wabt or wrk (tests/tiers.py), and `make test` is all."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests import tiers
from tests.support import REPO


@pytest.mark.parametrize(
    "args, marker",
    [
        (["/usr/bin/chromium", "--headless"], "browser"),
        (["/usr/bin/WebKitWebDriver", "--port=4444"], "webkit"),
        (["/usr/bin/Xvfb", "-displayfd", "5"], "webkit"),
        (["/usr/bin/firefox-esr", "-marionette", "-headless"], "firefox"),
        (["/venv/lib/python3.11/site-packages/playwright/driver/node", "cli.js", "run-driver"], "browser"),
        (["/usr/bin/node", "lexicon_node.js"], "node"),
        (["/usr/sbin/nginx", "-c", "nginx.conf"], "nginx"),
        (["/usr/lib/postgresql/15/bin/initdb", "-D", "data"], "postgres"),
        (["/usr/lib/postgresql/15/bin/pg_ctl", "start", "-D", "data"], "postgres"),
        (["/usr/bin/wat2wasm", "dawg.wat"], "wabt"),
        (["wrk", "-t2", "http://127.0.0.1:1/"], "bench"),
        (["/venv/bin/lexicon", "serve", "--port", "1"], "server"),
        (["gunicorn", "service.app:app"], "server"),
    ],
)
def test_a_test_may_start_an_outside_program_only_with_its_marker(args, marker):
    assert tiers.needed_marker(args) == marker
    assert tiers.refusal(args, set()) is not None and f"@pytest.mark.{marker}" in tiers.refusal(args, set())
    assert tiers.refusal(args, {marker}) is None
    assert tiers.refusal(args, {"slow", "parametrize"}) is None  # any tier keeps it out of `make check`
    assert tiers.refusal(args, {"parametrize", "filterwarnings"}) is not None


@pytest.mark.parametrize(
    "args",
    [
        ["/venv/bin/lexicon", "build-defaults"],
        ["/venv/bin/lexicon", "info", "es"],
        [sys.executable, "-c", "pass"],
        "git status",
        ["bash", "-c", "lexicon check"],
    ],
)
def test_other_programs_are_any_tests(args):
    assert tiers.refusal(args, set()) is None


def test_this_unmarked_test_cannot_start_a_server():
    """The guard is in place around every test: this one carries no marker, so `lexicon serve`
    is refused before it starts (whatever `make check` or `make test` selected)."""
    with pytest.raises(pytest.fail.Exception, match=r"not marked `server`"):
        subprocess.run([str(REPO / ".venv" / "bin" / "lexicon"), "serve", "--port", "1"], timeout=30)


def test_the_browser_fixture_marks_a_test_with_no_marker_written(request):
    """A new Chromium test is in the slow tier without anyone marking it: the `browser` fixture
    (and the others of FIXTURE_MARKS) mark it, as does a folder of FOLDER_MARKS."""
    items = request.session.items
    for item in items:
        names = getattr(item, "fixturenames", ())
        for fixture, marker in tiers.FIXTURE_MARKS.items():
            if fixture in names:
                assert item.get_closest_marker(marker), item.nodeid
        for folder, markers in tiers.FOLDER_MARKS.items():
            if str(item.path).startswith(str(folder)):
                assert all(item.get_closest_marker(marker) for marker in markers), item.nodeid


def test_a_flow_run_in_each_engine_carries_that_engine_s_marker(request):
    """tests/page/test_engines.py runs each flow in Chromium, WebKit and Firefox: each run is in the
    slow tier by its own engine's marker, so `make check` starts none of them."""
    runs = [item for item in request.session.items if "engine" in getattr(item, "fixturenames", ())]
    for item in runs:
        engine = item.callspec.params["engine"]
        assert item.get_closest_marker({"chromium": "browser"}.get(engine, engine)), item.nodeid


class _CheckRun:
    """What check_tier reads of a `pytest --check` run's config."""

    class hook:
        @staticmethod
        def pytest_deselected(items):
            pass

    @staticmethod
    def getoption(name):
        return name == "check"


def test_check_leaves_out_every_test_with_a_tier_marker_and_only_those(request):
    items = list(request.session.items)
    kept = list(items)
    tiers.check_tier(_CheckRun, kept)
    tiered = {item.nodeid for item in items if any(item.get_closest_marker(name) for name in tiers.TIER_MARKERS)}
    assert {item.nodeid for item in kept} == {item.nodeid for item in items} - tiered
    assert request.node.nodeid in {item.nodeid for item in kept}  # this test is in `make check`


def test_make_check_is_the_check_tier_and_make_test_is_everything():
    makefile = (REPO / "Makefile").read_text()
    check = makefile.split("\ncheck:", 1)[1].split("\n\n", 1)[0]
    test = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "pytest -q --check -n 2 --dist loadfile" in check and "ruff check" in check
    # the page scripts' linter and formatter check, in both (eslint.config.mjs; `make format` fixes)
    assert "$(ESLINT)" in check and "$(ESLINT)" in test and " eslint" in check.splitlines()[0]
    assert re.search(r"\nformat: eslint\n\t\$\(ESLINT\) --fix\n", makefile)
    pytest_line = next(line for line in test.splitlines() if " pytest" in line)
    # no selection: every test, every tier; in two processes, a file in one (docs/testing.md)
    assert pytest_line.split(" -m pytest", 1)[1].split() == ["-n", "2", "--dist", "loadfile"]
    assert "make test" in (REPO / ".ci" / "run").read_text()
