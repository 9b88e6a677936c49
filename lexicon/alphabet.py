"""Tile alphabets: what the tiles of a language are, read from its data file.

The tile sets, their spellings and aliases live in `alphabets/LANG.toml`, one file per language,
so that a rule like "QU is one tile" is data a lexicographer can read and a test can check, not
a branch in code. This module only reads those files, checks that they are coherent, and derives
the stored form of a word: a *key*, one character per tile.

Keys use control characters as tile codes (tile i of the alphabet is the i-th character of
`TILE_CODES`). That keeps a key one byte per tile in the compiled trie, makes the natural sort
of keys the alphabet's order (CH after C, Ñ after N), and no typed word can smuggle a code in:
the tokenizer turns every control character of its input into an error before codes appear.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType

from .charmap import CharMap

# The notations a word may be written in (an alphabet file spells its tiles in some of them).
NOTATIONS = ("spelling", "tiles")

# Control characters usable as tile codes: C0 and C1 controls, minus NUL and the line feed,
# which separates keys when many are handled as one text.
TILE_CODES = "".join(chr(c) for c in (*range(0x01, 0x20), 0x7F, *range(0x80, 0xA0)) if c != 0x0A)


def _is_control(text: str) -> bool:
    return any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in text)


@dataclass(frozen=True)
class Notation:
    """One way of writing tiles: `spelling` (what a judge writes) or `tiles` (engine notation).

    `spellings` maps every accepted spelling of a tile, after case folding and (if
    `fold_diacritics`) diacritic folding, to the tile: the single-letter tiles stand for
    themselves, the rest comes from the data file.
    """

    name: str
    fold_diacritics: bool
    spellings: Mapping[str, str]
    hints: Mapping[str, str]
    hints_in: Mapping[str, Mapping[str, str]]  # interface language -> translated hints


@dataclass(frozen=True, eq=False)
class Alphabet:
    language: str
    name: str
    blanks: int
    tiles: tuple[str, ...]
    counts: Mapping[str, int]
    distinct: frozenset[str]
    equivalents: Mapping[str, str]
    engine: Mapping[str, str]
    hints: Mapping[str, str]
    hints_in: Mapping[str, Mapping[str, str]]  # interface language -> translated hints
    notations: Mapping[str, Notation]
    # Derived from `tiles`: tile to its one-character code in keys, and back.
    code_of: Mapping[str, str] = field(init=False, repr=False)
    tile_of: Mapping[str, str] = field(init=False, repr=False)
    _engine: CharMap = field(init=False, repr=False)

    def __post_init__(self) -> None:
        code_of = {tile: TILE_CODES[i] for i, tile in enumerate(self.tiles)}
        object.__setattr__(self, "code_of", MappingProxyType(code_of))
        object.__setattr__(self, "tile_of", MappingProxyType({c: t for t, c in code_of.items()}))
        engine = CharMap({code_of[t]: self.engine[t] for t in self.tiles})
        object.__setattr__(self, "_engine", engine)

    @property
    def tile_count(self) -> int:
        """Tiles in a full bag, blanks included (100 in both Spanish and Catalan)."""
        return sum(self.counts.values()) + self.blanks

    def notation(self, name: str) -> Notation:
        try:
            return self.notations[name]
        except KeyError:
            known = ", ".join(sorted(self.notations))
            raise ValueError(f"unknown notation {name!r} (known: {known})") from None

    def key(self, tiles: list[str] | tuple[str, ...]) -> str:
        """The key of a sequence of tiles.

        >>> es = load_alphabet('es')
        >>> es.tiles_of(es.key(['C', 'A', 'RR', 'O']))
        ['C', 'A', 'RR', 'O']
        """
        try:
            return "".join(self.code_of[t] for t in tiles)
        except KeyError as missing:
            raise ValueError(f"{missing.args[0]!r} is not a {self.name} tile") from None

    def tiles_of(self, key: str) -> list[str]:
        return [self.tile_of[c] for c in key]

    def engine_text(self, keys: str) -> str:
        """Keys (one or many, separated by line feeds) in engine tile notation.

        >>> load_alphabet('es').engine_text(load_alphabet('es').key(['C', 'A', 'RR', 'O']))
        'CA[RR]O'
        """
        return self._engine(keys)


def parse_alphabet(text: str) -> Alphabet:
    """Read and check an alphabet file's text; a broken file fails here, loudly, not later."""
    data = tomllib.loads(text)
    language = data["language"]
    where = f"alphabet {language!r}"
    tiles = tuple(str(t) for t, _ in data["tiles"])
    counts = {str(t): int(n) for t, n in data["tiles"]}
    if len(set(tiles)) != len(tiles):
        raise ValueError(f"{where}: a tile is listed twice")
    if len(tiles) > len(TILE_CODES):
        raise ValueError(f"{where}: {len(tiles)} tiles, at most {len(TILE_CODES)} fit the codes")
    for tile in tiles:
        if not tile or tile != tile.upper() or _is_control(tile) or "\n" in tile:
            raise ValueError(f"{where}: tile {tile!r} must be upper case printable text")
    distinct = frozenset(data.get("distinct", []))
    if not distinct <= set(tiles):
        raise ValueError(f"{where}: distinct letters {sorted(distinct - set(tiles))} are no tiles")
    equivalents = dict(data.get("equivalents", {}))
    engine = {t: data.get("engine", {}).get(t, t) for t in tiles}
    notations = {}
    for name, spec in data["notations"].items():
        spellings = {t: t for t in tiles if len(t) == 1}
        for spelling, tile in spec.get("spellings", {}).items():
            if tile not in counts:
                raise ValueError(f"{where}: {name} spelling {spelling!r} names no tile {tile!r}")
            if spelling != spelling.upper() or _is_control(spelling):
                raise ValueError(f"{where}: {name} spelling {spelling!r} must be upper case")
            spellings[spelling] = tile
        unreachable = set(tiles) - set(spellings.values())
        if unreachable:
            raise ValueError(f"{where}: no {name} spelling for tiles {sorted(unreachable)}")
        hints = dict(spec.get("hints", {}))
        notations[name] = Notation(
            name=name,
            fold_diacritics=bool(spec.get("fold_diacritics", False)),
            spellings=MappingProxyType(spellings),
            hints=MappingProxyType(hints),
            hints_in=_translations(spec, hints, f"{where} {name}"),
        )
    if "spelling" not in notations:
        raise ValueError(f"{where}: the spelling notation is missing")
    if not set(notations) <= set(NOTATIONS):
        raise ValueError(
            f"{where}: notations are {', '.join(NOTATIONS)}, not {sorted(set(notations) - set(NOTATIONS))}"
        )
    return Alphabet(
        language=language,
        name=data["name"],
        blanks=int(data.get("blanks", 0)),
        tiles=tiles,
        counts=MappingProxyType(counts),
        distinct=distinct,
        equivalents=MappingProxyType(equivalents),
        engine=MappingProxyType(engine),
        hints=MappingProxyType(dict(data.get("hints", {}))),
        hints_in=_translations(data, dict(data.get("hints", {})), where),
        notations=MappingProxyType(notations),
    )


