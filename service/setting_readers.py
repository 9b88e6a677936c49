"""How each LEXICON_* setting's text becomes a value, or a SettingsError naming the variable.

Each reader takes the variable's name and its raw value (a string from the environment, or any
value from a test config) and returns the typed value `service.config.Settings` holds; the table
`service.config.VARIABLES` says which reader each variable uses. Kept apart from the table so the
table reads as the list of settings it is, and each reader as one rule.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tournament import database_url, event_location, is_database_url

LOG_LEVELS = ("debug", "info", "warning", "error")


class SettingsError(ValueError):
    """A setting that cannot be used; the message names it."""


def split(value: Any, separators: str) -> tuple[str, ...]:
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        text = str(value)
        for separator in separators[1:]:
            text = text.replace(separator, separators[0])
        items = text.split(separators[0])
    return tuple(item.strip() for item in items if item.strip())


def files(name: str, value: Any) -> tuple[str, ...]:
    files = split(value, os.pathsep)
    if not files:  # a service of no lexicons would say "ready" and judge nothing
        raise SettingsError(
            f"{name}: {value!r} names no compiled file; list at least one, "
            f"separated by {os.pathsep!r}, or unset it to serve the default lexicons"
        )
    return files


def origins(name: str, value: Any) -> tuple[str, ...]:
    origins = split(value, ", ")
    for origin in origins:
        if origin != "*" and (not origin.startswith(("http://", "https://")) or origin.endswith("/")):
            raise SettingsError(
                f"{name}: {origin!r} is not an origin like http://192.168.1.20:8080 "
                "(scheme, host and port, no path) nor '*'"
            )
    return origins


def public_url(name: str, value: Any) -> str:
    """An http(s) URL with a host (and a path, behind a prefix), written with a final `/`."""
    from urllib.parse import urlsplit

    text = str(value).strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise SettingsError(
            f"{name}: {text!r} is not the address phones open, like http://192.168.1.20:8000/ or "
            "https://juez.example.org/ (http or https, a host, perhaps a path)"
        )
    return text if text.endswith("/") else text + "/"


def token(name: str, value: Any) -> str:
    token = str(value)
    if not token.strip():
        raise SettingsError(f"{name} is set but empty: set a token, or unset {name} to run without one")
    if len(token) < 4 or not token.isascii() or not token.isprintable() or " " in token:
        raise SettingsError(f"{name}: use at least 4 printable ASCII characters, no spaces")
    return token


def log_level(name: str, value: Any) -> str:
    level = str(value).strip().lower()
    if level not in LOG_LEVELS:
        raise SettingsError(f"{name}: {value!r} is not one of {', '.join(LOG_LEVELS)}")
    return level


def _number(value: Any) -> float:
    """The value as a number; NaN, which every range refuses, when it is none."""
    try:
        return float(str(value).strip())
    except ValueError:
        return math.nan


def verdict_seconds(name: str, value: Any) -> float:
    """0 (the verdict stays until Borrar) or a countdown of 1 to 600 seconds."""
    number = _number(value)
    if not (number == 0 or 1 <= number <= 600):  # NaN fails too
        raise SettingsError(
            f"{name}: {value!r} is not 0 (the verdict stays until Borrar) or a number of seconds from 1 to 600"
        )
    return number


def path(name: str, value: Any) -> Path:
    return Path(os.path.expanduser(str(value).strip()))


def event(name: str, value: Any) -> Path | str:
    """An event's state file, a `postgresql://` URL naming an event in a database, or one naming
    the whole database, for a service of every event in it (both kept as text)."""
    try:
        text = str(value).strip()
        if is_database_url(text) and database_url(text) is not None:
            return text
        return event_location(text)
    except ValueError as error:
        raise SettingsError(f"{name}: {error}") from None


def manifest(name: str, value: Any) -> Path:
    given = path(name, value)
    if not given.is_file():
        raise SettingsError(
            f"{name}: no manifest at {str(given)!r}: give a manifest.toml that exists, "
            f"or unset {name} for the default lexicons"
        )
    return given


def host(name: str, value: Any) -> str:
    host = str(value).strip()
    if not host or any(c.isspace() for c in host) or "/" in host:
        raise SettingsError(f"{name}: {value!r} is not an address like 127.0.0.1, 0.0.0.0 or ::1")
    return host.strip("[]")


def integer(low: int, high: int, what: str) -> Callable[[str, Any], int]:
    def read(name: str, value: Any) -> int:
        try:
            number = int(str(value).strip())
        except ValueError:
            number = low - 1
        if not low <= number <= high:
            raise SettingsError(f"{name}: {value!r} is not {what}, a whole number from {low} to {high}")
        return number

    return read


def worker_class(name: str, value: Any) -> str:
    """Loaded now, as gunicorn will load it, so a wrong name is one line here, not gunicorn's traceback."""
    text = str(value).strip()
    refused = SettingsError(
        f"{name}: {value!r} is not a gunicorn worker class that can be loaded "
        "(sync, gthread, or module.Class; gevent and eventlet need their package)"
    )
    if not text or any(c.isspace() for c in text):
        raise refused
    from gunicorn.util import load_class  # only when the variable is set: the default is ours
    from gunicorn.workers.base import Worker

    try:
        loaded = load_class(text)
    except Exception:  # gunicorn's RuntimeError holds a traceback; an attribute error; an import error
        raise refused from None
    if not (isinstance(loaded, type) and issubclass(loaded, Worker)):
        raise refused
    return text


