"""The minimal acyclic automaton (DAWG) of a lexicon's keys, as a flat array of 32-bit edges.

Why a DAWG: the browser needs the whole lexicon on a phone, small on the wire and usable the
moment it arrives. A trie shares prefixes only; the minimal automaton also shares every common
suffix (-ABAMOS, -ASEN...), which is what makes 636,598 Spanish words about 131,000 edges.

Why this layout (the one wolges' `.kwg` files use): one little-endian 32-bit word per edge,
the edges leaving a state stored together, in tile order, the last one flagged. A lookup is a
few array reads; the browser reads the bytes as a `Uint32Array`, nothing to unpack.

    bits 0-21   index of the target state's first edge (0: the target has no edges)
    bit  22     ACCEPT: the tiles up to and including this edge spell a word
    bit  23     LAST: the last edge of its state
    bits 24-31  tile number: 1 + the tile's index in the alphabet's tile list (0 only in edge 0)

Edge 0 is a sentinel whose target is the root state's first edge. States are laid out parents
before children (every target is greater than the index of any edge pointing to it), so a
reader can check a file's structure, and count its words, in one backward pass, and no lookup
can loop.

Built by Daciuk et al.'s incremental algorithm for sorted input (2000): states are closed and
deduplicated as soon as the sorted keys move past them, so the work is linear in the input and
the full trie never exists.
"""

from __future__ import annotations

from array import array
from typing import Iterable, Sequence

TARGET_BITS = 22
TARGET_MASK = (1 << TARGET_BITS) - 1
ACCEPT = 1 << 22
LAST = 1 << 23
TILE_SHIFT = 24
MAX_EDGES = TARGET_MASK + 1


class DawgError(ValueError):
    """Edges that are not a well-formed automaton of this layout."""


def minimal_states(keys: Iterable[Sequence[int]]) -> tuple[list[tuple], int]:
    """The states of the minimal automaton of sorted, unique keys (sequences of tile numbers).

    As in the edge layout, "a word ends here" belongs to the edge, not to the state it reaches:
    a state is only its outgoing edges, so a state that ends words and one that does not merge
    when their continuations agree (fewer states than the textbook automaton). Returns (states,
    root): each state a tuple of triples flattened, (tile, accept, child, tile, accept, child...),
    children always before their parents in the list (so `root` is the last state).

    >>> states, root = minimal_states([(1, 2), (3, 2)])   # two words sharing their last tile
    >>> len(states), states[root]
    (3, (1, False, 1, 3, False, 1))
    """
    register: dict[tuple, int] = {}
    states: list[tuple] = []
    path: list[list] = [[False]]  # the open states along the previous key: [final, edges...]
    previous: Sequence[int] = ()
    for key in keys:
        common = 0
        limit = min(len(key), len(previous))
        while common < limit and key[common] == previous[common]:
            common += 1
        if common == len(key) and len(key) <= len(previous):
            raise DawgError(f"keys must be sorted and unique: {tuple(key)} after {tuple(previous)}")
        _close(path, previous, common, register, states)
        path.extend([False] for _ in range(len(key) - common))
        path[-1][0] = True
        previous = key
    _close(path, previous, 0, register, states)
    root = _register(tuple(path[0][1:]), register, states)
    return states, root


def _close(path, previous, depth, register, states) -> None:
    """Close the open states deeper than `depth`: deduplicate each, link it to its parent."""
    for level in range(len(previous), depth, -1):
        final, *edges = path.pop()
        path[-1].extend((previous[level - 1], final, _register(tuple(edges), register, states)))


def _register(signature: tuple, register: dict, states: list) -> int:
    found = register.get(signature)
    if found is None:
        found = register[signature] = len(states)
        states.append(signature)
    return found


