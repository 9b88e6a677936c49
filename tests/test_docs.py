"""Every console example of the README and of docs/*.md is run, and its output must be the doc's;
every link between them resolves.

The convention (for whoever adds an example):

- A block fenced as ```console is an example, and is run. A fence indented (inside a list item)
  indents its whole block as much; the indentation is not part of the commands or the output. Any other fence (```sh for a template
  with names the reader substitutes, like FILE2017.txt, or a plain ``` for make) is not.
- In a console block, a line starting with `$ ` is a command, run by bash; a command line ending
  with a backslash goes on to the next line. The lines after it, up to the next `$ `, are its
  output exactly: standard output and standard error together, as a terminal shows them.
- `…` in an output line stands for any text within that line (a checksum, say); nothing else is
  loose. A command whose exit code matters says so itself: `…; echo "exit $?"`.
- Each block runs alone, in a new empty directory where `data/` and `tests/` of the checkout are
  at hand (so `lexicon build tests/data/mini-es.txt … -o mini.lex` writes there, not into the
  checkout), with the test environment's `lexicon` first on PATH and no LEXICON_* variable; the
  default lexicons are the checkout's (built once before the first block). A block never relies
  on another one.
- `curl` examples talk to http://127.0.0.1:8000: the test starts `lexicon serve` with the
  default lexicons on a free port and puts that port in place of 8000.
- A block naming a database as `postgresql://ROLE@db.example/lexicon?…` runs against Debian's
  PostgreSQL, which the test starts (tests/postgres.py, with the roles of operations.md: the owner
  `lexicon_owner`, the instances' `lexicon`): each such block gets a new empty database, whose
  address replaces `db.example/lexicon` in its commands (and in the settings of a service it
  starts, below) and is replaced back in their output; the block carries the `postgres` marker
  (tests/tiers.py).
- A block that needs a service of its own (other lexicons, other settings) starts it with a
  command `LEXICON_…=… lexicon serve &` (settings as variables only; LEXICON_FILES, and
  LEXICON_EVENT naming a file, relative to the block's directory): the test starts that service
  on a free port instead (ready before the next command, stopped at the block's end) and its curl
  examples talk to it.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, LiveServer, stop_soon

pytestmark = pytest.mark.slow  # the manual's commands run on the real default lexicons

README = REPO / "README.md"
DOCS = [README, *sorted((REPO / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
README_LINES = 250  # a newcomer's page: the rest is the manual in docs/
SERVE = re.compile(r"((?:LEXICON_[A-Z_]+=\S+ )*)lexicon serve &")  # a block's own service
DATABASE = "@db.example/lexicon"  # a block's database, in a `postgresql://` URL: one of its own per block


def console_blocks(text: str, name: str = "README.md") -> list[tuple[int, list[tuple[str, list[str]]]]]:
    """(line number, [(command, expected output lines)]) of every ```console block."""
    blocks = []
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        if lines[number].strip() != "```console":
            number += 1
            continue
        indent = len(lines[number]) - len(lines[number].lstrip(" "))
        start, body = number + 1, []
        number += 1
        while lines[number].strip() != "```":
            assert not lines[number][:indent].strip(), f"{name} line {number + 1}: less indented than its fence"
            body.append(lines[number][indent:])
            number += 1
        examples: list[tuple[str, list[str]]] = []
        index = 0
        while index < len(body):
            assert body[index].startswith("$ "), f"{name} line {start + index + 1}: output before any `$ ` command"
            command = body[index][2:]
            while command.endswith("\\"):
                index += 1
                command += "\n" + body[index]  # bash reads the backslash-newline
            index += 1
            output = []
            while index < len(body) and not body[index].startswith("$ "):
                output.append(body[index])
                index += 1
            examples.append((command, output))
        blocks.append((start, examples))
    return blocks


def matches(expected: str, actual: str) -> bool:
    """`…` is any text within the line; everything else is exact.

    >>> matches('"checksum": "7405…"}', '"checksum": "74056e85aa"}')
    True
    >>> matches("VALID", "NOT VALID")
    False
    """
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


