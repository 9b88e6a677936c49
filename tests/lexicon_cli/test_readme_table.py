"""The table of `lexicon` commands in docs/cli.md names every command the program has."""

from __future__ import annotations

import re

import click

from lexicon_cli import main
from tests.support import REPO


def _commands(group: click.Group, prefix: str = "") -> set[str]:
    names = set()
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            names |= _commands(command, f"{prefix}{name} ")
        else:
            names.add(prefix + name)
    return names


def test_every_command_is_in_the_table_of_commands():
    doc = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = doc.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    table = "\n".join(line for line in section.splitlines() if line.startswith("| `lexicon "))
    listed = set(re.findall(r"`lexicon ((?:event |records )?[a-z-]+)", table))
    assert _commands(main) <= listed, sorted(_commands(main) - listed)
