"""The packages' layers hold: import-linter's contracts in pyproject.toml ([tool.importlinter]).

Each package imports only those below it (asset tools and bench > lexicon_cli > service >
tournament > build_tools > lexicon), only the app factory wires tournament mode's HTTP
(service.event) into the web package, the event is used through what tournament/__init__.py
exports, the core and the event know no web framework, and no package's modules import each
other in a circle. The checks run on the code as written (`lint-imports` reads the sources; it
imports nothing of ours), so a forbidden import inside a function is caught too. `make check`
runs the tests that break nothing; the ones that break a copy of the code are in the slow tier.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
LINTER = CONFIG["tool"]["importlinter"]
NOT_PACKAGES = {"tests", "build", "dist", "docs", "data", "deploy"}


def lint_imports(where: Path) -> subprocess.CompletedProcess:
    # --no-cache: a cache left by an earlier run must not answer for files that changed since
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(where / "pyproject.toml")],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=120,
    )


def top_level_packages() -> set[str]:
    """Every folder of the checkout that holds Python modules, but the tests: what could import."""
    return {
        path.name
        for path in REPO.iterdir()
        if path.is_dir() and not path.name.startswith(".") and path.name not in NOT_PACKAGES and any(path.glob("*.py"))
    }


def test_the_layers_hold():
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "BROKEN" not in result.stdout


def test_every_package_is_in_the_layers_so_a_new_one_cannot_slip_by():
    packages = top_level_packages()
    assert {"lexicon", "build_tools", "tournament", "service", "lexicon_cli", "asset_tools", "bench"} <= packages
    assert set(LINTER["root_packages"]) == packages
    layers = next(c for c in LINTER["contracts"] if c["type"] == "layers")
    named = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    assert named == packages
    # the installed packages are the layers a running service needs; the developer's tools stay out
    installed = {name for name in CONFIG["tool"]["setuptools"]["packages"] if "." not in name}
    assert installed == packages - {"asset_tools", "bench"} | {"lexicon_data"}


# The modules of tournament/ that put the stores together behind the rules, and so may import them
STORE_FACING = {"__init__", "store", "transfer"}


def test_every_module_of_the_event_is_a_rule_or_puts_the_stores_together():
    """A module added to tournament/ is under the rules-over-storage contract unless it is named
    here as one that opens a store: otherwise a new rule could import a store unseen."""
    contract = next(c for c in LINTER["contracts"] if c["id"] == "rules-over-storage")
    modules = {path.stem for path in (REPO / "tournament").glob("*.py")}
    assert modules - STORE_FACING == {name.removeprefix("tournament.") for name in contract["source_modules"]}


def only_python(folder: str, names: list[str]) -> list[str]:
    return [
        name for name in names if name == "__pycache__" or not (name.endswith(".py") or (Path(folder) / name).is_dir())
    ]


def copy_of_the_code(tmp_path: Path) -> Path:
    """The checkout's Python sources and pyproject.toml, in a temporary folder to change."""
    for package in LINTER["root_packages"]:
        shutil.copytree(REPO / package, tmp_path / package, ignore=only_python)
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


@pytest.mark.slow  # lint-imports on a copy of the code: a second or two each
def test_an_upward_import_breaks_the_layers(tmp_path):
    # what build_tools/icons.py once did: the compiler reading the service's lists
    copy = copy_of_the_code(tmp_path)
    assert lint_imports(copy).returncode == 0  # the copy is checked, and holds as the checkout does
    (copy / "build_tools" / "icons.py").write_text("from service.installable import ICONS\n", encoding="utf-8")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "Layers: developer tools > command line > service > event > compiler > core BROKEN" in result.stdout
    assert "build_tools.icons -> service.installable" in result.stdout


@pytest.mark.slow  # lint-imports on a copy of the code: a second or two each
def test_the_common_web_package_importing_the_event_http_breaks_a_contract(tmp_path):
    # what service/openapi.py once did: reading tournament mode's types and paths itself
    copy = copy_of_the_code(tmp_path)
    with (copy / "service" / "openapi.py").open("a", encoding="utf-8") as module:
        module.write("\nfrom .event import openapi_paths  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "service.openapi -> service.event.openapi_paths" in result.stdout


@pytest.mark.slow  # lint-imports on a copy of the code: a second or two each
def test_a_module_of_the_event_imported_past_its_exports_breaks_a_contract(tmp_path):
    # what service/tournament/routes.py once did with its store's constants
    copy = copy_of_the_code(tmp_path)
    with (copy / "service" / "event" / "routes.py").open("a", encoding="utf-8") as module:
        module.write("\nfrom tournament.devices import CODE_LIFETIME  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "service.event.routes -> tournament.devices" in result.stdout


@pytest.mark.slow  # lint-imports on a copy of the code
def test_a_rule_writing_sql_itself_breaks_a_contract(tmp_path):
    # the rules (rounds.py) once ran their own SQL on the event file: a rule uses the storage interface
    copy = copy_of_the_code(tmp_path)
    with (copy / "tournament" / "rounds.py").open("a", encoding="utf-8") as module:
        module.write("\nimport sqlite3  # noqa\nfrom .stores.sqlite import SQLiteStorage  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "tournament.rounds -> sqlite3" in result.stdout
    assert "tournament.rounds -> tournament.stores.sqlite" in result.stdout


@pytest.mark.slow  # lint-imports on a copy of the code
def test_a_store_deciding_a_rule_itself_breaks_a_contract(tmp_path):
    # a store that checked a rule would have it twice, and a second store would lack it
    copy = copy_of_the_code(tmp_path)
    with (copy / "tournament" / "stores" / "sqlite" / "tables.py").open("a", encoding="utf-8") as module:
        module.write("\nfrom ...rounds import IN_TOUCH  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "tournament.stores.sqlite.tables -> tournament.rounds" in result.stdout