def _translations(spec: dict, hints: dict, where: str) -> Mapping[str, Mapping[str, str]]:
    """`hints_in.LANG`: hints translated for an interface; each must translate a hint that exists."""
    translated = {}
    for language, table in spec.get("hints_in", {}).items():
        stray = sorted(set(table) - set(hints))
        if stray:
            raise ValueError(f"{where}: hints_in.{language} translates no hint for {stray}")
        translated[language] = MappingProxyType(dict(table))
    return MappingProxyType(translated)


def languages() -> list[str]:
    """Languages with an alphabet file, e.g. ['ca', 'es']."""
    files = resources.files(__package__).joinpath("alphabets").iterdir()
    return sorted(f.name.removesuffix(".toml") for f in files if f.name.endswith(".toml"))


def longest_spelling() -> int:
    """Characters in the longest spelling of one tile, in any language and notation (5: `[L·L]`).

    What bounds a word's length in characters before it is read as tiles (service/types.py).
    """
    return max(
        len(spelling)
        for language in languages()
        for notation in load_alphabet(language).notations.values()
        for spelling in notation.spellings
    )


@cache
def load_alphabet(language: str) -> Alphabet:
    """The alphabet of `language` ('es', 'ca'), read once from the package's data."""
    if language not in languages():
        known = ", ".join(languages())
        raise ValueError(f"unknown language {language!r} (known: {known})")
    path = resources.files(__package__).joinpath("alphabets").joinpath(f"{language}.toml")
    return parse_alphabet(path.read_text(encoding="utf-8"))