def layout(states: list[tuple], root: int) -> array:
    """The edges of `states` as 32-bit words, parents before children (see the module text)."""
    # Registration order puts children first and the root last: reversed, parents come first.
    order = [s for s in range(len(states) - 1, -1, -1) if states[s]]
    first = {}
    position = 1
    for state in order:
        first[state] = position
        position += len(states[state]) // 3
    if position > MAX_EDGES:
        raise DawgError(f"{position} edges: this layout addresses at most {MAX_EDGES}")
    edges = array("I", [LAST | first.get(root, 0)])
    for state in order:
        signature = states[state]
        end = len(signature) - 3
        for n in range(0, len(signature), 3):
            tile, accept, child = signature[n : n + 3]
            edges.append((tile << TILE_SHIFT) | (LAST if n == end else 0)
                         | (ACCEPT if accept else 0) | first.get(child, 0))
    return edges


def build(keys: Iterable[Sequence[int]]) -> array:
    """The edge array of the minimal automaton of sorted, unique tile-number sequences.

    >>> edges = build([(1, 2), (1, 2, 3), (4, 2)])
    >>> contains(edges, (1, 2)), contains(edges, (1,)), contains(edges, (4, 2, 3))
    (True, False, False)
    """
    return layout(*minimal_states(keys))


def contains(edges: Sequence[int], key: Sequence[int]) -> bool:
    """True when the tile numbers of `key` spell a word of the automaton."""
    index = edges[0] & TARGET_MASK if len(edges) else 0
    accept = False
    for tile in key:
        if index == 0:
            return False
        while True:
            edge = edges[index]
            if edge >> TILE_SHIFT == tile:
                break
            if edge & LAST:
                return False
            index += 1
        accept = bool(edge & ACCEPT)
        index = edge & TARGET_MASK
    return accept


def check(edges: Sequence[int], tiles: int) -> int:
    """Check the structure of an edge array and return how many words it holds.

    One backward pass: every target lies after its edge and starts a state, every state's
    edges are in strictly increasing tile order with numbers 1..`tiles`, the last one flagged.
    This is what makes lookups on any accepted array terminate, whatever bytes it came from.
    """
    total = len(edges)
    if total == 0 or edges[0] >> TILE_SHIFT != 0 or not edges[0] & LAST or edges[0] & ACCEPT:
        raise DawgError("edge 0 is not the root sentinel")
    words_from = array("I", bytes(4 * total))  # words reachable from the state starting here
    starts = bytearray(total)
    running = 0
    for index in range(total - 1, 0, -1):
        edge = edges[index]
        tile, target = edge >> TILE_SHIFT, edge & TARGET_MASK
        ends_state = bool(edge & LAST)
        if not 1 <= tile <= tiles:
            raise DawgError(f"edge {index}: tile number {tile} is not one of the {tiles} tiles")
        if index == total - 1 and not ends_state:
            raise DawgError(f"edge {index}: the last edge does not end its state")
        if target and (target <= index or not starts[target]):
            raise DawgError(f"edge {index}: target {target} is not a later state")
        if not ends_state and edges[index + 1] >> TILE_SHIFT <= tile:
            raise DawgError(f"edge {index}: tiles out of order within a state")
        if not target and not edge & ACCEPT:
            raise DawgError(f"edge {index}: a dead end that accepts no word")
        running += (1 if edge & ACCEPT else 0) + (words_from[target] if target else 0)
        if index == 1 or edges[index - 1] & LAST:
            words_from[index] = running
            starts[index] = 1
            running = 0
    root = edges[0] & TARGET_MASK
    if root and (root >= total or not starts[root]):
        raise DawgError(f"the root {root} is not a state")
    if not root and total > 1:
        raise DawgError("edges follow an empty root")
    return words_from[root] if root else 0


def words(edges: Sequence[int]) -> Iterable[tuple[int, ...]]:
    """Every word of the automaton as tile numbers, in increasing order (for tests and checks)."""
    stack = [(edges[0] & TARGET_MASK, ())] if len(edges) and edges[0] & TARGET_MASK else []
    while stack:
        index, prefix = stack.pop()
        if index < 0:
            yield prefix
            continue
        row = []
        while True:
            edge = edges[index]
            row.append(edge)
            if edge & LAST:
                break
            index += 1
        for edge in reversed(row):  # pushed in reverse: popped, and yielded, in tile order
            word = prefix + (edge >> TILE_SHIFT,)
            if edge & TARGET_MASK:
                stack.append((edge & TARGET_MASK, word))
            if edge & ACCEPT:
                stack.append((-1, word))
