"""The WebAssembly inside lexicon.js: service/static/dawg.wat, assembled by wabt's wat2wasm.

lexicon.js carries the module as one base64 line (`const WASM = "...";`, in its part
static/lexicon/wasm.js), so the page, the single-file export and Node load it with the script
and no other file or request. This writes
that line from the text source: `python -m asset_tools.wasm` after changing dawg.wat, and a test
(tests/asset_tools/test_wasm.py) checks that the committed line is what wat2wasm makes of it.
wat2wasm is Debian's `wabt` (`make test` installs it); its output has no names or timestamps,
so the same source gives the same bytes.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "service" / "static"
SOURCE = STATIC / "dawg.wat"
SCRIPT = STATIC / "lexicon" / "wasm.js"  # lexicon.js's part that carries it (service.static_files: PARTS)
LINE = re.compile(r'^const WASM = "([A-Za-z0-9+/=]*)";$', re.MULTILINE)


class AssemblyError(RuntimeError):
    """wat2wasm is missing or refused the source; the message says which and quotes it."""


def assemble(source: Path = SOURCE) -> bytes:
    """The module's bytes: wat2wasm's output for `source`."""
    tool = shutil.which("wat2wasm")
    if tool is None:
        raise AssemblyError("wat2wasm not found: install Debian's wabt (`apt-get install wabt`)")
    with tempfile.TemporaryDirectory() as directory:
        output = Path(directory) / "dawg.wasm"
        done = subprocess.run([tool, str(source), "-o", str(output)], capture_output=True, text=True)
        if done.returncode:
            raise AssemblyError(f"wat2wasm refused {source}: {done.stderr.strip()}")
        return output.read_bytes()


def embedded(script: str) -> bytes:
    """The module lexicon.js carries (its WASM line, decoded)."""
    found = LINE.findall(script)
    if len(found) != 1:
        raise AssemblyError(f"{SCRIPT.name} has {len(found)} WASM lines where it needs one")
    return base64.b64decode(found[0])


def embed(script: str, module: bytes) -> str:
    """`script` with its WASM line carrying `module`."""
    embedded(script)  # exactly one line to replace
    encoded = base64.b64encode(module).decode("ascii")
    return LINE.sub(lambda _: f'const WASM = "{encoded}";', script)


def main() -> int:
    try:
        module = assemble()
    except AssemblyError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    script = SCRIPT.read_text(encoding="utf-8")
    updated = embed(script, module)
    if updated != script:
        SCRIPT.write_text(updated, encoding="utf-8")
    print(
        f"{SCRIPT.relative_to(SCRIPT.parents[3])}: {len(module)} bytes of WebAssembly"
        f"{'' if updated != script else ' (unchanged)'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
