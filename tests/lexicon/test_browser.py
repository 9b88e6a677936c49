"""The browser lexicon format (lexicon/dawg.py, lexicon/browser.py): round trip, minimality
against an independent reference (a naive trie whose states are merged by their right
language), refusals of damaged files, reproducibility."""

from __future__ import annotations

import hashlib
import json
import re
import struct
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexicon import dawg
from lexicon.alphabet import load_alphabet
from lexicon.browser import BrowserLexicon, browser_bytes, compile_browser, verify
from lexicon.errors import LexiconFileError
from lexicon.lexfile import Lexicon, LexiconMeta, compile_lexicon
from lexicon.tokenizer import tokenizer

key_sets = st.sets(st.lists(st.integers(1, 4), min_size=1, max_size=6).map(tuple), max_size=60)


def reference_state_count(words) -> int:
    """States of the minimal automaton, the slow way: a full trie, then every node named by what
    can follow it (its right language, with "a word ends here" on the edge), counted once each."""
    trie: dict = {}
    for word in words:
        node = trie
        for tile in word:
            node = node.setdefault(tile, [False, {}])[1]
    for word in words:
        node, edge = trie, None
        for tile in word:
            edge = node[tile]
            node = edge[1]
        edge[0] = True
    names: set = set()

    def name(node: dict):
        signature = tuple(sorted((tile, end, name(child)) for tile, (end, child) in node.items()))
        names.add(signature)
        return signature

    name(trie)
    return len(names)


@given(key_sets)
def test_round_trip_and_minimality(words):
    keys = sorted(words)
    states, root = dawg.minimal_states(keys)
    edges = dawg.layout(states, root)
    assert list(dawg.words(edges)) == keys
    assert dawg.unpack(*dawg.pack(edges)) == edges
    assert dawg.check(edges, 4) == len(keys)
    assert len(states) == reference_state_count(keys)
    for key in keys:
        assert dawg.contains(edges, key)
        assert not dawg.contains(edges, key + (5,))
    assert not dawg.contains(edges, ())


@given(key_sets, st.lists(st.integers(1, 4), max_size=7).map(tuple))
def test_lookup_agrees_with_a_set(words, probe):
    edges = dawg.build(sorted(words))
    assert dawg.contains(edges, probe) == (probe in words)


def test_unsorted_or_repeated_keys_are_refused():
    with pytest.raises(dawg.DawgError, match="sorted and unique"):
        dawg.build([(1, 2), (1, 2)])
    with pytest.raises(dawg.DawgError, match="sorted and unique"):
        dawg.build([(2, 1), (1, 2, 3), (1, 2)])


WORDS = ["CARRO", "CHICO", "CHICOS", "LLAVE", "LLAVES", "CALLE", "CALLES", "CASA", "CASAS", "ÑANDÚ"]


@pytest.fixture(scope="module")
def mini() -> Lexicon:
    keys = sorted(tokenizer("es").key(w) for w in WORDS)
    return Lexicon.from_bytes(compile_lexicon(keys, LexiconMeta("mini", "es", "Mini", "1"), load_alphabet("es")))


def test_file_round_trip_and_header(mini):
    data = browser_bytes(mini)
    assert data == browser_bytes(mini)  # reproducible
    opened = BrowserLexicon(data)
    header = opened.header
    assert (header.id, header.language, header.words, header.tiles) == ("mini", "es", 10, load_alphabet("es").tiles)
    assert header.words_sha256 == mini.header.words_sha256
    assert header.lexicon_sha256 == mini.checksum
    assert data[-32:] == hashlib.sha256(data[:-32]).digest()
    assert all(key in opened for key in mini.keys())
    for word in ["CARO", "CASAS" + "S", "C", "CHIC", "LLAV"]:
        assert (tokenizer("es").key(word) in opened) is False
    assert "no code" not in opened


def resigned(body: bytes) -> bytes:
    return body + hashlib.sha256(body).digest()


def parts(data: bytes) -> tuple[dict, bytes, bytes]:
    length, count, _ = struct.unpack_from("<III", data, 12)
    rest = data[24 + length : -32]
    return json.loads(data[24 : 24 + length]), rest[:count], rest[count:]


def forged(header: dict, tiles: bytes, targets: bytes) -> bytes:
    """A file written by someone else's writer: checksum right, content as given."""
    encoded = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    prefix = b"LXJDAWG\x1a" + struct.pack("<HHIII", 1, 0, len(encoded), len(tiles), len(targets))
    return resigned(prefix + encoded + tiles + targets)


def with_header(data: bytes, change) -> bytes:
    header, tiles, targets = parts(data)
    change(header)
    return forged(header, tiles, targets)


