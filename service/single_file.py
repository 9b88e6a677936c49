"""The single-file judge: the judge's page, its files and one lexicon in one HTML file that judges
with no service and no network, written by `lexicon export-page` (lexicon_cli/export_page.py).

A federation hands the file to its judges (by message, on a card); opened from a phone's files
(file://) it shows the page the service serves, the same verdict screen and tile keys, and judges
every play on the phone, with the lexicon's name, version and checksum on the page and on each
verdict, and a line saying that it judges on this phone.

It is made from the page the service itself renders for that one lexicon (`create_app`, the same
template, texts and files), not from a copy: the stylesheet and scripts put inline where the page
links them, the web manifest left out (a file installs nothing), and at the end offline.js's
data in standalone mode (judge.js then never asks a service), the browser lexicon as base64, and
`static/standalone.js`, which hands it to offline.js: verified (checksum, structure, word count)
before any verdict, as a downloaded one. Each of these edits must find its place in the page
exactly once, or the export stops: a changed template cannot give a file that half works.

A `<meta>` Content-Security-Policy allows only these scripts and this stylesheet (by their
SHA-256), the WebAssembly lexicon.js compiles ('wasm-unsafe-eval'), and no connection at all. The same lexicon file always gives the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import textwrap
from html import escape

from lexicon.browser import browser_bytes
from lexicon.lexfile import Lexicon

from .app import create_app
from .browser import exported
from .config import load_settings
from .page_data import offline_data, script_json
from .page_texts import app_texts
from .static_files import STATIC

DATA = re.compile(r'<script type="application/json" id="judge-data">(.*?)</script>', re.DOTALL)


class PageChanged(RuntimeError):
    """The page no longer has a place this module edits: a programming error, caught by the tests."""


def _once(html: str, old: str, new: str) -> str:
    if html.count(old) != 1:
        raise PageChanged(
            f"the judge's page has {html.count(old)} of {old[:80]!r}, where the single file "
            "expects one: service/single_file.py must follow the template"
        )
    return html.replace(old, new)


def _inline(kind: str, body: str) -> str:
    if re.search(rf"</{kind}", body, re.IGNORECASE):
        raise PageChanged(f"an inline <{kind}> cannot hold '</{kind}'")
    return f"<{kind}>{body}</{kind}>"


def _hash(body: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"


def single_file(lexicon: Lexicon) -> bytes:
    """The single-file judge of `lexicon` (a compiled file, opened and verified)."""
    # The defaults of every LEXICON_* setting but the file: the shell's settings never change the file.
    app = create_app(
        settings=load_settings({"LEXICON_FILES": [str(lexicon.source)], "LEXICON_LOG_LEVEL": "error"}, environ={})
    )
    pages = app.extensions["judge_page"]
    served = app.extensions["lexicon_registry"].served[0]
    header = served.lexicon.header
    assets = {
        name: asset.body.decode("utf-8") for name, asset in pages["assets"].items() if name.endswith((".js", ".css"))
    }
    links = {name: f"static/{name}?v={asset.digest}" for name, asset in pages["assets"].items()}
    html = pages["page"].body.decode("utf-8")

    match = DATA.search(html)
    if match is None:
        raise PageChanged("the judge's page has no judge-data")
    data = json.loads(match.group(1))
    data["later"] = []  # its scripts are in the file already
    html = _once(html, match.group(0), f'<script type="application/json" id="judge-data">{script_json(data)}</script>')
    html = _once(html, '<link rel="manifest" href="app.webmanifest">', "")
    scripts, styles = [], []

    def inline(kind: str, name: str) -> str:
        body = assets[name] if name in assets else (STATIC / name).read_text(encoding="utf-8")
        (scripts if kind == "script" else styles).append(_hash(body))
        return _inline(kind, body)

    html = _once(html, f'<link rel="stylesheet" href="{links["judge.css"]}">', inline("style", "judge.css"))
    for name in ("common.js", "tiles.js", "judge.js"):
        html = _once(html, f'<script src="{links[name]}"></script>', inline("script", name))

    texts = {
        language: {
            "standalone": words["standalone"].format(
                name=header.name, version=header.version, checksum=served.lexicon.checksum
            ),
            "refused": words["refused"],
        }
        for language, words in app_texts().items()
    }
    # Opened where no script runs (an iPhone's Files shows an HTML file in a preview that runs
    # none), nothing would judge, Comprobar would do nothing, and the line under the lexicon's would
    # still say the file judges here. Said instead, above the form, in the file's language: the form
    # (that line in it) and the language buttons hidden by a style only a page without scripts reads.
    hide = "#play,#langs{display:none!important}"
    styles.append(_hash(hide))
    unrun = f'<noscript><style>{hide}</style><p class="form-error">{escape(app_texts()[served.language]["noScript"])}</p></noscript>'
    note = '<p id="offline-note" class="details offline-note" aria-live="polite" hidden></p>'
    html = _once(
        html,
        note,
        f'<p id="standalone" class="details standalone">{escape(texts[served.language]["standalone"])}</p>\n{note}',
    )
    html = _once(html, '<form id="play"', f'{unrun}\n<form id="play"')
    raw = exported(served.lexicon) or browser_bytes(served.lexicon)
    offline = offline_data(app, standalone=True).decode("utf-8")  # offline.js judges, judge.js asks no service
    tail = "\n".join(
        [
            inline("script", "lexicon.js"),
            _inline("script", offline),
            inline("script", "offline.js"),
            '<script type="application/json" id="standalone-data">'
            + script_json({"language": served.language, "texts": texts})
            + "</script>",
            '<script type="text/plain" id="lexicon-bytes">\n'
            + "\n".join(textwrap.wrap(base64.b64encode(raw).decode("ascii"), 76))
            + "\n</script>",
            inline("script", "standalone.js"),
        ]
    )
    scripts.append(_hash(offline))
    html = _once(html, "</body>", tail + "\n</body>")
    policy = (
        f"default-src 'none'; script-src {' '.join(scripts)} 'wasm-unsafe-eval'; "
        f"style-src {' '.join(styles)}; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
    )
    html = _once(
        html,
        '<meta charset="utf-8">',
        f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{policy}">',
    )
    return html.encode("utf-8")


__all__ = ["PageChanged", "single_file"]
