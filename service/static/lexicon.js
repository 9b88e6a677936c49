/* Lexicon Judge: the browser lexicon (lexicon/browser.py writes it; docs/browser-lexicon.md).
   A page (or Node) gives `LexiconDawg.load` the bytes of GET /v1/lexicons/{id}/browser; it
   verifies the SHA-256 at the end of the file, the header and the tile set, expands the packed
   edges once into the Uint32Array of lexicon/dawg.py (one 32-bit word per edge), checks the
   automaton's structure and word count, then answers lookups from that array.
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
     {tiles: [...]} the tile set the page expects (refused if the file's differs). */
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
    return digest(body, options).then(function (computed) {
      for (var j = 0; j < DIGEST; j++) {
        if (computed[j] !== stored[j]) throw LexiconFileError("checksum mismatch: the file is truncated or corrupt");
      }
      return new Lexicon(bytes, hex(computed), options || {});
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
    var edges = unpack(bytes.subarray(start, start + count), bytes.subarray(start + count, start + count + targets));
    var words = check(edges, header.tiles.length);
    if (words !== header.words) {
      throw LexiconFileError(words + " words where the header says " + header.words);
    }
    this.header = header;
    this.edges = edges;
    this.checksum = header.lexicon_sha256;  // the .lex file's: what a verdict shows
    this.fileChecksum = digestHex;          // this file's: the ETag it was served with
    this.tileNumber = {};
    for (var i = 0; i < header.tiles.length; i++) this.tileNumber[header.tiles[i]] = i + 1;
  }

  /* The packed edges expanded (lexicon/dawg.py `unpack`): a tile byte per edge (tile number,
     ACCEPT bit 5, LAST bit 6), a LEB128 target per edge (0 none, 1 the next new state, n the
     state n - 2), states numbered in order of their place. */
  function unpack(tiles, targets) {
    var count = tiles.length, edges = new Uint32Array(count + 1);
    var starts = [1], fresh = 1, at = 0;
    edges[0] = LAST | (count ? 1 : 0);
    for (var index = 1; index <= count; index++) {
      var byte = tiles[index - 1];
      if (byte & 0x80) throw LexiconFileError("corrupt automaton (edge " + index + ": bit 7 set)");
      var code = 0, scale = 1, part;
      do {
        if (at >= targets.length || scale > 0x10000000) {
          throw LexiconFileError("corrupt automaton (edge " + index + ": its target is cut short)");
        }
        part = targets[at++];
        code += (part & 0x7f) * scale;
        scale *= 128;
      } while (part & 0x80);
      if (code === 1) code = 2 + fresh++;
      if (code - 1 > TARGET) throw LexiconFileError("corrupt automaton (edge " + index + ": no such state)");
      edges[index] = (((byte & 31) << SHIFT) | (byte & 32 ? ACCEPT : 0) | (byte & 64 ? LAST : 0)
                      | (code ? code - 1 : 0)) >>> 0;  // state number + 1 for now
      if (byte & 64 && index < count) starts.push(index + 1);
    }
    if (at !== targets.length) throw LexiconFileError("corrupt automaton (targets left over)");
    for (index = 1; index <= count; index++) {
      var state = edges[index] & TARGET;
      if (state) {
        if (state - 1 >= starts.length) throw LexiconFileError("corrupt automaton (edge " + index + ": no such state)");
        edges[index] = ((edges[index] & ~TARGET) | starts[state - 1]) >>> 0;
      }
    }
    return edges;
  }

  /* The structure (lexicon/dawg.py `check`): targets start states, tiles in order within a
     state and within the tile set, dead ends accept, no loop; returns the number of words. */
  function check(edges, tiles) {
    var total = edges.length;
    if (total === 0 || edges[0] >>> SHIFT !== 0 || !(edges[0] & LAST) || (edges[0] & ACCEPT)) {
      throw LexiconFileError("corrupt automaton (edge 0 is not the root sentinel)");
    }
    var starts = new Uint8Array(total), index, edge, target;
    if (total > 1) starts[1] = 1;
    for (index = 1; index < total; index++) {
      edge = edges[index];
      var tile = edge >>> SHIFT, last = edge & LAST;
      var bad = tile < 1 || tile > tiles ? "tile number " + tile :
        !last && index + 1 === total ? "the last edge does not end its state" :
        !last && edges[index + 1] >>> SHIFT <= tile ? "tiles out of order" :
        !(edge & TARGET) && !(edge & ACCEPT) ? "a dead end" : null;
      if (bad) throw LexiconFileError("corrupt automaton (edge " + index + ": " + bad + ")");
      if (last && index + 1 < total) starts[index + 1] = 1;
    }
    for (index = 0; index < total; index++) {
      target = edges[index] & TARGET;
      if (target && (target >= total || !starts[target])) {
        throw LexiconFileError("corrupt automaton (edge " + index + ": target " + target + " is not a state)");
      }
    }
    var root = edges[0] & TARGET;
    if (!root) {
      if (total > 1) throw LexiconFileError("corrupt automaton (edges follow an empty root)");
      return 0;
    }
    var counted = new Float64Array(total), stack = [root];  // words from a state; -1 while counting
    while (stack.length) {
      var state = stack[stack.length - 1];
      if (counted[state] === 0) {
        counted[state] = -1;
        for (index = state; ; index++) {
          target = edges[index] & TARGET;
          if (target) {
            if (counted[target] === -1) throw LexiconFileError("corrupt automaton (edge " + index + ": a loop)");
            if (counted[target] === 0) stack.push(target);
          }
          if (edges[index] & LAST) break;
        }
        continue;
      }
      stack.pop();
      if (counted[state] !== -1) continue;
      var words = 0;
      for (index = state; ; index++) {
        edge = edges[index];
        target = edge & TARGET;
        words += (edge & ACCEPT ? 1 : 0) + (target ? counted[target] : 0);
        if (edge & LAST) break;
      }
      counted[state] = words;
    }
    return counted[root];
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
     (minWords, maxWords: lexicon.board's, given by service/page.py). */
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

  var api = { load: load, sha256: sha256, digest: digest, hex: hex, unpack: unpack, check: check, FORMAT: FORMAT,
              Lexicon: Lexicon };
  global.LexiconDawg = api;
  if (typeof module === "object" && module.exports) module.exports = api;  // Node
})(typeof globalThis !== "undefined" ? globalThis : window);
