"""`lexicon diff OLD NEW`: output, flags and exit codes, on lists with known differences."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lexicon_cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
LEXICON_BIN = Path(sys.executable).parent / "lexicon"

CHANGES = ["+ CASAS", "- [CH]ICO", "+ [CH]ICOS", "+ DE", "- NANDU", "+ ÑANDU"]
COUNTS = "added 4, removed 2, kept 5"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def lexicons(tmp_path_factory) -> dict[str, Path]:
    """docs/cli.md's example lists: old and new in spelling, the old one again in tiles notation."""
    folder = tmp_path_factory.mktemp("diff")
    made = {}
    for name, notation in [("old", "spelling"), ("new", "spelling"), ("tiles", "tiles")]:
        made[name] = folder / f"{name}.lex"
        result = run(
            "build",
            DATA / f"diff-{name}-es.txt",
            "--lang",
            "es",
            "--notation",
            notation,
            "--id",
            f"demo-{name}",
            "--version",
            name,
            "-o",
            made[name],
        )
        assert result.exit_code == 0, result.output
    made["ca"] = folder / "ca.lex"
    result = run("build", DATA / "mini-ca.txt", "--lang", "ca", "--id", "mini-ca", "--version", "1", "-o", made["ca"])
    assert result.exit_code == 0, result.output
    return made


def test_added_and_removed_words_in_tile_order_then_counts(lexicons):
    result = run("diff", lexicons["old"], lexicons["new"])
    assert result.exit_code == 0
    assert result.output.splitlines() == [*CHANGES, COUNTS]


def test_the_other_way_round_swaps_the_signs(lexicons):
    result = run("diff", lexicons["new"], lexicons["old"])
    swapped = [("-" if line[0] == "+" else "+") + line[1:] for line in CHANGES]
    assert result.output.splitlines() == [*swapped, "added 2, removed 4, kept 5"]


def test_a_ch_tile_against_c_and_h(lexicons):
    """The old list typed in tiles notation with CHICO in plain letters: C H is not the CH tile."""
    result = run("diff", lexicons["old"], lexicons["tiles"])
    assert result.output.splitlines() == ["+ CHICO", "- [CH]ICO", "added 1, removed 1, kept 6"]


def test_by_length_counts_tiles(lexicons):
    result = run("diff", "--by-length", lexicons["old"], lexicons["new"])
    assert result.output.splitlines()[len(CHANGES) :] == [
        COUNTS,
        "tiles  added  removed  kept",
        "    2      1        0     0",
        "    3      0        0     2",
        "    4      0        1     3",
        "    5      3        1     0",
    ]


@pytest.mark.parametrize("flag, shown", [("--added-only", "+"), ("--removed-only", "-")])
def test_one_side_only_keeps_every_count(lexicons, flag, shown):
    result = run("diff", flag, lexicons["old"], lexicons["new"])
    assert result.exit_code == 0
    assert result.output.splitlines() == [*(line for line in CHANGES if line[0] == shown), COUNTS]


def test_json_has_both_identities_counts_and_lists(lexicons):
    result = run("diff", "--json", lexicons["old"], lexicons["new"])
    data = json.loads(result.output)
    assert data["old"]["id"] == "demo-old" and data["new"]["version"] == "new"
    assert len(data["new"]["checksum"]) == 64
    assert data["counts"] == {"added": 4, "removed": 2, "kept": 5}
    assert data["by_length"]["5"] == {"added": 3, "removed": 1, "kept": 0}
    assert data["added"] == ["CASAS", "[CH]ICOS", "DE", "ÑANDU"]
    assert data["removed"] == ["[CH]ICO", "NANDU"]
    only = json.loads(run("diff", "--json", "--removed-only", lexicons["old"], lexicons["new"]).output)
    assert "added" not in only and only["removed"] == ["[CH]ICO", "NANDU"]
    assert only["counts"]["added"] == 4


def test_exit_code_like_git_diff(lexicons):
    assert run("diff", "--exit-code", lexicons["old"], lexicons["new"]).exit_code == 1
    assert run("diff", "--exit-code", lexicons["old"], lexicons["old"]).exit_code == 0
    same = run("diff", lexicons["old"], lexicons["old"])
    assert same.exit_code == 0 and same.output == "added 0, removed 0, kept 7\n"
    assert run("diff", "--exit-code", "--json", lexicons["old"], lexicons["new"]).exit_code == 1


def test_exit_code_counts_only_the_side_shown(lexicons, tmp_path):
    """OLD plus one word: nothing removed, so --removed-only finds no difference."""
    bigger = tmp_path / "bigger.lex"
    words = tmp_path / "bigger.txt"
    words.write_text((DATA / "diff-old-es.txt").read_text() + "casas\n")
    assert run("build", words, "--lang", "es", "--id", "b", "--version", "1", "-o", bigger).exit_code == 0
    assert run("diff", "--exit-code", "--removed-only", lexicons["old"], bigger).exit_code == 0
    assert run("diff", "--exit-code", "--added-only", lexicons["old"], bigger).exit_code == 1


def test_another_language_is_bad_input_quoting_both(lexicons):
    result = CliRunner().invoke(main, ["diff", str(lexicons["old"]), str(lexicons["ca"])])
    assert result.exit_code == 2
    assert f"cannot compare {lexicons['old']} (language es) with {lexicons['ca']} (language ca)" in result.output


def test_unknown_or_corrupt_lexicon_is_bad_input(lexicons, tmp_path):
    result = CliRunner().invoke(main, ["diff", str(lexicons["old"]), "nope"])
    assert result.exit_code == 2 and "unknown lexicon 'nope'" in result.output
    broken = tmp_path / "broken.lex"
    broken.write_bytes(lexicons["new"].read_bytes()[:-1])
    result = CliRunner().invoke(main, ["diff", str(broken), str(lexicons["new"])])
    assert result.exit_code == 2 and f"{broken}: " in result.output


def test_both_only_flags_are_a_usage_error(lexicons):
    both = ["diff", "--added-only", "--removed-only", str(lexicons["old"]), str(lexicons["new"])]
    result = CliRunner().invoke(main, both)
    assert result.exit_code == 2 and "exclude each other" in result.output


@pytest.mark.slow
def test_defaults_by_language_and_id_through_the_real_command(lexicons):
    """The installed script: real exit codes, a default named two ways, a refusal on stderr."""
    same = subprocess.run(
        [str(LEXICON_BIN), "diff", "--exit-code", "es", "letterpress-es"], capture_output=True, text=True, timeout=300
    )
    assert same.returncode == 0, same.stderr
    assert same.stdout.startswith("added 0, removed 0, kept 636,598")
    other = subprocess.run(
        [str(LEXICON_BIN), "diff", str(lexicons["old"]), str(lexicons["ca"])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert other.returncode == 2 and other.stdout == "" and "cannot compare" in other.stderr
    assert "Traceback" not in other.stderr
