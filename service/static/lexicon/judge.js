/* global ACCEPT, countWords, digest, expand, FORMAT, hex, LAST, Lexicon, load, sha256, SHIFT,
   TARGET, walk */
/* exported LexiconDawg */
// What a Lexicon (file.js) answers: its lookups and the joint verdict.
Object.assign(Lexicon.prototype, {
  /* True when `numbers` (tile numbers: 1 + the tile's index in header.tiles) is a word. */
  has(numbers) {
    const edges = this.edges;
    let index = edges[0] & TARGET, accept = false;
    for (let i = 0; i < numbers.length; i++) {
      if (index === 0) return false;
      const tile = numbers[i];
      let edge = edges[index];
      while (edge >>> SHIFT !== tile) {
        if (edge & LAST) return false;
        edge = edges[++index];
      }
      accept = (edge & ACCEPT) !== 0;
      index = edge & TARGET;
    }
    return accept;
  },

  /* True when the tiles (labels, as tiles.js reads them: ["C", "A", "RR", "O"]) are a word. */
  hasTiles(tiles) {
    const numbers = new Array(tiles.length);
    for (let i = 0; i < tiles.length; i++) {
      numbers[i] = this.tileNumber[tiles[i]] || 0;  // 0 is no tile: never found
    }
    return this.has(numbers);
  },

  /* The joint verdict on a play, as the service gives it (lexicon/verdict.py `judge`):
     {valid: true|false}                       every word read; never which word failed
     {error: {kind, index, ...}}               the first word that is no word (1-based index),
                                               with tiles.js's error, or {kind: "words"}
     `reader` is a LexiconTiles.Reader of this lexicon's language, made with the page's limits
     (minWords, maxWords: lexicon.board's, given by service/page_data.py). */
  judge(reader, words) {
    const most = reader.limits.maxWords, least = reader.limits.minWords;  // lexicon.board's, via the page
    if (words.length < least || words.length > most) {
      return { error: { kind: "words", count: words.length, min: least, max: most } };
    }
    // Which word an error names follows lexicon/tokenizer.py `keys` then verdict.py `play_keys`:
    // the first empty word, else the first word with a character that is no tile, else the
    // first word of too few or too many tiles.
    const reads = [], failed = {};
    for (let i = 0; i < words.length; i++) {
      const read = reader.read(words[i]);
      if (read.error && !(read.error.kind in failed)) failed[read.error.kind] = { index: i + 1, read };
      reads.push(read.tiles);
    }
    const kinds = ["empty", "tile", "length"];
    for (const kind in failed) if (kinds.indexOf(kind) < 0) kinds.push(kind);
    for (let k = 0; k < kinds.length; k++) {
      const first = failed[kinds[k]];
      if (!first) continue;
      const error = { index: first.index };
      for (const name in first.read.error) error[name] = first.read.error[name];
      return { error };
    }
    let found = 0;
    for (let i = 0; i < reads.length; i++) found += this.hasTiles(reads[i]) ? 1 : 0;  // no short cut
    return { valid: found === reads.length };
  },
});

const api = { load, sha256, digest, hex, expand, countWords, walk, FORMAT,
  Lexicon };
globalThis.LexiconDawg = api;
