"""The `service` package loads Flask only when the app is asked for (service/__init__.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import REPO


def modules_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(done.stdout.split())


def test_the_cli_and_the_settings_do_not_load_flask():
    loaded = modules_after(
        "import lexicon_cli, lexicon_cli.common, service.config\nfrom lexicon_cli.common import settings; settings()"
    )
    assert "service.config" in loaded and "flask" not in loaded and "service.app" not in loaded


def test_create_app_is_still_there_lazily():
    loaded = modules_after("from service import create_app, Settings, StartError; assert callable(create_app)")
    assert "flask" in loaded and "service.app" in loaded
    import service

    assert service.create_app is service.app.create_app
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        service.nothing  # noqa: B018