BLOCKS = [
    (doc.relative_to(REPO).as_posix(), start, examples)
    for doc in DOCS
    for start, examples in console_blocks(doc.read_text(encoding="utf-8"), doc.name)
]


def test_the_readme_has_console_examples_and_so_do_the_docs():
    readme = [examples for name, _, examples in BLOCKS if name == "README.md"]
    assert len(readme) >= 2 and any("lexicon check" in c for block in readme for c, _ in block)
    assert any("curl" in c for block in readme for c, _ in block)
    assert {name for name, _, _ in BLOCKS} >= {"README.md", "docs/cli.md", "docs/api.md", "docs/disc.md"}


def test_the_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_LINES


@pytest.fixture(scope="session")
def defaults_built():
    """The checkout's default lexicons, built before any example (whose output would show it)."""
    subprocess.run([str(BIN / "lexicon"), "build-defaults"], cwd=REPO, check=True, capture_output=True)


@pytest.fixture(scope="session")
def served(defaults_built, tmp_path_factory):
    """`lexicon serve` with the default lexicons, for the curl examples: its port."""
    server = LiveServer(tmp_path_factory.mktemp("readme-serve"), None)
    server.wait_ready()
    yield server.port
    stop_soon(server)


def example_blocks() -> list:
    """BLOCKS as test parameters; a block with a curl example talks to a live server, and says so
    (tests/tiers.py: `make check` leaves it out)."""
    return [
        pytest.param(
            name,
            start,
            examples,
            id=f"{name}:{start}",
            marks=[pytest.mark.server] * any("curl" in c for c, _ in examples)
            + [pytest.mark.postgres] * any(DATABASE in c for c, _ in examples),
        )
        for name, start, examples in BLOCKS
    ]


@pytest.mark.parametrize("name, start, examples", example_blocks())
def test_console_example(name, start, examples, defaults_built, tmp_path, request):
    (tmp_path / "data").symlink_to(REPO / "data")
    (tmp_path / "tests").symlink_to(REPO / "tests")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    own = any(SERVE.fullmatch(c) for c, _ in examples)
    port = request.getfixturevalue("served") if any("curl" in c for c, _ in examples) and not own else None
    database = None
    if any(DATABASE in c for c, _ in examples):
        server = request.getfixturevalue("postgres_server")
        made = server.create_database(f"docs_{tmp_path.name.lower().replace('-', '_')}"[:63])
        database = f"@127.0.0.1:{server.port}/{made}"
    with contextlib.ExitStack() as services:
        for command, expected in examples:
            if started := SERVE.fullmatch(command):
                assert expected == [], f"{name} line {start}: `lexicon serve &` shows no output"
                port = services.enter_context(own_service(started.group(1), tmp_path, database)).port
                continue
            run_example(name, start, command, expected, port, tmp_path, env, database)


def own_service(assignments: str, folder: Path, database: str | None = None) -> LiveServer:
    """The service a block starts itself (`LEXICON_…=… lexicon serve &`), on a free port; its
    settings name the block's own database, if it has one, in place of DATABASE."""
    settings = dict(assignment.split("=", 1) for assignment in assignments.split())
    if database is not None:
        settings = {name: value.replace(DATABASE, database) for name, value in settings.items()}
    if "LEXICON_FILES" in settings:
        settings["LEXICON_FILES"] = os.pathsep.join(
            str(folder / file) for file in settings["LEXICON_FILES"].split(os.pathsep)
        )
    if "LEXICON_EVENT" in settings and "://" not in settings["LEXICON_EVENT"]:
        settings["LEXICON_EVENT"] = str(folder / settings["LEXICON_EVENT"])  # an event file the block made
    return LiveServer(folder, None, **settings)


