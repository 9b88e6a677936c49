"""The bench's table judges only what the run measured."""

from bench.table import Table


def test_a_quoted_figure_is_shown_as_a_reference_and_never_judged():
    table = Table("t")
    table.add("measured against a goal", "3.0 s", "≤ 4 s", True)
    table.add("missed goal", "5.0 s", "≤ 4 s", False)
    table.add_reference("measured beside a quoted figure", "9.0 s", "another program, about 4 s (quoted)")
    rows = table.render().splitlines()[4:]
    assert rows[0].endswith("| ≤ 4 s | yes |") and rows[1].endswith("| ≤ 4 s | **NO** |")
    assert rows[2] == (
        "| measured beside a quoted figure | 9.0 s | reference, not measured in this run: "
        "another program, about 4 s (quoted) |  |"
    )
