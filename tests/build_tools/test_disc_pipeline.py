"""A DISC directory as a compiler source: entries, where they came from, checksum, notes.

The small sources are tests/data/disc (one instance of each DISC problem) and
tests/data/disc-tiles (one instance of each Scrabble normalization case).
"""

from __future__ import annotations

import hashlib
import shutil

import pytest

from build_tools.compiler import collect_keys
from build_tools.disc.expand import (
    DiscSource,
    compile_models,
    expand_forms,
    expand_rows,
    parse_entries,
    read_source,
    row_of,
)
from build_tools.disc.models import parse_model
from build_tools.disc.pipeline import digest, disc_entries, read_disc, source_digest, source_files
from build_tools.report import BuildReport
from build_tools.sources import DiscDirectory, SourceError, load_source
from lexicon.tokenizer import tokenizer


def compile_entries(directory):
    entries = read_disc(directory)
    report = BuildReport()
    keys = collect_keys(entries.text, tokenizer("ca"), report, entries.locate)
    return entries, report, keys


# -- the entries -------------------------------------------------------------------------------


def test_entries_are_the_distinct_spellings_in_order_of_first_generation(disc_tile_fixture_dir):
    entries = read_disc(disc_tile_fixture_dir)
    source = read_source(disc_tile_fixture_dir)
    forms = [row[0] for row in expand_rows(source.entries, source.models)]
    assert entries.text.split("\n") == list(dict.fromkeys(forms))
    assert len(forms) == 26 and entries.text.count("\n") + 1 == 24  # gat, gats twice


def test_locate_names_lemma_line_model_and_tag_of_the_first_form(disc_tile_fixture_dir):
    entries = read_disc(disc_tile_fixture_dir)
    spellings = entries.text.split("\n")
    where = {spelling: entries.locate(i) for i, spelling in enumerate(spellings)}
    assert where["col·legis"] == "col·legi (line 1, model 201, NCMP000)"
    assert where["d'acord"] == "d'acord (line 10, model 500, I)"
    assert where["gats"] == "gat (line 16, model 201, NCMP000)"  # the first of the two entry lines


def test_expand_forms_and_row_of_agree_with_expand_rows(disc_fixture_dir):
    source = read_source(disc_fixture_dir)
    compiled = compile_models(source.models)
    rows = list(expand_rows(source.entries, source.models))
    forms, ends = expand_forms(source.entries, compiled)
    assert forms == [row[0] for row in rows]
    assert len(ends) == len(source.entries) and ends[-1] == len(forms)
    assert [row_of(i, source.entries, compiled, ends) for i in range(len(forms))] == rows
    with pytest.raises(IndexError):
        row_of(len(forms), source.entries, compiled, ends)


def test_notes_are_the_disc_checks(disc_fixture_dir):
    entries = read_disc(disc_fixture_dir)
    notes = entries.notes
    assert notes[0].startswith("DISC source: the entries above are its distinct spellings")
    assert notes[1:] == entries.report.lines()
    for needle in (
        "lemmas read: 8",
        "forms generated: 11",
        "distinct spellings: 9",
        "model 404: 2 lemma(s)",
        "26.model:5: nar 0 nnar VMIP1S0B # ALT:nan",
        "model 26 (cantar):",
        "missing (1): cantar",
        "extra (1): canta",
        "26.model:6",
    ):
        assert any(needle in line for line in notes), needle


def test_the_check_counts_are_not_computed_twice_differently(disc_fixture_dir):
    source = read_source(disc_fixture_dir)
    entries = disc_entries(source)
    assert (entries.report.forms, entries.report.spellings) == (11, 9)


# -- what the compiler makes of them -----------------------------------------------------------


def test_forms_with_a_character_that_is_no_tile_are_left_out_with_lemma_and_model(disc_tile_fixture_dir):
    _, report, _ = compile_entries(disc_tile_fixture_dir)
    non_tile = report.left_out["non-tile"]
    assert non_tile.count == 7  # adéu-siau, d'acord, a priori, kiwi, kiwis, yoga, yogas
    found = {example.word: (example.where, example.detail) for example in non_tile.examples}
    assert found["adéu-siau"][0] == "adéu-siau (line 9, model 500, I)" and "'-'" in found["adéu-siau"][1]
    assert found["d'acord"][0] == "d'acord (line 10, model 500, I)" and "at 2 in" in found["d'acord"][1]
    assert found["a priori"][0] == "a priori (line 11, model 500, I)" and "space" in found["a priori"][1]
    assert found["kiwi"][0] == "kiwi (line 12, model 201, NCMS000)" and "no K tile" in found["kiwi"][1]


