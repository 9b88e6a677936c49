"""`lexicon expand` and `lexicon build --from disc`, end to end through the click commands."""

from __future__ import annotations

import json
import re
import shlex
import shutil

from click.testing import CliRunner

from build_tools.disc.expand import TSV_HEADER, expand_rows, read_source
from build_tools.disc.pipeline import source_digest
from lexicon.lexfile import Lexicon
from lexicon_cli import main
from tests.support import REPO


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


# -- lexicon expand --------------------------------------------------------------------------------


def test_expand_writes_every_form_with_lemma_category_model_and_tag(disc_fixture_dir, tmp_path):
    out = tmp_path / "forms.tsv"
    result = run("expand", disc_fixture_dir, "-o", out)
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""  # every line ended
    rows = [tuple(line.split("\t")) for line in lines[:-1]]
    assert rows == [
        ("canto", "cantar", "v.", "26", "VMIP1S0C"),
        ("canta", "cantar", "v.", "26", "VMIP3S00"),  # the empty add field written as two spaces
        ("cantem", "cantar", "v.", "26", "VMIP1P00"),
        ("adono", "adonar-se", "v.", "26", "VMIP1S0C"),  # pronominal: -se removed
        ("adona", "adonar-se", "v.", "26", "VMIP3S00"),
        ("adonem", "adonar-se", "v.", "26", "VMIP1P00"),
        ("gat", "gat", "m.", "201", "NCMS000"),
        ("gats", "gat", "m.", "201", "NCMP000"),
        ("gat", "gat", "m.", "201", "NCMS000"),  # the entry line is repeated: so are its forms
        ("gats", "gat", "m.", "201", "NCMP000"),
        ("sucamulla", "sucamulla", "f.", "203", "NCFS000"),
    ]
    source = read_source(disc_fixture_dir)
    assert rows == list(expand_rows(source.entries, source.models))  # entry order, then rule order


def test_expand_summary_goes_to_standard_error(disc_fixture_dir, tmp_path):
    result = run("expand", disc_fixture_dir, "-o", tmp_path / "forms.tsv")
    assert result.stdout == ""
    assert "8 lemmas, 11 forms, 9 distinct spellings" in result.stderr
    assert "2 source line(s) could not be read" in result.stderr  # 26.model:6 and 'bad line'
    assert "2 lemma(s) name a model with no file and gave no form" in result.stderr  # model 404


def test_expand_to_standard_output_with_a_header(disc_fixture_dir, tmp_path):
    result = run("expand", disc_fixture_dir, "-o", "-", "--header")
    lines = result.stdout.split("\n")
    assert lines[0] == TSV_HEADER == "form\tlemma\tcategory\tmodel\ttag"
    assert lines[1] == "canto\tcantar\tv.\t26\tVMIP1S0C" and len(lines) == 1 + 11 + 1
    out = tmp_path / "forms.tsv"
    run("expand", disc_fixture_dir, "-o", out)
    assert "\n".join(lines[1:]) == out.read_text(encoding="utf-8")  # same bytes wherever written


def test_expand_on_the_real_source(disc_dir, tmp_path):
    out = tmp_path / "forms.tsv"
    result = run("expand", disc_dir, "-o", out)
    assert "68,746 lemmas, 897,243 forms, 645,491 distinct spellings" in result.stderr
    with open(out, encoding="utf-8") as lines:
        assert next(lines) == "a\ta\tf.\t201\tNS\n"
        assert sum(1 for _ in lines) == 897_243 - 1


def test_expand_in_the_authors_reading_drops_the_two_space_rules(disc_fixture_dir, tmp_path):
    out = tmp_path / "theirs.tsv"
    run("expand", disc_fixture_dir, "--fields", "whitespace", "-o", out)
    forms = [line.split("\t")[0] for line in out.read_text(encoding="utf-8").splitlines()]
    assert "canta" not in forms and "canto" in forms


def test_expand_refuses_a_directory_that_is_no_disc_source(tmp_path):
    result = run("expand", tmp_path, "-o", tmp_path / "forms.tsv")
    assert result.exit_code == 2 and "no entrades.txt" in result.output
    assert not (tmp_path / "forms.tsv").exists()


# -- lexicon build --from disc -------------------------------------------------------------------


