"""The tournament package's interface as docs/tournament.md gives it to the HTTP layer ("The
interface the HTTP layer uses"): its code block runs as written, and every store call and error
its table names is one the package has, so the table cannot name a call that was renamed."""

from __future__ import annotations

import builtins
import re
from types import SimpleNamespace

import tournament
from tests.support import REPO
from tournament import create_event

from .conftest import PASSWORD


def section() -> str:
    text = (REPO / "docs" / "tournament.md").read_text(encoding="utf-8")
    start = text.index("## The interface the HTTP layer uses")
    return text[start : text.index("\n## ", start + 1)]


def test_the_block_runs_and_every_store_call_and_error_of_the_table_exists(tmp_path):
    (block,) = re.findall(r"```python\n(.*?)```", section(), re.S)
    path = tmp_path / "open.db"
    create_event(path, "Open", PASSWORD).close()
    scope = {"settings": SimpleNamespace(event=str(path))}
    exec(compile(block, "docs/tournament.md", "exec"), scope)  # the doc's own example
    db = scope["db"]
    try:
        calls = set(re.findall(r"\bdb\.(\w+)\(", section()))
        assert {"open_round", "close_round", "append_many", "pair", "check_password"} <= calls  # the table was read
        assert [name for name in sorted(calls) if not callable(getattr(db, name, None))] == []
        login = db.check_password("not the password")
        assert (login.ok, login.locked, login.retry_after) == (False, False, 0)  # Login(ok, locked, retry_after)
    finally:
        db.close()
    errors = set(re.findall(r"`(\w+)(?:\(\w+\))?` → ", section()))
    assert {"PairingRefused", "RoundError", "RateLimited", "DeviceGone"} <= errors
    missing = [name for name in sorted(errors) if not hasattr(tournament, name) and not hasattr(builtins, name)]
    assert missing == []
