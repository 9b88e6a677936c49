"""The browser lexicon file: the same words as a `.lex` file, as a DAWG a web page reads as is.

Layout (integers little-endian; docs/browser-lexicon.md says it byte by byte):

    0   8 bytes   magic b"LXJDAWG\\x1a"
    8   u16       format version (FORMAT)
    10  u16       0 (reserved)
    12  u32       header length H
    16  u32       edge count E (the sentinel, edge 0, not counted)
    20  u32       length T of the target stream
    24  H bytes   header: canonical JSON (sorted keys, no spaces), UTF-8
        E bytes   one byte per edge: tile number, ACCEPT, LAST (`lexicon.dawg.pack`)
        T bytes   one LEB128 number per edge: none, the next new state, or a state's number
    end 32 bytes  SHA-256 of every byte before it

On the wire the edges are packed (190 KB brotli, 202 KB gzip for the Spanish default, against
268 and 323 KB as plain 32-bit edges: `make bench`); a reader expands them once, in one pass,
into the 32-bit edge array of `lexicon.dawg` that lookups read.

The checksum comes last so that it covers everything else, the prefix included: a reader
hashes all but the last 32 bytes and compares. The header names the list (id, language, name,
version), the tile set in code order (tile number n is tiles[n-1]), the word count, the
`words_sha256` of `lexicon info` (the same words, so the same value as the `.lex` file's) and
`lexicon_sha256`, the SHA-256 of the `.lex` file it was made from: what a verdict made in the
browser shows, so the slip reads the same whether the phone or the service judged.

`compile_browser` is pure: the same lexicon gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from array import array
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from . import dawg
from .alphabet import TILE_CODES, Alphabet, load_alphabet
from .errors import LexiconFileError
from .lexfile import Lexicon

MAGIC = b"LXJDAWG\x1a"
FORMAT = 1
_PREFIX = struct.Struct("<8sHHIII")
_DIGEST = 32
SUFFIX = ".dawg"


@dataclass(frozen=True)
class BrowserHeader:
    format: int
    id: str
    language: str
    name: str
    version: str
    tiles: tuple[str, ...]
    words: int
    words_sha256: str
    lexicon_sha256: str
    states: int
    edges: int

    def as_dict(self) -> dict:
        data = asdict(self)
        data["tiles"] = list(self.tiles)
        return data


def beside(lex_path: str | os.PathLike) -> Path:
    """Where a `.lex` file's browser file goes by default, and where the service looks for it.

    >>> beside('build/lexicons/letterpress-es.lex').as_posix()
    'build/lexicons/letterpress-es.dawg'
    """
    return Path(lex_path).with_suffix(SUFFIX)


def tile_numbers(alphabet: Alphabet) -> bytes:
    """A `bytes.translate` table from a key's Latin-1 bytes to tile numbers (1 + tile index)."""
    codes = TILE_CODES[: len(alphabet.tiles)].encode("latin-1")
    return bytes.maketrans(codes, bytes(range(1, len(alphabet.tiles) + 1)))


