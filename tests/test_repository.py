"""What a newcomer's checkout and `make` do: the files git keeps, what `make run` installs."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support import LEXICON_SCRIPT, REPO


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def test_gitignore_lists_no_tracked_file():
    assert git("ls-files", "--cached", "--ignored", "--exclude-standard") == ""


def test_what_the_readme_examples_write_is_ignored():
    for name in ("forms.tsv", "theirs.tsv", "mini.lex", "access.log", "report.json", "build/lexicons/es.lex"):
        assert git("check-ignore", "--no-index", name).strip() == name


def make_plan(target: str, *variables: str) -> str:
    """The commands `make TARGET` would run from scratch (nothing is run)."""
    return subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", target, *variables],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_make_run_listens_on_port_or_lexicon_port():
    """No port written into the Makefile: PORT=8001, else LEXICON_PORT, else serve's 8000."""
    serve = [line for line in make_plan("run").splitlines() if " serve" in line]
    assert serve == [".venv/bin/lexicon serve --host 127.0.0.1"]  # LEXICON_PORT or 8000: serve decides
    assert make_plan("run", "PORT=8001").splitlines()[-1] == ".venv/bin/lexicon serve --host 127.0.0.1 --port 8001"


def test_make_run_builds_the_defaults_once_in_lexicon_serve():
    """`lexicon serve` builds the default lexicons missing or out of date and says a line for each;
    `make run` ran `lexicon build-defaults` first, so a director read each 'up to date' twice."""
    plan = make_plan("run")
    assert "lexicon build-defaults" not in plan and plan.splitlines()[-1] == ".venv/bin/lexicon serve --host 127.0.0.1"


def test_make_run_installs_no_test_tools_and_make_test_adds_them():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    running = " ".join(project["dependencies"]).lower()
    for tool in ("pytest", "playwright", "hypothesis", "schemathesis", "psutil"):
        assert tool not in running
    run = make_plan("run")
    assert "pip install -qq --editable '.'\n" in run and "[" not in run
    assert "pip install -qq --editable '.[test]'" in make_plan("test")
    assert any(requirement.startswith("pytest-randomly") for requirement in project["optional-dependencies"]["test"])


def test_eslint_and_its_packages_are_pinned_to_their_exact_versions():
    """`make check` lints with what the Makefile names, never a newer release (whose new rules
    would turn it red by themselves), and a new version of ESLint is installed anew."""
    makefile = (REPO / "Makefile").read_text()
    packages = re.search(r"^ESLINT_PACKAGES := (.+)$", makefile, re.M).group(1).split()
    names = {package.rpartition("@")[0]: package.rpartition("@")[2] for package in packages}
    assert set(names) == {"eslint", "@eslint/js", "globals", "@stylistic/eslint-plugin"}
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", version) for version in names.values()), names
    assert f"\neslint: $(NODE_TOOLS)/.eslint-{names['eslint']}\n" in makefile
    assert "--save-exact" in makefile.split("\neslint:", 1)[1].split("\n\n", 1)[0]


def test_the_server_and_the_libraries_the_service_leans_on_are_pinned_to_a_major():
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = {Requirement(d).name: str(Requirement(d).specifier) for d in dependencies}
    for name in ("gunicorn", "Flask", "Werkzeug", "click", "marisa-trie"):
        assert ",<" in pinned[name] or pinned[name].startswith("<"), (name, pinned[name])


def run_dependencies() -> set[str]:
    """The distributions `make run` installs: the project's dependencies and theirs, extras followed."""
    wanted = [Requirement(d) for d in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]]
    found: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        found.add(name)
        for extra in requirement.extras or {""}:
            for line in importlib.metadata.requires(requirement.name) or []:
                needed = Requirement(line)
                if needed.marker is None or needed.marker.evaluate({"extra": extra}):
                    wanted.append(needed)
    return found


# Refuses, in a fresh interpreter, every installed module that no run dependency provides: what
# the test extra installed beside them (packaging, via pytest) is then missing, as on a machine
# that only ran `make run`.
ONLY_RUN_DEPENDENCIES = """
import sys
import pytest
class Refuse:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in REFUSED:
            raise ModuleNotFoundError(f"No module named {name!r} (not a run dependency)", name=name)
sys.meta_path.insert(0, Refuse)
"""


