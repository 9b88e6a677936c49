"""The WebAssembly inside lexicon.js is what wabt's wat2wasm makes of service/static/dawg.wat."""

from __future__ import annotations

import pytest

from asset_tools import wasm
from asset_tools.wasm import SCRIPT, AssemblyError, assemble, embed, embedded, main

pytestmark = pytest.mark.wabt  # wabt's wat2wasm assembles service/static/dawg.wat


def test_the_committed_module_is_the_assembled_source():
    module = assemble()
    assert module[:4] == b"\0asm"
    assert embedded(SCRIPT.read_text(encoding="utf-8")) == module, "run python -m asset_tools.wasm"


def test_embedding_replaces_the_one_line_and_nothing_else():
    script = 'a();\nconst WASM = "AAAA";\nb();\n'
    assert embed(script, b"\0asm\1\0\0\0") == 'a();\nconst WASM = "AGFzbQEAAAA=";\nb();\n'
    with pytest.raises(AssemblyError, match="0 WASM lines"):
        embed("a();\n", b"\0asm")
    with pytest.raises(AssemblyError, match="2 WASM lines"):
        embedded(script + script)


def test_a_source_wat2wasm_refuses_is_quoted(tmp_path):
    source = tmp_path / "bad.wat"
    source.write_text("(module (func (result i32) (i32.nope)))\n", encoding="utf-8")
    with pytest.raises(AssemblyError, match=r"wat2wasm refused .*bad\.wat: .*i32\.nope"):
        assemble(source)


def test_the_command_rewrites_a_stale_line_and_leaves_a_current_one(tmp_path, monkeypatch, capsys):
    copy = tmp_path / "service" / "static" / "lexicon" / "wasm.js"  # never the checkout's own file
    copy.parent.mkdir(parents=True)
    copy.write_text(embed(SCRIPT.read_text(encoding="utf-8"), b"\0asm\1\0\0\0"), encoding="utf-8")
    monkeypatch.setattr(wasm, "SCRIPT", copy)
    assert main() == 0
    assert embedded(copy.read_text(encoding="utf-8")) == assemble()
    assert "(unchanged)" not in capsys.readouterr().out
    before = copy.read_bytes()
    assert main() == 0
    assert copy.read_bytes() == before and "(unchanged)" in capsys.readouterr().out
