"""What the judge's page embeds (service.page renders it into the HTML, once, at start), and
offline-data.js, what its offline part needs besides.

Everything the page needs is in its HTML, so a judge's phone on a poor venue Wi-Fi needs one HTML
load and its cached files, and then exactly one request a verdict (POST /v1/challenge):

- the loaded lexicons (id, name, language, version, short checksum, whether it is its language's
  default), from the same registry that answers the verdicts;
- each of their languages' alphabet data and Python's Unicode facts, for the live tile preview
  (`tiles_data`);
- the interface texts, one file a language in `texts/` (`page_texts`); which language and
  lexicon a phone starts with is judge.js's choice (the browser's languages, then what that
  phone chose last);
- how long a verdict stays on screen, LEXICON_VERDICT_SECONDS, and whether the
  service wants the venue token (never the token itself: the page is served without one);
- `later`: the scripts judge.js adds once the page has painted, to judge offline: lexicon.js,
  offline-data.js and offline.js, which fetch the browser lexicon of the lexicon in use, keep it
  in IndexedDB and judge on the phone when the service is out of reach. They are not in the
  56 KiB the page weighs before first paint. offline-data.js is made here, at start: offline.js's
  texts (`texts/offline/`) and each lexicon's full checksum, the key the phone keeps its copy by
  (a new `.lex` file is a new checksum, so a new offline-data.js URL and a new download), and
  what the page says for each problem the service may answer (`texts/problems/`, shared with the
  console), needed only on a refusal.

Like every LEXICON_* setting, LEXICON_VERDICT_SECONDS is read, checked and documented (its range
and default) by service.config, once, into the app's Settings; a tap or a key clears a verdict
sooner.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Flask

from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS

from .page_texts import event_texts, interface_texts, offline_texts, problem_texts
from .tiles_data import alphabet_data, unicode_facts


def full_checksums(app: Flask) -> dict[str, str]:
    """Each served lexicon's full checksum by its id: the key offline.js keeps a phone's copy by,
    and what a table device shows (LEXICON_EVENT)."""
    return {item.id: item.lexicon.checksum for item in app.extensions["lexicon_registry"].served}


def offline_data(app: Flask, standalone: bool = False) -> bytes:
    """offline-data.js: what offline.js needs that the page does not (texts, full checksums), and
    what judge.js says for a problem the service answers (`problems`, by type name: only needed on
    a refusal, so not in the page); `standalone` for the single-file judge (service.single_file),
    which no service is behind, so no problem either."""
    problems = {
        language: {key.removeprefix("problem."): text for key, text in texts.items()}
        for language, texts in problem_texts().items()
    }
    data = {
        "texts": offline_texts(),
        "checksums": full_checksums(app),
        **({"standalone": True} if standalone else {"problems": problems}),
    }
    return f"window.LexiconOfflineData = {script_json(data)};\n".encode()


def event_lexicon(app: Flask) -> str | None:
    """In an event, its lexicon's id (every verdict of the event is judged with it): the list a
    phone opens on when it chose none (service.page's `choice`, judge.js's start)."""
    event = app.extensions.get("lexicon_event")
    served = getattr(event, "event_served", None)
    return served.id if served is not None else None


def page_data(app: Flask, seconds: float, later: list[str] | None = None) -> dict[str, Any]:
    registry = app.extensions["lexicon_registry"]
    settings = app.extensions["lexicon_settings"]
    lexicons = [
        {
            "id": item.id,
            "name": item.lexicon.header.name,
            "language": item.language,
            "version": item.lexicon.header.version,
            "short": item.lexicon.checksum[:8],  # the verdict shows the answer's own checksum
            "default": item.default,
            **({"second": item.second.id} if item.second else {}),  # LEXICON_SECOND: the page asks for it
        }
        for item in registry.served
    ]
    languages = sorted({item["language"] for item in lexicons})
    return {
        "lexicons": lexicons,
        "alphabets": {language: alphabet_data(language) for language in languages},
        "unicode": unicode_facts(),
        "limits": {"minTiles": MIN_TILES, "maxTiles": MAX_TILES, "minWords": MIN_WORDS, "maxWords": MAX_WORDS},
        "verdictSeconds": seconds,
        "tokenRequired": settings.token is not None,
        "challenge": "v1/challenge",  # relative: the page works behind a path prefix too
        # In an event (LEXICON_EVENT): where the page pairs itself and reads the event's state,
        # and event.js's texts (texts/event/); outside one, none of it is in the page.
        # A table device shows its lexicon's checksum in full. `lexicon`: the event's.
        "event": {
            "lexicon": event_lexicon(app),
            "state": "v1/event",
            "pair": "v1/devices/pair",
            "texts": event_texts(),
            "checksums": full_checksums(app),
        }
        if getattr(settings, "event", None) is not None
        else None,
        "texts": interface_texts(),
        "later": later or [],
    }


def script_json(value: Any) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' as such.

    >>> print(script_json({"name": "</script>&"}))
    {"name":"\\u003c/script\\u003e\\u0026"}
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


__all__ = ["event_lexicon", "full_checksums", "offline_data", "page_data", "script_json"]
