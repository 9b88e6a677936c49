"""Reading word lists: one word a line, UTF-8, plain, xz or gzip, from a path or standard input.

Compression is recognised by its magic bytes, not the file name, so `xz -dc | lexicon build -`
and a renamed file both work. The text keeps one line per input line (comments and surrounding
white space are blanked, never removed) so that every report can quote a line number.
"""

from __future__ import annotations

import gzip
import hashlib
import lzma
import re
import sys
from pathlib import Path

from lexicon import browser, lexfile
from lexicon.errors import LexiconError

_XZ = b"\xfd7zXZ\x00"
_GZIP = b"\x1f\x8b"
_COMMENT = re.compile(r"#[^\n]*")
_SURROUNDING_SPACE = re.compile(r"^[^\S\n]+|[^\S\n]+$", re.MULTILINE)
# Every white space character but the line feed (all of them lie below U+3001).
_SPACES = [chr(c) for c in range(0x3001) if chr(c).isspace() and c != 0x0A]


class WordListError(LexiconError):
    """A word list that cannot be read at all (as opposed to lines that are left out)."""


def read_bytes(source: str) -> bytes:
    """The uncompressed bytes of a path, or of standard input for '-'."""
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as error:
        raise WordListError(f"{source}: {error.strerror or error}") from None
    try:
        if data.startswith(_XZ):
            return lzma.decompress(data)
        if data.startswith(_GZIP):
            return gzip.decompress(data)
    except (lzma.LZMAError, OSError, EOFError) as error:
        raise WordListError(f"{source}: broken compressed data ({error})") from None
    return data


def decode(data: bytes, source: str) -> str:
    """UTF-8 text of a word list; a byte that is not UTF-8 is an error naming its line.

    >>> decode(b'CARRO\\nCAMI\\xd3N\\n', 'list.txt')
    Traceback (most recent call last):
    ...
    build_tools.wordlist.WordListError: list.txt: line 2 is not UTF-8 (byte 0xD3 at column 5); word lists are UTF-8
    """
    for magic, what in ((lexfile.MAGIC, "a compiled lexicon file"), (browser.MAGIC, "a browser lexicon file")):
        if data.startswith(magic):  # given where its list goes: say what it is, not where it is no UTF-8
            raise WordListError(f"{source}: {what}, not a word list")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WordListError(f"{source}: {where_not_utf8(data, error)}; word lists are UTF-8") from None
    return text.removeprefix("\ufeff")


def where_not_utf8(data: bytes, error: UnicodeDecodeError) -> str:
    """Where ``data`` stops being UTF-8, as a person finds it in an editor: line, byte, column.

    >>> data = b'gat\\ncaf\\xe9\\n'
    >>> try:
    ...     data.decode('utf-8')
    ... except UnicodeDecodeError as error:
    ...     where_not_utf8(data, error)
    'line 2 is not UTF-8 (byte 0xE9 at column 4)'
    """
    if error.start == 0 and data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # Notepad's "Unicode"
        return f"line 1 is not UTF-8 (bytes {data[:2].hex(' ').upper()} at column 1, the mark of a UTF-16 file: save it as UTF-8)"
    line_start = data.rfind(b"\n", 0, error.start) + 1
    line = data.count(b"\n", 0, error.start) + 1
    column = error.start - line_start + 1
    return f"line {line} is not UTF-8 (byte 0x{data[error.start]:02X} at column {column})"


def clean(text: str) -> str:
    """Blank out comments and the white space around words, keeping every line in its place.

    >>> clean('# Spanish\\ncarro  # a cart\\r\\n\\n  chico\\n')
    '\\ncarro\\n\\nchico\\n'
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "#" in text:
        text = _COMMENT.sub("", text)
    if any(space in text for space in _SPACES):  # `in` is a fast scan; the regex is not
        text = _SURROUNDING_SPACE.sub("", text)
    return text


def comment_lines(text: str) -> int:
    """The lines that hold only a comment (`clean` blanks them, as it blanks blank lines): the
    build report counts them apart.

    >>> comment_lines('# Spanish\\ncarro  # a cart\\n  # more\\n\\n')
    2
    """
    if "#" not in text:
        return 0
    return sum(1 for line in text.splitlines() if line.lstrip().startswith("#"))


def read_word_list(source: str) -> tuple[str, str, int]:
    """A word list's cleaned text, line for line (see `clean`), the SHA-256 of its bytes, and
    how many of its lines are comments alone.

    The checksum is of the uncompressed bytes, so `xz -dc LIST.xz | sha256sum` gives it too.
    """
    data = read_bytes(source)
    text = decode(data, source)
    return clean(text), hashlib.sha256(data).hexdigest(), comment_lines(text)
