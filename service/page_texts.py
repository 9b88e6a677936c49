"""The judge's page's interface texts: data, one TOML file a language in `service/texts/`.

A file is named by its language's code (`es.toml`, `ca.toml`) and holds flat or dotted keys
(`why.letter = "…"` is the text `why.letter`); `{name}` placeholders are filled in by judge.js.
Every language must say the same things: the same keys, each with the same placeholders, so a
translation cannot lose a text or a value. A file that breaks this stops the service's start
with the file and the keys at fault, rather than leave a judge with a blank label.

Adding a language is adding a file (and its `lang.*`/`set.*` names to the others).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _flat(table: Mapping[str, Any], where: str, prefix: str = "") -> dict[str, str]:
    """Dotted TOML keys back to the flat keys judge.js uses: {"why": {"letter": …}} -> "why.letter"."""
    out: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(value, Mapping):
            out.update(_flat(value, where, f"{prefix}{key}."))
        elif isinstance(value, str):
            out[prefix + key] = value
        else:
            raise ValueError(f"{where}: {prefix}{key} = {value!r} is not a text")
    return out


def read_texts(folder: Traversable) -> dict[str, dict[str, str]]:
    """Every `LANG.toml` of `folder`, checked against each other; languages in code order.

    >>> texts = read_texts(resources.files(__package__) / "texts")
    >>> sorted(texts), texts["ca"]["why.letter"]
    (['ca', 'es'], 'el joc {set} no té fitxa {letter}')
    """
    texts: dict[str, dict[str, str]] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            where = f"interface texts {entry.name}"
            try:
                data = tomllib.loads(entry.read_text(encoding="utf-8"))
            except tomllib.TOMLDecodeError as error:
                raise ValueError(f"{where}: {error}") from None
            texts[entry.name.removesuffix(".toml")] = _flat(data, where)
    if not texts:
        raise ValueError(f"interface texts: no LANG.toml in {folder}")
    first, *others = texts
    for language in others:
        only_first = sorted(texts[first].keys() - texts[language].keys())
        only_other = sorted(texts[language].keys() - texts[first].keys())
        if only_first or only_other:
            raise ValueError(
                f"interface texts: {first}.toml and {language}.toml differ: keys only in "
                f"{first}.toml {only_first}, only in {language}.toml {only_other}"
            )
        for key, text in texts[language].items():
            if set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(texts[first][key])):
                raise ValueError(
                    f"interface texts: {key} has other placeholders in {first}.toml "
                    f"({texts[first][key]!r}) than in {language}.toml ({text!r})"
                )
    return texts


@cache
def interface_texts() -> dict[str, dict[str, str]]:
    """The texts shipped with the service (read once a process)."""
    return read_texts(resources.files(__package__) / "texts")


@cache
def event_texts() -> dict[str, dict[str, str]]:
    """The judge's page's texts in an event (`texts/event/`): only in an event's page."""
    return read_texts(resources.files(__package__) / "texts" / "event")


@cache
def offline_texts() -> dict[str, dict[str, str]]:
    """offline.js's texts (`texts/offline/`): served after first paint, not in the page (read once a process)."""
    return read_texts(resources.files(__package__) / "texts" / "offline")


@cache
def problem_texts() -> dict[str, dict[str, str]]:
    """What a page says for each problem the service answers (`texts/problems/`, `problem.NAME`):
    the console's texts include them, and the judge's page reads them after first paint."""
    return read_texts(resources.files(__package__) / "texts" / "problems")


@cache
def app_texts() -> dict[str, dict[str, str]]:
    """The installed app's names (its web manifest) and the single-file judge's line (`texts/app/`)."""
    return read_texts(resources.files(__package__) / "texts" / "app")


__all__ = ["app_texts", "event_texts", "interface_texts", "offline_texts", "problem_texts", "read_texts"]


def accepted(languages: Iterable[tuple[str, float]]) -> list[str]:
    """The language codes a browser asks for (Accept-Language as Werkzeug parses it: tag and
    quality, best first), without region and without those it refuses (q=0), for both pages.

    >>> accepted([("ca-ES", 1), ("es", 0.8), ("fr", 0)])
    ['ca', 'es']
    """
    return [tag.split("-")[0].lower() for tag, quality in languages if quality > 0]
