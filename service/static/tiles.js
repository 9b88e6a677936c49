/* Lexicon Judge: words read into tiles exactly as lexicon/tokenizer.py reads spelling notation.
   No rule lives here: tiles, spellings, equivalents, distinct letters and hints are the data of
   lexicon/alphabets/LANG.toml exported by service/tiles_data.py, with Python's Unicode facts
   (combining marks, white space). tests/page compares it with Python on literal and random words.
   Steps: strip; NFC; upper-case each character (kept if its capital is two, like ß); drop
   diacritics (NFD, combining marks out) unless the letter is a tile (Ñ, Ç); equivalents (middle
   dots, Ŀ); read left to right, longest spelling first; MIN to MAX tiles. */
(function (global) {
  "use strict";

  var REJECT = "\ufffd";
  var LETTER = /^\p{L}$/u;

  function parseRanges(text) {
    if (!text) return [];
    return text.split(",").map(function (span) {
      var ends = span.split("-");
      var low = parseInt(ends[0], 16);
      return [low, ends.length > 1 ? parseInt(ends[1], 16) : low];
    });
  }

  function inRanges(ranges, cp) {
    var low = 0, high = ranges.length - 1;
    while (low <= high) {
      var mid = (low + high) >> 1;
      if (cp < ranges[mid][0]) high = mid - 1;
      else if (cp > ranges[mid][1]) low = mid + 1;
      else return true;
    }
    return false;
  }

  function chars(text) { return Array.from(text); }  // code points, as Python counts them

  function Reader(alphabet, unicode, limits) {
    this.alphabet = alphabet;
    this.language = alphabet.language;
    this.name = alphabet.name;
    this.limits = limits || { minTiles: 2, maxTiles: 15 };
    this.combining = parseRanges(unicode.combining);
    this.space = parseRanges(unicode.space);
    this.spellings = alphabet.spellings;
    // At each place only the spellings that begin with its character are tried: longest first,
    // then in code point order, the order of Python's alternation.
    this.byFirst = new Map();
    Object.keys(alphabet.spellings).map(chars).sort(function (a, b) {
      return b.length - a.length || (a.join("") < b.join("") ? -1 : 1);
    }).forEach(function (s) {
      if (!this.byFirst.has(s[0])) this.byFirst.set(s[0], []);
      this.byFirst.get(s[0]).push(s.join(""));
    }, this);
    this.folds = new Map();  // code point: foldChar's answer, cached as Python's _FoldTable does
    this.vocabulary = new Set();
    for (var spelling in alphabet.spellings) {
      chars(spelling).forEach(function (c) { this.vocabulary.add(c); }, this);
    }
    this.distinct = new Set(alphabet.distinct);
    this.equivalents = alphabet.equivalents;
    this.hintTables = [alphabet.notationHints, alphabet.hints];
  }

  Reader.prototype.isSpace = function (cp) { return inRanges(this.space, cp); };

  // White space is all in the BMP: a surrogate at either end is no space.
  Reader.prototype.strip = function (text) {
    var start = 0, end = text.length;
    while (start < end && this.isSpace(text.charCodeAt(start))) start++;
    while (end > start && this.isSpace(text.charCodeAt(end - 1))) end--;
    return text.slice(start, end);
  };

  // One character, folded: Python's Tokenizer._fold_char.
  Reader.prototype.foldChar = function (c) {
    var upper = c.toUpperCase();
    var folded = chars(upper).length === 1 ? upper : c;
    if (this.alphabet.foldDiacritics && !this.distinct.has(folded)) {
      var self = this;
      folded = chars(folded.normalize("NFD")).filter(function (d) {
        return !inRanges(self.combining, d.codePointAt(0));
      }).join("");
    }
    var out = "";
    chars(folded).forEach(function (d) {
      out += Object.prototype.hasOwnProperty.call(this.equivalents, d) ? this.equivalents[d] : d;
    }, this);
    var vocabulary = this.vocabulary;
    return chars(out).every(function (d) { return vocabulary.has(d); }) ? out : REJECT;
  };

  // Why a typed character is no tile: Python's Tokenizer._reason, with a code for translations.
  Reader.prototype.explain = function (typed, folded) {
    var upper = typed.toUpperCase();
    for (var i = 0; i < this.hintTables.length; i++) {
      var hints = this.hintTables[i];
      var candidates = [upper, folded];
      for (var j = 0; j < candidates.length; j++) {
        if (Object.prototype.hasOwnProperty.call(hints, candidates[j])) {
          return { reason: hints[candidates[j]], why: "hint", hint: candidates[j] };
        }
      }
    }
    if (chars(typed).length === 1 && this.isSpace(typed.codePointAt(0))) {
      return { reason: "white space is not a tile: one word at a time", why: "space" };
    }
    if (this.vocabulary.has(folded)) {
      return { reason: "no " + this.name + " tile is written this way here", why: "spelling" };
    }
    if (LETTER.test(typed)) {
      return { reason: "the " + this.name + " set has no " + upper + " tile", why: "letter" };
    }
    return { reason: "not a letter of the " + this.name + " tile set", why: "other" };
  };

  /* A word read into tiles: {word, tiles, error}. `word` is the word as judged (stripped, NFC);
     `tiles` the tiles read (up to the error, if any); `error` null or one of
       {kind: "empty"}
       {kind: "tile", char, position (1-based, code points of `word`), reason, why, hint}
       {kind: "length", tiles: n, min, max} */
  Reader.prototype.read = function (text) {
    var word = this.strip(text);
    if (!word) return { word: word, tiles: [], error: { kind: "empty" } };
    // Text below U+0300 is NFC already (no mark, no composition): most words skip normalize.
    for (var i = 0; i < word.length && word.charCodeAt(i) < 0x300; i++);
    if (i < word.length) word = word.normalize("NFC");
    var folded = "", source = [], place = 0;  // source: the typed code point of each folded one
    for (i = 0; i < word.length; place++) {
      var cp = word.codePointAt(i), size = cp > 0xffff ? 2 : 1, fold = this.folds.get(cp);
      if (fold === undefined) {
        fold = this.foldChar(word.substr(i, size));
        if (size === 1) this.folds.set(cp, fold);  // the cache stays bounded, as Python's
      }
      folded += fold;
      for (var k = 0; k < fold.length; k++) source.push(place);
      i += size;
    }
    var tiles = [], at = 0;
    while (at < folded.length) {
      var group = this.byFirst.get(folded[at]) || [], match = null;
      for (k = 0; k < group.length && !match; k++) if (folded.startsWith(group[k], at)) match = group[k];
      if (!match) {
        var typed = chars(word)[source[at]], piece = String.fromCodePoint(folded.codePointAt(at));
        var why = this.explain(typed, piece);
        return { word: word, tiles: tiles, error: {
          kind: "tile", char: typed, position: source[at] + 1,
          reason: why.reason, why: why.why, hint: why.hint || null } };
      }
      tiles.push(this.spellings[match]);
      at += match.length;
    }
    var limits = this.limits;
    if (tiles.length < limits.minTiles || tiles.length > limits.maxTiles) {
      return { word: word, tiles: tiles, error: {
        kind: "length", tiles: tiles.length, min: limits.minTiles, max: limits.maxTiles } };
    }
    return { word: word, tiles: tiles, error: null };
  };

  /* The text that puts `tile` between `before` and `after` so that it reads as that one tile:
     its plain spelling (RR, L·L) unless greedy reading would then split it or join it with a
     neighbour (CAR + RR + O reads C|A|RR|R|O), then its bracketed spelling ([RR]). */
  Reader.prototype.insertion = function (key, before, after) {
    if (!key.bracketed) return key.text;
    var self = this;
    function tilesOf(text) {
      var read = self.read(text);
      return read.error && read.error.kind === "tile" ? null : read.tiles;
    }
    var left = before.trim() ? tilesOf(before) : [];
    var right = after.trim() ? tilesOf(after) : [];
    var joined = tilesOf(before + key.text + after);
    if (!left || !right || !joined) return key.text;  // an error elsewhere: plain spelling
    var expected = left.concat([key.tile], right);
    return expected.join("|") === joined.join("|") ? key.text : key.bracketed;
  };

  global.LexiconTiles = { Reader: Reader, REJECT: REJECT };
})(window);
