"""The compiled lexicon file: a versioned header, then a marisa trie of keys.

Layout (all integers little-endian):

    0   8 bytes   magic b"LXJUDGE\\x1a" (the ^Z stops `type`/`cat`-style readers early)
    8   u16       format version (FORMAT)
    10  u16       0 (reserved: a file with anything else there is refused)
    12  u32       header length H
    16  32 bytes  SHA-256 of everything after these 48 bytes: header, padding and trie
    48  H bytes   header: canonical JSON (sorted keys, no spaces), UTF-8
        padding   zero bytes up to a multiple of 64, so the trie starts aligned
    P   N bytes   the marisa-trie, keys one code per tile (see alphabet.TILE_CODES)

The header says what the list is (id, language, name, version, source, licence), how many words
it holds and the SHA-256 of its content: the `lexicon dump` text, one word a line in engine tile
notation, sorted in the alphabet's order. That checksum does not depend on marisa or on this
format, so two files built from the same list can be compared, and `dump | sha256sum` checks it.
The body checksum is verified on every load (about a millisecond): a file that is truncated,
altered in any byte or foreign is refused with a clear error, never half-read. Every byte is
covered: the magic, version and reserved field by their exact values, the header length by the
header's JSON ending exactly there and the size adding up, the digest by the hash, the rest by
the hash. The hash proves the bytes whole, not that a build wrote them (anyone can recompute it),
so the header is also checked field by field, and must be the canonical JSON a build writes. A file is read whole into memory and the trie answers from those verified bytes, so
a file copied over it later (same inode) cannot change an answer or crash the reader, as it
could under a memory map.

`compile_lexicon` is pure: same keys and metadata, same bytes (no timestamp unless given).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import operator
import os
import re
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace

import marisa_trie

from .alphabet import Alphabet, load_alphabet
from .board import MAX_TILES, MIN_TILES
from .errors import CompileInputError, LexiconFileError, MetaError, NotALexiconFile, show_word

MAGIC = b"LXJUDGE\x1a"
FORMAT = 1
_PREFIX = struct.Struct("<8sHHI32s")
_ALIGN = 64
TOOL = "lexicon-judge"
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
LANGUAGE_CODE = re.compile(r"[a-z]{2}")  # ISO 639-1, as the alphabets are named
MAX_VERSION = 100


def check_id(lexicon_id: str) -> str:
    """An id is a name in a URL, a file name and `lexicon=ID`: lower case (names are looked up in
    any case), digits, '.', '_', '-'. Two letters alone are refused: `lexicon=es` names a language's
    default, so an id `ca` on a Spanish list would answer for Catalan.

    >>> check_id('file2017')
    'file2017'
    >>> check_id('ca')
    Traceback (most recent call last):
    ...
    lexicon.errors.MetaError: id 'ca' is two letters alone, the shape of a language code (es, ca), which names a language's default lexicon: choose another, e.g. 'ca-2026'
    """
    if not isinstance(lexicon_id, str) or not ID_PATTERN.fullmatch(lexicon_id):
        raise MetaError(
            f"id {show_word(str(lexicon_id))} is not an id: 1 to 64 of a-z, 0-9, '.', '_', '-' "
            "(lower case), starting with a letter or digit, e.g. file2017"
        )
    if LANGUAGE_CODE.fullmatch(lexicon_id):
        raise MetaError(
            f"id {show_word(lexicon_id)} is two letters alone, the shape of a language code "
            f"(es, ca), which names a language's default lexicon: choose another, "
            f"e.g. '{lexicon_id}-2026'"
        )
    return lexicon_id


def check_label(what: str, value: str, limit: int = MAX_VERSION) -> str:
    """A version or a name: some visible text, on one line, of at most `limit` characters."""
    if not isinstance(value, str) or not value.strip() or not value.isprintable() or len(value) > limit:
        raise MetaError(f"{what} {show_word(str(value))} is not a {what}: 1 to {limit} printable characters, not blank")
    return value


def check_note(what: str, value: str, limit: int = 1000) -> str:
    """A source or a licence: may be empty, else text on one line that a terminal shows as it is
    (`lexicon info` prints it; a line feed or an escape sequence would forge the lines after it)."""
    if not isinstance(value, str) or not value.isprintable() or len(value) > limit:
        raise MetaError(
            f"{what} {show_word(str(value))} is not a {what}: at most {limit} printable characters, on one line"
        )
    return value


@dataclass(frozen=True)
class LexiconMeta:
    """What a person says about a list when compiling it; an id, name or version that a compiled
    file cannot carry is a MetaError here, whichever way it came (CLI options, a manifest)."""

    id: str
    language: str
    name: str
    version: str
    source: str = ""
    licence: str = ""
    built_at: str | None = None  # only when asked for: it would break reproducible builds
    build: dict = field(default_factory=dict)  # free-form facts of the build (source checksums)

    def __post_init__(self) -> None:
        check_id(self.id)
        check_label("version", self.version)
        check_label("name", self.name, 200)
        check_note("source", self.source)
        check_note("licence", self.licence)


@dataclass(frozen=True)
class Header:
    """The header of a compiled file, as checked on load."""

    format: int
    id: str
    language: str
    name: str
    version: str
    source: str
    licence: str
    built_at: str | None
    build: dict
    tool: str
    tiles: tuple[str, ...]
    words: int
    words_sha256: str
    trie_bytes: int

    def as_dict(self) -> dict:
        data = asdict(self)
        data["tiles"] = list(self.tiles)
        return data


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{TOOL} {version(TOOL)}"
    except PackageNotFoundError:  # running from a source tree that is not installed
        return f"{TOOL} unknown"


def words_text(keys: Iterable[str], alphabet: Alphabet) -> str:
    """The dump text of sorted keys: engine notation, one word a line, each line ended."""
    body = "\n".join(keys)
    return alphabet.engine_text(body) + "\n" if body else ""


def compile_lexicon(keys: Sequence[str], meta: LexiconMeta, alphabet: Alphabet) -> bytes:
    """Compile keys into the bytes of a lexicon file.

    The input rule, enforced: keys of `alphabet` (see `Tokenizer`), each of 2 to 15 tiles,
    sorted and unique. Enforcing it here rather than sorting quietly means a caller's bug
    (an unnormalized word, a duplicate) is a loud error, and the output depends only on the
    list's content.
    """
    if meta.language != alphabet.language:
        raise CompileInputError(f"meta says {meta.language!r}, alphabet is {alphabet.language!r}")
    _check_keys(keys, alphabet)
    trie = marisa_trie.Trie(keys)
    payload = trie.tobytes()
    content = words_text(keys, alphabet).encode("utf-8")
    header = Header(
        format=FORMAT,
        id=meta.id,
        language=meta.language,
        name=meta.name,
        version=meta.version,
        source=meta.source,
        licence=meta.licence,
        built_at=meta.built_at,
        build=dict(meta.build),
        tool=tool_version(),
        tiles=alphabet.tiles,
        words=len(keys),
        words_sha256=hashlib.sha256(content).hexdigest(),
        trie_bytes=len(payload),
    )
    encoded_header = _canonical(header)
    padding = b"\0" * (-(_PREFIX.size + len(encoded_header)) % _ALIGN)
    body = encoded_header + padding + payload
    prefix = _PREFIX.pack(MAGIC, FORMAT, 0, len(encoded_header), hashlib.sha256(body).digest())
    return prefix + body


def _check_keys(keys: Sequence[str], alphabet: Alphabet) -> None:
    """The input rule, checked at C speed on the common path; the slow path names the culprit."""
    codes = "".join(alphabet.tile_of)
    joined = "\n".join(keys)
    try:  # Latin-1 bytes with every code and line feed deleted: empty if and only if all codes
        only_codes = not joined.encode("latin-1").translate(None, (codes + "\n").encode("latin-1"))
    except UnicodeEncodeError:
        only_codes = False
    lengths = set(map(len, keys)) or {MIN_TILES}
    well_formed = only_codes and min(lengths) >= MIN_TILES and max(lengths) <= MAX_TILES
    if well_formed and all(map(operator.lt, keys, itertools.islice(keys, 1, None))):
        return
    previous = None
    for number, key in enumerate(keys, 1):
        if not MIN_TILES <= len(key) <= MAX_TILES or not set(codes).issuperset(key):
            raise CompileInputError(
                f"entry {number} ({key!r}) is not a key of {MIN_TILES} to {MAX_TILES} "
                f"{alphabet.name} tiles: tokenize words before compiling"
            )
        if previous is not None and key <= previous:
            problem = "repeats" if key == previous else "comes before"
            raise CompileInputError(
                f"entry {number} ({alphabet.engine_text(key)}) {problem} the entry before it "
                f"({alphabet.engine_text(previous)}): keys must be sorted and unique"
            )
        previous = key


def _parse(buffer, source: str) -> tuple[Header, int]:
    """Check a file's prefix, checksum and header; return the header and where the trie starts."""
    size = len(buffer)
    if size < 8 or bytes(buffer[:8]) != MAGIC:
        raise LexiconFileError(source, "not a compiled lexicon file (no Lexicon Judge magic)")
    if size < _PREFIX.size:
        raise LexiconFileError(source, "truncated inside its prefix")
    _, version, reserved, length, digest = _PREFIX.unpack(bytes(buffer[: _PREFIX.size]))
    if version != FORMAT:
        raise LexiconFileError(source, f"format version {version}; this program reads version {FORMAT}: recompile it")
    if reserved != 0:
        raise LexiconFileError(source, f"reserved bytes 10-11 are {reserved:#06x}, not 0: the file is corrupt")
    if hashlib.sha256(memoryview(buffer)[_PREFIX.size :]).digest() != digest:
        raise LexiconFileError(source, "checksum mismatch: the file is truncated or corrupt")
    end = _PREFIX.size + length
    if end > size:
        raise LexiconFileError(source, "truncated inside its header")
    raw = bytes(buffer[_PREFIX.size : end])
    try:
        data = json.loads(raw.decode("utf-8"))
        header = Header(**data)
    except (ValueError, TypeError, KeyError) as error:
        raise LexiconFileError(source, f"corrupt header ({error})") from None
    problem = _header_problem(header, version)
    if problem:
        raise LexiconFileError(source, f"header: {problem}")
    if _canonical(header) != raw:
        raise LexiconFileError(
            source, "header is not in canonical JSON (sorted keys, no spaces): edited after its build"
        )
    header = replace(header, tiles=tuple(header.tiles))
    start = end + (-end % _ALIGN)
    if size != start + header.trie_bytes:
        raise LexiconFileError(source, f"{size} bytes where the header promises {start + header.trie_bytes}: truncated")
    return header, start


