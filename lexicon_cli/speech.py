"""The director's commands in the director's language: what `lexicon event`, `lexicon records` and
`lexicon serve` say as they succeed is data, one TOML file a language in `texts/` (en, es, ca),
read and checked as the pages' texts are (service.page_texts: every file the same keys, each with
the same placeholders, so a translation cannot lose a line or a value).

The language is the laptop's, as gettext picks it: LC_ALL, else LC_MESSAGES, else LANG, with
LANGUAGE's list first unless that locale is C or POSIX; the first of them this command speaks,
else English. Not the event's: a Catalan event's director may read Spanish, as a judge's phone
set to Spanish speaks Spanish at a Catalan event, and the console follows its browser.
Errors stay English (they come from every layer, and the API's tools read the same sentences);
a script that reads these lines sets LC_ALL=C, as for any program that speaks the locale.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from importlib import resources

from service.page_texts import PLACEHOLDER, read_texts

ENGLISH = "en"


@cache
def texts() -> dict[str, dict[str, str]]:
    """Every language's texts (read once a process)."""
    return read_texts(resources.files(__package__) / "texts")


def language(environ: Mapping[str, str] | None = None) -> str:
    """The language to speak, from the locale's variables.

    >>> language({"LANG": "ca_ES.UTF-8"}), language({"LC_ALL": "C.UTF-8", "LANG": "es_ES.UTF-8"})
    ('ca', 'en')
    >>> language({"LANGUAGE": "fr:es", "LANG": "fr_FR.UTF-8"}), language({"LANG": "ca_ES@valencia"})
    ('es', 'ca')
    """
    environ = os.environ if environ is None else environ
    locale = next((environ[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(name)), "")
    if locale.partition(".")[0] in ("", "C", "POSIX"):
        return ENGLISH
    for name in (*environ.get("LANGUAGE", "").split(":"), locale):
        code = name.partition(".")[0].partition("@")[0].partition("_")[0].lower()
        if code in texts():
            return code
    return ENGLISH


def say(key: str, **values: object) -> str:
    """The text `key` in the director's language, its {placeholders} filled in."""
    return say_in(language(), key, **values)


def say_in(chosen: str, key: str, **values: object) -> str:
    """The text `key` in that language (English in a line not translated yet, so that it is one
    language throughout)."""
    return PLACEHOLDER.sub(lambda found: str(values[found.group(1)]), texts()[chosen][key])


def records(count: int, chosen: str | None = None) -> str:
    """`1 record`, `1,234 records`; `1.234 registres` (in the director's language, or that one)."""
    chosen = language() if chosen is None else chosen
    number = f"{count:,}".replace(",", say_in(chosen, "number.thousands"))
    return say_in(chosen, "records.one" if count == 1 else "records.other", n=number)