def test_build_from_disc_end_to_end(disc_fixture_dir, tmp_path):
    out, report_path = tmp_path / "mini-ca.lex", tmp_path / "report.json"
    result = run(
        "build",
        disc_fixture_dir,
        "--lang",
        "ca",
        "--from",
        "disc",
        "--id",
        "mini-disc",
        "--version",
        "test",
        "-o",
        out,
        "--report",
        report_path,
    )
    assert result.exit_code == 0, result.output
    output = result.output
    # The compiler's report: entries are the 9 distinct spellings; sucamulla is 9 tiles, all kept.
    assert re.search(r"entries read: +9\n", output) and re.search(r"words compiled: +9\n", output)
    # Then the DISC checks, as notes.
    for needle in (
        "DISC source: the entries above are its distinct spellings",
        "lemmas read: 8",
        "forms generated: 11",
        "model 404: 2 lemma(s)",
        "model 26 (cantar):",
        "gat|m.|201 (lines 3, 5)",
    ):
        assert needle in output, needle
    assert f"wrote {out}: 9 words" in output
    lexicon = Lexicon.open(out)
    assert lexicon.header.build == {
        "from": "disc",
        "notation": "spelling",
        "source_sha256": source_digest(disc_fixture_dir),
    }
    assert run("check", out, "gats", "ADONEM").output == "VALID\n"
    assert run("check", out, "cantar").output == "NOT VALID\n"  # 26.model:6 is unreadable
    assert "lemmas read: 8" in json.loads(report_path.read_text(encoding="utf-8"))["notes"]


def test_build_from_disc_reports_forms_that_are_no_tiles_with_lemma_and_model(disc_tile_fixture_dir, tmp_path):
    result = run(
        "build",
        disc_tile_fixture_dir,
        "--lang",
        "ca",
        "--from",
        "disc",
        "--id",
        "t",
        "--version",
        "1",
        "-o",
        tmp_path / "t.lex",
    )
    output = result.output
    assert "left out, a character that is no tile: 7" in output
    assert "  adéu-siau (line 9, model 500, I): adéu-siau: '-' at 5 in 'adéu-siau'" in output
    assert "  d'acord (line 10, model 500, I): d'acord:" in output
    assert "  electroencefalografia (line 15, model 203, NCFS000): electroencefalografia: 21 tiles" in output
    assert "  duplicate  es (line 8, model 500, I): es (same tiles as és (line 7, model 500, I))" in output


def test_build_from_disc_strict_fails_on_left_out_forms(disc_tile_fixture_dir, tmp_path):
    result = CliRunner().invoke(
        main,
        [
            "build",
            str(disc_tile_fixture_dir),
            "--lang",
            "ca",
            "--from",
            "disc",
            "--id",
            "t",
            "--version",
            "1",
            "--strict",
            "-o",
            str(tmp_path / "t.lex"),
        ],
    )
    assert result.exit_code == 1 and not (tmp_path / "t.lex").exists()


def test_build_from_disc_refuses_a_directory_that_is_no_disc_source(tmp_path):
    result = run(
        "build", tmp_path, "--lang", "ca", "--from", "disc", "--id", "t", "--version", "1", "-o", tmp_path / "t.lex"
    )
    assert result.exit_code == 2 and "not a DISC source directory" in result.output


def test_build_from_disc_refuses_another_language_and_writes_nothing(disc_fixture_dir, tmp_path):
    out = tmp_path / "t.lex"
    result = run("build", disc_fixture_dir, "--lang", "es", "--from", "disc", "--id", "t", "--version", "1", "-o", out)
    assert result.exit_code == 2 and not out.exists()
    assert f"{disc_fixture_dir} is a DISC source, which is in 'ca' (Catalan)" in result.output
    assert "'es' tile set" in result.output


