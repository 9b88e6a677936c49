"""The browser lexicon's JavaScript reader (service/static/lexicon.js) agrees with Python.

Run in Node (v20: crypto.subtle as in a secure page; the pure SHA-256 as on a plain-HTTP venue
network). For each default lexicon: every word, and more than 100,000 non-words made by mutating
real words (a tile substituted, inserted or deleted; a digraph split into its letters, C+H for
CH, L+L for L·L), each looked up by the JavaScript automaton and by the `.lex` file's marisa
trie; then plays judged jointly by lexicon.js with tiles.js's reader and by lexicon.verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import subprocess

import pytest

from bench.browser import packed_keys
from build_tools.manifest import load_manifest
from lexicon.alphabet import TILE_CODES, load_alphabet
from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS
from lexicon.browser import browser_bytes, compile_browser
from lexicon.errors import EmptyWordError, InputError, PlaySizeError, TileError, WordLengthError
from lexicon.lexfile import Lexicon
from lexicon.verdict import judge
from service.static_files import source
from service.tiles_data import alphabet_data, unicode_facts
from tests.support import LEXICON_SCRIPT, REPO

pytestmark = pytest.mark.node  # lexicon.js runs in Node.js beside Python

HARNESS = REPO / "tests" / "page" / "lexicon_node.js"
NON_WORDS = 110_000  # per language: more than 200,000 in all
PLAYS = 3_000  # per language
BAD_WORDS = ["KIWI", "A", "", "CASA!", "O" * 16, "W"]
KINDS = {EmptyWordError: "empty", TileError: "tile", WordLengthError: "length", PlaySizeError: "words"}


def node() -> str:
    found = shutil.which("node")
    assert found, "Node.js (v20 or later) is needed for the browser lexicon's tests"
    return found


def run_node(*args: str) -> str:
    script = source("lexicon.js").decode("utf-8")  # the harness reads it on standard input
    done = subprocess.run([node(), str(HARNESS), *args], input=script, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module", params=["es", "ca"])
def default(request, tmp_path_factory):
    """(Lexicon, path of its browser file) for one default lexicon, built if it is not yet."""
    entry = load_manifest().find(request.param)
    assert entry is not None
    if not entry.output.is_file():  # `lexicon info LANG` builds that default on first use
        subprocess.run(
            [str(LEXICON_SCRIPT), "info", request.param],
            check=True,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            env={**os.environ},
        )
    lexicon = Lexicon.open(entry.output)
    path = tmp_path_factory.mktemp("browser") / f"{entry.id}.dawg"
    path.write_bytes(browser_bytes(lexicon))
    return lexicon, path


def mutations(lexicon: Lexicon, keys: list[str], count: int, rng: random.Random) -> set[str]:
    """At least `count` keys that are not words, each one edit away from a real word."""
    alphabet = lexicon.alphabet
    codes = TILE_CODES[: len(alphabet.tiles)]
    letters = {t: [c for c in t if c in alphabet.code_of] for t in alphabet.tiles if len(t) > 1}
    splits = {
        alphabet.code_of[t]: "".join(alphabet.code_of[c] for c in cs)  # CH: C+H, L·L: L+L
        for t, cs in letters.items()
        if len(cs) > 1
    }
    assert splits, "no digraph of this language splits into tiles"
    found: set[str] = set()
    while len(found) < count:
        key = rng.choice(keys)
        at = rng.randrange(len(key))
        kind = rng.randrange(4)
        if kind == 0:
            key = key[:at] + rng.choice(codes) + key[at + 1 :]
        elif kind == 1:
            key = key[:at] + rng.choice(codes) + key[at:]
        elif kind == 2:
            key = key[:at] + key[at + 1 :]
        else:
            where = [i for i, c in enumerate(key) if c in splits]
            if not where:
                continue
            at = rng.choice(where)
            key = key[:at] + splits[key[at]] + key[at + 1 :]
        if key and key not in lexicon:
            found.add(key)
    return found


def test_lookup_parity_every_word_and_mutations(default, tmp_path):
    lexicon, path = default
    keys = lexicon.keys()
    non_words = sorted(mutations(lexicon, keys, NON_WORDS, random.Random(11)))
    assert any(len(k) > MAX_TILES for k in non_words) and any(len(k) < MIN_TILES for k in non_words)
    queries = keys + non_words
    (tmp_path / "keys").write_bytes(packed_keys(lexicon, queries))
    run_node("lookup", str(path), str(tmp_path / "keys"), str(tmp_path / "out"))
    answers = (tmp_path / "out").read_bytes()
    assert len(answers) == len(queries)
    expected = bytes(1 if key in lexicon else 0 for key in queries)
    wrong = [lexicon.alphabet.engine_text(q) for q, a, e in zip(queries, answers, expected, strict=True) if a != e]
    assert not wrong, f"{len(wrong)} disagreements, e.g. {wrong[:10]}"
    assert sum(answers) == len(keys) == lexicon.header.words


def spell(lexicon: Lexicon, key: str) -> str:
    """A key written as its tiles' labels: spelling notation reads most back to the same key."""
    return "".join(lexicon.alphabet.tiles_of(key))


