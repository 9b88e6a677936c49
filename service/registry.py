"""The lexicons a service answers from: loaded once, verified, held in memory, with their answers.

Every compiled file is opened with `Lexicon.open`, which reads it whole and checks the header,
the trie's SHA-256 and the tile set; a file that fails stops the service before it is ready, so
no judge ever gets a verdict from a list nobody could vouch for. The checksum of the whole file
(what `sha256sum` prints) goes with every verdict. The trie answers from the verified bytes in
memory, so a file copied over a served one changes no verdict; `Registry.stale` notices it
(/readyz and /v1/lexicons say so) and the service goes on answering from what it verified.

The answers are bytes computed here, once per lexicon: a verdict is one of two fixed bodies, so
a not-valid answer is the same bytes whichever word failed, and the request path only picks one.
A lexicon with a second opinion (LEXICON_SECOND) has four more, one per combination of the two
verdicts, for the same reason.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from lexicon.errors import LexiconError, LexiconFileError
from lexicon.lexfile import Lexicon
from lexicon.verdict import Identity, Judge

from .config import Settings
from .status_types import LexiconInfo
from .types import SecondVerdict, Verdict

log = logging.getLogger("service")


class StartError(LexiconError):
    """The service cannot start: the message says which file or setting, and what to do."""


class LexiconNotServed(StartError):
    """An event pinned to a lexicon this instance does not serve. The message, for the operator,
    names the file to add; `public`, for whoever asks at the event's path on a service of every
    event (service/federation.py), names the lexicon only, as the event's refusals do."""

    def __init__(self, message: str, public: str):
        super().__init__(message)
        self.public = public


def _shown(value: object) -> str:
    """Text of a type of its own, as msgspec writes only `str` itself: a stored value that is no
    UTF-8 (an event file edited by hand), which the event's store reads as text of its own kind
    with U+FFFD where the bytes were, and the director's lists pass on as they pass any stored
    value. Written as the text it shows; anything else msgspec cannot write stays an error."""
    if isinstance(value, str):
        return str.__str__(value)  # an exact str of the same characters
    raise NotImplementedError(f"no JSON for {type(value).__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=_shown)


def dumps(value) -> bytes:
    """Compact UTF-8 JSON, the one encoding of every body this service writes (dicts, lists and
    the msgspec types of the API's bodies)."""
    return _ENCODER.encode(value)


@dataclass(eq=False)
class Served:
    """One loaded lexicon and the bytes of its answers."""

    lexicon: Lexicon
    default: bool
    identity: Identity = field(init=False)
    valid_body: bytes = field(init=False)
    invalid_body: bytes = field(init=False)
    # The verdict on a play in each notation of its alphabet, the tokenizer and lookup found once.
    judges: dict[str, Judge] = field(init=False, repr=False)

    second: Served | None = field(init=False, default=None)  # the second opinion, if configured
    pair_bodies: tuple[bytes, ...] = field(init=False, default=())  # [2 * valid + second valid]

    def __post_init__(self) -> None:
        self.identity = Identity.of(self.lexicon)
        self.valid_body = dumps(Verdict(True, self.identity))
        self.invalid_body = dumps(Verdict(False, self.identity))
        self.judges = {notation: Judge(self.lexicon, notation) for notation in self.lexicon.alphabet.notations}

    def pair_with(self, second: Served) -> None:
        """Give this lexicon a second opinion: the four bodies of the two verdicts together."""
        self.second = second
        self.pair_bodies = tuple(
            dumps(Verdict(valid, self.identity, SecondVerdict(other, second.identity)))
            for valid in (False, True)
            for other in (False, True)
        )

    @property
    def id(self) -> str:
        return self.lexicon.header.id

    @property
    def language(self) -> str:
        return self.lexicon.header.language

    def describe(self) -> LexiconInfo:
        header = self.lexicon.header
        return LexiconInfo(
            **vars(self.identity),
            language=header.language,
            words=header.words,
            words_sha256=header.words_sha256,
            default=self.default,
            source=header.source,
            licence=header.licence,
        )


class OnDisk:
    """The file a lexicon was read from, and whether it still holds the bytes that were verified.

    A stat per check; the file is hashed again only when its size, times or inode changed (a
    `cp` over it, a `touch`), so asking often costs microseconds.
    """

    def __init__(self, path: Path, checksum: str, signature: tuple):
        self.path, self.checksum = path, checksum
        self._seen, self._same = signature, True

    @staticmethod
    def signature(path: Path) -> tuple:
        try:
            info = os.stat(path)
        except OSError:
            return ()
        return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)

    def matches(self) -> bool:
        now = self.signature(self.path)
        if now != self._seen:
            self._seen = now
            try:
                self._same = bool(now) and hashlib.sha256(self.path.read_bytes()).hexdigest() == self.checksum
            except OSError:
                self._same = False
            if not self._same:
                log.warning(
                    "lexicon file changed on disk: still serving the verified copy",
                    extra={"fields": {"path": str(self.path), "checksum": self.checksum}},
                )
        return self._same