def compile_browser(
    keys: Sequence[str], alphabet: Alphabet, *, id: str, name: str, version: str, words_sha256: str, lexicon_sha256: str
) -> bytes:
    """The browser file of sorted, unique keys (as `compile_lexicon` takes them)."""
    table = tile_numbers(alphabet)
    states, root = dawg.minimal_states([key.encode("latin-1").translate(table) for key in keys])
    edges = dawg.layout(states, root)
    header = BrowserHeader(
        format=FORMAT,
        id=id,
        language=alphabet.language,
        name=name,
        version=version,
        tiles=alphabet.tiles,
        words=len(keys),
        words_sha256=words_sha256,
        lexicon_sha256=lexicon_sha256,
        states=len(states),
        edges=len(edges) - 1,
    )
    encoded = json.dumps(header.as_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    encoded_header = encoded.encode("utf-8")
    tiles, targets = dawg.pack(edges)
    prefix = _PREFIX.pack(MAGIC, FORMAT, 0, len(encoded_header), len(tiles), len(targets))
    body = prefix + encoded_header + tiles + targets
    return body + hashlib.sha256(body).digest()


def browser_bytes(lexicon: Lexicon) -> bytes:
    """The browser file of a loaded (so verified) `.lex` lexicon."""
    header = lexicon.header
    return compile_browser(
        lexicon.keys(),
        lexicon.alphabet,
        id=header.id,
        name=header.name,
        version=header.version,
        words_sha256=header.words_sha256,
        lexicon_sha256=lexicon.checksum,
    )


class BrowserLexicon:
    """A browser file, checked as the page's reader checks it; for tests, tools and the CLI."""

    def __init__(self, data: bytes, source: str = "<bytes>"):
        self.header, self.edges = parse(data, source)
        self.alphabet = load_alphabet(self.header.language)
        self._table = tile_numbers(self.alphabet)
        self.checksum = hashlib.sha256(data).hexdigest()

    def __contains__(self, key: str) -> bool:
        try:
            numbers = key.encode("latin-1").translate(self._table)
        except UnicodeEncodeError:
            return False
        if any(n > len(self.alphabet.tiles) or n == 0 for n in numbers):
            return False
        return dawg.contains(self.edges, numbers)

    def __len__(self) -> int:
        return self.header.words


def parse(data: bytes, source: str = "<bytes>") -> tuple[BrowserHeader, array]:
    """Check a browser file (magic, version, checksum, header, size, tiles, structure, count)."""
    header = verify(data, source)
    length, count = struct.unpack_from("<II", data, 12)
    start = _PREFIX.size + length
    try:
        edges = dawg.unpack(bytes(data[start : start + count]), bytes(data[start + count : len(data) - _DIGEST]))
        words = dawg.check(edges, len(header.tiles))
    except dawg.DawgError as error:
        raise LexiconFileError(source, f"corrupt automaton ({error})") from None
    if count != header.edges:
        raise LexiconFileError(source, f"{count} packed edges where the header says {header.edges}")
    if words != header.words:
        raise LexiconFileError(source, f"{words} words where the header says {header.words}")
    return header, edges


def verify(data: bytes, source: str = "<bytes>") -> BrowserHeader:
    """The checks that take a millisecond: magic, version, checksum, size, header, tile set.

    Enough to trust a file this program wrote (the checksum covers every byte); `parse` adds
    the automaton's structure and word count, as the page's reader does.
    """
    size = len(data)
    if size < 8 or bytes(data[:8]) != MAGIC:
        raise LexiconFileError(source, "not a browser lexicon file (no Lexicon Judge DAWG magic)")
    if size < _PREFIX.size + _DIGEST:
        raise LexiconFileError(source, "truncated inside its prefix")
    _, version, _, length, count, target_bytes = _PREFIX.unpack_from(data)
    if version != FORMAT:
        raise LexiconFileError(source, f"format version {version}; this program reads version {FORMAT}: re-export it")
    if hashlib.sha256(memoryview(data)[: size - _DIGEST]).digest() != bytes(data[size - _DIGEST :]):
        raise LexiconFileError(source, "checksum mismatch: the file is truncated or corrupt")
    start = _PREFIX.size + length
    if size != start + count + target_bytes + _DIGEST:
        raise LexiconFileError(
            source, f"{size} bytes where the prefix promises {start + count + target_bytes + _DIGEST}"
        )
    try:
        fields = json.loads(bytes(data[_PREFIX.size : _PREFIX.size + length]).decode("utf-8"))
        fields["tiles"] = tuple(fields["tiles"])
        header = BrowserHeader(**fields)
    except (ValueError, TypeError, KeyError) as error:
        raise LexiconFileError(source, f"corrupt header ({error})") from None
    try:
        alphabet = load_alphabet(header.language)
    except ValueError:
        raise LexiconFileError(source, f"unknown language {header.language!r}") from None
    if alphabet.tiles != header.tiles:
        raise LexiconFileError(source, f"made with another {alphabet.name} tile set: re-export it")
    return header