def test_joint_verdict_parity(default, tmp_path):
    lexicon, path = default
    rng = random.Random(7)
    keys = lexicon.keys()
    fakes = sorted(mutations(lexicon, keys, 2_000, rng))
    plays = []
    for _ in range(PLAYS):
        size = rng.randint(MIN_WORDS, 4)
        words = [spell(lexicon, rng.choice(keys)) for _ in range(size)]
        if rng.random() < 0.5:
            words[rng.randrange(size)] = spell(lexicon, rng.choice(fakes))
        for _ in range(2 if rng.random() < 0.05 else 0):  # none, or two bad words (maybe the same)
            words[rng.randrange(size)] = rng.choice(BAD_WORDS)
        if rng.random() < 0.05:
            words[rng.randrange(size)] = rng.choice(BAD_WORDS)
        plays.append(words)
    plays += [["CASA"] * (MAX_WORDS + 1), []]
    # Two or more bad words: the error names the word Python names (empty, then tile, then length).
    plays += [
        ["A", "KIWI"],
        ["KIWI", "A"],
        ["O" * 16, "", "KIWI"],
        ["A", "O" * 16, "CASA!", "CASA"],
        ["CASA", "A", "W", "", "KIWI"],
        ["O" * 16, "A"],
        ["KIWI", "CASA!"],
        ["  ", "A", "KIWI", " "],
    ]
    language = lexicon.header.language
    data = {
        "alphabet": alphabet_data(language),
        "unicode": unicode_facts(),
        "plays": plays,
        "limits": {"minTiles": MIN_TILES, "maxTiles": MAX_TILES, "minWords": MIN_WORDS, "maxWords": MAX_WORDS},
    }
    (tmp_path / "plays.json").write_text(json.dumps(data), encoding="utf-8")
    run_node("judge", str(path), str(tmp_path / "plays.json"), str(tmp_path / "out.json"))
    verdicts = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    outcomes = {"valid": 0, "not valid": 0, "error": 0}
    for words, js in zip(plays, verdicts, strict=True):
        try:
            expected = {"valid": judge(lexicon, words)}
        except InputError as error:
            assert "error" in js, (words, js)
            assert js["error"].get("index") == error.index, (words, js, str(error))
            assert js["error"].get("kind") == KINDS[type(error)], (words, js, str(error))
            outcomes["error"] += 1
            continue
        assert js == expected, words
        outcomes["valid" if expected["valid"] else "not valid"] += 1
    assert min(outcomes.values()) > 50, outcomes  # all three outcomes well represented