def sync(name: str, value: Any) -> str:
    mode = str(value).strip().lower()
    if mode not in ("full", "normal"):
        raise SettingsError(f"{name}: {value!r} is not full or normal")
    return mode


def gap(name: str, value: Any) -> float:
    seconds = _number(value)
    if not 0 <= seconds <= 3600:
        raise SettingsError(f"{name}: {value!r} is not a number of seconds from 0 (no limit) to 3600")
    return seconds


def data_home(name: str, value: Any) -> Path | None:
    path = Path(str(value).strip())
    return path if path.is_absolute() else None  # the XDG rules: a relative path is ignored


def text(name: str, value: Any) -> str:
    return str(value)


def second(name: str, value: Any) -> tuple[tuple[str, str], ...]:
    """LANG:ID pairs separated by ',' or spaces: the lexicon (one of the served) that gives each
    language's second opinion. Which ids exist is checked when the lexicons are loaded.

    >>> second("LEXICON_SECOND", "es:file2017, CA:disc-old")
    (('es', 'file2017'), ('ca', 'disc-old'))
    """
    pairs: list[tuple[str, str]] = []
    for item in split(value, ", "):
        language, colon, lexicon_id = item.partition(":")
        language, lexicon_id = language.strip().lower(), lexicon_id.strip()
        if not colon or not language.isalpha() or not lexicon_id:
            raise SettingsError(
                f"{name}: {item!r} is not LANG:ID, e.g. es:file2017 (a language code, "
                "a colon, the id of a served lexicon)"
            )
        if any(language == seen for seen, _ in pairs):
            raise SettingsError(f"{name}: {language!r} is given twice; one second lexicon a language")
        pairs.append((language, lexicon_id))
    return tuple(pairs)


def proxies(name: str, value: Any) -> tuple[str, ...]:
    """Addresses or networks (CIDR) of the front ends whose X-Forwarded-For and -Proto are
    believed, separated by ',' or spaces; each as the `ipaddress` module writes it.

    >>> proxies("LEXICON_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8 ::1")
    ('127.0.0.1/32', '10.0.0.0/8', '::1/128')
    """
    import ipaddress

    networks = []
    for item in split(value, ", "):
        try:
            networks.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise SettingsError(
                f"{name}: {item!r} is not an address or a network like 127.0.0.1, ::1 or "
                "10.0.0.0/8 (the front end that connects to this service)"
            ) from None
    if not networks:
        raise SettingsError(f"{name}: {value!r} names no address; unset it to believe no forwarded header")
    return tuple(networks)


def boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name}: {value!r} is not yes or no (1, true, yes / 0, false, no)")
