"""docs/figures.md is written by the bench, section by section, with where and when each ran.

A tiny section stands in for the real ones (which take minutes): the writer is what is tested,
through `python -m bench`'s own entry point.
"""

from __future__ import annotations

import re
import sys
import types

import pytest

from bench import __main__ as bench_main
from bench import report
from bench.table import Table
from tests.support import REPO

FACTS = re.compile(
    r"^`python -m bench (\w+)` · \d{4}-\d\d-\d\d \d\d:\d\d UTC · \d+ cores, .+, .+ · "
    r"load average (?:[\d.]+, [\d.]+, [\d.]+|unknown) at the start · took \d+ s$",
    re.M,
)


@pytest.fixture
def sections(monkeypatch):
    """Two tiny sections, `tiny` and `other`, each giving one table; counts how often each ran."""
    runs = {"tiny": 0, "other": 0}
    for name in runs:

        def run(name=name):
            runs[name] += 1
            table = Table(f"The {name} table")
            table.add(f"{name} figure", f"{runs[name]}.0 ms", "≤ 5 ms", True)
            return [table]

        monkeypatch.setitem(sys.modules, f"bench.{name}", types.SimpleNamespace(run=run))
    monkeypatch.setattr(bench_main, "SECTIONS", {"tiny": "A tiny section.", "other": "Another one."})
    return runs


def parts(text: str) -> dict[str, str]:
    return {match.group("name"): match.group("body") for match in report.PART.finditer(text)}


def test_each_section_has_its_part_with_command_date_machine_and_load(sections, tmp_path, capsys):
    figures = tmp_path / "figures.md"
    assert bench_main.main(["--figures", str(figures), "tiny"]) == 0
    text = figures.read_text(encoding="utf-8")
    assert text.startswith(report.HEADER) and list(parts(text)) == ["tiny", "other"]
    tiny = parts(text)["tiny"]
    assert tiny.startswith("## tiny\n\nA tiny section.\n\n`python -m bench tiny` · ")
    assert FACTS.findall(tiny) == ["tiny"]
    assert "### The tiny table" in tiny and "| tiny figure | 1.0 ms | ≤ 5 ms | yes |" in tiny
    assert parts(text)["other"] == (
        "## other\n\nAnother one.\n\nNot measured in this file's run: `python -m bench other` measures it.\n\n"
    )
    assert "| tiny figure | 1.0 ms |" in capsys.readouterr().out  # the tables are printed as before
    assert not list(tmp_path.glob("*.partial"))


def test_a_run_of_one_section_keeps_the_others_and_replaces_its_own(sections, tmp_path):
    figures = tmp_path / "figures.md"
    bench_main.main(["--figures", str(figures), "tiny", "other"])
    first = parts(figures.read_text(encoding="utf-8"))
    bench_main.main(["--figures", str(figures), "other"])
    second = parts(figures.read_text(encoding="utf-8"))
    assert second["tiny"] == first["tiny"]  # kept whole, with its own date
    assert "| other figure | 2.0 ms |" in second["other"] and "1.0 ms" not in second["other"]  # no history
    assert sections == {"tiny": 1, "other": 2}


def test_a_section_no_longer_listed_is_dropped_and_a_new_one_noted(sections, tmp_path, monkeypatch):
    figures = tmp_path / "figures.md"
    bench_main.main(["--figures", str(figures), "tiny", "other"])
    monkeypatch.setattr(bench_main, "SECTIONS", {"other": "Another one.", "new": "A new one."})
    report.write(figures, bench_main.SECTIONS, {})
    written = parts(figures.read_text(encoding="utf-8"))
    assert list(written) == ["other", "new"] and "Not measured in this file's run" in written["new"]
    assert "| other figure | 1.0 ms |" in written["other"]


def test_an_unknown_section_or_a_missing_directory_is_refused_and_writes_nothing(sections, tmp_path, capsys):
    figures = tmp_path / "figures.md"
    assert bench_main.main(["--figures", str(figures), "tiny", "nonsense"]) == 2
    assert bench_main.main(["--figures", str(tmp_path / "no" / "figures.md"), "tiny"]) == 2
    assert bench_main.main(["--figures"]) == 2
    assert not figures.exists() and sections == {"tiny": 0, "other": 0}
    assert "unknown section(s) ['nonsense']" in capsys.readouterr().err


def test_the_committed_figures_have_a_part_for_every_section_in_order():
    text = (REPO / "docs" / "figures.md").read_text(encoding="utf-8")
    assert text.startswith(report.HEADER)
    written = parts(text)
    assert list(written) == list(bench_main.SECTIONS)
    for name, body in written.items():
        assert body.startswith(f"## {name}\n\n{bench_main.SECTIONS[name]}\n\n"), name
        measured = FACTS.findall(body)
        assert measured == [name] or "Not measured in this file's run" in body, name


def test_the_guards_are_named_again_at_the_end_of_a_run_with_a_clear_no(tmp_path, monkeypatch, capsys):
    from bench import __main__ as bench_main
    from bench.table import Table

    def run():
        table = Table("t")
        table.add("a comparison", "1", "≥ 2", False)  # missed, but no guard: not summed up
        table.guard("the ratio", "0.80", "≥ 0.9", False)
        table.guard("the other", "0.95", "≥ 0.9", True)
        return [table]

    monkeypatch.setattr(bench_main, "SECTIONS", {"quick": "The guards."})
    monkeypatch.setattr(bench_main.importlib, "import_module", lambda name: type("M", (), {"run": staticmethod(run)}))
    assert bench_main.main(["--figures", str(tmp_path / "f.md"), "quick"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "guards (a goal missed says NO):\nNO   quick: the ratio: 0.80 (target ≥ 0.9)\nyes  quick: the other: 0.95 (target ≥ 0.9)\n"
    )
    assert "a comparison" not in out.split("guards")[-1]