def _canonical(header: Header) -> bytes:
    """The header's bytes as a build writes them (compile_lexicon) and a load demands them (_parse):
    sorted keys, no spaces, UTF-8."""
    return json.dumps(header.as_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _header_problem(header: Header, version: int) -> str | None:
    """What in a header (its checksum right) no build writes, quoted; None if nothing.

    The checksum proves only that the bytes are whole: a header edited and its checksum
    recomputed passes it. Checked here as `LexiconMeta` checks a build's input, so a served
    lexicon never carries an id, a name or a version `lexicon build` refuses, and no reader meets
    a number where it reads text.
    """
    if header.format != version:
        return f"format {header.format!r}, but the file's prefix says format {version}"
    text = ("id", "name", "version", "language", "source", "licence", "tool")
    for key in text + (("built_at",) if header.built_at is not None else ()):
        if not isinstance(getattr(header, key), str):
            return f"{key} is {getattr(header, key)!r}, not text"
    try:
        check_id(header.id)
        check_label("name", header.name, 200)
        check_label("version", header.version)
        check_note("source", header.source)
        check_note("licence", header.licence)
    except MetaError as error:
        return str(error)
    if not isinstance(header.build, dict):
        return f"build is {header.build!r}, not an object"
    if not isinstance(header.tiles, list) or not all(isinstance(tile, str) for tile in header.tiles):
        return f"tiles is {header.tiles!r}, not a list of tiles"
    for key in ("words", "trie_bytes"):
        value = getattr(header, key)
        if type(value) is not int or value < 0:
            return f"{key} is {value!r}, not a whole number"
    if not isinstance(header.words_sha256, str) or not re.fullmatch(r"[0-9a-f]{64}", header.words_sha256):
        return f"words_sha256 is {header.words_sha256!r}, not a SHA-256 in hex"
    return None


def read_header(path: str | os.PathLike) -> Header:
    """The header of a compiled file, checked but without loading its trie."""
    return _parse(_read(path), os.fspath(path))[0]  # verified: a header alone proves nothing


def _read(path: str | os.PathLike) -> bytes:
    """The whole file, as bytes held in memory (never a map of a file someone may overwrite)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except IsADirectoryError:  # a DISC source's directory, say, given where its compiled file goes
        raise NotALexiconFile(os.fspath(path)) from None
    except OSError as error:
        raise LexiconFileError(os.fspath(path), error.strerror or str(error)) from None
    if not data:
        raise LexiconFileError(os.fspath(path), "empty file")
    return data


class Lexicon:
    """A compiled lexicon, checked and ready for lookups.

    `open` reads the file into memory, verifies those bytes, and the trie answers from them
    (marisa maps the bytes object without copying it): what was verified is what answers, whatever
    happens to the file afterwards. Loaded in gunicorn's master before the workers fork, the
    bytes are shared copy-on-write by every worker (`make bench` measures their private memory).
    """

    def __init__(self, buffer, source: str):
        header, start = _parse(buffer, source)
        payload = memoryview(buffer)[start:]
        try:
            self.alphabet = load_alphabet(header.language)
        except ValueError:
            raise LexiconFileError(source, f"unknown language {header.language!r}") from None
        if tuple(self.alphabet.tiles) != header.tiles:
            raise LexiconFileError(source, f"compiled with another {self.alphabet.name} tile set: recompile it")
        trie = marisa_trie.Trie()
        try:
            trie.map(payload)
        except Exception as error:  # marisa raises bare RuntimeErrors on bad data
            raise LexiconFileError(source, f"corrupt trie ({error})") from None
        if len(trie) != header.words:
            raise LexiconFileError(source, f"{len(trie)} words where the header says {header.words}")
        self.header = header
        self.source = source
        self.checksum = hashlib.sha256(buffer).hexdigest()
        self._buffer = buffer  # the trie reads from it: keep it as long as we live
        self._trie = trie

    @classmethod
    def open(cls, path: str | os.PathLike) -> Lexicon:
        return cls(_read(path), os.fspath(path))

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<bytes>") -> Lexicon:
        return cls(bytes(data), source)  # immutable: what is verified cannot change under the trie

    def __contains__(self, key: str) -> bool:
        return key in self._trie

    def count_in(self, keys: Iterable[str]) -> int:
        """How many of `keys` are in the lexicon: every one looked up, at C speed (no frame per key)."""
        return sum(map(self._trie.__contains__, keys))

    def __len__(self) -> int:
        return self.header.words

    def keys(self) -> list[str]:
        """Every key, sorted in the alphabet's order."""
        return sorted(self._trie.keys())

    def iter_keys(self) -> Iterator[str]:
        """Every key in the trie's own order, not the alphabet's: for set operations, no sort."""
        return iter(self._trie.keys())

    def dump(self) -> Iterator[str]:
        """The dump text in chunks: every word in engine notation, a line each, sorted."""
        keys = self.keys()
        for start in range(0, len(keys), 65536):
            yield self.alphabet.engine_text("\n".join(keys[start : start + 65536])) + "\n"

    def dump_sha256(self) -> str:
        """The SHA-256 of the dump text, from the trie itself (slower: reads every word)."""
        digest = hashlib.sha256()
        for chunk in self.dump():
            digest.update(chunk.encode("utf-8"))
        return digest.hexdigest()

    def verify_words(self) -> bool:
        """Recompute the content checksum from the trie itself and compare it with the header's."""
        return self.dump_sha256() == self.header.words_sha256

    def info(self) -> dict:
        """The header, with the checksum of the whole file as `sha256sum` prints it."""
        return {**self.header.as_dict(), "file_sha256": self.checksum, "path": self.source}
