"""Reload without a restart: new settings and lexicon files, verified first, served by new workers.

How it works, with gunicorn's documented pieces only:

- `lexicon serve` hands gunicorn a `Switch`, a WSGI callable that passes each request to the
  app it holds. The app is created in the master before the workers fork (`preload_app`).
- SIGHUP to the master (or `lexicon reload`, which sends it) makes gunicorn call the `on_reload`
  server hook in the master, then fork new workers and stop the old ones gracefully (each
  finishes what it has accepted; its kept-alive connections get `Connection: close`). The hook
  (`Reloader.__call__`) re-reads the settings and every lexicon file and builds a new app: every
  file is verified before anything changes. If all is well the Switch holds the new app, and the
  new workers fork with it; if anything fails, the Switch keeps the app it had, the reason is
  logged, and the new workers serve exactly what the old ones did.
- Settings: those the service started with, overlaid by the LEXICON_* variables of the shell
  that ran `lexicon reload` (an empty one unsets it: `LEXICON_TOKEN= lexicon reload`). The command
  leaves them in a request file only its user can read, the master reads and deletes it; the
  master writes the outcome for the command to report (never a token in it).

The files live in a directory of the user's own (`run_dir`), named by the port; beside them the
address each `lexicon serve` listens on (`record_address`), which `lexicon event login` links to.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from tournament import shown_location

from .config import VARIABLES

log = logging.getLogger("service")

# Settings a reload cannot change: they are gunicorn's address and processes (restart for those).
FIXED = ("LEXICON_HOST", "LEXICON_PORT", "LEXICON_WORKERS", "LEXICON_WORKER_CLASS", "LEXICON_THREADS")


class Switch:
    """The WSGI app gunicorn serves: whichever app the last successful reload made."""

    def __init__(self, app: Callable):
        self.app = app

    def __call__(self, environ, start_response):
        return self.app(environ, start_response)

    def __getattr__(self, name: str):  # the app's own attributes (extensions, config) read through
        return getattr(self.app, name)


def run_dir() -> Path:
    """A directory only this user can use: $XDG_RUNTIME_DIR/lexicon-judge, or one in the temp dir."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "lexicon-judge" if base else Path(tempfile.gettempdir()) / f"lexicon-judge-{os.getuid()}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
        raise PermissionError(f"{folder} is not a directory of this user's own (mode 700)")
    return folder


def pid_file(port: int) -> Path:
    return run_dir() / f"serve-{port}.pid"


def request_file(port: int) -> Path:
    return run_dir() / f"reload-{port}.request.json"


def result_file(port: int) -> Path:
    return run_dir() / f"reload-{port}.result.json"


def address_file(port: int) -> Path:
    return run_dir() / f"serve-{port}.address.json"


def record_address(host: str, port: int, event: Path | str | None = None, public: str | None = None) -> None:
    """Where this `lexicon serve` listens, the event file it serves and the address phones use
    (LEXICON_PUBLIC_URL), for `lexicon event login` to link to the right one when several run (the
    master's pid with it: a file left by a server that died is told apart from a running one)."""
    served = None if event is None else shown_location(event) if isinstance(event, str) else str(Path(event).resolve())
    data = {"pid": os.getpid(), "host": host, "port": port, "event": served, "public": public}
    _write_private(address_file(port), data)


class Running(NamedTuple):
    """A `lexicon serve` of this user running on this machine: where it listens, the event it
    serves (None: none), and its public address (LEXICON_PUBLIC_URL; None: not set)."""

    host: str
    port: int
    event: str | None
    public: str | None = None