@pytest.mark.slow
def test_the_service_and_its_gevent_worker_import_with_the_run_dependencies_alone():
    # On a fresh machine `make run` once stopped at gunicorn's gevent worker: it imports
    # packaging, which only gunicorn's gevent extra declares, and the test extra had hidden it.
    running = run_dependencies() | {"lexicon-judge"}
    refused = sorted(
        module
        for module, distributions in importlib.metadata.packages_distributions().items()
        if not any(canonicalize_name(d) in running for d in distributions)
    )
    assert {"pytest", "playwright"} <= set(refused)  # the refusal is real: the test extra is installed here
    # create_app() serves the default lexicons: built first, as `make run`'s serve does (a no-op once built),
    # so this test passes alone and first in a fresh clone
    subprocess.run([str(LEXICON_SCRIPT), "build-defaults"], check=True, cwd=REPO, capture_output=True, timeout=300)
    code = (
        f"REFUSED = {set(refused)!r}"
        + ONLY_RUN_DEPENDENCIES
        + "import gunicorn.workers.ggevent, service.app, service.gunicorn_conf, lexicon_cli\n"
        "service.app.create_app()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


def test_msgspec_is_pinned_to_the_minor_tested_because_its_error_messages_are_parsed():
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    requirement = next(d for d in dependencies if d.startswith("msgspec>"))
    major, minor = (int(part) for part in importlib.metadata.version("msgspec").split(".")[:2])
    assert requirement == f"msgspec>={major}.{minor},<{major}.{minor + 1}", requirement


def test_make_test_installs_chromium_and_node_when_missing():
    plan = make_plan("test")
    assert "command -v chromium" in plan and "apt-get install -y chromium" in plan
    assert "command -v node" in plan and "apt-get install -y nodejs" in plan


# An issue or pull request number means nothing to a reader of the repository: docs, code
# comments and docstrings say what and why instead. data/ holds third-party sources, kept as
# published; CSS colours (#333) are the one `#` and digits that is no number of anything.
NUMBERED_REFERENCE = re.compile(
    r"\b(?:issue|pr|pull request|ticket)s?\s*#?\d+|\bthe issue\b|\(issue\)|(?<![\w&\"'#])#\d+\b", re.I
)


def numbered_references(path: str, text: str) -> list[str]:
    """The lines of a file that cite an issue or pull request by number.

    >>> numbered_references("a.py", "x = 1  # issue 10\\ny = '#fff'  # see #12\\nz = 2  # fine\\n")
    ['a.py:1: x = 1  # issue 10', "a.py:2: y = '#fff'  # see #12"]
    >>> numbered_references("a.css", "b { color: #333; }\\n")
    []
    """
    if path.endswith(".css"):
        text = re.sub(r"#[0-9a-fA-F]{3,8}\b", "", text)
    return [
        f"{path}:{number}: {line}"
        for number, line in enumerate(text.splitlines(), 1)
        if NUMBERED_REFERENCE.search(line)
    ]


def test_no_doc_or_code_cites_an_issue_by_number():
    found = []
    for path in git("ls-files").splitlines():
        if path.startswith("data/") or path == "tests/test_repository.py":
            continue
        try:
            text = (REPO / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue  # a binary file: no prose in it
        found += numbered_references(path, text)
    assert not found, "\n".join(found)


PACKAGES = ("lexicon", "build_tools", "tournament", "service", "lexicon_cli")


def test_every_pip_install_the_docs_and_messages_give_installs_this_checkout():
    """The project is installed from its checkout (`pip install .`, an extra as `'.[postgresql]'`),
    not by its name from a package index, which does not hold it: a reader typing the name gets
    'No matching distribution found', or someone else's package of that name. The docs, and the
    product's own messages (an event in a database without the extra installed)."""
    extras = set(
        tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    )
    found = []
    code = [path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))]
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *code]:
        for target in re.findall(r"pip install (?:-e )?('[^']*'|\S+?)(?=[`\s])", doc.read_text(encoding="utf-8")):
            found.append(target)
            match = re.fullmatch(r"'?\.(?:\[([a-z,]+)\])?'?", target)
            assert match, f"{doc.name}: `pip install {target}`: install this checkout, `.` or '.[EXTRA]'"
            assert set((match.group(1) or "").split(",")) - {""} <= extras, f"{doc.name}: {target}: no such extra"
    assert len(found) >= 4  # the README's, lexicons.md's, the PostgreSQL extra's and its message
