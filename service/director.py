"""The director's console at `/director`: one page, like the judge's, for running an event.

The page is a client of the tournament API and nothing more: it logs in with the director's
password (`POST /v1/director/session`, which sets the session cookie), pairs devices, opens and
closes rounds, reads the record and prints one challenge as a slip for an appeal. Everything it
shows comes from those JSON endpoints, asked with the cookie; the page itself holds no secret,
so it is rendered when the app starts and served like the judge's page (service.assets: an
ETag, gzip when accepted, the same strict Content-Security-Policy).

It is rendered twice: signed out (the login form shown, under the event's name: a director with
two events on one laptop sees which one this is) and signed in (the console, which fills itself
from the API), and each request gets the one its cookie calls for (`Vary: Cookie`). So the
page never has to ask whether it is signed in: that question, asked before a login, is answered
401, which a browser logs as a console error on every first visit. Neither page holds anything
of a session; the signed-in one says only that there is one.

One thing the API does not answer is a picture: the QR code of a pairing URL. A phone's camera
reads it from the director's screen; `POST /director/qr` draws it here, on the server, with
`segno` (pure Python), as SVG. It takes the URL in the body, not in the address, so a pairing
code never lands in an access log, and answers only a signed-in director.

Without an event (no LEXICON_EVENT) the console is not there: 404, like any unknown path.
The page's links are relative (`director/static/…`, `v1/…`), so it works behind a path prefix.
"""

from __future__ import annotations

import io
import json
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, render_template, request

from lexicon.errors import show_word
from lexicon.tokenizer import tokenizer
from tournament import STAMP_TOLERANCE

from .api import read_body
from .assets import Asset
from .decoding import TOO_DEEP, not_json, not_utf8
from .page import CSP, PAGE_HEADERS
from .page_data import script_json
from .page_texts import accepted, problem_texts, read_texts
from .problems import Problem
from .static_files import IMMUTABLE, TYPES, served

# common.js is shared with the judge's page; director.js is written in parts (static/director/),
# sent as one file as the judge's judge.js is (service.static_files: PARTS, served).
ASSETS = ("director.css", "common.js", "director.js")
QR_MAX = 512  # characters of a pairing URL: a QR code of that much is still easy to scan

blueprint = Blueprint("director", __name__)


@cache
def director_texts() -> dict[str, dict[str, str]]:
    """The console's interface texts (`texts/director/LANG.toml`), checked like the judge's, and
    what it says for each problem (`texts/problems/`, shared with the judge's page); read once a
    process, as the judge's (service.page_texts)."""
    texts = read_texts(resources.files(__package__) / "texts" / "director")
    return {language: {**words, **problem_texts()[language]} for language, words in texts.items()}


def _event(app: Flask):
    """The event's store when the service runs an event (tournament mode), else None."""
    return app.extensions.get("lexicon_event")


def console_data(app: Flask) -> dict[str, Any]:
    registry = app.extensions["lexicon_registry"]
    return {
        "texts": director_texts(),
        "lexicons": [
            {
                "id": item.id,
                "name": item.lexicon.header.name,
                "language": item.language,
                "version": item.lexicon.header.version,
                "checksum": item.lexicon.checksum,
            }
            for item in registry.served
        ],
        # a row stamped before the row before it by more than this many seconds is marked (tournament/times.py)
        "stampTolerance": STAMP_TOLERANCE.total_seconds(),
        # relative: the console works behind a path prefix too (it is served at PREFIX/director)
        "api": {
            "session": "v1/director/session",
            "link": "v1/director/link",
            "devices": "v1/devices",
            "rounds": "v1/rounds",
            "close": "v1/rounds/close",
            "records": "v1/records",
            "event": "v1/event",
            "qr": "director/qr",
        },
        # each language's tiles of more than one letter, to show a record's tiles as tiles
        # (engine notation brackets only the ambiguous ones: CA[RR]O, but COL·LEGI)
        "tiles": {
            language: sorted(
                (tile for tile in tokenizer(language).alphabet.tiles if len(tile) > 1), key=len, reverse=True
            )
            for language in sorted({item.language for item in registry.served})
        },
    }


UI_COOKIE = "lexicon-judge-director-ui"  # the console's language, as the director last chose it


def render(app: Flask, assets: dict[str, Asset], event: str, signed_in: bool, language: str = "es") -> bytes:
    """The page of the event named `event`, signed out (its login names the event) or in, in `language`."""
    data = {**console_data(app), "session": {"event": event} if signed_in else None}
    texts = data["texts"]
    with app.app_context():
        html = render_template(
            "director.html",
            lang=language,
            t=texts[language],
            texts=texts,
            data_json=script_json(data),
            event=event,
            signed_in=signed_in,
            asset={name: f"director/static/{name}?v={asset.digest}" for name, asset in assets.items()},
            ns=app.extensions.get("lexicon_prefix", ""),
        )
    return html.encode("utf-8")


def qr_svg(text: str) -> bytes:
    """The QR code of `text` as a small SVG: dark modules on white, a quiet zone of 4.

    >>> svg = qr_svg("http://192.168.1.10:8000/#pair=K7QH3MXP")
    >>> svg.startswith(b"<svg") and b"<path" in svg
    True
    """
    import segno

    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    code.save(
        out, kind="svg", scale=4, border=4, xmldecl=False, dark="#000", light="#fff", svgclass=None, lineclass=None
    )
    return out.getvalue()


