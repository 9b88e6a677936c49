"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import tiers
from tests.support import PAGE_WEIGHT

# CI runs on a shared 2-core machine: no deadlines (they fail on noise, not on bugs), and
# derandomized so a failure reproduces; `HYPOTHESIS_PROFILE=dev` explores more, randomly.
# `make check` (--check) tries the same properties on fewer examples: seconds, not minutes.
settings.register_profile(
    "ci", deadline=None, derandomize=True, max_examples=150, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("check", settings.get_profile("ci"), max_examples=15)
settings.register_profile("dev", deadline=None, max_examples=1000)


def pytest_configure(config):
    check = config.getoption("check")
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "check" if check else "ci"))
    if check:
        # The director's password hash at 1/32 of its work (2**10, not 2**15): a hash stores its
        # parameters and is checked with them, so every rule about passwords holds the same, and
        # hundreds of events are created in seconds. `make test` hashes at the real cost, and
        # tournament/test_sqlite_file.py (not in `make check`) checks that cost is what is stored.
        from tournament import credentials

        credentials.SCRYPT_N = 2**10


@pytest.fixture(autouse=True, scope="session")
def _no_lexicon_settings_from_the_shell():
    """A LEXICON_* variable in the developer's shell (LEXICON_VERDICT_SECONDS, LEXICON_TOKEN…)
    never changes what a test sees: the session starts with none (before any fixture of any
    scope makes an app), and each test sets what it needs with monkeypatch."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("LEXICON_")]:
            patch.delenv(name)
        yield


@pytest.fixture(autouse=True, scope="session")
def _english_whatever_the_shell_speaks():
    """The director's commands speak the locale's language (lexicon_cli/speech.py): a developer's
    LANG=ca_ES.UTF-8 never changes what a test reads. The session speaks C.UTF-8, LANG only, so
    that a test (or a doc's example) sets LANG alone to hear another language."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
            patch.delenv(name, raising=False)
        patch.setenv("LANG", "C.UTF-8")
        yield


@pytest.fixture(autouse=True, scope="session")
def _servers_stopped_at_the_end():
    """Set up first, so torn down last: every live server a fixture stopped without waiting
    (tests.support.stop_soon) has exited before the session ends, whatever happened."""
    yield
    from tests.support import wait_stopped

    wait_stopped()


@pytest.fixture(scope="session")
def postgres_server():
    """Debian's PostgreSQL, started once for the session in a folder of its own (tests/postgres.py)
    and stopped at its end whatever happened; the `postgres` marker comes with it (tests/tiers.py).
    Not under pytest's temporary folder: that is root's alone, and the server may run as `postgres`."""
    from tests.postgres import PostgresServer

    folder = Path(tempfile.mkdtemp(prefix="lexicon-postgres-"))
    server = None
    try:
        server = PostgresServer(folder)
        yield server
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def nginx_binary() -> str:
    """Debian's nginx, installed here when missing (as root), with gettext-base for envsubst, which
    renders deploy/nginx.conf as docs/operations.md says (tests/deploy; tests/test_killed_run.py)."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if shutil.which("envsubst") is None:
        found = None
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (
            ["apt-get", "install", "-y", "-qq", "nginx", "gettext-base"],
            ["apt-get", "update", "-qq"],
            ["apt-get", "install", "-y", "-qq", "nginx", "gettext-base"],
        ):
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
            if found and shutil.which("envsubst"):
                break
    if found is None or shutil.which("envsubst") is None:
        pytest.fail(
            "Debian's nginx or envsubst is not installed and could not be installed here: `make nginx` "
            "(apt-get install nginx gettext-base) as root",
            pytrace=False,
        )
    return found


# The judge's page weight (tests/page/conftest.py's `page_weight`), printed after the run's results.
# It comes in the test's report, which reaches the run's own process also from a pytest-xdist worker.
_weights: list[str] = []  # the tables recorded in this run, the last one printed


def pytest_runtest_logreport(report):
    _weights.extend(value for name, value in report.user_properties if name == PAGE_WEIGHT)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _weights:
        terminalreporter.write_sep("-", PAGE_WEIGHT)
        terminalreporter.write_line(_weights[-1])


# The tiers of the suite (tests/tiers.py): `make check` is `pytest --check`.
def pytest_addoption(parser):
    tiers.add_option(parser)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    tiers.mark_by_fixture_and_folder(items)
    tiers.check_tier(config, items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    return (yield from tiers.guard_outside_programs(item))
