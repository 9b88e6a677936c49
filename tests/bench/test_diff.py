"""`python -m bench diff` at small scale: a few hundred words, no network, never timed.

What is asserted is what its figures stand on: the variant differs from the list as the section
says, the counts in the table are the sets' differences, the targets are judged, and the older
release is used only when its tarball has the published SHA-512 (a tampered one is removed).
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import re
import tarfile

import pytest

from bench import diff as section
from lexicon.lexfile import Lexicon

# Plain letters only (no ch, ll, rr, qu), so every word is one entry of the compiled list.
WORDS = ["".join(letters) for letters in itertools.product("aeiomnpst", repeat=3)]


def test_the_variant_removes_every_27th_word_and_adds_every_25th_backwards():
    variant = section.variant_words(WORDS)
    assert variant == section.variant_words(WORDS)  # deterministic
    removed = set(WORDS) - set(variant)
    assert removed == {word for i, word in enumerate(WORDS) if i % 27 == 13} - {w[::-1] for w in WORDS[::25]}
    assert set(variant) - set(WORDS) == set()  # these words' reversals are all words of the list too
    assert variant[-len(WORDS[::25]) :] == [word[::-1] for word in WORDS[::25]]


def test_the_table_counts_the_lists_differences_and_judges_its_targets(tmp_path):
    words = WORDS[:300]
    variant = section.variant_words(words)

    def old_release(path):
        section._compile("\n".join(words[::2]) + "\n", "npm-1.0.1", path)
        return path

    table = section.sizes(words, old_release)
    rows = {row.figure: row for row in table.rows}
    assert rows["the lists: the default, and its deterministic variant (bench/diff.py)"].value == (
        f"{len(words)} and {len(set(variant))} words"
    )
    added, removed = set(variant) - set(words), set(words) - set(variant)
    kept = set(words) & set(variant)
    assert rows["added / removed / kept"].value == f"{len(added)} / {len(removed)} / {len(kept)}"
    assert added and removed
    command = rows["`lexicon diff OLD NEW > /dev/null`, start to exit (median of 3)"]
    assert re.fullmatch(r"\d+\.\d\d s", command.value)
    assert command.met == (float(command.value.split()[0]) <= section.SECONDS_TARGET)
    memory = rows["peak memory of `lexicon diff` (VmHWM of the process)"]
    assert re.fullmatch(r"\d+ MB", memory.value) and memory.met == (int(memory.value.split()[0]) <= 300)
    release = rows[
        f"an-array-of-spanish-words 1.0.1 ({len(words[::2])} words once compiled) → 2.0.0: added / removed / kept"
    ]
    assert release.value == f"{len(words) - len(words[::2])} / 0 / {len(words[::2])}"
    assert [row.figure for row in table.rows][-1] == (
        "`lexicon diff` of those two, start to exit / CPU time (medians of 3)"
    )


def tarball(path, words):
    data = json.dumps(words).encode()
    with tarfile.open(path, "w:gz") as archive:
        member = tarfile.TarInfo("package/palabras.json")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def test_the_older_release_is_compiled_from_a_tarball_with_the_published_sha512(tmp_path, monkeypatch):
    monkeypatch.setattr(section, "CACHE", tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    digest = tarball(tmp_path / "cache" / section.OLD_RELEASE, ["casa", "mesa", "p4"])
    monkeypatch.setattr(section, "OLD_RELEASE_SHA512", digest)
    compiled = section._old_release(tmp_path / "npm.lex")
    assert len(Lexicon.open(compiled)) == 2  # what is no word of tiles is left out


def test_a_tarball_without_the_published_sha512_is_removed_and_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(section, "CACHE", tmp_path)
    tarball(tmp_path / section.OLD_RELEASE, ["casa"])
    with pytest.raises(RuntimeError, match="SHA-512 differs"):
        section._old_release(tmp_path / "npm.lex")
    assert not (tmp_path / section.OLD_RELEASE).exists()
