/* global ACCEPT, invalidTiles, LAST, LexiconFileError, SHIFT, TARGET */
/* exported expand, countWords, walk */
function corrupt(index, what) {
  return LexiconFileError("corrupt automaton (edge " + index + ": " + what + ")");
}

/* The packed edges expanded into lexicon/dawg.py's array (its `unpack`), then checked edge by
   edge (the first half of its `check`), in two passes written for speed on a phone:
   - each pass is a function of one loop and nothing after it: V8 optimizes a running loop,
     and code after it that has never run throws that work away;
   - few branches that depend on the data (a target of one byte or two, a new state or not),
     which a processor cannot predict: masks and sums instead;
   - structure faults are only noticed on the way; `firstFault` then names the first one.
   Faults of the streams come before faults of the structure, each at its first edge, as in
   dawg.py. */
function expand(tiles, targets, tileCount) {
  const count = tiles.length, edges = new Uint32Array(count + 1), starts = new Uint32Array(count + 2);
  edges[0] = LAST | (count ? 1 : 0);
  const padded = new Uint8Array(targets.length + 2);  // reads one past the end stay numbers
  padded.set(targets);
  const states = decode(tiles, targets, padded, edges, starts);
  if (link(edges, starts, states, invalidTiles(tileCount)) || (count && !(edges[count] & LAST))) {
    throw firstFault(edges, tileCount);
  }
  return edges;
}

/* One pass over both streams: a tile byte per edge (tile number, ACCEPT bit 5, LAST bit 6), a
   LEB128 target per edge (0 none, 1 the next new state, n the state n - 2), kept as the state
   number + 1; starts[n + 1]: where state n starts. Returns the number of states. */
function decode(tiles, targets, padded, edges, starts) {
  const count = tiles.length, size = targets.length;
  let states = 1, fresh = 1, at = 0;
  starts[1] = 1;
  if (!count && size) throw LexiconFileError("corrupt automaton (targets left over)");
  for (let index = 1; index <= count; index++) {
    const byte = tiles[index - 1], first = padded[at], second = padded[at + 1], more = first >>> 7;
    if (byte & 0x80) throw corrupt(index, "bit 7 set");
    let code = (first & 0x7f) | ((second << 7) & -more), length = 1 + more;  // one byte or two
    if (more & (second >>> 7)) {  // three or more: rare
      code = leb128(targets, at, index);
      length = skip(targets, at);
    }
    at += length;
    if (at > size) throw corrupt(index, "its target is cut short");
    const isNew = ((code ^ 1) - 1) >>> 31;
    code += isNew * (fresh + 1);  // 1: the next new state, numbered n + 2 as the others
    fresh += isNew;
    if (code - 1 > TARGET) throw corrupt(index, "no such state");
    edges[index] = ((byte & 31) << SHIFT) | ((byte & 96) << 17) | (code - 1 + ((code - 1) >>> 31));
    starts[states + 1] = index + 1;  // kept only if this edge ends a state and is not the last
    states += (byte >>> 6) & ((index - count) >>> 31);
    if (index === count && at !== size) throw LexiconFileError("corrupt automaton (targets left over)");
  }
  return states;  // nothing but a local after the loop
}

// The bytes of the LEB128 number at `at`.
function skip(targets, at) {
  const from = at;
  while (targets[at++] & 0x80);
  return at - from;
}

// A LEB128 number at `at` (at most five bytes), or a fault of edge `index`.
function leb128(targets, at, index) {
  let code = 0, scale = 1, part;
  do {
    if (at >= targets.length || scale > 0x10000000) throw corrupt(index, "its target is cut short");
    part = targets[at++];
    code += (part & 0x7f) * scale;
    scale *= 128;
  } while (part & 0x80);
  return code;
}

/* State numbers + 1 into the index of the state's first edge (every target now starts a
   state); nonzero if some edge has a tile out of the set (bit set in `invalid`), is out of
   order after an edge that did not end its state, or neither leads anywhere nor ends a word. */