def run_example(
    name: str,
    start: int,
    command: str,
    expected: list[str],
    port: int | None,
    folder: Path,
    env: dict[str, str],
    database: str | None = None,
) -> None:
    """One command of a block, its output compared with the doc's. `database`: the address of the
    block's own database, in place of DATABASE."""
    if port is not None:
        command = command.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    if database is not None:
        command = command.replace(DATABASE, database)
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )
    shown = done.stdout if database is None else done.stdout.replace(database, DATABASE)
    actual = shown.split("\n")
    if actual and actual[-1] == "":
        actual.pop()
    assert len(actual) == len(expected) and all(map(matches, expected, actual)), (
        f"{name} line {start}: $ {command}\nexpected:\n" + "\n".join(expected) + "\nactual:\n" + shown
    )


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens.

    >>> slug("What changed between two releases: `lexicon diff`")
    'what-changed-between-two-releases-lexicon-diff'
    >>> slug("The judge's page")
    'the-judges-page'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown file's headings (outside code blocks), numbered when repeated."""
    found: set[str] = set()
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6} (.+)", line)):
            anchor, count = slug(match.group(1)), 1
            while anchor in found:
                anchor, count = f"{slug(match.group(1))}-{count}", count + 1
            found.add(anchor)
    return found


def links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every inline link outside code blocks and code spans."""
    found, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            prose = re.sub(r"`[^`]*`", "", line)
            found += [(number, target) for target in re.findall(r"\]\(([^)\s]+)\)", prose)]
    return found


@pytest.mark.parametrize("doc", DOCS, ids=[doc.relative_to(REPO).as_posix() for doc in DOCS])
def test_every_relative_link_and_anchor_resolves(doc):
    broken = []
    for number, target in links(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto: leave the repository
        path, _, anchor = target.partition("#")
        linked = (doc.parent / path).resolve() if path else doc
        if not linked.exists() or not linked.is_relative_to(REPO):
            broken.append(f"line {number}: {target}: no such file")
        elif anchor and (linked.suffix != ".md" or anchor not in anchors(linked.read_text(encoding="utf-8"))):
            broken.append(f"line {number}: {target}: no such heading")
    assert not broken, broken


def test_the_manual_index_links_every_doc():
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    linked = {target.partition("#")[0] for _, target in links(index)}
    assert {doc.name for doc in DOCS if doc.parent.name == "docs" and doc.name != "index.md"} <= linked


def test_the_link_checker_finds_a_broken_link_and_a_broken_anchor(tmp_path):
    text = "# Title\n\nSee [a](#title), [b](#nowhere) and `[c](#in-code)`.\n```\n[d](missing.md)\n```\n"
    assert links(text) == [(3, "#title"), (3, "#nowhere")]
    assert anchors(text) == {"title"}


def test_every_test_the_threat_model_cites_exists():
    """docs/tournament.md's threat model names, for each row, the tests that show it: each must be
    a test function in that file, or the table would vouch for what nothing checks."""
    text = (REPO / "docs" / "tournament.md").read_text(encoding="utf-8")
    table = text[text.index("## Threat model") :]
    cited = re.findall(r"`([\w/]+\.py)::(\w+)`", table[: table.index("\n## ")])
    assert len(cited) > 20
    missing = [
        f"{path}::{name}"
        for path, name in cited
        if not re.search(rf"^\s*(async )?def {name}\(", (REPO / "tests" / path).read_text(encoding="utf-8"), re.M)
    ]
    assert missing == []


def test_every_section_a_page_text_names_exists():
    """A text of a page that sends its reader to the docs (the judge's page over plain HTTP sends
    the director to docs/event-guide.md#phones-over-plain-http) names a doc and a heading that exist."""
    named = [
        (path, target)
        for path in sorted((REPO / "service" / "texts").rglob("*.toml"))
        for target in re.findall(r"\b(docs/[\w-]+\.md(?:#[\w-]+)?)", path.read_text(encoding="utf-8"))
    ]
    assert any(target == "docs/event-guide.md#phones-over-plain-http" for _, target in named)
    for path, target in named:
        doc, _, anchor = target.partition("#")
        assert (REPO / doc).exists(), (path, target)
        assert not anchor or anchor in anchors((REPO / doc).read_text(encoding="utf-8")), (path, target)