class Registry:
    """The loaded lexicons, found by id or, for a language's default, by the language code."""

    def __init__(self, served: list[Served], files: dict[str, OnDisk] | None = None):
        self.served = tuple(served)
        self.files = files or {}  # lexicon id -> its file, when loaded from one
        # What loading said (message, fields), logged by `announce` once the app configures its
        # log: `lexicon serve` loads the files before it prints where to go, and logs after.
        self.said: list[tuple[str, dict]] = []
        self.by_name: dict[str, Served] = {}
        for item in self.served:
            if item.id.lower() in self.by_name:
                raise StartError(f"two lexicons answer to {item.id!r}: ids must be unique")
            self.by_name[item.id.lower()] = item
        for item in self.served:
            if item.default:
                if item.language in self.by_name and self.by_name[item.language] is not item:
                    raise StartError(
                        f"{item.language!r} names both the default {item.id!r} and the lexicon "
                        f"{self.by_name[item.language].id!r}: rename that lexicon's id"
                    )
                self.by_name[item.language] = item
        self.ready = bool(self.served)

    def find(self, name: str) -> Served | None:
        return self.by_name.get(name.lower())

    def by_checksum(self, checksum: str) -> Served | None:
        """The served lexicon of these very bytes (an event's pinned lexicon), if any."""
        return next((item for item in self.served if item.identity.checksum == checksum), None)

    def language_of(self, checksum: str, lexicon_id: str) -> str | None:
        """The language of a list served here, by its very bytes or its id (another version of a
        list served here: a list updated mid-season); None for a list this service knows nothing of."""
        known = self.by_checksum(checksum) or self.find(lexicon_id)
        return None if known is None else known.language

    def make_default(self, served: Served) -> None:
        """Make `served` its language's default (an event's pinned lexicon): `es` then names it
        here, whatever the order of LEXICON_FILES, as on every other instance of the event."""
        for item in self.served:
            if item.language == served.language:
                item.default = item is served
        self.by_name[served.language] = served

    def copy(self) -> Registry:
        """The same lexicons (the same verified bytes, not read again) in a registry of its own: an
        event of a service of many pins its lexicon as its language's default (`make_default`)
        without changing another event's. Second opinions paired as here."""
        served = {id(item): Served(item.lexicon, item.default) for item in self.served}
        for item in self.served:
            if item.second is not None:
                served[id(item)].pair_with(served[id(item.second)])
        copy = Registry(list(served.values()), self.files)
        copy.by_name.update({name: served[id(item)] for name, item in self.by_name.items()})
        return copy

    def names(self) -> list[str]:
        return sorted(self.by_name)

    def stale(self) -> dict[str, str]:
        """Lexicon id -> file name, for each lexicon whose file no longer holds the bytes served."""
        return {lexicon_id: disk.path.name for lexicon_id, disk in self.files.items() if not disk.matches()}

    def describe(self) -> list[LexiconInfo]:
        return [item.describe() for item in self.served]

    def pair(self, seconds: tuple[tuple[str, str], ...]) -> None:
        """Give every served lexicon of each language of LEXICON_SECOND its second opinion (but
        the second lexicon itself: it needs no second opinion of itself)."""
        for language, name in seconds:
            second = self.by_name.get(name.lower())
            if second is None or second.id.lower() != name.lower():
                ids = ", ".join(item.id for item in self.served)
                raise StartError(
                    f"LEXICON_SECOND: {language}:{name}: no lexicon {name!r} is served "
                    f"(served: {ids}); add its file to LEXICON_FILES"
                )
            if second.language != language:
                raise StartError(
                    f"LEXICON_SECOND: {language}:{name}: {name!r} is a lexicon of "
                    f"language {second.language!r}, not {language!r}"
                )
            mains = [item for item in self.served if item.language == language and item is not second]
            if not mains:
                raise StartError(
                    f"LEXICON_SECOND: {language}:{name}: no other lexicon of {language!r} "
                    "is served to give a second opinion on"
                )
            for item in mains:
                item.pair_with(second)
            fields = {"language": language, "second": second.id, "checksum": second.lexicon.checksum}
            self.said.append(("second opinion", {**fields, "for": [item.id for item in mains]}))

    def announce(self) -> None:
        """Log what loading said (each lexicon loaded, each second opinion), once."""
        for message, fields in self.said:
            log.info(message, extra={"fields": fields})
        self.said = []