def test_damaged_files_are_refused(mini):
    data = browser_bytes(mini)
    for at in (9, 14, 30, len(data) - 40, len(data) - 1):
        damaged = data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]
        with pytest.raises(LexiconFileError, match=r"checksum mismatch|format version"):
            BrowserLexicon(damaged)
    for size in (0, 5, 30, len(data) // 2, len(data) - 1):
        with pytest.raises(LexiconFileError, match=r"no Lexicon Judge DAWG magic|truncated|checksum mismatch"):
            BrowserLexicon(data[:size])
    with pytest.raises(LexiconFileError, match="no Lexicon Judge DAWG magic"):
        BrowserLexicon(b"LXJUDGE\x1a" + data[8:])
    with pytest.raises(LexiconFileError, match="format version 2"):
        BrowserLexicon(resigned(data[:8] + b"\x02" + data[9:-32]))


def test_forged_files_with_a_right_checksum_are_refused(mini):
    data = browser_bytes(mini)
    with pytest.raises(LexiconFileError, match="another Spanish tile set"):
        BrowserLexicon(with_header(data, lambda h: h["tiles"].reverse()))
    with pytest.raises(LexiconFileError, match=r"9 words where the header says 10|10 words where the header says 9"):
        BrowserLexicon(with_header(data, lambda h: h.update(words=9)))
    edges = BrowserLexicon(data).header.edges
    with pytest.raises(LexiconFileError, match=f"{edges} packed edges where the header says {edges + 7}"):
        BrowserLexicon(with_header(data, lambda h: h.update(edges=edges + 7)))
    with pytest.raises(LexiconFileError, match="unknown language"):
        BrowserLexicon(with_header(data, lambda h: h.update(language="xx")))
    with pytest.raises(LexiconFileError, match="corrupt header"):
        BrowserLexicon(with_header(data, lambda h: h.pop("words")))
    # an edge pointing back to the root: a loop, refused before any lookup could run in it
    header, tiles, targets = parts(data)
    edges = dawg.unpack(tiles, targets)
    last = len(edges) - 1
    edges[last] = (edges[last] & ~dawg.TARGET_MASK) | 1
    with pytest.raises(LexiconFileError, match=r"corrupt automaton .*loop"):
        BrowserLexicon(forged(header, *dawg.pack(edges)))
    # targets cut short, or left over
    with pytest.raises(LexiconFileError, match=r"corrupt automaton .*cut short"):
        BrowserLexicon(forged(header, tiles, targets[:-1]))
    with pytest.raises(LexiconFileError, match=r"corrupt automaton .*left over"):
        BrowserLexicon(forged(header, tiles, targets + b"\0"))


def test_pack_round_trip_of_any_layout():
    """`pack` takes any valid edge array, not only the breadth-first one `layout` makes."""
    states, root = dawg.minimal_states(sorted(tuple(w) for w in [(1, 2), (1, 2, 3), (2, 2, 3), (3, 1)]))
    edges = dawg.layout(states, root)
    assert dawg.unpack(*dawg.pack(edges)) == edges
    assert dawg.check(edges, 3) == 4


def test_compile_is_pure_over_its_inputs():
    alphabet = load_alphabet("ca")
    keys = sorted(tokenizer("ca").key(w) for w in ["COL·LEGI", "QUADRE", "CAVALL", "ANYS"])
    one = compile_browser(keys, alphabet, id="x", name="X", version="1", words_sha256="a", lexicon_sha256="b")
    two = compile_browser(list(keys), alphabet, id="x", name="X", version="1", words_sha256="a", lexicon_sha256="b")
    assert one == two
    assert one != compile_browser(
        keys[:-1], alphabet, id="x", name="X", version="1", words_sha256="a", lexicon_sha256="b"
    )


def _leb128(code: int) -> bytes:
    out = bytearray()
    while code >= 0x80:
        out.append((code & 0x7F) | 0x80)
        code >>= 7
    return bytes(out + bytes([code]))


def test_a_state_number_too_large_for_its_field_is_refused_not_read_as_flags():
    """A checksummed file whose state number has the ACCEPT bit set: A-B would become a word
    though its tile byte says it is not one (lexicon.js refuses it too)."""
    keys = [tokenizer("es").key("ABC")]
    data = compile_browser(
        keys, load_alphabet("es"), id="m", name="M", version="1", words_sha256="x", lexicon_sha256="y"
    )
    header, tiles, targets = parts(data)
    assert list(tiles) == [1 | 64, 2 | 64, 3 | 32 | 64] and targets == b"\x01\x01\x00"  # A, B, C: one path
    crafted = _leb128(1) + _leb128(dawg.ACCEPT + 2 + 2) + _leb128(0)  # edge 2: state 2, plus the ACCEPT bit
    with pytest.raises(dawg.DawgError, match="edge 2: no state"):
        dawg.unpack(tiles, crafted)
    with pytest.raises(LexiconFileError, match="edge 2: no state"):
        BrowserLexicon(forged({**header, "words": 2}, tiles, crafted))


@pytest.mark.slow  # the real Spanish default, built first if it is not
def test_the_header_docs_show_is_the_spanish_default_s_as_built():
    """docs/browser-lexicon.md's example header (the Spanish default's) names every key, in the
    canonical order, with the values the built file has (`…`: the rest of a value)."""
    from build_tools.manifest import load_manifest
    from tests.support import LEXICON_SCRIPT, REPO
    from tests.test_docs import matches

    doc = (REPO / "docs" / "browser-lexicon.md").read_text(encoding="utf-8")
    (shown,) = re.findall(r"### Header\n\n```json\n(.*?)```", doc, re.S)
    shown = "".join(line.strip() for line in shown.splitlines())
    entry = load_manifest().find("es")
    path = entry.output.with_suffix(".dawg")
    if not path.is_file():
        subprocess.run([str(LEXICON_SCRIPT), "info", "es"], check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    data = path.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    header = data[24 : 24 + length].decode("utf-8")
    assert json.loads(header)["id"] == entry.id and verify(data, str(path)).id == entry.id  # the file checked
    assert matches(shown, header), f"the doc shows\n{shown}\nthe file holds\n{header}"
