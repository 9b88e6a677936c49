/* Node side of `python -m bench browser`: load-to-ready and lookup times of lexicon.js.
   node browser_node.js FILE.dawg KEYS ALPHABET.json  ->  JSON figures on standard output
   KEYS: per key, a length byte then tile numbers; ALPHABET.json {alphabet, unicode, limits, play}
   lexicon.js comes on standard input, as the service sends it (its parts joined: `source` in
   service/static_files.py). */
"use strict";
const fs = require("fs");
const path = require("path");
const STATIC = path.join(__dirname, "..", "service", "static");
globalThis.window = globalThis;
require(path.join(STATIC, "tiles.js"));
require("vm").runInThisContext(fs.readFileSync(0, "utf8"), { filename: "lexicon.js" });  // sets LexiconDawg
const LexiconDawg = globalThis.LexiconDawg;

const now = () => Number(process.hrtime.bigint()) / 1e6;  // ms
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

async function main() {
  const [file, keysFile, alphabetFile] = process.argv.slice(2);
  const bytes = fs.readFileSync(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const ready = [], readyPure = [];
  let lexicon;
  for (let i = 0; i < 7; i++) {
    let start = now();
    lexicon = await LexiconDawg.load(buffer.slice(0));
    ready.push(now() - start);
    start = now();
    await LexiconDawg.load(buffer.slice(0), { pure: true });
    readyPure.push(now() - start);
  }
  const packed = fs.readFileSync(keysFile), keys = [];
  for (let at = 0; at < packed.length; at += 1 + packed[at]) keys.push(packed.subarray(at + 1, at + 1 + packed[at]));
  const lookups = [];
  let found = 0;
  for (let round = 0; round < 5; round++) {
    const start = now();
    for (let i = 0; i < keys.length; i++) found += lexicon.has(keys[i]) ? 1 : 0;
    lookups.push(((now() - start) * 1e6) / keys.length);
  }
  const data = JSON.parse(fs.readFileSync(alphabetFile, "utf-8"));
  const reader = new globalThis.LexiconTiles.Reader(data.alphabet, data.unicode, data.limits);
  const verdicts = [];
  for (let round = 0; round < 5; round++) {
    const start = now();
    for (let i = 0; i < 2000; i++) lexicon.judge(reader, data.play);
    verdicts.push(((now() - start) * 1000) / 2000);
  }
  console.log(JSON.stringify({ ready_ms: median(ready), ready_pure_ms: median(readyPure),
    lookup_ns: median(lookups), verdict_us: median(verdicts), found: found / 5,
    valid: lexicon.judge(reader, data.play).valid }));
}
main();
