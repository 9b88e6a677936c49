/* Lexicon Judge: the browser lexicon (lexicon/browser.py writes it; docs/browser-lexicon.md).
   A page (or Node) gives `LexiconDawg.load` the bytes of GET /v1/lexicons/{id}/browser; it
   verifies the SHA-256 at the end of the file, the header and the tile set, expands the packed
   edges once into the Uint32Array of lexicon/dawg.py (one 32-bit word per edge), checks the
   automaton's structure and word count (WebAssembly for a file that is right, JavaScript for the
   rest: see `compiled`), then answers lookups from that array.
   crypto.subtle exists only in secure contexts (HTTPS, localhost, Node); on a plain-HTTP venue
   network the small SHA-256 below does the same work.
   The joint verdict reads words with tiles.js (LexiconTiles.Reader), the rules of the service,
   and looks every word up, always: the work never depends on which word is missing. */
(function (global) {
  "use strict";

  var MAGIC = [0x4c, 0x58, 0x4a, 0x44, 0x41, 0x57, 0x47, 0x1a];  // "LXJDAWG\x1a"
  var FORMAT = 1;
  var PREFIX = 24, DIGEST = 32;
  var TARGET = 0x3fffff, ACCEPT = 1 << 22, LAST = 1 << 23, SHIFT = 24;

  function LexiconFileError(message) {
    var error = new Error("browser lexicon: " + message);
    error.name = "LexiconFileError";
    return error;
  }

  // -- SHA-256 (FIPS 180-4), for when crypto.subtle is not there ------------------------------

  var K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);

  function sha256(bytes) {
    var length = bytes.length;
    var padded = new Uint8Array(((length + 72) >> 6) << 6);  // message, 0x80, zeros, 64-bit length
    padded.set(bytes);
    padded[length] = 0x80;
    var view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length << 3) >>> 0);
    var h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    var w = new Uint32Array(64);
    for (var block = 0; block < padded.length; block += 64) {
      for (var i = 0; i < 16; i++) w[i] = view.getUint32(block + 4 * i);
      for (i = 16; i < 64; i++) {
        var x = w[i - 15], y = w[i - 2];
        var s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
        var s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
      for (i = 0; i < 64; i++) {
        var t1 = (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7)))
                  + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
        var t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10)))
                  + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
    }
    var out = new Uint8Array(32), outView = new DataView(out.buffer);
    for (i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
    return out;
  }

  function hex(bytes) {
    var text = "";
    for (var i = 0; i < bytes.length; i++) text += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return text;
  }

  // SHA-256 of bytes as a promise: crypto.subtle when the context allows it, else sha256 above.
  function digest(bytes, options) {
    var subtle = global.crypto && global.crypto.subtle;
    if (subtle && !(options && options.pure)) {
      return subtle.digest("SHA-256", bytes).then(function (d) { return new Uint8Array(d); });
    }
    return Promise.resolve(sha256(bytes));
  }

  // -- the file -------------------------------------------------------------------------------

  function toBytes(data) {
    if (data instanceof ArrayBuffer) return new Uint8Array(data);
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw LexiconFileError("expected an ArrayBuffer");
  }

  /* Verify and open a browser lexicon. Resolves to a Lexicon; rejects with a LexiconFileError
     (name "LexiconFileError") for bytes that are not a whole, intact file this reader knows.
     options: {pure: true} uses the JavaScript SHA-256 even where crypto.subtle exists;
     {tiles: [...]} the tile set the page expects (refused if the file's differs);
     {engine: "js"} reads the file without the WebAssembly fast path (tests, the bench). */
  function load(data, options) {
    var bytes;
    try { bytes = toBytes(data); } catch (error) { return Promise.reject(error); }
    for (var i = 0; i < MAGIC.length; i++) {
      if (bytes[i] !== MAGIC[i]) return Promise.reject(LexiconFileError("not a browser lexicon (no Lexicon Judge DAWG magic)"));
    }
    if (bytes.length < PREFIX + DIGEST) return Promise.reject(LexiconFileError("truncated inside its prefix"));
    var version = bytes[8] | (bytes[9] << 8);
    if (version !== FORMAT) {
      return Promise.reject(LexiconFileError("format version " + version + "; this page reads version " + FORMAT));
    }
    var body = bytes.subarray(0, bytes.length - DIGEST), stored = bytes.subarray(bytes.length - DIGEST);
    // crypto.subtle hashes on another thread: the file is opened meanwhile, and what was found
    // wrong in it is told only once the checksum is right, as if it had been opened after.
    var hashing = digest(body, options), opened;
    try {
      opened = new Lexicon(bytes, null, options || {});
    } catch (error) {
      opened = { error: error };
    }
    return hashing.then(function (computed) {
      for (var j = 0; j < DIGEST; j++) {
        if (computed[j] !== stored[j]) throw LexiconFileError("checksum mismatch: the file is truncated or corrupt");
      }
      if (opened.error) throw opened.error;
      opened.fileChecksum = hex(computed);
      return opened;
    });
  }

  function Lexicon(bytes, digestHex, options) {
    var view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    var length = view.getUint32(12, true), count = view.getUint32(16, true), targets = view.getUint32(20, true);
    var start = PREFIX + length;
    if (bytes.length !== start + count + targets + DIGEST) throw LexiconFileError("size does not match its prefix");
    var header;
    try {
      header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(PREFIX, start)));
    } catch (error) {
      throw LexiconFileError("corrupt header (" + error.message + ")");
    }
    if (!header || !Array.isArray(header.tiles) || typeof header.words !== "number") {
      throw LexiconFileError("corrupt header (no tiles or word count)");
    }
    if (options.tiles && options.tiles.join("|") !== header.tiles.join("|")) {
      throw LexiconFileError("made with another tile set than this page's: re-export it");
    }
    var tileBytes = bytes.subarray(start, start + count), targetBytes = bytes.subarray(start + count, start + count + targets);
    var fast = options.engine === "js" ? null : compiled(tileBytes, targetBytes, header.tiles.length);
    var edges = fast ? fast.edges : expand(tileBytes, targetBytes, header.tiles.length);
    var words = fast ? fast.words : countWords(edges);
    if (header.edges !== count) {  // as lexicon/browser.py: the header describes this automaton
      throw LexiconFileError(count + " packed edges where the header says " + header.edges);
    }
    if (words !== header.words) {
      throw LexiconFileError(words + " words where the header says " + header.words);
    }
    this.header = header;
    this.edges = edges;
    this.engine = fast ? "wasm" : "js";     // which code read the file (tests, the bench)
    this.checksum = header.lexicon_sha256;  // the .lex file's: what a verdict shows
    this.fileChecksum = digestHex;          // this file's: the ETag it was served with (set by load)
    this.tileNumber = {};
    for (var i = 0; i < header.tiles.length; i++) this.tileNumber[header.tiles[i]] = i + 1;
  }

  // Bit t set: tile number t is not in a set of `tileCount` tiles.
  function invalidTiles(tileCount) {
    var valid = 0;
    for (var tile = 1; tile <= tileCount && tile < 32; tile++) valid |= 1 << tile;
    return ~valid;
  }

  /* The fast path: `decode`, `link` and `countWords` of a file that is right, in WebAssembly
     (dawg.wat beside this file). A phone opening the page runs these loops once, cold, and V8
     interprets JavaScript before it optimizes it: 97 ms throttled 4x where the target is 50.
     WebAssembly is compiled before it runs. It answers only {edges, words} or null ("not sure":
     a fault, an odd file, no WebAssembly, a policy without 'wasm-unsafe-eval'), and for null the
     JavaScript below does the whole work and names what is wrong. The edges stay a view on the
     module's memory (tile and target bytes and the scratch arrays included: about 2.5 times
     the edges), which saves copying them on a phone.
     `python -m asset_tools.wasm` writes the next line from dawg.wat. */
  var WASM = "AGFzbQEAAAABEwJgB39/f39/f38Bf2ADf39/AX8CEwEHbGV4aWNvbgZtZW1vcnkCAAEDAwIAAQcSAgZleHBhbmQAAAVjb3VudAABCpAGAtoDARB/IARBgICABCABQQBHcjYCACAFQQE2AgRBASENQQEhDiABRQRAIANBAEcPC0EBIQcDQCAAIAdBAWtqLQAAIQkgAiAIai0AACELIAhBAWohCCALQf8AcSEKIAtBgAFxBEBBByEMA0AgDEEVSwRAQQEPCyACIAhqLQAAIQsgCEEBaiEIIAogC0H/AHEgDHRyIQogDEEHaiEMIAtBgAFxDQALCyAKQQFGIRUgDiAVaiEOIA5BAWogCiAVGyEKIBMgCUGAAXEgCkGAgIACS3JyIRMgBCAHQQJ0aiAJQR9xQRh0IAlB4ABxQRF0ciAKQQFrQQAgChtyNgIAIAUgDUEBakECdGogB0EBajYCACANIAlBBnYgByABSXFqIQ0gB0EBaiEHIAcgAU0NAAsgEyAIIANHcgRAQQEPCyAEKAIAIRJBASEHA0AgBCAHQQJ0aiEUIBQoAgAhDyAPQf///wFxIRAgD0EYdiERIBAgDUshFiAUIA9BgICAfnEgBUEAIBAgFhtBAnRqKAIAcjYCACATIBZyIAYgEXZBAXEgD0H///8DcUVyIBJBgICABHFFIBEgEkEYdk1xcnIhEyAPIRIgB0EBaiEHIAcgAU0NAAsgEyASQYCAgARxRXILsQIBCX8gACgCAEH///8BcSEDIANFBEBBAA8LIAEgA0ECdGpBfzYCACACIAM2AgAgAiADNgKAAgNAIAIgBEECdGohCyALKAKAAiEGIAAgBkECdGooAgAhByAHQf///wFxIQggASAIQQJ0aigCAEEAIAgbIQkgCEEARyAJRXEEQCABIAhBAnRqQX82AgAgBEEBaiEEIARBwABGBEBBfw8LIAtBBGohCyALIAg2AgAgCyAINgKAAgwBCyAJQQBIBEBBfw8LIAsoAoAEIAlqIAdBFnZBAXFqIQogCkH/////B0sEQEF/DwsgB0GAgIAEcQRAIAohBSABIAsoAgBBAnRqIAo2AgAgC0EANgKABCAEQQFrIQQFIAsgCjYCgAQgCyAGQQFqNgKAAgsgBEEATg0ACyAFCw==";
  var wasmModule = null;  // a WebAssembly.Module; false once compiling has failed

  function wasmBytes() {
    var text = atob(WASM), bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }

  /* Done while the page downloads its lexicon, so that the first `load` finds them ready: the
     WebAssembly compiled (or compiled at once in `compiled` if that is not done yet) and warmed
     (`warm`), and a first crypto.subtle digest, which sets the digest up (its first call took
     5 ms in Node, a phone's several times that). */
  try {
    if (global.crypto && global.crypto.subtle) global.crypto.subtle.digest("SHA-256", new Uint8Array(0)).catch(function () {});
  } catch (error) { /* it is only a head start */ }
  if (typeof WebAssembly === "object" && typeof atob === "function") {
    try {
      WebAssembly.compile(wasmBytes()).then(function (made) { wasmModule = wasmModule || made; warm(made); },
                                            function () { wasmModule = false; });
    } catch (error) {
      wasmModule = false;
    }
  } else {
    wasmModule = false;
  }

  /* V8 compiles WebAssembly lazily: a function is compiled plainly at its first call, and
     optimized, on another thread, only once it has run a while. A phone's first `load` ran the
     plain code from start to end: 67 to 90 ms throttled 4x (`python -m bench chromium`), three
     times the optimized code's. So both functions first run here, WARM_ROUNDS times on a made-up
     automaton of WARM_EDGES edges (all in one state: expand decodes and links them, and answers
     "not sure"; count walks them), which is enough work for V8 to optimize them while the page
     downloads its lexicon. A mark, "lexicon.js warm", says when it is done (DevTools; tests). */
  var WARM_EDGES = 20000, WARM_ROUNDS = 3;

  function warm(module) {
    try {
      var n = WARM_EDGES, edgesAt = 2 * n + 8, startsAt = edgesAt + 4 * (n + 1), stackAt = startsAt + 4 * (n + 2);
      var memory = new WebAssembly.Memory({ initial: Math.ceil((stackAt + 3 * 256) / 65536) });
      var code = new WebAssembly.Instance(module, { lexicon: { memory: memory } }).exports;
      var words = new Uint32Array(memory.buffer);
      for (var round = 0; round < WARM_ROUNDS; round++) {
        code.expand(0, n, n, n, edgesAt, startsAt, -1);  // n zero bytes of each stream
        words.fill(0, edgesAt >> 2, stackAt >> 2);
        words[edgesAt >> 2] = 1;                // the root's first edge
        words[(edgesAt >> 2) + n] = 0x800000;   // the last edge ends the root
        code.count(edgesAt, startsAt, stackAt);
      }
      if (global.performance && global.performance.mark) global.performance.mark("lexicon.js warm");
    } catch (error) { /* it is only a head start */ }
  }

  function compiled(tiles, targets, tileCount) {
    if (wasmModule === false) return null;
    try {
      if (!wasmModule) {
        try {
          wasmModule = new WebAssembly.Module(wasmBytes());
        } catch (error) {  // a policy refusing WebAssembly: not asked again (nor logged again)
          wasmModule = false;
          return null;
        }
      }
      var count = tiles.length, size = targets.length;
      var edgesAt = (count + size + 8 + 3) & ~3;  // after the two streams (and some zeros)
      var startsAt = edgesAt + 4 * (count + 1), stackAt = startsAt + 4 * (count + 2);
      var memory = new WebAssembly.Memory({ initial: Math.ceil((stackAt + 3 * 256) / 65536) });
      var heap = new Uint8Array(memory.buffer);
      heap.set(tiles, 0);
      heap.set(targets, count);
      var code = new WebAssembly.Instance(wasmModule, { lexicon: { memory: memory } }).exports;
      if (code.expand(0, count, count, size, edgesAt, startsAt, invalidTiles(tileCount))) return null;
      heap.fill(0, startsAt, stackAt);  // the states' starts are done with: the counts go there
      var words = code.count(edgesAt, startsAt, stackAt);
      return words < 0 ? null : { edges: new Uint32Array(memory.buffer, edgesAt, count + 1), words: words };
    } catch (error) {  // no memory that large, a policy refusing WebAssembly, an out-of-bounds trap
      return null;
    }
  }

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
    var count = tiles.length, edges = new Uint32Array(count + 1), starts = new Uint32Array(count + 2);
    edges[0] = LAST | (count ? 1 : 0);
    var padded = new Uint8Array(targets.length + 2);  // reads one past the end stay numbers
    padded.set(targets);
    var states = decode(tiles, targets, padded, edges, starts);
    if (link(edges, starts, states, invalidTiles(tileCount)) || (count && !(edges[count] & LAST))) throw firstFault(edges, tileCount);
    return edges;
  }

  /* One pass over both streams: a tile byte per edge (tile number, ACCEPT bit 5, LAST bit 6), a
     LEB128 target per edge (0 none, 1 the next new state, n the state n - 2), kept as the state
     number + 1; starts[n + 1]: where state n starts. Returns the number of states. */
  function decode(tiles, targets, padded, edges, starts) {
    var count = tiles.length, size = targets.length, states = 1, fresh = 1, at = 0;
    starts[1] = 1;
    if (!count && size) throw LexiconFileError("corrupt automaton (targets left over)");
    for (var index = 1; index <= count; index++) {
      var byte = tiles[index - 1], first = padded[at], second = padded[at + 1], more = first >>> 7;
      if (byte & 0x80) throw corrupt(index, "bit 7 set");
      var code = (first & 0x7f) | ((second << 7) & -more), length = 1 + more;  // one byte or two
      if (more & (second >>> 7)) {  // three or more: rare
        code = leb128(targets, at, index);
        length = skip(targets, at);
      }
      at += length;
      if (at > size) throw corrupt(index, "its target is cut short");
      var isNew = ((code ^ 1) - 1) >>> 31;
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
    var from = at;
    while (targets[at++] & 0x80);
    return at - from;
  }

  // A LEB128 number at `at` (at most five bytes), or a fault of edge `index`.
  function leb128(targets, at, index) {
    var code = 0, scale = 1, part;
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
    var faults = 0, previous = edges[0];
    for (var index = 1; index < edges.length; index++) {
      var edge = edges[index], state = edge & TARGET, tile = edge >>> SHIFT;
      if (state > states) throw corrupt(index, "no such state");
      edges[index] = (edge & ~TARGET) | starts[state];
      faults |= ((invalid >>> tile) & 1) | ((edge & (ACCEPT | TARGET)) === 0 ? 1 : 0)
        | ((~previous >>> 23) & ((tile - (previous >>> SHIFT) - 1) >>> 31));
      previous = edge;
    }
    return faults;
  }

  // The first edge that breaks the structure, as dawg.py `check` names it (a faulty file only).
  function firstFault(edges, tileCount) {
    var total = edges.length;
    for (var index = 1; index < total; index++) {
      var edge = edges[index], tile = edge >>> SHIFT, last = edge & LAST;
      var bad = tile < 1 || tile > tileCount ? "tile number " + tile :
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
    var root = edges[0] & TARGET;
    if (!root) return 0;
    var counted = new Int32Array(edges.length);  // words from a state; -1 while counting
    var path = new Int32Array(64), at = new Int32Array(64), sums = new Int32Array(64);  // a word's length
    var depth = 0, words = 0;
    counted[root] = -1;
    path[0] = at[0] = root;
    while (depth >= 0) {
      var index = at[depth], edge = edges[index], target = edge & TARGET, below = target ? counted[target] : 0;
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
      var sum = sums[depth] + ((edge >>> 22) & 1) + below;  // ACCEPT, and the target's words
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
    var copy = new Int32Array(2 * array.length);
    copy.set(array);
    return copy;
  }

  /* The same count as dawg.py `check` makes it: a state's targets are checked for loops when it
     is entered, then entered last edge first, words counted in doubles. */
  function walk(edges) {
    var root = edges[0] & TARGET;
    var counted = new Float64Array(edges.length);  // words from a state; -1 while counting
    var path = [root], next = [enter(edges, counted, root)], index, target;
    while (path.length) {
      var top = path.length - 1, state = path[top], child = 0;
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
      var words = 0;
      for (index = state; ; index++) {
        var edge = edges[index];
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
    for (var index = state; ; index++) {
      var target = edges[index] & TARGET;
      if (target && counted[target] === -1) throw corrupt(index, "a loop");
      if (edges[index] & LAST) return index;
    }
  }

  /* True when `numbers` (tile numbers: 1 + the tile's index in header.tiles) is a word. */
  Lexicon.prototype.has = function (numbers) {
    var edges = this.edges, index = edges[0] & TARGET, accept = false;
    for (var i = 0; i < numbers.length; i++) {
      if (index === 0) return false;
      var tile = numbers[i], edge = edges[index];
      while (edge >>> SHIFT !== tile) {
        if (edge & LAST) return false;
        edge = edges[++index];
      }
      accept = (edge & ACCEPT) !== 0;
      index = edge & TARGET;
    }
    return accept;
  };

  /* True when the tiles (labels, as tiles.js reads them: ["C", "A", "RR", "O"]) are a word. */
  Lexicon.prototype.hasTiles = function (tiles) {
    var numbers = new Array(tiles.length);
    for (var i = 0; i < tiles.length; i++) {
      numbers[i] = this.tileNumber[tiles[i]] || 0;  // 0 is no tile: never found
    }
    return this.has(numbers);
  };

  /* The joint verdict on a play, as the service gives it (lexicon/verdict.py `judge`):
       {valid: true|false}                       every word read; never which word failed
       {error: {kind, index, ...}}               the first word that is no word (1-based index),
                                                 with tiles.js's error, or {kind: "words"}
     `reader` is a LexiconTiles.Reader of this lexicon's language, made with the page's limits
     (minWords, maxWords: lexicon.board's, given by service/page_data.py). */
  Lexicon.prototype.judge = function (reader, words) {
    var most = reader.limits.maxWords, least = reader.limits.minWords;  // lexicon.board's, via the page
    if (words.length < least || words.length > most) {
      return { error: { kind: "words", count: words.length, min: least, max: most } };
    }
    // Which word an error names follows lexicon/tokenizer.py `keys` then verdict.py `play_keys`:
    // the first empty word, else the first word with a character that is no tile, else the
    // first word of too few or too many tiles.
    var reads = [], failed = {};
    for (var i = 0; i < words.length; i++) {
      var read = reader.read(words[i]);
      if (read.error && !(read.error.kind in failed)) failed[read.error.kind] = { index: i + 1, read: read };
      reads.push(read.tiles);
    }
    var kinds = ["empty", "tile", "length"];
    for (var kind in failed) if (kinds.indexOf(kind) < 0) kinds.push(kind);
    for (var k = 0; k < kinds.length; k++) {
      var first = failed[kinds[k]];
      if (!first) continue;
      var error = { index: first.index };
      for (var name in first.read.error) error[name] = first.read.error[name];
      return { error: error };
    }
    var found = 0;
    for (i = 0; i < reads.length; i++) found += this.hasTiles(reads[i]) ? 1 : 0;  // no short cut
    return { valid: found === reads.length };
  };

  var api = { load: load, sha256: sha256, digest: digest, hex: hex, expand: expand, countWords: countWords, walk: walk, FORMAT: FORMAT,
              Lexicon: Lexicon };
  global.LexiconDawg = api;
  if (typeof module === "object" && module.exports) module.exports = api;  // Node
})(typeof globalThis !== "undefined" ? globalThis : window);
