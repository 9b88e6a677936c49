/* In-page side of `python -m bench chromium`: the browser lexicon's figures in Chromium.
   The page loads service/static/tiles.js and lexicon.js as the judge's page does; this file only
   times the calls the page makes: `LexiconDawg.load(bytes)` on the downloaded file, and
   `lexicon.judge(reader, words)` (tiles.js reads the typed words, lexicon.js looks each up).
   performance.now() is coarse in a page that is not cross-origin isolated (about 0.1 ms), so a
   verdict is timed over many repetitions. */
/* global LexiconDawg, LexiconTiles */  // the page's, from tiles.js and lexicon.js
"use strict";
window.LexiconBench = (() => {
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  let bytes = null, lexicon = null, reader = null;

  // The lexicon file as the page receives it: an ArrayBuffer in memory, before any timing.
  async function receive(url, page) {
    const answer = await fetch(url);
    if (!answer.ok) throw new Error(url + ": HTTP " + answer.status);
    bytes = await answer.arrayBuffer();
    reader = new LexiconTiles.Reader(page.alphabet, page.unicode, page.limits);
    return {
      bytes: bytes.byteLength, secure: window.isSecureContext,
      subtle: !!(window.crypto && window.crypto.subtle),
    };
  }

  // From bytes received to ready (checksum verified, header checked, edges expanded, structure
  // and word count checked), `runs` times on a fresh copy; pure: the page's own SHA-256, as on
  // plain HTTP where crypto.subtle does not exist; engine "js": without lexicon.js's WebAssembly.
  async function ready(runs, pure, engine) {
    if (!pure && !(window.crypto && window.crypto.subtle)) throw new Error("no crypto.subtle in this page");
    const times = [];
    for (let i = 0; i < runs; i++) {
      const copy = bytes.slice(0);
      const start = performance.now();
      lexicon = await LexiconDawg.load(copy, { pure: !!pure, engine });
      times.push(performance.now() - start);
    }
    return { median: median(times), max: Math.max(...times), first: times[0], runs, words: lexicon.header.words,
      engine: lexicon.engine };
  }

  // The checksum alone (lexicon.js's `digest` of what `load` hashes: all but the last 32 bytes),
  // to tell how much of the time to ready is the SHA-256 and how much the expansion and checks.
  async function checksum(runs, pure) {
    const body = new Uint8Array(bytes, 0, bytes.byteLength - 32), times = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await LexiconDawg.digest(body, pure ? { pure: true } : undefined);
      times.push(performance.now() - start);
    }
    return median(times);
  }

  // One joint verdict on `words` as typed, in µs: the median of `rounds` rounds of `repetitions`.
  function verdict(words, repetitions, rounds) {
    const answer = lexicon.judge(reader, words);
    for (let i = 0; i < repetitions; i++) lexicon.judge(reader, words);  // warm
    const each = [];
    for (let round = 0; round < rounds; round++) {
      const start = performance.now();
      for (let i = 0; i < repetitions; i++) lexicon.judge(reader, words);
      each.push(((performance.now() - start) * 1000) / repetitions);
    }
    return { median: median(each), max: Math.max(...each), valid: answer.valid === true, error: answer.error || null };
  }

  return { receive, ready, checksum, verdict };
})();
