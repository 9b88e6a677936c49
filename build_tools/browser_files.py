"""The files beside a compiled `NAME.lex`: its browser file `NAME.dawg` and that file's compressed
forms `NAME.dawg.br` and `NAME.dawg.gz`, written once by the CLI and read, checked, by the service.

Why the compressed forms are files: the service sends the browser file brotli-compressed at
brotli's best quality (the smallest download for a judge's phone on the venue's Wi-Fi), or
gzip-compressed to a browser on plain HTTP. Compressing at start cost about a second of CPU per
lexicon (quality 11; gzip a tenth of that), most of the service's time from start to ready
([figures.md](../docs/figures.md#service)); quality 9 would cost a tenth but send 6-8 % more.
Made once with the `.dawg` (`lexicon build-defaults`, `lexicon export --browser`) they cost a
read and a decompression at start. The names are the ones nginx's `gzip_static` and
`brotli_static` look for, so a copy of the directory can be served as it is.

Trust follows a chain, so nothing is served that does not match the verified `.lex`: the `.lex`
is verified when it is loaded (its own checksum); the `.dawg` is used only if its own checksum
holds and its header's `lexicon_sha256` is that `.lex` file's checksum; a compressed form is used
only if it decompresses to exactly that `.dawg`'s bytes, byte for byte (a few milliseconds each;
the output is bounded, so a doctored form cannot inflate without limit). Anything missing,
stale or damaged is left aside with the reason, and the caller makes it again in memory.

Reproducible: the same `.lex` gives the same `.dawg` (`lexicon.browser.compile_browser`), and
the same `.dawg` the same forms with the same brotli library (quality 11, its default window)
and zlib (level 9, timestamp 0, no file name). A form made by another library version is still
trusted, since what is checked is what it decompresses to.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import brotli

from lexicon.browser import beside, browser_bytes, verify
from lexicon.errors import LexiconFileError
from lexicon.lexfile import Lexicon

from .compiler import write_atomically

# The codings of HTTP's Content-Encoding, each with the suffix of its file beside the `.dawg`.
SUFFIXES = {"br": ".br", "gzip": ".gz"}
COMPRESSORS = {
    "br": lambda raw: brotli.compress(raw, quality=11),
    "gzip": lambda raw: gzip.compress(raw, compresslevel=9, mtime=0),
}


def compress(raw: bytes, forms: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """Every compressed form of a browser file, as served: those in `forms` (already checked) as
    they are, the others made now (brotli's best quality takes about a second a lexicon)."""
    forms = forms or {}
    return {coding: forms[coding] if coding in forms else COMPRESSORS[coding](raw) for coding in SUFFIXES}


def form_path(dawg: Path, coding: str) -> Path:
    """Where the `coding` form of the browser file `dawg` is kept.

    >>> form_path(Path('build/lexicons/letterpress-es.dawg'), 'br').as_posix()
    'build/lexicons/letterpress-es.dawg.br'
    """
    return dawg.with_name(dawg.name + SUFFIXES[coding])


def decompress(coding: str, data: bytes, limit: int) -> bytes | None:
    """`data` decompressed, at most `limit` bytes (more, or anything after the end: None)."""
    try:
        if coding == "br":
            decompressor = brotli.Decompressor()
            out = decompressor.process(data, output_buffer_limit=limit)
            return out if decompressor.is_finished() and len(out) <= limit else None
        decompressor = zlib.decompressobj(wbits=31)  # a gzip member
        out = decompressor.decompress(data, limit)
        return out if decompressor.eof and not decompressor.unused_data else None
    except (brotli.error, zlib.error):
        return None


def form_matches(coding: str, data: bytes, raw: bytes) -> bool:
    """Whether `data` is the `coding` form of exactly `raw`."""
    return decompress(coding, data, len(raw) + 1) == raw


@dataclass
class Beside:
    """What is beside a `.lex` file and may be used: its browser file (None: none fit) and those
    compressed forms of it that fit; `ignored`: (path, reason) of each file left aside."""

    raw: bytes | None
    forms: dict[str, bytes] = field(default_factory=dict)
    ignored: list[tuple[Path, str]] = field(default_factory=list)


def read_beside(lexicon: Lexicon, forms: bool = True) -> Beside:
    """The browser file beside `lexicon`'s `.lex` and (`forms`) its compressed forms, each checked
    against the one before it in the chain; the forms are read only if the browser file fits."""
    path = beside(lexicon.source)
    found = Beside(None)
    try:
        data = path.read_bytes()
        if verify(data, str(path)).lexicon_sha256 == lexicon.checksum:
            found.raw = data
        else:
            found.ignored.append((path, "made from another .lex file"))
    except FileNotFoundError:
        found.ignored.append((path, "missing"))
    except (OSError, LexiconFileError) as error:
        found.ignored.append((path, str(error)))
    if found.raw is None or not forms:
        return found
    for coding in SUFFIXES:
        form = form_path(path, coding)
        try:
            data = form.read_bytes()
        except FileNotFoundError:
            found.ignored.append((form, "missing"))
            continue
        except OSError as error:
            found.ignored.append((form, error.strerror or str(error)))
            continue
        if form_matches(coding, data, found.raw):
            found.forms[coding] = data
        else:
            found.ignored.append((form, f"not the {coding} form of {path.name}: stale or damaged"))
    return found


def write_beside(lex_path: Path, force: bool = False) -> list[Path]:
    """The browser file and its forms beside a `.lex` file, those missing, stale or damaged (all
    with `force`), written atomically, the `.dawg` first; the paths written (none: all were right)."""
    lexicon = Lexicon.open(lex_path)
    found = Beside(None) if force else read_beside(lexicon)
    path = beside(lex_path)
    written = []
    raw = found.raw
    if raw is None:
        raw = browser_bytes(lexicon)
        write_atomically(path, raw)
        written.append(path)
    for coding, data in compress(raw, found.forms).items():
        if coding not in found.forms:
            write_atomically(form_path(path, coding), data)
            written.append(form_path(path, coding))
    return written
