/* exported LexiconTiles */
/* Lexicon Judge: words read into tiles exactly as lexicon/tokenizer.py reads spelling notation.
   No rule lives here: tiles, spellings, equivalents, distinct letters and hints are the data of
   lexicon/alphabets/LANG.toml (service/tiles_data.py), with Python's Unicode facts (combining
   marks, white space); tests/page compares it with Python. Steps: strip; NFC; upper-case each
   character (kept if its capital is two, like ß); drop diacritics (NFD, marks out) unless the
   letter is a tile (Ñ, Ç); equivalents (middle dots, Ŀ); longest spelling first; MIN-MAX tiles.
   A verdict reads every word as typed: a character is folded once, then taken from a cache. */
(() => {
  "use strict";

  const REJECT = "\ufffd";
  const LETTER = /^\p{L}$/u;

  function parseRanges(text) {  // "300-34e,483": [[0x300, 0x34e], [0x483, 0x483]]
    return text ? text.split(",").map((span) => {
      const ends = span.split("-").map((end) => { return parseInt(end, 16); });
      return [ends[0], ends[ends.length - 1]];
    }) : [];
  }

  function inRanges(ranges, cp) {
    let low = 0, high = ranges.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (cp < ranges[mid][0]) high = mid - 1;
      else if (cp > ranges[mid][1]) low = mid + 1;
      else return true;
    }
    return false;
  }

  function chars(text) { return Array.from(text); }  // code points, as Python counts them
  function own(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  class Reader {
    constructor(alphabet, unicode, limits) {
      this.alphabet = alphabet;
      this.language = alphabet.language;
      this.name = alphabet.name;
      this.limits = limits || { minTiles: 2, maxTiles: 15 };
      this.combining = parseRanges(unicode.combining);
      this.space = parseRanges(unicode.space);
      this.spellings = alphabet.spellings;
      // Spellings by first character, longest first, then in code point order (the order of
      // Python's alternation): at each place only those that may match are tried.
      this.byFirst = new Map();
      Object.keys(alphabet.spellings).map(chars).sort((a, b) => {
        return b.length - a.length || (a.join("") < b.join("") ? -1 : 1);
      }).forEach((s) => {
        this.byFirst.set(s[0], (this.byFirst.get(s[0]) || []).concat(s.join("")));
      });
      this.folds = new Map();  // character: foldChar's answer, as Python's _FoldTable caches it
      this.vocabulary = new Set(chars(Object.keys(alphabet.spellings).join("")));
      this.distinct = new Set(alphabet.distinct);
      this.equivalents = alphabet.equivalents;
      this.hintTables = [alphabet.notationHints, alphabet.hints];
    }

    // White space is all in the BMP: a surrogate at either end is no space.
    strip(text) {
      let start = 0, end = text.length;
      while (start < end && inRanges(this.space, text.charCodeAt(start))) start++;
      while (end > start && inRanges(this.space, text.charCodeAt(end - 1))) end--;
      return text.slice(start, end);
    }

    // One character, folded: Python's Tokenizer._fold_char.
    foldChar(c) {
      const upper = c.toUpperCase();
      let folded = chars(upper).length === 1 ? upper : c, out = "";
      if (this.alphabet.foldDiacritics && !this.distinct.has(folded)) {
        folded = chars(folded.normalize("NFD")).filter((d) => !inRanges(this.combining, d.codePointAt(0))).join("");
      }
      for (const d of chars(folded)) out += own(this.equivalents, d) ? this.equivalents[d] : d;
      return chars(out).every((d) => this.vocabulary.has(d)) ? out : REJECT;
    }

    // Why a typed character (one code point) is no tile: Python's Tokenizer._reason, with a code
    // for translations.
    explain(typed, folded) {
      const upper = typed.toUpperCase();
      for (const hints of this.hintTables) {
        for (const key of [upper, folded]) {
          if (own(hints, key)) return { reason: hints[key], why: "hint", hint: key };
        }
      }
      if (inRanges(this.space, typed.codePointAt(0))) {
        return { reason: "white space is not a tile: one word at a time", why: "space" };
      }
      if (this.vocabulary.has(folded)) {
        return { reason: "no " + this.name + " tile is written this way here", why: "spelling" };
      }
      if (LETTER.test(typed)) {
        return { reason: "the " + this.name + " set has no " + upper + " tile", why: "letter" };
      }
      return { reason: "not a letter of the " + this.name + " tile set", why: "other" };
    }

    /* A word read into tiles: {word, tiles, error}. `word` is the word as judged (stripped, NFC);
     `tiles` the tiles read (up to the error, if any); `error` null or one of
       {kind: "empty"}
       {kind: "tile", char, position (1-based, code points of `word`), reason, why, hint}
       {kind: "length", tiles: n, min, max} */
    read(text) {
      let word = this.strip(text);
      if (!word) return { word, tiles: [], error: { kind: "empty" } };
      if (/[^\0-\u02ff]/.test(word)) word = word.normalize("NFC");  // below U+0300 all is NFC
      const source = [];  // the typed character of each folded one
      let folded = "", place = 0;
      for (const c of word) {
        let fold = this.folds.get(c);
        if (fold === undefined) this.folds.set(c, fold = this.foldChar(c));
        folded += fold;
        for (let k = 0; k < fold.length; k++) source.push(place);
        place++;
      }
      const tiles = [];
      let at = 0;
      while (at < folded.length) {
        const group = this.byFirst.get(folded[at]) || [];
        let match = null;
        for (let k = 0; k < group.length && !match; k++) if (folded.startsWith(group[k], at)) match = group[k];
        if (!match) {
          const typed = chars(word)[source[at]], why = this.explain(typed, chars(folded.slice(at))[0]);
          return { word, tiles, error: { kind: "tile", char: typed, position: source[at] + 1,
            reason: why.reason, why: why.why, hint: why.hint || null } };
        }
        tiles.push(this.spellings[match]);
        at += match.length;
      }
      const min = this.limits.minTiles, max = this.limits.maxTiles, n = tiles.length;
      return { word, tiles,
        error: n < min || n > max ? { kind: "length", tiles: n, min, max } : null };
    }

    /* The text that puts `tile` between `before` and `after` so that it reads as that one tile:
     its plain spelling (RR, L·L) unless greedy reading would then split it or join it with a
     neighbour (CAR + RR + O reads C|A|RR|R|O), then its bracketed spelling ([RR]). */
    insertion(key, before, after) {
      if (!key.bracketed) return key.text;
      const tilesOf = (text) => {
        const read = this.read(text);
        return read.error && read.error.kind === "tile" ? null : read.tiles;
      };
      const left = before.trim() ? tilesOf(before) : [];
      const right = after.trim() ? tilesOf(after) : [];
      const joined = tilesOf(before + key.text + after);
      if (!left || !right || !joined) return key.text;  // an error elsewhere: plain spelling
      const expected = left.concat([key.tile], right);
      return expected.join("|") === joined.join("|") ? key.text : key.bracketed;
    }
  }

  window.LexiconTiles = { Reader, REJECT };
})();