def _configured(settings: Settings) -> list[tuple[Path, bool | None, str]]:
    """(path, default or None to decide by order, hint when missing) of each lexicon to load."""
    if settings.files is not None:
        return [(Path(p), None, "check LEXICON_FILES") for p in settings.files]
    from build_tools.manifest import load_manifest  # the manifest is a build-time layout

    manifest = load_manifest(settings.manifest, settings.home, settings.data_home)
    hint = "build it with `lexicon build-defaults` (or `make lexicons`)"
    return [(entry.output, entry.default, hint) for entry in manifest.entries]


def load_registry(settings: Settings) -> Registry:
    """Open and verify every configured lexicon; StartError if any of them cannot be trusted.
    Nothing is logged here: the registry's `announce` logs what loading said."""
    said: list[tuple[str, dict]] = []
    served: list[Served] = []
    files: dict[str, OnDisk] = {}
    defaults: set[str] = set()
    for path, default, hint in _configured(settings):
        started = time.perf_counter()
        signature = OnDisk.signature(Path(path))  # before reading: a change while reading shows later
        try:
            lexicon = Lexicon.open(path)
        except LexiconFileError as error:  # kept as the cause: the command line adds its advice (a directory)
            missing = not Path(path).exists()
            raise StartError(f"cannot serve {error}" + (f": {hint}" if missing else "")) from error
        if lexicon.header.words == 0:  # it would answer NOT VALID to everything
            raise StartError(f"cannot serve {path}: it holds no words; compile it from a list that has some")
        language = lexicon.header.language
        if default is None:
            default = language not in defaults
        if default:
            defaults.add(language)
        twin = files.get(lexicon.header.id)
        if twin is not None:  # found here, with both files at hand (the Registry checks what it is given)
            first = next(item for item in served if item.id == lexicon.header.id)
            raise StartError(
                f"two lexicons answer to {lexicon.header.id!r}: {twin.path} (version {first.lexicon.header.version}) and {path} "
                f"(version {lexicon.header.version}); ids must be unique: build one with an id of its own "
                "(lexicon build --id)"
            )
        served.append(Served(lexicon, default))
        files[lexicon.header.id] = OnDisk(Path(path), lexicon.checksum, signature)
        said.append(
            (
                "lexicon loaded",
                {
                    "lexicon": lexicon.header.id,
                    "language": language,
                    "version": lexicon.header.version,
                    "words": lexicon.header.words,
                    "checksum": lexicon.checksum,
                    "default": default,
                    "path": str(path),
                    "ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
        )
    if not served:  # a manifest of no lexicons: nothing to judge with, so nothing starts
        raise StartError("no lexicon to serve: the manifest lists none (check LEXICON_MANIFEST)")
    registry = Registry(served, files)
    registry.said = said
    registry.pair(settings.second)
    return registry