def test_the_disc_figures_are_what_lexicon_expand_prints(disc_dir, tmp_path):
    """docs/disc.md's figures table quotes the command's summary and counts its output."""
    from tests.support import REPO

    out = tmp_path / "forms.tsv"
    result = CliRunner().invoke(main, ["expand", str(disc_dir), "-o", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = re.search(r"[\d,]+ lemmas, [\d,]+ forms, [\d,]+ distinct spellings", result.stderr)
    assert summary is not None, result.stderr
    doc = (REPO / "docs" / "disc.md").read_text(encoding="utf-8")
    lemmas = summary.group(0).split(" lemmas")[0]
    assert f"| {lemmas} | `lexicon expand data/ca-disc -o forms.tsv` (standard error: `{summary.group(0)}`) |" in doc
    lines = out.read_text(encoding="utf-8").splitlines()
    assert f"| tagged forms generated | {len(lines):,} |" in doc
    assert f"| distinct spellings | {len({line.split(chr(9), 1)[0] for line in lines}):,} |" in doc


def test_build_from_disc_strict_fails_on_source_lines_left_out(disc_fixture_dir, tmp_path):
    """--strict refuses a DISC source of which lines never became forms, as it refuses a word
    list's line left out: 26.model:6 and an entry line cannot be read, two entries name model
    404, which has no file. The compiler itself left nothing out here."""
    out = tmp_path / "t.lex"
    args = ["build", disc_fixture_dir, "--lang", "ca", "--from", "disc", "--id", "t", "--version", "1", "-o", out]
    result = CliRunner().invoke(main, [str(a) for a in [*args, "--strict"]])
    assert result.exit_code == 1 and not out.exists()
    assert re.search(r"left out: +0\n", result.output)
    assert result.output.endswith(f"Error: 4 lines of the source left out (see above); --strict: {out} not written\n")
    assert run(*args).exit_code == 0  # without --strict, built as the report says


def test_build_from_disc_strict_builds_a_source_read_whole(tmp_path):
    folder = tmp_path / "disc"
    (folder / "models").mkdir(parents=True)
    (folder / "entrades.txt").write_text("col·legi|m.|201\nplaça|f.|202\n", encoding="utf-8")
    (folder / "models" / "201.model").write_text(
        "# 201 col·legi\n0 0 . NCMS000 # col·legi\n0 s . NCMP000 # col·legis\n", encoding="utf-8"
    )
    (folder / "models" / "202.model").write_text(
        "# 202 plaça\n0 0 . NCFS000 # plaça\nça ces ça NCFP000 # places\n", encoding="utf-8"
    )
    out = tmp_path / "t.lex"
    result = run(
        "build", folder, "--lang", "ca", "--from", "disc", "--id", "t", "--version", "1", "--strict", "-o", out
    )
    assert result.exit_code == 0, result.output
    assert run("dump", out).output == "COL·LEGI\nCOL·LEGIS\nPLACES\nPLAÇA\n"


def test_build_from_disc_refuses_tiles_notation_and_writes_nothing(disc_tile_fixture_dir, tmp_path):
    """Read as tiles notation, every accented DISC form was left out (a report of hundreds of
    thousands of lines for the real sources) and the rest compiled, as if a list of words."""
    out = tmp_path / "t.lex"
    args = ["--lang", "ca", "--from", "disc", "--id", "t", "--version", "1", "-o", out]
    result = run("build", disc_tile_fixture_dir, *args, "--notation", "tiles")
    assert result.exit_code == 2 and not out.exists()
    assert result.output == (
        f"Error: {disc_tile_fixture_dir} is a DISC source, whose forms are in 'spelling' notation (col·legi, "
        "qüestió); it cannot be read in 'tiles' notation: leave out --notation\n"
    )
    assert run("build", disc_tile_fixture_dir, *args, "--notation", "spelling").exit_code == 0


def test_expand_names_the_file_line_and_byte_that_are_not_utf8_as_build_does(disc_fixture_dir, tmp_path):
    copy = tmp_path / "disc"
    shutil.copytree(disc_fixture_dir, copy)
    (copy / "entrades.txt").write_bytes("gat|m.|201\nplaça|f.|203\n".encode("latin-1"))
    said = f"Error: {copy}: entrades.txt: line 2 is not UTF-8 (byte 0xE7 at column 4); DISC sources are UTF-8\n"
    expanded = CliRunner().invoke(main, ["expand", str(copy), "-o", str(tmp_path / "forms.tsv")])
    built = CliRunner().invoke(
        main,
        [
            "build",
            str(copy),
            "--from",
            "disc",
            "--lang",
            "ca",
            "--id",
            "t",
            "--version",
            "1",
            "-o",
            str(tmp_path / "t.lex"),
        ],
    )
    assert (expanded.exit_code, expanded.output) == (2, said) == (built.exit_code, built.output)
    assert not (tmp_path / "forms.tsv").exists()


def test_the_commands_disc_md_gives_run_as_written(disc_fixture_dir, tmp_path, monkeypatch):
    """docs/disc.md's "Building and expanding" block, on the tests' small source in place of its
    paths (`…` a version): the build with its optional report (its --strict, refused for this
    source's left-out lines, is test_build_from_disc_strict_fails_on_source_lines_left_out's),
    the expansion to a file, and the comment's `-o -` with `--header`."""
    doc = (REPO / "docs" / "disc.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Building and expanding") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1).replace("\\\n", " ")
    build, expand = (line.partition("#") for line in block.splitlines() if line.strip())
    source = str(disc_fixture_dir)
    build_args = shlex.split(build[0].replace("[--strict]", "").replace("[", "").replace("]", ""))
    build_args = [source if arg == "path/to/disc" else "1" if arg == "…" else arg for arg in build_args]
    expand_args = [source if arg == "data/ca-disc" else arg for arg in shlex.split(expand[0])]
    assert build_args[:2] == expand_args[:1] + ["build"] and expand_args[:2] == ["lexicon", "expand"]
    monkeypatch.chdir(tmp_path)
    built = run(*build_args[1:])
    assert built.exit_code == 0, built.output
    assert Lexicon.open(tmp_path / "disc-new.lex").header.id == "disc-new"
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["words"] == 9
    expanded = run(*expand_args[1:])
    assert expanded.exit_code == 0 and (tmp_path / "forms.tsv").read_text(encoding="utf-8").count("\n") == 11
    assert expand[2].split(";")[0].strip() == "or -o -" and expand[2].split(";")[1].strip().startswith("--header")
    shown = run(*expand_args[1:-2], "-o", "-", "--header")
    assert shown.stdout == TSV_HEADER + "\n" + (tmp_path / "forms.tsv").read_text(encoding="utf-8")
