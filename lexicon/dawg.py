"""The minimal acyclic automaton (DAWG) of a lexicon's keys, as a flat array of 32-bit edges.

Why a DAWG: the browser needs the whole lexicon on a phone, small on the wire and usable the
moment it arrives. A trie shares prefixes only; the minimal automaton also shares every common
suffix (-ABAMOS, -ASEN...), which is what makes 636,598 Spanish words about 131,000 edges.

Why this layout (the one wolges' `.kwg` files use): one 32-bit word per edge, the edges
leaving a state stored together, in tile order, the last one flagged. A lookup is a few array
reads (in the browser, of a `Uint32Array`). On the wire the same edges travel packed, 35%
smaller after compression, and the reader expands them once (`pack`, `unpack`).

    bits 0-21   index of the target state's first edge (0: the target has no edges)
    bit  22     ACCEPT: the tiles up to and including this edge spell a word
    bit  23     LAST: the last edge of its state
    bits 24-31  tile number: 1 + the tile's index in the alphabet's tile list (0 only in edge 0)

Edge 0 is a sentinel whose target is the root state's first edge. States are laid out
breadth-first from the root, which is what makes the packed form (`pack`, what the browser
file carries) small: most targets are "the next new state". A lookup consumes a tile a step,
so it ends whatever the bytes; `check` proves the rest (well-formed states, no loop) and
counts the words, which a reader compares with the header.

Built by Daciuk et al.'s incremental algorithm for sorted input (2000): states are closed and
deduplicated as soon as the sorted keys move past them, so the work is linear in the input and
the full trie never exists.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterable, Sequence

TARGET_BITS = 22
TARGET_MASK = (1 << TARGET_BITS) - 1
ACCEPT = 1 << 22
LAST = 1 << 23
TILE_SHIFT = 24
MAX_EDGES = TARGET_MASK + 1
MAX_TILE = 31  # five bits in the packed form


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
    """The edges of `states` as 32-bit words, states in breadth-first order from the root.

    Breadth-first, each state placed where it is first reached: so in a scan of the edges, a
    target never seen before is always the next state placed, which is what lets `pack` write
    most targets as one byte meaning "the next new state".
    """
    first = {root: 1} if states[root] else {}
    order = [root] if states[root] else []
    position = 1 + len(states[root]) // 3
    for state in order:  # grows while it is read
        signature = states[state]
        for n in range(2, len(signature), 3):
            child = signature[n]
            if states[child] and child not in first:
                first[child] = position
                position += len(states[child]) // 3
                order.append(child)
    if position > MAX_EDGES:
        raise DawgError(f"{position} edges: this layout addresses at most {MAX_EDGES}")
    edges = array("I", [LAST | first.get(root, 0)])
    for state in order:
        signature = states[state]
        end = len(signature) - 3
        for n in range(0, len(signature), 3):
            tile, accept, child = signature[n : n + 3]
            if tile > MAX_TILE:
                raise DawgError(f"tile number {tile}: the packed form holds at most {MAX_TILE}")
            edges.append(
                (tile << TILE_SHIFT) | (LAST if n == end else 0) | (ACCEPT if accept else 0) | first.get(child, 0)
            )
    return edges


def pack(edges: Sequence[int]) -> tuple[bytes, bytes]:
    """The compact form of an edge array, for the wire: (tile bytes, target bytes).

    One byte per edge after the sentinel: tile number (bits 0-4), ACCEPT (bit 5), LAST (bit 6).
    Then one unsigned LEB128 number per edge: 0 no target, 1 the next state not yet reached in
    this scan, n >= 2 state number n - 2 (states numbered by their place in the array).
    """
    number = {}
    index = 1
    while index < len(edges):
        number[index] = len(number)
        while not edges[index] & LAST:
            index += 1
        index += 1
    tiles = bytearray()
    targets = bytearray()
    fresh = 1  # state 0, the root, is reached by the sentinel
    for edge in itertools.islice(edges, 1, None):
        tiles.append((edge >> TILE_SHIFT) | (32 if edge & ACCEPT else 0) | (64 if edge & LAST else 0))
        target = edge & TARGET_MASK
        if not target:
            code = 0
        elif number[target] == fresh:
            code, fresh = 1, fresh + 1
        else:
            code = 2 + number[target]
        while code >= 0x80:
            targets.append((code & 0x7F) | 0x80)
            code >>= 7
        targets.append(code)
    return bytes(tiles), bytes(targets)


def unpack(tiles: bytes, targets: bytes) -> array:
    """The edge array of `pack`'s output; DawgError if the bytes do not make one."""
    count = len(tiles)
    edges = array("I", bytes(4 * (count + 1)))
    edges[0] = LAST | (1 if count else 0)
    starts = [1]  # where each state's edges begin, by state number
    fresh = 1
    at = 0
    for index in range(1, count + 1):
        byte = tiles[index - 1]
        if byte & 0x80:
            raise DawgError(f"edge {index}: bit 7 of its tile byte is set")
        code = shift = 0
        while True:
            if at >= len(targets) or shift > 28:
                raise DawgError(f"edge {index}: its target is cut short")
            part = targets[at]
            at += 1
            code |= (part & 0x7F) << shift
            shift += 7
            if not part & 0x80:
                break
        if code == 1:
            code, fresh = 2 + fresh, fresh + 1
        if code - 1 > TARGET_MASK:  # else a state number would set the ACCEPT or LAST bits
            raise DawgError(f"edge {index}: no state {code - 2}")
        edges[index] = (
            ((byte & 31) << TILE_SHIFT)
            | (ACCEPT if byte & 32 else 0)
            | (LAST if byte & 64 else 0)
            | (code - 1 if code else 0)
        )  # state number + 1 for now: 0 stays "no target"
        if byte & 64 and index < count:
            starts.append(index + 1)
    if at != len(targets):
        raise DawgError(f"{len(targets) - at} bytes of targets left over")
    for index in range(1, count + 1):
        state = edges[index] & TARGET_MASK
        if state:
            if state - 1 >= len(starts):
                raise DawgError(f"edge {index}: no state {state - 1}")
            edges[index] = (edges[index] & ~TARGET_MASK) | starts[state - 1]
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

    Every target starts a state, every state's edges are in strictly increasing tile order
    with numbers 1..`tiles`, the last one flagged, an edge with no target ends a word, and no
    path loops: a depth-first walk from the root counts the words of each state once, and
    meeting a state still being counted is a loop. Lookups on any accepted array are sound.
    """
    total = len(edges)
    if total == 0 or edges[0] >> TILE_SHIFT != 0 or not edges[0] & LAST or edges[0] & ACCEPT:
        raise DawgError("edge 0 is not the root sentinel")
    starts = bytearray(total)
    if total > 1:
        starts[1] = 1
    for index in range(1, total):
        edge = edges[index]
        tile = edge >> TILE_SHIFT
        if not 1 <= tile <= tiles:
            raise DawgError(f"edge {index}: tile number {tile} is not one of the {tiles} tiles")
        if edge & LAST:
            if index + 1 < total:
                starts[index + 1] = 1
        elif index + 1 == total:
            raise DawgError(f"edge {index}: the last edge does not end its state")
        elif edges[index + 1] >> TILE_SHIFT <= tile:
            raise DawgError(f"edge {index}: tiles out of order within a state")
        if not edge & TARGET_MASK and not edge & ACCEPT:
            raise DawgError(f"edge {index}: a dead end that accepts no word")
    for index in range(total):
        target = edges[index] & TARGET_MASK
        if target and (target >= total or not starts[target]):
            raise DawgError(f"edge {index}: target {target} is not a state")
    root = edges[0] & TARGET_MASK
    if not root:
        if total > 1:
            raise DawgError("edges follow an empty root")
        return 0
    counted = array("q", bytes(8 * total))  # words from each state; -1 while being counted
    stack = [root]
    while stack:
        state = stack[-1]
        if counted[state] == 0:
            counted[state] = -1
            index = state
            while True:
                target = edges[index] & TARGET_MASK
                if target:
                    if counted[target] == -1:
                        raise DawgError(f"edge {index}: a loop back to state {target}")
                    if counted[target] == 0:
                        stack.append(target)
                if edges[index] & LAST:
                    break
                index += 1
            continue
        stack.pop()
        if counted[state] != -1:
            continue
        words, index = 0, state
        while True:
            edge = edges[index]
            words += (1 if edge & ACCEPT else 0) + (counted[edge & TARGET_MASK] if edge & TARGET_MASK else 0)
            if edge & LAST:
                break
            index += 1
        counted[state] = words
    return counted[root]


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
