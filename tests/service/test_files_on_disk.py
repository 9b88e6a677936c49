"""A lexicon file overwritten in place under the real `lexicon serve`: no crash, no changed verdict.

`cp new.lex served.lex` writes into the same inode. When the files were memory-mapped, every
request to that lexicon then killed its worker (SIGBUS or SIGSEGV) and /readyz still said
ready. Now the service answers from the bytes it verified at start, and says the file is stale.
"""

from __future__ import annotations

import json
import shutil
import time

import psutil
import pytest

from tests.support import LiveServer

pytestmark = pytest.mark.server  # every test here talks to a live `lexicon serve`


def verdict(server, words: list[str]) -> bytes:
    status, _, body = server.request(
        "POST",
        "/v1/challenge",
        json.dumps({"lexicon": "es", "words": words}).encode(),
        {"Content-Type": "application/json"},
    )
    assert status == 200, body
    return body


def _workers(server, count: int) -> list[int]:
    """The server's worker pids once all `count` have forked (ready is said when the first can answer)."""
    deadline = time.monotonic() + 30
    while True:
        pids = sorted(child.pid for child in psutil.Process(server.process.pid).children())
        if len(pids) >= count or time.monotonic() > deadline:
            return pids
        time.sleep(0.05)


@pytest.mark.parametrize("overwrite", ["another lexicon", "truncated", "garbage"])
def test_a_file_copied_over_a_served_one_changes_nothing_but_is_reported(tmp_path, lexicon_files, overwrite):
    served = tmp_path / "served.lex"
    shutil.copyfile(lexicon_files["es-mini"], served)
    inode = served.stat().st_ino
    server = LiveServer(tmp_path, [served, lexicon_files["ca-mini"]], workers=2)
    try:
        server.wait_ready()
        workers = _workers(server, 2)
        before = {words: verdict(server, list(words)) for words in (("CARRO", "CHICO"), ("XILÓFONO",), ("CASA",))}
        status, body = server.get("/readyz")
        assert status == 200 and json.loads(body)["status"] == "ready"

        if overwrite == "another lexicon":  # es-alt has XILÓFONO, es-mini has not
            shutil.copyfile(lexicon_files["es-alt"], served)
        elif overwrite == "truncated":
            with open(served, "r+b") as file:
                file.truncate(100)
        else:
            with open(served, "r+b") as file:
                file.seek(4096)
                file.write(b"\xff" * 4096)
        assert served.stat().st_ino == inode  # overwritten in place, as cp does

        for _ in range(10):  # both workers, several times
            for words, answer in before.items():
                assert verdict(server, list(words)) == answer
        assert sorted(child.pid for child in psutil.Process(server.process.pid).children()) == workers

        status, body = server.get("/readyz")
        ready = json.loads(body)
        assert status == 200 and ready["status"] == "stale" and ready["stale"] == ["served.lex"]
        status, body = server.get("/v1/lexicons")
        listed = {item["id"]: item for item in json.loads(body)["lexicons"]}
        assert listed["es-mini"]["state"] == "stale" and listed["es-mini"]["file"] == "served.lex"
        assert "state" not in listed["ca-mini"]
        assert "changed on disk" in server.logs()

        shutil.copyfile(lexicon_files["es-mini"], served)  # the verified bytes again: not stale any more
        assert json.loads(server.get("/readyz")[1]) == {"status": "ready", "lexicons": ["es-mini", "ca-mini"]}
    finally:
        assert server.stop() == 0