function link(edges, starts, states, invalid) {
  let faults = 0, previous = edges[0];
  for (let index = 1; index < edges.length; index++) {
    const edge = edges[index], state = edge & TARGET, tile = edge >>> SHIFT;
    if (state > states) throw corrupt(index, "no such state");
    edges[index] = (edge & ~TARGET) | starts[state];
    faults |= ((invalid >>> tile) & 1) | ((edge & (ACCEPT | TARGET)) === 0 ? 1 : 0) |
      ((~previous >>> 23) & ((tile - (previous >>> SHIFT) - 1) >>> 31));
    previous = edge;
  }
  return faults;
}

// The first edge that breaks the structure, as dawg.py `check` names it (a faulty file only).
function firstFault(edges, tileCount) {
  const total = edges.length;
  for (let index = 1; index < total; index++) {
    const edge = edges[index], tile = edge >>> SHIFT, last = edge & LAST;
    const bad = tile < 1 || tile > tileCount ? "tile number " + tile :
      !last && index + 1 === total ? "the last edge does not end its state" :
      !last && edges[index + 1] >>> SHIFT <= tile ? "tiles out of order" :
      !(edge & TARGET) && !(edge & ACCEPT) ? "a dead end" : null;
    if (bad) return corrupt(index, bad);
  }
}

/* The words of an expanded array (the end of lexicon/dawg.py `check`): a depth-first count
   from the root, each state's words once; meeting a state still being counted is a loop.
   This walk is the quick one, for a file that is right: edges in order, 32-bit counts (half
   the memory of doubles, which shows on a phone). On a loop, or more words than 31 bits
   hold, it hands over to `walk`, which names the loop by the edge dawg.py names. */
function countWords(edges) {
  const root = edges[0] & TARGET;
  if (!root) return 0;
  const counted = new Int32Array(edges.length);  // words from a state; -1 while counting
  let path = new Int32Array(64), at = new Int32Array(64), sums = new Int32Array(64);  // a word's length
  let depth = 0, words = 0;
  counted[root] = -1;
  path[0] = at[0] = root;
  while (depth >= 0) {
    const index = at[depth], edge = edges[index], target = edge & TARGET, below = target ? counted[target] : 0;
    if (target && below === 0) {
      counted[target] = -1;
      if (++depth === path.length) {  // deeper than any word: a forged file, or a loop
        path = longer(path);
        at = longer(at);
        sums = longer(sums);
      }
      path[depth] = at[depth] = target;
      continue;
    }
    const sum = sums[depth] + ((edge >>> 22) & 1) + below;  // ACCEPT, and the target's words
    if (below < 0 || sum > 0x7fffffff) return walk(edges);
    if (edge & LAST) {
      words = counted[path[depth]] = sum;
      sums[depth--] = 0;
    } else {
      sums[depth] = sum;
      at[depth] = index + 1;
    }
  }
  return words;
}

function longer(array) {
  const copy = new Int32Array(2 * array.length);
  copy.set(array);
  return copy;
}

/* The same count as dawg.py `check` makes it: a state's targets are checked for loops when it
   is entered, then entered last edge first, words counted in doubles. */
function walk(edges) {
  const root = edges[0] & TARGET;
  const counted = new Float64Array(edges.length);  // words from a state; -1 while counting
  const path = [root], next = [enter(edges, counted, root)];
  let index, target;
  while (path.length) {
    const top = path.length - 1, state = path[top];
    let child = 0;
    for (index = next[top]; index >= state && !child; index--) {
      target = edges[index] & TARGET;
      if (target && counted[target] === 0) child = target;
    }
    if (child) {
      next[top] = index;
      path.push(child);
      next.push(enter(edges, counted, child));
      continue;
    }
    let words = 0;
    for (index = state; ; index++) {
      const edge = edges[index];
      target = edge & TARGET;
      words += (edge & ACCEPT ? 1 : 0) + (target ? counted[target] : 0);
      if (edge & LAST) break;
    }
    counted[state] = words;
    path.pop();
    next.pop();
  }
  return counted[root];
}

// A state entered by `walk`: being counted, no target on the path; its last edge.
function enter(edges, counted, state) {
  counted[state] = -1;
  for (let index = state; ; index++) {
    const target = edges[index] & TARGET;
    if (target && counted[target] === -1) throw corrupt(index, "a loop");
    if (edges[index] & LAST) return index;
  }
}
