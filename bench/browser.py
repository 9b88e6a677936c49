"""The browser lexicon: sizes on the wire, build time, and lexicon.js in Node.

For each default lexicon: states and edges of the minimal automaton, the file's size raw, gzip
(level 9) and brotli (quality 11), the Python build and verify times, and in Node (v20) the time
from bytes to ready (checksum by crypto.subtle, and by the page's own SHA-256 as on plain HTTP;
header, structure and word count checked), a lookup's cost over every word and as many
mutated non-words, and a 3-word joint verdict with tiles.js's reading. The targets
for a phone (50 ms to ready, 50 µs a verdict) are for Chromium throttled 4x: `bench chromium`
(bench/chromium.py) measures those, with the same plays and the same scripts, in the browser.
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import brotli

from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS
from lexicon.browser import BrowserLexicon, browser_bytes, tile_numbers
from lexicon.lexfile import Lexicon

from .table import Table, median_seconds

NODE_SCRIPT = Path(__file__).with_name("browser_node.js")
PLAYS = {"es": ["CARRO", "CHICO", "LLAVE"], "ca": ["COL·LEGI", "QUADRE", "ANYS"]}
LIMIT_KB = 270


def defaults() -> list[Lexicon]:
    from build_tools.manifest import load_manifest

    lexicons = []
    for entry in load_manifest().entries:
        if entry.default:
            if not entry.output.is_file():
                subprocess.run(
                    [shutil.which("lexicon") or "lexicon", "info", entry.language],
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
            lexicons.append(Lexicon.open(entry.output))
    return lexicons


def page_data(language: str) -> dict:
    """What the judge's page gives tiles.js's Reader for a language: alphabet, Unicode facts, limits."""
    from service.tiles_data import alphabet_data, unicode_facts

    return {
        "alphabet": alphabet_data(language),
        "unicode": unicode_facts(),
        "limits": {"minTiles": MIN_TILES, "maxTiles": MAX_TILES, "minWords": MIN_WORDS, "maxWords": MAX_WORDS},
    }


def packed_keys(lexicon: Lexicon, keys: list[str]) -> bytes:
    """Keys as the Node harnesses (bench/browser_node.js, the tests' lexicon_node.js) read them:
    each its length in one byte, then its tiles as the browser file numbers them."""
    table = tile_numbers(lexicon.alphabet)
    packed = bytearray()
    for key in keys:
        packed.append(len(key))
        packed += key.encode("latin-1").translate(table)
    return bytes(packed)


def _node(lexicon: Lexicon, data: bytes, folder: Path) -> dict:
    from service.static_files import source

    keys = lexicon.keys()
    rng = random.Random(1)
    codes = sorted(set("".join(keys[:5000])))
    queries = list(keys)
    for key in rng.sample(keys, len(keys)):  # one substituted tile: mostly non-words
        at = rng.randrange(len(key))
        queries.append(key[:at] + rng.choice(codes) + key[at + 1 :])
    (folder / "file.dawg").write_bytes(data)
    (folder / "keys").write_bytes(packed_keys(lexicon, queries))
    language = lexicon.header.language
    (folder / "alphabet.json").write_text(
        json.dumps({**page_data(language), "play": PLAYS[language]}), encoding="utf-8"
    )
    done = subprocess.run(
        ["node", str(NODE_SCRIPT), str(folder / "file.dawg"), str(folder / "keys"), str(folder / "alphabet.json")],
        input=source("lexicon.js").decode("utf-8"),  # browser_node.js reads it on standard input
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def run(lexicons: list[Lexicon] | None = None) -> list[Table]:
    """A table for each lexicon (default: the default ones); tests/bench/test_browser.py gives small ones."""
    tables = []
    for lexicon in defaults() if lexicons is None else lexicons:
        header = lexicon.header
        table = Table(f"Browser lexicon: {header.id} ({header.words:,} words)")
        cpu = time.process_time()
        data = browser_bytes(lexicon)
        cpu = time.process_time() - cpu
        build = median_seconds(lambda lexicon=lexicon: browser_bytes(lexicon), repeat=3)
        opened = BrowserLexicon(data)
        squeezed_gzip = gzip.compress(data, compresslevel=9, mtime=0)
        squeezed_br = brotli.compress(data, quality=11)
        table.add("states, edges", f"{opened.header.states:,}, {opened.header.edges:,}")
        table.add("file (packed edges), raw", f"{len(data) / 1000:,.1f} KB")
        table.add(
            "file, gzip -9 (what plain HTTP carries)",
            f"{len(squeezed_gzip) / 1000:,.1f} KB",
            f"≤ {LIMIT_KB} KB (stretch 200)",
            len(squeezed_gzip) <= LIMIT_KB * 1000,
        )
        table.add(
            "file, brotli 11 (HTTPS only)",
            f"{len(squeezed_br) / 1000:,.1f} KB",
            f"≤ {LIMIT_KB} KB (stretch 200)",
            len(squeezed_br) <= LIMIT_KB * 1000,
        )
        flat = opened.edges.tobytes()  # the alternative: the 32-bit edges themselves on the wire
        table.add(
            "for comparison, 32-bit edges: raw, gzip -9, brotli 11",
            f"{len(flat) / 1000:,.1f}, {len(gzip.compress(flat, 9, mtime=0)) / 1000:,.1f}, "
            f"{len(brotli.compress(flat, quality=11)) / 1000:,.1f} KB",
        )
        table.add(
            "build from the loaded .lex (Python): wall median of 3, CPU",
            f"{build:.2f} s, {cpu:.2f} s",
            "a few s of CPU",
            cpu < 5,
        )
        table.add(
            "read and verify (Python)", f"{median_seconds(lambda data=data: BrowserLexicon(data), 3) * 1000:.0f} ms"
        )
        with tempfile.TemporaryDirectory() as folder:
            node = _node(lexicon, data, Path(folder))
        table.add("Node: bytes to ready (checksum, expand, check), crypto.subtle", f"{node['ready_ms']:.1f} ms")
        table.add("Node: bytes to ready, pure-JS SHA-256 (plain HTTP)", f"{node['ready_pure_ms']:.1f} ms")
        table.add("Node: lookup of a key (words and as many non-words)", f"{node['lookup_ns']:.0f} ns")
        table.add(
            f"Node: 3-word verdict with tiles.js ({' '.join(PLAYS[header.language])})",
            f"{node['verdict_us']:.1f} µs",
            "",
            node["valid"] and node["found"] >= header.words,
        )
        tables.append(table)
    return tables
