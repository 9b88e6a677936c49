"""Every console example of the README and of docs/*.md is run, and its output must be the doc's;
every link between them resolves.

The convention (for whoever adds an example):

- A block fenced as ```console is an example, and is run. A fence indented (inside a list item)
  indents its whole block as much; the indentation is not part of the commands or the output. Any
  other fence (```sh, or a plain ``` for make) is not run here.
- A ```sh block is commands a reader types whose output is not shown whole, or which need what a
  console block cannot give (a service, nginx, files of the reader's own). Each is run, as
  written, by a test of its own that reads it from the doc (the README's step 5 by
  tests/lexicon_cli/test_event.py, say), or is a template no test can run, with a reason (none
  today: the tests put their own in place of db.example or /etc/nginx). SH_BLOCKS names, for
  each, that test or why none runs it, and test_every_sh_block_is_run_by_a_test_or_is_a_template
  fails for a block it does not name.
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


# Every ```sh block of README.md and docs/*.md, by (doc, its section's heading, its first command,
# without `$ `, a comment or a closing backslash): the test that runs it (a test function in a
# file that reads that doc), or TEMPLATE and why none does.
TEMPLATE = "template: "
SH_BLOCKS = {
    ("README.md", "A first event", "lexicon records verify open-lleida.db"): (
        "lexicon_cli/test_event.py::test_the_readme_first_event_closing_commands_run_and_print_what_its_comment_says"
    ),
    (
        "docs/cli.md",
        "Building a federation's list",
        'lexicon build FILE2017.txt --lang es --notation tiles --id file2017 --name "FILE 2017"',
    ): (
        "lexicon_cli/test_build.py::test_the_federation_build_of_cli_md_compiles_a_tiles_list_that_the_service_then_serves"
    ),
    (
        "docs/disc.md",
        "Building and expanding",
        'lexicon build path/to/disc --from disc --lang ca --id disc-new --version "…"',
    ): ("build_tools/test_disc_command.py::test_the_commands_disc_md_gives_run_as_written"),
    # every `$ lexicon` line of the guide's blocks but build-defaults (defaults_built's, above); its serve
    # lines are other tests' (test_event.py's GUIDE_SERVES)
    **{
        ("docs/event-guide.md", heading, first): (
            "lexicon_cli/test_event.py::test_the_guide_commands_for_running_an_event_work_and_print_what_it_shows"
        )
        for heading, first in (
            ("The director's checklist", "lexicon build-defaults"),
            ("The director's checklist", "LEXICON_EVENT=open-lleida.db lexicon serve --host 0.0.0.0"),
            ("The director's checklist", "lexicon records verify open-lleida.db"),
            ("Create the event", 'lexicon event init open-lleida.db --name "Open de Lleida 2026" --lexicon ca'),
            ("An appeal", "lexicon records export open-lleida.db --round 3 -o ronda3.csv"),
            ("An appeal", "lexicon records verify open-lleida.db"),
            ("Export", "lexicon records export open-lleida.db --round 3 -o ronda3.csv"),
            ("Verify an export on another computer", "lexicon records verify ronda3.csv"),
            ("Backups", "lexicon event backup open-lleida.db copia.db"),
            ("Backups", "lexicon event restore copia.db open-lleida-2.db"),
            ("Lost password", "lexicon event password open-lleida.db"),
            ("Lost password", "lexicon event login open-lleida.db"),
        )
    },
    (
        "docs/judge-page.md",
        "The installed app",
        "LEXICON_EVENT=open-lleida.db LEXICON_PUBLIC_URL=https://juez.federacion.org/ LEXICON_TRUSTED_PROXIES=127.0.0.1 lexicon serve",
    ): ("deploy/test_nginx_event.py::test_the_installed_apps_steps_pair_a_phone_through_nginx_on_the_laptop"),
    (
        "docs/operations.md",
        "Reload without a restart",
        "lexicon build fed-2027.txt --lang es --id fed-2027 --version 2027 -o fed-2027.lex",
    ): ("service/test_reload.py::test_the_reload_examples_build_and_export_lines_make_the_files_its_reload_serves"),
    (
        "docs/operations.md",
        "One laptop, or many instances",
        "envsubst '${NGINX_USER} ${NGINX_STATE} ${UPSTREAMS} ${HTTP_PORT} ${HTTPS_PORT} ${SERVER_NAME}",
    ): ("deploy/test_nginx.py::test_verdicts_through_nginx_are_the_same_bytes"),
    (
        "docs/operations.md",
        "Every event of a database, from one service",
        "adduser --system --group --home /var/lib/lexicon-judge lexicon-judge",
    ): (
        "deploy/test_service_unit.py::test_the_unit_of_operations_md_serves_the_databases_events_and_stops_on_its_signal"
    ),
    ("docs/operations.md", "One laptop, or many instances", "systemctl stop nginx"): (
        "deploy/test_nginx_systemd.py::test_the_drop_in_of_operations_md_points_debians_unit_at_the_rendered_pid"
    ),
    (
        "docs/operations.md",
        "A federation's service",
        "lexicon event init 'postgresql://lexicon_owner@db.example/lexicon?event=open-lleida-2026'",
    ): (
        "deploy/test_federation_season.py::test_a_season_by_the_docs_two_events_two_instances_an_instance_killed_and_the_database_restarted"
    ),
    (
        "docs/operations.md",
        "A federation's service",
        "LEXICON_EVENT='postgresql://lexicon@db.example/lexicon?event=open-lleida-2026' lexicon serve --host 0.0.0.0",
    ): ("lexicon_cli/test_serve.py::test_one_event_of_a_database_is_served_by_the_lines_of_operations_md"),
    (
        "docs/operations.md",
        "Every event of a database, from one service",
        "LEXICON_EVENT='postgresql://lexicon@db.example/lexicon' LEXICON_PUBLIC_URL=https://juez.example.org/",
    ): (
        "deploy/test_federation_season.py::test_a_season_by_the_docs_two_events_two_instances_an_instance_killed_and_the_database_restarted"
    ),
    (
        "docs/operations.md",
        "Every event of a database, from one service",
        "lexicon event init 'postgresql://lexicon_owner@db.example/lexicon?event=open-lleida-2026'",
    ): ("lexicon_cli/test_event_laptop.py::test_login_to_an_event_of_a_database_says_to_hand_the_link_to_its_director"),
    (
        "docs/operations.md",
        "Backups of a federation's database",
        "pg_dump --format=custom --file=lexicon-$(date +%F).dump 'postgresql://lexicon_owner@db.example/lexicon'",
    ): ("lexicon_cli/test_move.py::test_the_whole_database_backup_of_operations_md_restores_every_event_as_it_was"),
}


def sh_blocks(text: str) -> list[tuple[int, str, str]]:
    r"""(line, the heading of its section, its first command) of every ```sh block: the command
    without `$ `, a comment or a closing backslash.

    >>> sh_blocks("# A\n```sh\n$ lexicon info x.lex   # the header\n```\n## B\n  ```sh\n  a \\\n  b\n  ```\n")
    [(2, 'A', 'lexicon info x.lex'), (6, 'B', 'a')]
    """
    found, heading, fence = [], "", None
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if fence is None and stripped.startswith("```"):
            fence = stripped
            if stripped == "```sh":
                first = next(filter(str.strip, lines[number:])).strip()
                first = re.sub(r"\s+#.*", "", first.removeprefix("$ ")).removesuffix("\\").strip()
                found.append((number, heading, first))
        elif fence is not None and stripped == "```":
            fence = None
        elif fence is None and (match := re.match(r"#{1,6} (.+)", line)):
            heading = match.group(1).strip()
    return found


def test_every_sh_block_is_run_by_a_test_or_is_a_template():
    """A ```sh block of the docs is run by no console test: SH_BLOCKS names the test that runs it
    (which must exist, in a file that reads that doc) or why none does. A block added, or its
    first command changed, fails here until it is run or said to be a template; an entry left
    over fails too."""
    found = {
        (doc.relative_to(REPO).as_posix(), heading, first): line
        for doc in DOCS
        for line, heading, first in sh_blocks(doc.read_text(encoding="utf-8"))
    }
    unnamed = [
        f"{doc}:{line}: {first!r} (under {heading!r})"
        for (doc, heading, first), line in found.items()
        if (doc, heading, first) not in SH_BLOCKS
    ]
    assert not unnamed, "```sh blocks no test runs and SH_BLOCKS does not call templates: " + "; ".join(unnamed)
    assert not set(SH_BLOCKS) - set(found), (
        f"SH_BLOCKS names blocks the docs no longer have: {set(SH_BLOCKS) - set(found)}"
    )
    for (doc, _, first), runner in SH_BLOCKS.items():
        if runner.startswith(TEMPLATE):
            assert len(runner) > len(TEMPLATE) + 20, f"{doc}: {first!r}: a template says why no test runs it"
            continue
        path, _, name = runner.partition("::")
        source = (REPO / "tests" / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, re.M), f"{doc}: {first!r}: no test {runner}"
        assert Path(doc).name in source, f"{doc}: {first!r}: tests/{path} does not read {doc}"


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