def test_checksum_refusal_and_fallback_hash(default, tmp_path):
    """A corrupted or truncated download is refused, with crypto.subtle and with the pure SHA-256."""
    lexicon, path = default
    data = path.read_bytes()
    for pure in ("subtle", "pure"):
        for engine in ("wasm", "js"):  # the WebAssembly fast path, and without it
            loaded = json.loads(run_node("load", str(path), pure, engine))
            assert loaded == {
                "words": lexicon.header.words,
                "checksum": hashlib.sha256(data[:-32]).hexdigest(),
                "engine": engine,
            }
    for name, bad in {
        "flipped": data[:5000] + bytes([data[5000] ^ 4]) + data[5001:],
        "truncated": data[: len(data) // 2],
        "stale": data[:-1] + bytes([data[-1] ^ 1]),
    }.items():
        (tmp_path / name).write_bytes(bad)
        for pure in ("subtle", "pure"):
            said = json.loads(run_node("load", str(tmp_path / name), pure))
            assert said == {
                "error": "LexiconFileError: browser lexicon: checksum mismatch: the file is truncated or corrupt"
            }


def test_forged_files_with_a_right_checksum_are_refused(tmp_path):
    """A file whose checksum is right but whose automaton loops, miscounts, or is not the size its
    header says is refused too, with and without the WebAssembly."""
    from lexicon import dawg
    from lexicon.alphabet import load_alphabet
    from lexicon.browser import compile_browser
    from lexicon.tokenizer import tokenizer
    from tests.lexicon.test_browser import forged, parts

    keys = sorted(tokenizer("es").key(w) for w in ["CARRO", "CHICO", "CHICOS", "CASA", "CASAS"])
    data = compile_browser(
        keys, load_alphabet("es"), id="m", name="M", version="1", words_sha256="x", lexicon_sha256="y"
    )
    (tmp_path / "good.dawg").write_bytes(data)
    assert json.loads(run_node("load", str(tmp_path / "good.dawg"))) == {
        "words": 5,
        "checksum": hashlib.sha256(data[:-32]).hexdigest(),
        "engine": "wasm",
    }
    header, tiles, targets = parts(data)
    edges = dawg.unpack(tiles, targets)
    edges[-1] = (edges[-1] & ~dawg.TARGET_MASK) | 1  # the last edge leads back to the root
    cases = {
        "loop": (forged(header, *dawg.pack(edges)), "a loop"),
        "count": (forged({**header, "words": 6}, tiles, targets), "5 words where the header says 6"),
        "edges": (
            forged({**header, "edges": header["edges"] + 7}, tiles, targets),
            f"{header['edges']} packed edges where the header says {header['edges'] + 7}",
        ),
        "short": (forged(header, tiles, targets[:-1]), "cut short"),
    }
    for name, (bad, message) in cases.items():
        (tmp_path / name).write_bytes(bad)
        for engine in ("wasm", "js"):
            said = json.loads(run_node("load", str(tmp_path / name), "subtle", engine))
            assert message in said.get("error", ""), (name, engine, said)


def damaged(data: bytes, rng: random.Random) -> bytes:
    """`data` with one random fault in its streams or edges, re-signed: its checksum is right."""
    from lexicon import dawg
    from tests.lexicon.test_browser import forged, parts

    header, tiles, targets = parts(data)
    tiles, targets = bytearray(tiles), bytearray(targets)
    kind = rng.randrange(6)
    if kind == 0:
        tiles[rng.randrange(len(tiles))] = rng.randrange(256)
    elif kind == 1:
        targets[rng.randrange(len(targets))] = rng.randrange(256)
    elif kind == 2:
        del targets[rng.randrange(len(targets))]
    elif kind == 3:
        targets.insert(rng.randrange(len(targets) + 1), rng.randrange(256))
    elif kind == 4:  # an edge led elsewhere: often a loop
        edges = dawg.unpack(bytes(tiles), bytes(targets))
        index = rng.randrange(1, len(edges))
        edges[index] = (edges[index] & ~dawg.TARGET_MASK) | (edges[rng.randrange(len(edges))] & dawg.TARGET_MASK)
        tiles, targets = dawg.pack(edges)
    else:
        tiles[rng.randrange(len(tiles))] ^= 1 << rng.randrange(7)
        targets[rng.randrange(len(targets))] ^= 1 << rng.randrange(8)
    return forged(header, bytes(tiles), bytes(targets))


def ladder(states: int, width: int) -> bytes:
    """A forged file of `width` ** `states` words, each `states` tiles long: each state's `width`
    edges lead to the next state."""
    from lexicon import dawg
    from lexicon.alphabet import load_alphabet
    from tests.lexicon.test_browser import forged

    edges = [dawg.LAST | 1]
    for state in range(states):
        target = 0 if state == states - 1 else width * (state + 1) + 1
        accept = dawg.ACCEPT if not target else 0
        edges += [
            ((tile + 1) << dawg.TILE_SHIFT) | accept | (dawg.LAST if tile == width - 1 else 0) | target
            for tile in range(width)
        ]
    header = {
        "edges": len(edges) - 1,
        "format": 1,
        "id": "d",
        "language": "es",
        "lexicon_sha256": "y",
        "name": "D",
        "states": states,
        "tiles": list(load_alphabet("es").tiles),
        "version": "1",
        "words": width**states,
        "words_sha256": "x",
    }
    return forged(header, *dawg.pack(edges))


def where(message: str) -> tuple | None:
    """The place a refusal names: an edge, a word count, or none (targets left over)."""
    found = re.search(r"edge (\d+)|(\d+) words where|(left over)", message)
    return found.groups() if found else None


def test_damaged_automata_are_refused_at_the_edge_python_names(tmp_path):
    """Files with a right checksum and a fault in the automaton: lexicon.js refuses exactly those
    lexicon/browser.py refuses, at the edge Python names (faults of the streams first, then of the
    structure, then a loop), and counts what both accept alike, beyond 32 bits and 64 tiles too."""
    from lexicon.browser import BrowserLexicon
    from lexicon.errors import LexiconFileError
    from lexicon.tokenizer import tokenizer

    es = tokenizer("es")
    lists = [
        ["CARRO", "CHICO", "CHICOS", "CASA", "CASAS"],
        ["A" + "B" * i for i in range(1, 9)],
        ["CASA", "MESA", "PASA", "PESA", "CAMA", "RAMA", "PERRO", "CHORRO", "LLAVE", "CALLES", "MESAS"],
    ]
    rng = random.Random(3)
    files = [ladder(31, 2), ladder(32, 2), ladder(100, 1)]
    for words in lists:
        data = compile_browser(
            sorted({es.key(w) for w in words}),
            load_alphabet("es"),
            id="m",
            name="M",
            version="1",
            words_sha256="x",
            lexicon_sha256="y",
        )
        files += [damaged(data, rng) for _ in range(300)]
    names = []
    for number, data in enumerate(files):
        names.append(str(tmp_path / f"{number}.dawg"))
        (tmp_path / f"{number}.dawg").write_bytes(data)
    (tmp_path / "files.json").write_text(json.dumps(names), encoding="utf-8")
    run_node("each", str(tmp_path / "files.json"), str(tmp_path / "said.json"))
    both = json.loads((tmp_path / "said.json").read_text(encoding="utf-8"))
    for number, each in enumerate(both):  # the WebAssembly fast path and JavaScript: the same edges
        fast = {key: value for key, value in each["fast"].items() if key != "engine"}
        assert fast == {key: value for key, value in each["js"].items() if key != "engine"}, number
        assert ("edges" in fast) == ("words" in fast)
        # the fast path reads every right file but the three ladders (over 2**31 - 1 words, 100 deep)
        assert each["fast"].get("engine") == ("js" if number < 3 else "wasm" if "words" in fast else None)
    said = [{key: value for key, value in each["js"].items() if key != "edges"} for each in both]
    outcomes = {}
    for data, js in zip(files, said, strict=True):
        try:
            expected = {"words": len(BrowserLexicon(data))}
        except LexiconFileError as error:
            expected = {"error": str(error)}
        assert ("error" in js) == ("error" in expected), (js, expected)
        if "words" in expected:
            assert js["words"] == expected["words"]
        else:
            assert where(js["error"]) == where(expected["error"]), (js, expected)
        kind = re.sub(r"\d+", "N", (js.get("error") or "accepted").split("(")[-1])[:30]
        outcomes[kind] = outcomes.get(kind, 0) + 1
    assert said[:3] == [
        {"words": words, "checksum": hashlib.sha256(data[:-32]).hexdigest(), "engine": "js"}
        for words, data in zip([2**31, 2**32, 1], files[:3], strict=True)
    ]
    assert len(outcomes) >= 8, outcomes  # every kind of fault, and files accepted