def running_addresses() -> list[Running]:
    """Each `lexicon serve` of this user running on this machine, by port."""
    found = []
    for path in sorted(run_dir().glob("serve-*.address.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            pid, host, port = int(data["pid"]), str(data["host"]), int(data["port"])
            event, public = data.get("event"), data.get("public")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # being written, or not ours to read: as if absent
        if _is_server(pid):
            text = [value if isinstance(value, str) else None for value in (event, public)]
            found.append(Running(host, port, *text))
    return found


def _write_private(path: Path, data: dict) -> None:
    temporary = path.with_name(path.name + f".{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(data, file)
    os.replace(temporary, path)


KEEPS_BLANK = frozenset(v.name for v in VARIABLES if not v.blank_is_unset)  # set but blank: refused


def lexicon_environment(environ: dict[str, str]) -> dict[str, str]:
    """The LEXICON_* variables a reload may change."""
    return {k: v for k, v in environ.items() if k.startswith("LEXICON_") and k not in FIXED}


class Reloader:
    """gunicorn's `on_reload` hook, in the master: build a new app from re-read settings and files."""

    def __init__(self, switch: Switch, make_app: Callable[[dict[str, str]], Any], port: int, environ: dict[str, str]):
        self.switch, self.make_app, self.port = switch, make_app, port
        self.environ = lexicon_environment(environ)  # what the service runs with now

    def __call__(self, server) -> dict:
        started = time.perf_counter()
        request_id, environ = None, dict(self.environ)
        try:
            request = json.loads(request_file(self.port).read_text(encoding="utf-8"))
            request_file(self.port).unlink()
            request_id = request.get("id")
            for name, value in lexicon_environment(request.get("environ", {})).items():
                if value == "" and name not in KEEPS_BLANK:  # LEXICON_TOKEN= is refused, never "no token"
                    environ.pop(name, None)
                else:
                    environ[name] = value
        except FileNotFoundError:
            pass  # a bare SIGHUP: the same settings, the files read again
        except (OSError, ValueError, AttributeError) as error:
            return self._report(request_id, False, f"the reload request could not be read ({error})", started)
        try:
            app = self.make_app(environ)
        except Exception as error:  # StartError, SettingsError, LexiconError: each names the file or setting
            return self._report(request_id, False, str(error), started)
        gc.unfreeze()  # the old app's objects may go now; then the new ones are frozen for the fork
        self.switch.app = app
        self.environ = environ
        settings = app.extensions["lexicon_settings"]  # a reload may serve another event file:
        record_address(settings.host, settings.port, settings.event, settings.public_url)  # `event login` links to it
        gc.collect()
        gc.freeze()
        registry = app.extensions["lexicon_registry"]
        return self._report(
            request_id,
            True,
            "",
            started,
            [{"id": item.id, "checksum": item.lexicon.checksum} for item in registry.served],
            app.extensions.get("lexicon_warnings", []),  # a service of every event: events it cannot serve
        )

    def _report(self, request_id, ok: bool, reason: str, started: float, lexicons=None, warnings=()) -> dict:
        result = {"id": request_id, "ok": ok, "ms": round((time.perf_counter() - started) * 1000, 1)}
        if ok:
            result["lexicons"] = lexicons
            result["warnings"] = list(warnings)
            log.info("reloaded", extra={"fields": {"lexicons": lexicons, "ms": result["ms"]}})
        else:
            result["reason"] = reason
            log.error("reload refused: still serving what was served", extra={"fields": {"reason": reason}})
        try:
            _write_private(result_file(self.port), result)
        except OSError:
            log.error("reload result could not be written", extra={"fields": {"path": str(result_file(self.port))}})
        return result


def ask_reload(port: int, environ: dict[str, str], timeout: float = 60.0) -> dict:
    """What `lexicon reload` does: leave the request, SIGHUP the master, wait for its outcome."""
    import signal

    try:
        pid = int(pid_file(port).read_text().strip())
    except (OSError, ValueError):
        raise LookupError(f"no `lexicon serve` runs on port {port} here (no pid file {pid_file(port)})") from None
    if not _is_server(pid):  # a pid file left by a server that was killed: never signal a stranger
        raise LookupError(f"no `lexicon serve` runs on port {port} (process {pid} of {pid_file(port)} is not one)")
    request_id = uuid.uuid4().hex
    old_workers = _children(pid)
    _write_private(request_file(port), {"id": request_id, "environ": lexicon_environment(environ)})
    try:
        os.kill(pid, signal.SIGHUP)
    except ProcessLookupError:
        request_file(port).unlink(missing_ok=True)
        raise LookupError(f"no `lexicon serve` runs on port {port} (process {pid} is gone)") from None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            result = json.loads(result_file(port).read_text(encoding="utf-8"))
            if result.get("id") == request_id:
                break
        except (OSError, ValueError):
            pass
        if not _exists(pid):  # stopped (or crashed) before answering: no need to wait out the minute
            raise LookupError(f"the service on port {port} (process {pid}) stopped before it answered the reload")
        time.sleep(0.05)
    else:
        raise TimeoutError(f"the service on port {port} did not answer the reload in {timeout:.0f} s")
    # Done when no worker from before can answer anything any more: from then on every answer
    # comes from the new app (the new token, say). An old worker is done with its last socket
    # before it exits: gunicorn's gevent worker closes its listener within a second of the
    # SIGTERM (it looks once a second), answers each kept-alive connection's next request with
    # `Connection: close` (an idle one is closed when `keepalive` runs out), and only then looks
    # again, a second later, whether it may exit. Waiting for the exit cost that second.
    while any(_may_answer(worker) for worker in old_workers & _children(pid)):
        if time.monotonic() >= deadline:  # never "reloaded" while an old worker may still answer
            raise TimeoutError(
                f"the service on port {port} took the reload, but workers from before it still "
                f"answered after {timeout:.0f} s: the old settings may still be served"
            )
        time.sleep(0.02)
    return result


PROC = Path("/proc")  # Linux's view of the processes; macOS has none (the fallbacks below)


def _is_server(pid: int) -> bool:
    """Whether `pid` is a `lexicon serve` process (Linux /proc; elsewhere, whether it exists)."""
    try:
        words = (PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return not PROC.is_dir() and _exists(pid)
    except OSError:
        return False
    return b"serve" in words and any(word.endswith(b"lexicon") or word == b"lexicon_cli" for word in words)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def clean_up(port: int) -> None:
    """gunicorn's `on_exit` hook, in the master: the request, result and address files of this port go."""
    for path in (request_file(port), result_file(port), address_file(port)):
        path.unlink(missing_ok=True)


def _may_answer(worker: int) -> bool:
    """Whether a worker still holds a socket: the listener, or a client's connection (Linux /proc).

    A gunicorn worker holds no other socket (its own signalling uses a pipe), so a worker with
    none can neither accept a connection nor answer one. Where /proc cannot say (macOS has none),
    a worker that exists may answer: the command then waits for the old workers to exit.
    """
    if not PROC.is_dir():
        return _exists(worker)
    try:
        descriptors = os.listdir(PROC / str(worker) / "fd")
    except FileNotFoundError:
        return False
    except OSError:
        return _exists(worker)
    for descriptor in descriptors:
        try:
            if os.readlink(PROC / str(worker) / "fd" / descriptor).startswith("socket:"):
                return True
        except OSError:  # closed meanwhile
            continue
    return False


def _children(pid: int) -> set[int]:
    """The worker processes of a master: Linux's /proc, else (macOS, a kernel without the
    `children` file) POSIX `ps`. Knowing none, `lexicon reload` would return before the old
    workers stop answering with the old settings."""
    try:
        return {int(child) for child in (PROC / str(pid) / "task" / str(pid) / "children").read_text().split()}
    except (OSError, ValueError):
        pass
    try:
        listing = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid="], capture_output=True, text=True, timeout=10, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    pairs = (line.split() for line in listing.splitlines())
    return {int(child) for child, parent in (pair for pair in pairs if len(pair) == 2) if parent == str(pid)}
