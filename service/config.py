"""The service's settings: defaults, then `LEXICON_*` environment variables, then a test config.

Every setting has one name, the same in the environment and in `create_app(test_config)`:

    LEXICON_FILES         compiled lexicon files to serve, separated by ':' (os.pathsep);
                          the first file of each language is that language's default.
                          Unset: every lexicon of the manifest (data/manifest.toml, or
                          LEXICON_MANIFEST), with the manifest's defaults.
    LEXICON_CORS_ORIGINS  origins whose pages may call the API from a browser, separated by
                          ',' or spaces, or '*' for any; unset or empty: none.
    LEXICON_TOKEN         when set, every /v1/ request must carry it, as
                          'Authorization: Bearer TOKEN' or '?token=TOKEN'.
    LEXICON_LOG_LEVEL     debug, info (default), warning, error.

The limits of the contract (16 KiB bodies, 8 words a play, 100 plays a batch) are constants
here, not settings: a tool written against one server works against every other.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping

from lexicon.board import MAX_WORDS, MIN_WORDS

MAX_BODY = 16 * 1024  # bytes of a request body
MAX_PLAYS = 100  # plays in one batch; 100 typical plays take 5 to 8 KiB, well under MAX_BODY
MAX_PLAY_ID = 64  # characters of a play's id in a batch
NOTATIONS = ("spelling", "tiles")
LOG_LEVELS = ("debug", "info", "warning", "error")

__all__ = ["MAX_BODY", "MAX_PLAYS", "MAX_PLAY_ID", "MAX_WORDS", "MIN_WORDS", "NOTATIONS",
           "Settings", "SettingsError", "load_settings"]


class SettingsError(ValueError):
    """A setting that cannot be used; the message names it."""


@dataclass(frozen=True)
class Settings:
    files: tuple[str, ...] | None  # None: the manifest's lexicons
    cors_origins: tuple[str, ...]  # ("*",) for any
    token: str | None
    log_level: str

    @property
    def cors_any(self) -> bool:
        return "*" in self.cors_origins


DEFAULTS: dict[str, Any] = {
    "LEXICON_FILES": None,
    "LEXICON_CORS_ORIGINS": "",
    "LEXICON_TOKEN": None,
    "LEXICON_LOG_LEVEL": "info",
}


def _split(value: Any, separators: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        text = str(value)
        for separator in separators[1:]:
            text = text.replace(separator, separators[0])
        items = text.split(separators[0])
    return tuple(item.strip() for item in items if item.strip())


def load_settings(test_config: Mapping[str, Any] | None = None,
                  environ: Mapping[str, str] | None = None) -> Settings:
    """Defaults, overridden by the environment, overridden by `test_config`.

    >>> load_settings({"LEXICON_CORS_ORIGINS": "http://a.lan, http://b.lan"}, {}).cors_origins
    ('http://a.lan', 'http://b.lan')
    >>> load_settings({}, {"LEXICON_TOKEN": ""}).token is None
    True
    """
    environ = os.environ if environ is None else environ
    values = dict(DEFAULTS)
    values.update({name: environ[name] for name in DEFAULTS if name in environ})
    values.update({name: value for name, value in (test_config or {}).items() if name in DEFAULTS})

    files = values["LEXICON_FILES"]
    if files is not None:
        files = _split(files, os.pathsep)
    origins = _split(values["LEXICON_CORS_ORIGINS"], ", ")
    for origin in origins:
        if origin != "*" and (not origin.startswith(("http://", "https://")) or origin.endswith("/")):
            raise SettingsError(
                f"LEXICON_CORS_ORIGINS: {origin!r} is not an origin like http://192.168.1.20:8080 "
                "(scheme, host and port, no path) nor '*'"
            )
    token = values["LEXICON_TOKEN"] or None
    if token is not None and (len(token) < 4 or not token.isascii() or not token.isprintable()
                              or " " in token):
        raise SettingsError("LEXICON_TOKEN: use at least 4 printable ASCII characters, no spaces")
    level = str(values["LEXICON_LOG_LEVEL"]).lower()
    if level not in LOG_LEVELS:
        raise SettingsError(f"LEXICON_LOG_LEVEL: {level!r} is not one of {', '.join(LOG_LEVELS)}")
    return Settings(files=files, cors_origins=origins, token=token, log_level=level)
