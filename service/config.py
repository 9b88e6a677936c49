"""Every LEXICON_* setting, read in this one place: defaults, then the environment, then a test config.

`load_settings()` reads each variable once, checks it, and returns one typed `Settings`; the CLI,
`create_app`, the judge's page and gunicorn's configuration all take their values from that
object, none reads the environment itself. A value that cannot be used is a `SettingsError`
naming the variable (the CLI turns it into exit code 2). An empty or blank variable counts as
unset, except LEXICON_TOKEN: a token set but blank (`export LEXICON_TOKEN=$TYPO`) is refused,
since taking it as unset would open the venue to anyone. In a test config, None counts as not
given.

The variables, their defaults and what they mean are the table `VARIABLES` below (also shown by
`lexicon serve --help`); how each one's text becomes a value is service.setting_readers.

The limits of the contract (16 KiB bodies arriving within 5 s, 8 words a play, 100 plays a batch) are constants
here, not settings: a tool written against one server works against every other.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from lexicon.alphabet import NOTATIONS
from lexicon.board import MAX_WORDS, MIN_WORDS

from . import setting_readers as read
from .setting_readers import SettingsError

MAX_BODY = 16 * 1024  # bytes of a request body
MAX_PLAYS = 100  # plays in one batch; 100 typical plays take 5 to 8 KiB, well under MAX_BODY
MAX_PLAY_ID = 64  # characters of a play's id in a batch
BODY_SECONDS = 5  # seconds a request's body may take to arrive once its head has: then 408 (service.deadline)
DEFAULT_WORKER_CLASS = "gevent"  # slow and silent clients hold no worker (service/gunicorn_conf.py)

__all__ = [
    "BODY_SECONDS",
    "MAX_BODY",
    "MAX_PLAYS",
    "MAX_PLAY_ID",
    "MAX_WORDS",
    "MIN_WORDS",
    "NOTATIONS",
    "VARIABLES",
    "Settings",
    "SettingsError",
    "load_settings",
]


@dataclass(frozen=True)
class Settings:
    files: tuple[str, ...] | None = None  # None: the manifest's lexicons
    cors_origins: tuple[str, ...] = ()  # ("*",) for any
    token: str | None = field(default=None, repr=False)  # never in a log line or a traceback
    log_level: str = "info"
    verdict_seconds: float = 0.0  # 0: a verdict stays until Borrar
    manifest: Path | None = None  # None: the default lexicons that come with Lexicon Judge
    home: Path | None = None  # None: build/lexicons in a checkout, else the user's data directory
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int | None = None  # None: one per core
    worker_class: str = DEFAULT_WORKER_CLASS
    threads: int = 1
    # an event's state file, or a postgresql:// URL naming an event in a database: tournament mode
    # (the `tournament` package, served by service.event); a URL naming a whole database, without
    # ?event=, serves every event in it (service.federation)
    event: Path | str | None = None
    event_sync: str = "full"  # SQLite's synchronous for the record: full or normal
    rate_judge: float = 0.0  # seconds a device of each role waits between challenges (0: no limit)
    rate_table: float = 10.0
    rate_lookup: float = 0.0
    # plays a client address without a device (or a lookup kiosk) may have recorded per minute in
    # an event (0: no limit); a person types a play in several seconds, so a kiosk makes ~10
    rate_plays: int = 30
    data_home: Path | None = None  # XDG_DATA_HOME: where an installed copy keeps default lexicons
    director_password: str | None = field(default=None, repr=False)  # `lexicon event init` only
    trusted_proxies: tuple[str, ...] = ()  # front ends whose X-Forwarded-* headers are believed
    public_url: str | None = None  # the address phones use (a name, a front end); None: found (service.addresses)

    def rate(self, role: str | None) -> float:
        """The seconds a device of this role waits between two challenges (0: none)."""
        return {"judge": self.rate_judge, "table": self.rate_table, "lookup": self.rate_lookup}.get(role, 0.0)

    second: tuple[tuple[str, str], ...] = ()  # (language, lexicon id) of each second opinion
    second_always: bool = False  # every verdict of such a language carries it, asked or not

    @property
    def cors_any(self) -> bool:
        return "*" in self.cors_origins


@dataclass(frozen=True)
class Variable:
    name: str
    field: str
    read: Callable[[str, Any], Any]
    meaning: str  # "{default}" in it stands for the default of Settings (written there only)
    cli_only: bool = False  # read by a `lexicon` command, not by the service (not in `serve --help`)
    blank_is_unset: bool = True

    @property
    def help(self) -> str:
        """The meaning, with Settings' default of the field in place of "{default}"."""
        return self.meaning.format(default=shown(default_of(self.field)))


