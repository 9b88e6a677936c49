"""What every `lexicon` command shares: the exit-code exceptions, opening a lexicon by name,
and compiling one with a progress bar.

This is the only place where core errors become exit codes. Exit codes are a contract scripts
rely on: 0 done (a NOT VALID verdict is a done job too), 1 a build that failed its own rules
(--strict), 2 bad input (an unknown lexicon, a corrupt file, a word that is no tiles).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import click

from build_tools import manifest as manifests
from build_tools.browser_files import write_beside
from build_tools.compiler import build as build_lexicon
from build_tools.compiler import write_atomically
from build_tools.report import plural
from build_tools.sources import Source, check_language, load_source
from lexicon import alphabet
from lexicon.browser import beside
from lexicon.errors import LexiconError, NotALexiconFile, show_word
from lexicon.lexfile import Lexicon, LexiconMeta, read_header
from lexicon.tokenizer import tokenizer

NOTATIONS = click.Choice(alphabet.NOTATIONS)


class BadInput(click.ClickException):
    exit_code = 2


class BuildFailed(click.ClickException):
    exit_code = 1


COMPILE_FIRST = "compile a word list or a DISC source with `lexicon build` first"


def bad_lexicon(error: Exception) -> BadInput:
    """A lexicon that cannot be opened, as bad input (exit 2). A directory given as a lexicon (a
    DISC source's), here or as the cause of the service's refusal to start, is also told what to
    run: the core says what it is, the command line what to do.

    >>> bad_lexicon(NotALexiconFile("llista")).message
    'llista: a directory, not a compiled lexicon file: compile a word list or a DISC source with `lexicon build` first'
    """
    if isinstance(error, NotALexiconFile) or isinstance(error.__cause__, NotALexiconFile):
        return BadInput(f"{error}: {COMPILE_FIRST}")
    return BadInput(str(error))


def echo_err(message: str) -> None:
    click.echo(message, err=True)


def compile_source(source: Source, language: str, notation: str, meta: LexiconMeta, path: str):
    """Run the pipeline, with a progress bar when a person watches a terminal."""
    check_language(source, path, language, notation)
    tokens = tokenizer(language, notation)
    if not sys.stderr.isatty():
        return build_lexicon(source.text, tokens, meta, source.locate, comments=source.comments)
    with click.progressbar(length=2, label="reading", file=sys.stderr) as bar:

        def stage(name: str) -> None:
            bar.label = name
            bar.update(1)

        return build_lexicon(source.text, tokens, meta, source.locate, stage, comments=source.comments)


def write(path: Path, data: bytes) -> None:
    """Write a file the user named (atomically); a missing directory is refused, never made."""
    if not path.parent.is_dir():
        raise BadInput(f"cannot write {path}: no directory {path.parent}")
    try:
        write_atomically(path, data)
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror or error}") from None


class OutputFile(click.ParamType):
    """A file a command writes (a compiled lexicon, a browser file, a page, a report). `-` is
    refused, not taken as a file called `-`: in this command line it means standard output
    (`records export -o -`, `expand -o -`), and a binary file there has no place; `./-` names
    that file."""

    name = "file"
    _path = click.Path(dir_okay=False, path_type=Path)

    def convert(self, value, param, ctx):
        if value == "-":
            self.fail(
                "'-' is standard output, and this command writes a file: name one (./- for a file called -)", param, ctx
            )
        return self._path.convert(value, param, ctx)


def refuse_writing_over(outputs: Iterable[Path | None], read: Iterable[Path], what: str) -> None:
    """BadInput when an output is a file this command reads (`what`, e.g. "the source llista.txt"):
    written over, the list keeper's word list, a DISC model or the compiled lexicon itself would be
    gone, replaced by what was made from it. Checked before anything is written."""
    read = [file for file in read if file.is_file()]
    for path in outputs:
        if path is not None and path.is_file() and any(path.samefile(file) for file in read):
            raise BadInput(f"cannot write {path}: this command reads it ({what}); name another file")


def show_report(report, output: Path | None, data: bytes | None, err: bool = False) -> None:
    for line in report.lines():
        click.echo(line, err=err)
    if output is not None and data is not None:
        header = read_header(output)
        click.echo(
            err=err,
            # the checksum first: what every verdict, /v1/lexicons and `lexicon info` (file_sha256) name the
            # list by, and what a federation publishes; the words' own is a check of the trie
            message=f"wrote {output}: {plural(header.words, 'word')}, {len(data):,} bytes, "
            f"checksum {hashlib.sha256(data).hexdigest()} (words sha256 {header.words_sha256})",
        )


def settings():
    """The LEXICON_* settings (service.config), read once per command; a bad one is exit 2.

    Outside a command (open_lexicon called from Python), read at each call.
    """
    from service.config import SettingsError, load_settings

    context = click.get_current_context(silent=True)
    meta = context.find_root().meta if context is not None else {}
    if "lexicon_settings" not in meta:
        try:
            meta["lexicon_settings"] = load_settings()
        except SettingsError as error:
            raise BadInput(str(error)) from None
    return meta["lexicon_settings"]


def load_manifest() -> manifests.Manifest:
    """The manifest of default lexicons, as the settings say (LEXICON_MANIFEST, LEXICON_HOME, XDG_DATA_HOME)."""
    current = settings()
    return manifests.load_manifest(current.manifest, current.home, current.data_home)


def refuse_empty(report, source: str, output: Path) -> None:
    """No words compiled is a failed build, --strict or not: a 0-word lexicon judges nothing."""
    if report.words == 0:
        raise BadInput(
            f"no words compiled from {source}: every line was blank, a comment or left out; {output} not written"
        )


def build_default(entry: manifests.Entry, force: bool = False, err: bool = False) -> None:
    """Compile one default lexicon of the manifest unless it is up to date.

    One line a lexicon; the full report goes beside the compiled file, as ID.report.json.
    """
    source = load_source(str(entry.source), entry.kind)
    if not force:
        refuse_another_list(entry)
    if not force and manifests.is_current(entry, source.sha256):
        browser = " (browser files written)" if write_browser_file(entry.output) else ""
        click.echo(f"{entry.id}: up to date ({entry.output}){browser}", err=err)
        return
    data, report = compile_source(source, entry.language, entry.notation, entry.meta(source.sha256), str(entry.source))
    report.notes.extend(source.notes)
    refuse_empty(report, str(entry.source), entry.output)
    report_path = entry.output.with_suffix(".report.json")
    try:
        entry.output.parent.mkdir(parents=True, exist_ok=True)  # the default lexicons' home: ours to make
        write(entry.output, data)
        write(report_path, report_json(report))
        write_browser_file(entry.output, force=True)
    except (OSError, BadInput) as error:
        reason = (
            error.message
            if isinstance(error, BadInput)
            else f"cannot create {entry.output.parent}: {error.strerror or error}"
        )
        home = settings().home
        if home is None:
            raise BadInput(reason) from None
        raise BadInput(f"{reason}: check LEXICON_HOME ({home}), where the default lexicons are compiled to") from None
    click.echo(
        f"{entry.id}: built {entry.output}: {plural(report.words, 'word')}, {report.left_out_count:,} entries "
        f"left out (report: {report_path}; browser files: {beside(entry.output)} and its .br and .gz)",
        err=err,
    )


def refuse_another_list(entry: manifests.Entry, opened: Lexicon | None = None) -> None:
    """BadInput when a default's file holds a list of another id (someone's own, copied there):
    built over, it would be gone and the default served in its place without a word; opened as
    the default (`check es`), it would judge in the default's name. A file of the default's own id
    that is out of date is rebuilt, as its sources or this program changed. `opened`: the file as
    the command opened it, so that what is checked is what answers (and it is read once); the
    whole file is hashed only to name another list."""
    try:
        header = read_header(entry.output) if opened is None else opened.header
        if header.id == entry.id:
            return
        checksum = hashlib.sha256(entry.output.read_bytes()).hexdigest() if opened is None else opened.checksum
    except (LexiconError, OSError):
        return  # missing or unreadable: nothing of anyone's to keep
    raise BadInput(
        f"{entry.output} holds another list, {header.id} {header.version} (checksum {checksum}), not the "
        f"default {entry.id}: it neither answers for the default nor is built over. Serve it from a "
        "file of its own (LEXICON_FILES) and remove it from here, or build the default over it with "
        "`lexicon build-defaults --force`"
    )


def write_browser_file(lex_path: Path, force: bool = False) -> bool:
    """The files beside a default's `.lex` that the service reads at start instead of making them
    (build_tools.browser_files: NAME.dawg, NAME.dawg.br, NAME.dawg.gz); written (True) unless all
    are there and follow from this very `.lex`. The same `.lex` always gives the same bytes."""
    try:
        return bool(write_beside(lex_path, force))
    except OSError as error:
        raise BadInput(f"cannot write beside {lex_path}: {error.strerror or error}") from None


def report_json(report) -> bytes:
    return (json.dumps(report.as_dict(), ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def is_path(name: str) -> bool:
    """A LEXICON that names a file: with a path separator or ending in .lex; any other is a default's name."""
    return os.sep in name or bool(os.altsep and os.altsep in name) or name.lower().endswith(".lex")


