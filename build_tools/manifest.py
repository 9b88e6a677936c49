"""The manifest of default lexicons (data/manifest.toml) and where their compiled files live.

The core knows nothing of this layout; the CLI and the service ask here what "es" means.
A default is rebuilt only when it is missing, unreadable, or out of date: built by another
version of this program or from other source bytes than those in data/ now.

Where things are:
- in a source checkout (an editable install, or tests run from the repository), data/ beside
  pyproject.toml, and the compiled files in build/lexicons, as the manifest's `output` says;
- in an installed package (`pip install .`), data/ is the package `lexicon_data` (read-only, may
  belong to root), and the compiled files go to the user's data directory:
  $XDG_DATA_HOME/lexicon-judge/lexicons, by default ~/.local/share/lexicon-judge/lexicons;
- with a home given (LEXICON_HOME, read by service.config), HOME/lexicons in either case.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from lexicon.alphabet import NOTATIONS, languages
from lexicon.errors import LexiconError, MetaError, cut, show_word
from lexicon.lexfile import Header, LexiconMeta, check_id, check_label, check_note, read_header, tool_version

from .sources import KINDS

ROOT = Path(__file__).resolve().parents[1]  # the checkout, or site-packages once installed
CHECKOUT_MANIFEST = ROOT / "data" / "manifest.toml"
PACKAGED_MANIFEST = ROOT / "lexicon_data" / "manifest.toml"


def in_checkout() -> bool:
    """True when running from the sources (pyproject.toml beside data/), not an installed package."""
    return (ROOT / "pyproject.toml").is_file() and CHECKOUT_MANIFEST.is_file()


def default_manifest() -> Path:
    return CHECKOUT_MANIFEST if in_checkout() else PACKAGED_MANIFEST


def user_data_dir(data_home: str | os.PathLike | None = None) -> Path:
    """Where an installed Lexicon Judge keeps what it compiles (the XDG base directory rules):
    `data_home` (XDG_DATA_HOME, read by service.config) if absolute, else ~/.local/share."""
    base = data_home if data_home is not None and os.path.isabs(data_home) else None
    if base is None:
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "lexicon-judge"


DEFAULT_MANIFEST = default_manifest()


class ManifestError(LexiconError):
    pass


@dataclass(frozen=True)
class Entry:
    id: str
    language: str
    default: bool
    name: str
    version: str
    kind: str  # "list" or "disc"
    notation: str
    source: Path
    description: str
    licence: str
    output: Path

    def meta(self, source_sha256: str) -> LexiconMeta:
        return LexiconMeta(
            id=self.id,
            language=self.language,
            name=self.name,
            version=self.version,
            source=self.description,
            licence=self.licence,
            build={"from": self.kind, "notation": self.notation, "source_sha256": source_sha256},
        )


@dataclass(frozen=True)
class Manifest:
    path: Path
    entries: tuple[Entry, ...]

    def find(self, name: str) -> Entry | None:
        """The entry called `name`: its id, or a language code for that language's default."""
        for entry in self.entries:
            if entry.id == name or (entry.default and entry.language == name):
                return entry
        return None

    def names(self) -> list[str]:
        return sorted({e.language for e in self.entries if e.default} | {e.id for e in self.entries})


