"""A person's 404 or 503 in a browser: one line in Spanish or Catalan instead of the API's
problem+json, under its title as the page's heading, in a main landmark (axe-core's rules:
tests/page/test_line_page.py).

Two addresses a person may open by mistake get it: an address with no event on a service of
many (service.federation: `noEvent`), and the director's console of a service that runs no
event (`noConsole`: the director started it without `LEXICON_EVENT`). And an event of a service
of many that cannot be served now (its list not served, its database away: service.federation),
whose line is the problem's own text, as the pages say it. Its texts are in `service/texts/app/`
(and `texts/problems/`); a client that does not ask for HTML first gets the problem+json.
"""

from __future__ import annotations

from base64 import b64encode
from hashlib import sha256
from html import escape

from flask import Response, request
from werkzeug import Request

from .page_texts import accepted, app_texts

# Its only style: a title a phone at 200 % zoom (a 360 x 640 one is 180 x 320 CSS px) shows
# with the whole line under it on the first screen; the browser's 2 em title took three lines of
# it, and a Catalan line ran past the screen.
LINE_PAGE_STYLE = "body{margin:.75rem}h1{font-size:1.35em}"
# Nothing to load, run or frame it but that style (by its hash); no address passed on (as
# service.page's PAGE_HEADERS)
LINE_PAGE_CSP = (
    f"default-src 'none'; style-src 'sha256-{b64encode(sha256(LINE_PAGE_STYLE.encode()).digest()).decode()}'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def line_page(
    title: str, line: str, status: int = 404, asked: Request | None = None, lines: dict | None = None
) -> Response | None:
    """The page of the texts `title` and `line` (of `lines`, by language, when given; else of the
    app's texts) in the browser's language (Spanish or Catalan), with `status`; None for a client
    that prefers JSON, which gets the problem+json. `asked`: the request, outside Flask's."""
    asked = request if asked is None else asked
    accept = asked.accept_mimetypes
    if accept.best_match(["application/json", "application/problem+json", "text/html"]) != "text/html":
        return None
    texts = app_texts()
    language = next((code for code in accepted(asked.accept_languages) if code in texts), "es")
    t = texts[language]
    said = (lines or texts)[language][line]
    html = (
        f'<!doctype html>\n<html lang="{language}">\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(t[title])}</title>\n<style>{LINE_PAGE_STYLE}</style>\n"
        f"<main><h1>{escape(t[title])}</h1>\n<p>{escape(said)}</p></main>\n"
    )
    headers = {
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": LINE_PAGE_CSP,
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "Vary": "Accept, Accept-Language",
    }
    return Response(html.encode(), status, headers, content_type="text/html; charset=utf-8")