def default_of(name: str) -> Any:
    """The default of a Settings field: the one place a setting's default is written."""
    return {f.name: f.default for f in fields(Settings)}[name]


def shown(value: Any) -> str:
    """A default as `serve --help` and the docs say it: 15.0 is 15, False is no.

    >>> shown(15.0), shown(0.0), shown(False), shown("gevent"), shown(8000)
    ('15', '0', 'no', 'gevent', '8000')
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


VARIABLES = (
    Variable(
        "LEXICON_FILES",
        "files",
        read.files,
        "compiled files to serve, separated by ':'; the first of each language is its default "
        "(default: the default lexicons)",
    ),
    Variable(
        "LEXICON_MANIFEST",
        "manifest",
        read.manifest,
        "another manifest of default lexicons (default: the one that comes with Lexicon Judge)",
    ),
    Variable(
        "LEXICON_HOME",
        "home",
        read.path,
        "where default lexicons are compiled to, in lexicons/ (default: build/lexicons in a "
        "source checkout, else $XDG_DATA_HOME/lexicon-judge or ~/.local/share/lexicon-judge)",
    ),
    Variable(
        "LEXICON_TOKEN",
        "token",
        read.token,
        "the venue token: /v1/ requests must carry it (never on the command line); set but empty is refused",
        blank_is_unset=False,
    ),
    Variable(
        "LEXICON_CORS_ORIGINS",
        "cors_origins",
        read.origins,
        "origins whose pages may call the API, separated by ',' or spaces, or '*' (default: none)",
    ),
    Variable(
        "LEXICON_VERDICT_SECONDS",
        "verdict_seconds",
        read.verdict_seconds,
        "seconds the judge's page shows a verdict before clearing it, 1 to 600; 0: until Borrar (default {default})",
    ),
    Variable("LEXICON_LOG_LEVEL", "log_level", read.log_level, "debug, info, warning, error (default {default})"),
    Variable("LEXICON_HOST", "host", read.host, "address to listen on (default {default})"),
    Variable("LEXICON_PORT", "port", read.integer(1, 65535, "a port"), "port to listen on (default {default})"),
    Variable(
        "LEXICON_WORKERS",
        "workers",
        read.integer(1, 64, "a number of workers"),
        "worker processes (default: one per core)",
    ),
    Variable("LEXICON_WORKER_CLASS", "worker_class", read.worker_class, "gunicorn worker class (default {default})"),
    Variable(
        "LEXICON_THREADS",
        "threads",
        read.integer(1, 64, "a number of threads"),
        "threads per worker, for worker classes that have them (default {default})",
    ),
    Variable(
        "LEXICON_PUBLIC_URL",
        "public_url",
        read.public_url,
        "the address phones open, e.g. https://juez.example.org/ behind a front end or under a name; "
        "the pairing QR codes point there (default: this computer's address on the venue network)",
    ),
    Variable(
        "LEXICON_EVENT",
        "event",
        read.event,
        "an event's state file (lexicon event init), or a postgresql://…?event=ID URL naming an event "
        "in a database: tournament mode, with the director's "
        "console, paired devices, rounds and the record; a postgresql://… URL without ?event= serves "
        "every event of that database, each at /e/ID/ (default: none)",
    ),
    Variable(
        "LEXICON_EVENT_SYNC",
        "event_sync",
        read.sync,
        "full (a verdict shown survives a power cut) or normal (it survives a killed service, not "
        "a power cut; faster on a slow or busy disk) (default {default})",
    ),
    Variable(
        "LEXICON_RATE_JUDGE",
        "rate_judge",
        read.gap,
        "seconds a judge device waits between two challenges in an event, 0 for no limit (default {default})",
    ),
    Variable(
        "LEXICON_RATE_TABLE",
        "rate_table",
        read.gap,
        "seconds a table device waits between two challenges in an event (default {default})",
    ),
    Variable(
        "LEXICON_RATE_LOOKUP",
        "rate_lookup",
        read.gap,
        "seconds a lookup kiosk waits between two challenges in an event, 0 for no limit (default {default})",
    ),
    Variable(
        "LEXICON_RATE_PLAYS",
        "rate_plays",
        read.integer(0, 100000, "a number of plays"),
        "plays a minute one client address without a device, or a lookup kiosk, may have recorded in "
        "an event, 0 for no limit (default {default})",
    ),
    Variable(
        "XDG_DATA_HOME",
        "data_home",
        read.data_home,
        "an installed copy compiles default lexicons to lexicon-judge/lexicons in it, unless "
        "LEXICON_HOME (default ~/.local/share)",
    ),
    Variable(
        "LEXICON_DIRECTOR_PASSWORD",
        "director_password",
        read.text,
        "the director's password `lexicon event init` stores (default: a new one, printed once)",
        cli_only=True,
    ),
    Variable(
        "LEXICON_SECOND",
        "second",
        read.second,
        "a second opinion per language, as LANG:ID pairs separated by ',' (es:file2017,ca:disc-old): "
        'the id of a served lexicon of that language; a challenge asks for it with "second": true '
        "(default: none)",
    ),
    Variable(
        "LEXICON_TRUSTED_PROXIES",
        "trusted_proxies",
        read.proxies,
        "addresses or networks (CIDR) of the front ends, such as nginx, whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed, separated by ',' (127.0.0.1 for an nginx on this machine); "
        "from anyone else they are ignored (default: none)",
    ),
    Variable(
        "LEXICON_SECOND_ALWAYS",
        "second_always",
        read.boolean,
        "yes: every verdict of a language with a second opinion carries it, asked or not (default {default})",
    ),
)


def load_settings(test_config: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Defaults, overridden by the environment, overridden by `test_config`.

    >>> load_settings({"LEXICON_CORS_ORIGINS": "http://a.lan, http://b.lan"}, {}).cors_origins
    ('http://a.lan', 'http://b.lan')
    >>> load_settings({}, {"LEXICON_PORT": " "}).port
    8000
    >>> load_settings({}, {"LEXICON_TOKEN": ""})
    Traceback (most recent call last):
    ...
    service.setting_readers.SettingsError: LEXICON_TOKEN is set but empty: set a token, or unset LEXICON_TOKEN to run without one
    >>> load_settings({"LEXICON_PORT": None}, {"LEXICON_PORT": "8080"}).port
    8080
    >>> load_settings({}, {"LEXICON_PORT": "http"})
    Traceback (most recent call last):
    ...
    service.setting_readers.SettingsError: LEXICON_PORT: 'http' is not a port, a whole number from 1 to 65535
    """
    environ = os.environ if environ is None else environ
    test_config = test_config or {}
    values: dict[str, Any] = {}
    for variable in VARIABLES:
        value = environ.get(variable.name)
        if value is not None and not value.strip() and variable.blank_is_unset:
            value = None  # blank: unset
        if test_config.get(variable.name) is not None:  # None: not given
            value = test_config[variable.name]
        if value is not None:
            values[variable.field] = variable.read(variable.name, value)
    if values.get("event") is not None and values.get("token") is not None:
        raise SettingsError(
            "LEXICON_TOKEN and LEXICON_EVENT: choose one; in an event every device is "
            "paired by the director and carries its own token"
        )
    return Settings(**values)
