"""The two tiers of the suite: `make check` (seconds, nothing outside Python) and `make test` (all).

A test that needs something outside the Python process under test (Chromium, WebKit, Firefox, a
live `lexicon serve`, nginx, PostgreSQL, Node.js, wabt, wrk), or takes seconds alone, carries a marker saying so
(TIER_MARKERS, registered in pyproject.toml), and `make check` (`pytest --check`) leaves it out.
Nobody has to remember to mark:

- `mark_by_fixture_and_folder` (a collection hook) marks every test by the fixtures it uses (a
  Chromium test needs the `browser` fixture; FIXTURE_MARKS) and by its folder (FOLDER_MARKS);
- `guard_outside_programs` (a hook wrapper around each test) makes a test FAIL, in every run, when
  it starts one of those programs and carries no tier marker. So `make check` cannot run a browser
  or a server by accident: a test that would fails there and in `make test`, naming the marker.

Tests that start a server from their own body (not through a fixture named here) say so with
`@pytest.mark.server`, or `pytestmark = pytest.mark.server` for a whole module. `slow` is written
by hand (what is slow is measured, not seen), or comes with a fixture of FIXTURE_MARKS.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# marker: what a test carrying it starts (the help of `pytest --markers`, from pyproject.toml)
TIER_MARKERS = ("browser", "webkit", "firefox", "server", "nginx", "postgres", "node", "wabt", "bench", "slow")

# A test using one of these fixtures (directly or through another fixture) gets the marker.
FIXTURE_MARKS = {
    "browser": "browser",  # tests/page/conftest.py: Debian's Chromium through Playwright
    "webkit": "webkit",  # tests/page/conftest.py: WebKitGTK under Xvfb through Selenium
    "firefox": "firefox",  # tests/page/conftest.py: Firefox ESR through Marionette
    "live": "server",  # tests/page/conftest.py: the page's live `lexicon serve`
    "nginx_binary": "nginx",  # tests/conftest.py
    "postgres_server": "postgres",  # tests/conftest.py: Debian's PostgreSQL in a temporary folder
    # a real default lexicon, built or read whole: seconds each
    "spanish_default": "slow",  # tests/service/conftest.py
    "ca_build": "slow",  # tests/build_tools/conftest.py
    "disc_dir": "slow",  # tests/build_tools/conftest.py: the real DISC sources
    "installed": "slow",  # tests/test_install.py: the wheel built and installed in a new venv
}
# Every test under one of these folders gets the markers.
FOLDER_MARKS = {
    TESTS / "bench": ("bench",),  # `make bench`'s sections at a small scale: servers, wrk, Chromium
    TESTS / "deploy": ("nginx", "server"),  # deploy/nginx.conf in front of two live instances
}


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--check",
        action="store_true",
        help="only the fast tier (`make check`): no test marked " + ", ".join(TIER_MARKERS),
    )


def check_tier(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --check, leaves out every test carrying a tier marker (as `-m "not (browser or …)"`)."""
    if not config.getoption("check"):
        return
    kept, left = [], []
    for item in items:
        (left if any(item.get_closest_marker(name) for name in TIER_MARKERS) else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def mark_by_fixture_and_folder(items: list[pytest.Item]) -> None:
    for item in items:
        names = getattr(item, "fixturenames", ())
        for fixture, marker in FIXTURE_MARKS.items():
            if fixture in names:
                item.add_marker(marker)
        path = Path(str(item.path))
        for folder, markers in FOLDER_MARKS.items():
            if path.is_relative_to(folder):
                for marker in markers:
                    item.add_marker(marker)


def needed_marker(args) -> str | None:
    """The tier marker a test must carry to start this command line (Popen's `args`), or None."""
    argv = [os.fspath(a) for a in args] if isinstance(args, (list, tuple)) else str(args).split()
    if not argv:
        return None
    program = os.path.basename(argv[0])
    if program in ("chromium", "chrome", "chrome-headless-shell", "headless_shell"):
        return "browser"
    if program == "node":
        # Playwright's own driver is a Node.js program: starting it is starting the browser.
        return "browser" if "playwright" in argv[0] else "node"
    if program in ("WebKitWebDriver", "MiniBrowser", "Xvfb"):
        return "webkit"
    if program in ("firefox", "firefox-esr"):
        return "firefox"
    if program == "wat2wasm":
        return "wabt"
    if program == "nginx":
        return "nginx"
    if program in ("initdb", "pg_ctl", "postgres", "postmaster"):
        return "postgres"
    if program == "wrk":
        return "bench"
    if program == "gunicorn" or (program == "lexicon" and "serve" in argv[1:2]):
        return "server"
    return None


def refusal(args, markers: set[str]) -> str | None:
    """Why a test carrying `markers` may not start `args` (None: it may)."""
    needed = needed_marker(args)
    # Any tier marker keeps a test out of `make check`, which is what the guard is for: a Chromium
    # test may start its own server without saying so twice.
    if needed is None or markers & set(TIER_MARKERS):
        return None
    return (
        f"this test starts {args[0] if isinstance(args, (list, tuple)) else args!s} but is not marked "
        f"`{needed}`: add @pytest.mark.{needed} (tests/tiers.py), so that `make check` leaves it out"
    )


_markers_of_the_running_test: set[str] | None = None  # None: between tests (collection, the summary)


def _guarded_new(cls, args, *rest, **options):
    """Popen's object, unless the running test may not start `args`: then the test fails before
    anything starts (and before there is an object to clean up)."""
    if _markers_of_the_running_test is not None:
        reason = refusal(args, _markers_of_the_running_test)
        if reason is not None:
            pytest.fail(reason, pytrace=False)
    return object.__new__(cls)


def guard_outside_programs(item: pytest.Item):
    """Around one test's setup, call and teardown, including the session fixtures it is the first
    to need (so it is a hook wrapper, not a fixture: a fixture would start after those)."""
    global _markers_of_the_running_test
    if subprocess.Popen.__new__ is not _guarded_new:
        subprocess.Popen.__new__ = _guarded_new  # every Popen: subprocess.run, asyncio, Playwright
    _markers_of_the_running_test = {mark.name for mark in item.iter_markers()}
    try:
        return (yield)
    finally:
        _markers_of_the_running_test = None