def _exists(name: str) -> bool:
    """Whether a file or folder of that name exists; a name no file system holds (longer than a
    file's name may be) names none, so it is an unknown lexicon, quoted, not a traceback."""
    try:
        return Path(name).exists()
    except OSError:
        return False


def known_lexicon(name: str) -> str:
    """The name under which the service will find `name`, checked without building anything: a
    default's id or language as given (in lower case), or the id in a compiled file's header."""
    try:
        if is_path(name):
            return read_header(name).id
        manifest = load_manifest()
    except LexiconError as error:
        raise bad_lexicon(error) from None
    if manifest.find(name) is not None:
        return name
    if manifest.find(name.lower()) is not None:
        return name.lower()
    if _exists(name):  # as open_lexicon: a file of that name, when no default has it (a directory: why not)
        try:
            return read_header(name).id
        except LexiconError as error:
            raise bad_lexicon(error) from None
    raise BadInput(
        f"unknown lexicon {show_word(name)}: not a compiled file, nor a default ({', '.join(manifest.names())})"
    )


def open_lexicon(name: str) -> Lexicon:
    """A compiled file's path, or a default lexicon's id or language, in any case (built on first use).

    A name with a path separator or ending in .lex is a path; any other is a default's id or
    language first, so a file called `es` in the current directory never hides the default `es`
    (write `./es` for the file).
    """
    try:
        if is_path(name):
            return Lexicon.open(name)
        manifest = load_manifest()
        entry = manifest.find(name) or manifest.find(name.lower())
        if entry is None and _exists(name):  # a file of that name; a directory is told what it is not
            return Lexicon.open(name)
        if entry is None:
            known = ", ".join(manifest.names())
            raise BadInput(f"unknown lexicon {show_word(name)}: not a file, nor a default ({known})")
        if not entry.output.is_file():
            echo_err(f"{entry.id} is not built yet: building it now")
            build_default(entry, err=True)  # stdout belongs to the command's own output
        lexicon = Lexicon.open(entry.output)
        refuse_another_list(entry, lexicon)  # `es` never answers with a list someone copied over the default
        return lexicon
    except LexiconError as error:
        raise bad_lexicon(error) from None


LEXICON_IS = (
    "a compiled file's path, a default lexicon's id, or es / ca (any case) for that language's "
    "default"
)  # what a LEXICON argument can be, in every command's help
LEXICON_HELP = (
    f"LEXICON is {LEXICON_IS}; a default not built yet is built on first use, and a default's "
    "name wins over a file of that name in the current directory (write ./es for the file)."
)
BAD_LEXICON = "an unknown lexicon, a corrupt or foreign file"


def exit_codes(done: str, *bad: str, failed: str = "") -> str:
    """A command's own exit codes, for its help: what 0 means, what 1 means if it has one, and
    what bad input (2) it can meet beyond a LEXICON that cannot be opened.

    >>> exit_codes("written", "no format given")
    'Exit codes: 0 written; 2 bad input (an unknown lexicon, a corrupt or foreign file, no format given).'
    """
    one = f"; 1 {failed}" if failed else ""
    return f"Exit codes: 0 {done}{one}; 2 bad input ({', '.join((BAD_LEXICON, *bad))})."