def register_director(app: Flask) -> None:
    """Serve the console in an event (after the lexicons are loaded and the event is open).

    Without an event nothing is registered: /director is an unknown path, and the console's
    routes, which are a page and no API operation, are in no route list the OpenAPI document
    is checked against."""
    if _event(app) is None:
        return
    assets = {name: Asset(served(name), TYPES[Path(name).suffix], IMMUTABLE) for name in ASSETS}  # as the judge's
    headers = {**PAGE_HEADERS, "Cache-Control": "no-store", "Vary": "Accept-Encoding, Accept-Language, Cookie"}
    pages = {
        (signed_in, language): Asset(
            render(app, assets, _event(app).name, signed_in, language),
            "text/html; charset=utf-8",
            "no-cache",
            headers,
        )
        for signed_in in (False, True)
        for language in director_texts()
    }
    app.extensions["director_page"] = {"pages": pages, "assets": assets}
    app.register_blueprint(blueprint)


@blueprint.get("/director")
def console() -> Response:
    """The page as this request's cookies call for: signed in or out, in the language the director
    chose here last, else the first of the browser's languages the console has texts for, else
    Spanish; rendered in it, so nothing changes language once shown."""
    page = current_app.extensions["director_page"]
    return page["pages"][(_event(current_app).signed_in(), console_language())].response()


def console_language() -> str:
    """The console's language for this request: the one the director chose here last (its
    cookie), else the first of the browser's languages the console has texts for, else Spanish.
    The console's page and the files it downloads (an export's name) are in it."""
    languages = sorted(director_texts(), key=lambda code: code != "es")  # Spanish first: the default
    asked = [request.cookies.get(UI_COOKIE, ""), *accepted(request.accept_languages)]
    return next((code for code in asked if code in languages), languages[0])


@blueprint.get("/director/static/<name>")
def console_asset(name: str) -> Response:
    asset = current_app.extensions["director_page"]["assets"].get(name)
    if asset is None:
        abort(404)
    return asset.response()


@blueprint.post("/director/qr")
def qr() -> Response:
    """`{"text": URL}` -> image/svg+xml, for a signed-in director only."""
    _require_director()
    return Response(
        qr_svg(_qr_text(read_body() or b"null")),
        content_type="image/svg+xml",
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": CSP},
    )


def _qr_text(body: bytes) -> str:
    """The body's `text`, a URL of 1 to QR_MAX printable characters; else 400 (no JSON) or 422,
    quoting what came instead, its first QUOTED characters. The URL holds a pairing code, which
    the tournament's bodies never echo since a page may show a detail; this answer goes only to
    the signed-in director, whose console shows that code, and a problem's detail is not logged."""
    try:
        value = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise not_utf8(error) from None
    except json.JSONDecodeError as error:
        raise not_json(error) from None
    except RecursionError:
        raise Problem("invalid-json", TOO_DEEP) from None
    except ValueError:  # the one other refusal of json.loads: a number longer than Python converts
        raise Problem(
            "invalid-json", f"the body is not JSON this service reads: a number of more than {MAX_DIGITS} digits"
        ) from None
    text = value.get("text") if isinstance(value, dict) else None
    if isinstance(text, str) and 0 < len(text) <= QR_MAX and text.isprintable():
        return text
    if not isinstance(value, dict) or "text" not in value:
        given = f"the body is {_shown(value)}"
    elif isinstance(text, str) and 0 < len(text) <= QR_MAX:
        given = f"text is {_shown(text)}, which holds a character that does not print"
    elif isinstance(text, str):
        given = f"text is {_shown(text)} ({len(text)} characters)"
    else:
        given = f"text is {_shown(text)}"
    raise Problem(
        None, f'the body is {{"text": URL}} with a URL of 1 to {QR_MAX} printable characters; {given}', status=422
    )


QUOTED = 40  # characters of a refused body or text quoted
MAX_DIGITS = sys.get_int_max_str_digits()  # json.loads's limit for an integer's digits


def _shown(value: Any) -> str:
    """A JSON value quoted: a string as show_word quotes it (escaping what would not show), any
    other value as JSON (in ASCII if it holds what would not show); cut to QUOTED characters.

    >>> _shown("http://mesa.local:8000/"), _shown({"nothing": 1}), _shown("x" * 600)[-4:]
    ("'http://mesa.local:8000/'", '{"nothing": 1}', "xx…'")
    """
    if isinstance(value, str):
        return show_word(value if len(value) <= QUOTED else value[: QUOTED - 1] + "\u2026")
    try:
        text = json.dumps(value, ensure_ascii=False)
    except RecursionError:
        return "an array or object nested too deeply"
    if not text.isprintable():  # a lone surrogate in a member's name, a zero-width space: as \u escapes
        text = json.dumps(value)
    return text if len(text) <= QUOTED else text[: QUOTED - 1] + "\u2026"


def _require_director() -> None:
    """The tournament API's own check (service.event.http): 401 without the director's
    session, 403 for a device or a request from another site."""
    _event(current_app).director()


__all__ = ["blueprint", "console_data", "console_language", "director_texts", "qr_svg", "register_director"]