def load_manifest(
    path: str | os.PathLike | None = None,
    home: str | os.PathLike | None = None,
    data_home: str | os.PathLike | None = None,
) -> Manifest:
    """The manifest at `path` (None: the default lexicons); compiled files in HOME/lexicons if given,
    else for an installed copy in user_data_dir(data_home)."""
    packaged = path is None and not in_checkout()
    path = Path(path) if path is not None else default_manifest()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ManifestError(f"cannot read the manifest {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{path}: {error}") from None
    problem = _problem(data)
    if problem:
        raise ManifestError(f"{path}: {problem}")
    base = path.parent
    if home is not None:
        output = Path(home).resolve() / "lexicons"
    elif packaged:
        output = user_data_dir(data_home) / "lexicons"
    else:
        output = (base / data.get("output", "../build/lexicons")).resolve()
    entries = []
    for item in data.get("lexicon", []):
        try:
            check_id(item["id"])  # before it names a file in the output directory
            check_label("name", item["name"], 200)
            check_label("version", item["version"])
            check_note("description", item.get("description", ""))
            check_note("licence", item.get("licence", ""))
        except MetaError as error:
            raise ManifestError(f"{path}: {error}") from None
        entries.append(
            Entry(
                id=item["id"],
                language=item["language"],
                default=item.get("default", False),
                name=item["name"],
                version=item["version"],
                kind=item.get("from", "list"),
                notation=item.get("notation", "spelling"),
                source=(base / item["source"]).resolve(),
                description=item.get("description", ""),
                licence=item.get("licence", ""),
                output=output / f"{item['id']}.lex",
            )
        )
    for language in {e.language for e in entries}:
        if sum(e.default for e in entries if e.language == language) > 1:
            raise ManifestError(f"{path}: more than one default for {language!r}")
    return Manifest(path, tuple(entries))


# A manifest's keys, each with its type; every other key is a typo, refused rather than ignored.
_TOP = {"output": str, "lexicon": list}
_FIELDS = {
    "id": str,
    "language": str,
    "default": bool,
    "name": str,
    "version": str,
    "from": str,
    "notation": str,
    "source": str,
    "description": str,
    "licence": str,
}
_REQUIRED = ("id", "language", "name", "version", "source")
_TYPES = {str: "text", bool: "true or false", list: "a list of [[lexicon]] tables"}


def _problem(data: dict) -> str | None:
    """What in a manifest's data cannot be used, quoting it; None if nothing.

    A federation writes its own manifest (LEXICON_MANIFEST) by hand: a misspelt key would
    silently be a default value (`defualt`, `[[lexicons]]`: nothing to build), and a value of
    another type or none of the choices a traceback deep in the build.
    """
    problem = _keys(data, _TOP, "")
    if problem:
        return problem
    choices = {"language": languages(), "from": KINDS, "notation": NOTATIONS}
    for item in data.get("lexicon", []):
        if not isinstance(item, dict):
            return f"lexicon is {_shown(item)}, not a [[lexicon]] table"
        if not isinstance(item.get("id", ""), str):
            return f"a lexicon's id is {_shown(item['id'])}, not text"
        within = f"lexicon {_shown(item.get('id', '?'))}: "
        missing = [key for key in _REQUIRED if key not in item]
        if missing:
            return f"{within}lacks {missing[0]!r}"
        problem = _keys(item, _FIELDS, within)
        if problem:
            return problem
        for key, known in choices.items():
            if key in item and item[key] not in known:
                return f"{within}{key} {_shown(item[key])} is not one of: {', '.join(known)}"
    return None


def _keys(table: dict, types: dict, within: str) -> str | None:
    """The first key of `table` not in `types`, or of another type, said; None if none."""
    for key, value in table.items():
        if key not in types:
            return f"{within}unknown key {_shown(key)} (known: {', '.join(types)})"
        if not isinstance(value, types[key]):
            return f"{within}{key} is {_shown(value)}, not {_TYPES[types[key]]}"
    return None


def _shown(value: object) -> str:
    """A manifest's value quoted in its error as any bad input is: text escaped and cut past
    lexicon.errors.SHOWN characters (show_word), anything else (a number, a table, a list) its
    repr, cut. A manifest is written by hand: a value pasted whole, or a line of a list pasted
    into it, gives a sentence, not a page, and a control character is shown, not obeyed.

    >>> _shown("fr")
    "'fr'"
    >>> _shown(["x" * 300])[-20:]
    'xx… (304 characters)'
    """
    if isinstance(value, str):
        return show_word(value)
    quoted = repr(value)
    return cut(quoted, len(quoted))


def is_current(entry: Entry, source_sha256: str) -> bool:
    """True when the compiled file exists, reads, and came from these sources by this program."""
    try:
        header: Header = read_header(entry.output)
    except (LexiconError, OSError, ValueError):
        return False
    return (
        header.tool == tool_version()
        and header.build.get("source_sha256") == source_sha256
        and (header.id, header.name, header.version) == (entry.id, entry.name, entry.version)
    )