def test_a_bare_y_is_no_tile_but_ny_is():
    entries, _ = parse_entries("yoga|m.|201\nany|m.|201\n")
    model, _ = parse_model("# 201 gat\n0 0 . NCMS000 # gat\n", "201")
    built = disc_entries(DiscSource(tuple(entries), {"201": model}, ()))
    report = BuildReport()
    keys = collect_keys(built.text, tokenizer("ca"), report, built.locate)
    (example,) = report.left_out["non-tile"].examples
    assert (example.where, example.word) == ("yoga (line 1, model 201, NCMS000)", "yoga")
    assert "no Y tile" in example.detail
    assert [tokenizer("ca").alphabet.tiles_of(key) for key in keys] == [["A", "NY"]]


def test_length_and_duplicates_after_folding(disc_tile_fixture_dir):
    _, report, keys = compile_entries(disc_tile_fixture_dir)
    assert [(e.where, e.word) for e in report.left_out["too-short"].examples] == [
        ("a (line 14, model 201, NCMS000)", "a")
    ]
    (too_long,) = report.left_out["too-long"].examples
    assert (too_long.where, too_long.word, too_long.detail) == (
        "electroencefalografia (line 15, model 203, NCFS000)",
        "electroencefalografia",
        "21 tiles",
    )
    # és and es are one word once accents are dropped: the compiler's only duplicate.
    assert report.duplicates.count == 1
    (duplicate,) = report.duplicates.examples
    assert (duplicate.where, duplicate.word) == ("es (line 8, model 500, I)", "es")
    assert "same tiles as és (line 7, model 500, I)" in duplicate.detail
    assert report.entries == 24 and report.words == len(keys) == 24 - 9 - 1


# -- the source as the CLI loads it ------------------------------------------------------------


def test_load_source_disc_gives_text_locate_checksum_and_notes(disc_tile_fixture_dir):
    source = load_source(str(disc_tile_fixture_dir), "disc")
    entries = read_disc(disc_tile_fixture_dir)
    assert source.text == entries.text
    assert source.locate(0) == entries.locate(0) == "col·legi (line 1, model 201, NCMS000)"
    assert source.notes == entries.notes and source.notes is source.notes
    assert source.sha256 == source_digest(disc_tile_fixture_dir)


def test_the_checksum_is_known_before_anything_is_expanded(disc_tile_fixture_dir, monkeypatch):
    import build_tools.sources as sources

    def refuse(directory):
        raise AssertionError("expanded too early")

    monkeypatch.setattr(sources, "read_disc", refuse)
    assert len(load_source(str(disc_tile_fixture_dir), "disc").sha256) == 64


def test_checksum_is_the_sha256sum_listing_in_canonical_order(disc_fixture_dir):
    names = source_files(disc_fixture_dir)
    assert names == [
        "entrades.txt",
        "models/201.model",
        "models/203.model",
        "models/26.model",
        "models/27.model",
        "models/666.model",
        "tests/26.test",
    ]
    listing = "".join(
        f"{hashlib.sha256((disc_fixture_dir / name).read_bytes()).hexdigest()}  {name}\n" for name in names
    )
    assert source_digest(disc_fixture_dir) == hashlib.sha256(listing.encode()).hexdigest()
    assert digest([]) == hashlib.sha256(b"").hexdigest()


def test_checksum_changes_with_any_covered_file_and_only_those(disc_fixture_dir, tmp_path):
    copy = tmp_path / "disc"
    shutil.copytree(disc_fixture_dir, copy)
    before = source_digest(copy)
    (copy / "README.md").write_text("changed\n")
    assert source_digest(copy) == before  # documentation is not the source
    (copy / "tests" / "26.test").write_text("canto\n", encoding="utf-8")
    assert source_digest(copy) != before
    changed = source_digest(copy)
    (copy / "models" / "26.model").rename(copy / "models" / "28.model")
    assert source_digest(copy) != changed  # a renamed model is another model


def test_a_directory_that_is_no_disc_source_is_a_clear_error(tmp_path):
    with pytest.raises(SourceError, match=r"no entrades\.txt"):
        load_source(str(tmp_path), "disc")
    with pytest.raises(SourceError, match="not a DISC source directory"):
        load_source(str(tmp_path / "missing"), "disc")


def test_a_disc_source_named_by_its_entrades_file_is_told_the_directory(disc_fixture_dir):
    entries = disc_fixture_dir / "entrades.txt"
    with pytest.raises(SourceError) as refused:
        load_source(str(entries), "disc")
    assert str(refused.value) == (
        f"{entries} is a file, not a DISC source directory: give the directory that holds "
        f"entrades.txt and models/ ({disc_fixture_dir})"
    )


def test_a_file_that_is_not_utf8_is_named(disc_fixture_dir, tmp_path):
    copy = tmp_path / "disc"
    shutil.copytree(disc_fixture_dir, copy)
    (copy / "models" / "201.model").write_bytes("# 201 gat\n0 0 . N # caf\u00e9\n".encode("latin-1"))
    source = DiscDirectory(str(copy))
    with pytest.raises(SourceError) as refused:
        _ = source.text  # reading the entries is what fails
    assert str(refused.value) == (
        f"{copy}: models/201.model: line 2 is not UTF-8 (byte 0xE9 at column 14); DISC sources are UTF-8"
    )
