"""The static files the pages send (the judge's page, service.page; the director's console,
service.director): as written, and as served.

They are written by hand, with no build step, and say why in their comments and indentation; what
a browser gets is the same code without either (`served`), since the judge's page pays for what it
loads before first paint (at most 56 KiB, docs/judge-page.md). A script too long for one concept is
written in parts (`PARTS`) and sent as the one file it was. Each page reads its files through
`served` once, at start, and sends them from memory (service.assets: ETags, gzip).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
# judge.js is written in parts, one a concept (static/judge/; judge/page.js says which): sent as
# one file, inside one function whose scope they share, as the one file they were did. So the
# split costs the page no byte (its budget is tight) and no request, and the service worker's list
# and the single-file judge see one script, as before.
PARTS = {
    "judge.js": tuple(f"judge/{part}.js" for part in ("page", "words", "verdict", "start")),
    # the director's console's script (service/director.py), the same way
    "director.js": tuple(
        f"director/{part}.js" for part in ("state", "live", "rounds", "devices", "records", "slip", "start")
    ),
    # the browser lexicon's reader (lexicon.js, loaded after first paint), the same way
    "lexicon.js": tuple(f"lexicon/{part}.js" for part in ("file", "sha256", "wasm", "check", "judge")),
}
TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
IMMUTABLE = "public, max-age=31536000, immutable"  # the pages link their files with ?v=digest


# A comment after code: two spaces, then `// ` or a `/* … */` that ends the line.
TRAILING = re.compile(rb"  +(?://|/\*) [^\n]*?(?:\*/)?$")


def unindented(body: bytes) -> bytes:
    """A script's or style sheet's lines without their indentation, their blank lines and their
    comments (`// …`, `/* … */` over whole lines, and one after code that ends its line, written
    after two spaces): the same code to a browser, many KiB less to weigh (the page pays for what
    it loads before first paint, at most 56 KiB), while the files keep saying why.
    Left whole if a line may continue a string (an odd number of backquotes, or a backslash at
    its end), where the indentation would be part of the text.

    >>> unindented(b"if (a) {\\n  b();  // why\\n}\\n"), unindented(b"x = `one\\n  two`;\\n")
    (b'if (a) {\\nb();\\n}\\n', b'x = `one\\n  two`;\\n')
    >>> unindented(b"/* a\\n   b */\\n\\n// c\\na { b: c; }\\n")
    b'a { b: c; }\\n'
    """
    lines = body.split(b"\n")
    if any(line.count(b"`") % 2 or line.endswith(b"\\") for line in lines):
        return body
    kept, comment = [], False
    for line in (line.lstrip(b" ") for line in lines):
        if comment:
            comment = b"*/" not in line
            if comment or line.endswith(b"*/"):
                continue
            raise ValueError("unindented: code after a comment's end on its line")  # never in our files
        if line.startswith(b"/*"):
            comment = b"*/" not in line
            if comment or line.endswith(b"*/"):
                continue
        if line.startswith(b"//") or not line.strip():
            continue
        kept.append(TRAILING.sub(b"", line))
    return b"\n".join(kept) + (b"\n" if body.endswith(b"\n") else b"")


def served(name: str) -> bytes:
    """A static file as every page sends it: unindented, and a style sheet compacted. Read each
    time (a page made again sends its files as they are now); made from what was read once for
    each content, since every app (a worker, a reload, each test's) makes the same bytes of it."""
    return _as_served(source(name), name.endswith(".css"))


@functools.lru_cache(maxsize=32)  # a content: its bytes are the key, so a file changed is made anew
def _as_served(body: bytes, css: bool) -> bytes:
    body = unindented(body)
    return compact_css(body) if css else body


def compact_css(body: bytes) -> bytes:
    """A style sheet without the spaces and line ends after `:`, `;` and `,`, nor around `{`,
    `}` and `>`, nor a rule's last `;`, outside its quoted strings: the same rules, a KiB and a
    half less (a space before `:` stays: in a selector it is the descendant combinator).

    >>> compact_css(b'a > b, .c :focus { color: red; content: " - "; }')
    b'a>b,.c :focus{color:red;content:" - "}'
    """
    parts = body.split(b'"')
    for index in range(0, len(parts), 2):
        part = re.sub(rb"\s*([{}>])\s*", rb"\1", re.sub(rb"([:;,])\s+", rb"\1", parts[index]))
        parts[index] = part.replace(b";}", b"}")
    return b'"'.join(parts)


def source(name: str) -> bytes:
    """A static file as written; a script in parts (PARTS), its parts in order, in one strict
    function (what each part declares is seen by the others, and by nothing else on the page)."""
    if name not in PARTS:
        return (STATIC / name).read_bytes()
    parts = b"".join((STATIC / part).read_bytes() for part in PARTS[name])
    return b'(() => {\n"use strict";\n' + parts + b"})();\n"


__all__ = ["IMMUTABLE", "PARTS", "STATIC", "TYPES", "compact_css", "served", "source", "unindented"]
