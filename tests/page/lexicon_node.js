/* Node side of tests/page/test_lexicon_js.py: runs lexicon.js (and tiles.js) on what Python
   gives it, and writes back what they say. lexicon.js comes on standard input, as the service
   sends it (its parts joined: `source` in service/static_files.py).
     node lexicon_node.js lookup FILE.dawg KEYS OUT   KEYS: per key, one length byte then its
                                                      tile numbers; OUT: one byte (0/1) per key
     node lexicon_node.js judge FILE.dawg PLAYS.json OUT.json   {alphabet, unicode, limits, plays}
     node lexicon_node.js load FILE.dawg [pure [js]]   prints the header's words, the file's checksum
                                                      and the engine that read it, or the error
     node lexicon_node.js each FILES.json OUT.json     the same for each file named in FILES.json,
                                                      read with the fast path ("fast") and without ("js"),
                                                      with a fingerprint of the edges each read */
"use strict";
const fs = require("fs");
const path = require("path");
const STATIC = path.join(__dirname, "..", "..", "service", "static");
globalThis.window = globalThis;  // tiles.js is a page script
require(path.join(STATIC, "tiles.js"));
require("vm").runInThisContext(fs.readFileSync(0, "utf8"), { filename: "lexicon.js" });  // sets LexiconDawg
const LexiconDawg = globalThis.LexiconDawg;

// FNV-1a of an edge array: which edges a file was read into, in a few bytes.
function fingerprint(edges) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < edges.length; i++) hash = Math.imul(hash ^ edges[i], 0x01000193) >>> 0;
  return edges.length + ":" + hash.toString(16);
}

async function opened(file, options, withEdges) {
  try {
    const lexicon = await LexiconDawg.load(fs.readFileSync(file), options);
    const said = { words: lexicon.header.words, checksum: lexicon.fileChecksum, engine: lexicon.engine };
    return withEdges ? { ...said, edges: fingerprint(lexicon.edges) } : said;
  } catch (error) {
    return { error: error.name + ": " + error.message };
  }
}

async function main() {
  const [mode, file, input, output] = process.argv.slice(2);
  if (mode === "each") {
    const said = [];
    for (const name of JSON.parse(fs.readFileSync(file, "utf-8"))) {
      said.push({ fast: await opened(name, {}, true), js: await opened(name, { engine: "js" }, true) });
    }
    fs.writeFileSync(input, JSON.stringify(said));
    return;
  }
  if (mode === "load") {
    console.log(JSON.stringify(await opened(file, { pure: input === "pure", engine: output })));
    return;
  }
  let lexicon;
  try {
    lexicon = await LexiconDawg.load(fs.readFileSync(file), { pure: input === "pure" });
  } catch (error) {
    console.log(JSON.stringify({ error: error.name + ": " + error.message }));
    return;
  }
  if (mode === "lookup") {
    const keys = fs.readFileSync(input);
    const answers = [];
    for (let at = 0; at < keys.length;) {
      const length = keys[at];
      answers.push(lexicon.has(keys.subarray(at + 1, at + 1 + length)) ? 1 : 0);
      at += 1 + length;
    }
    fs.writeFileSync(output, Uint8Array.from(answers));
  } else if (mode === "judge") {
    const data = JSON.parse(fs.readFileSync(input, "utf-8"));
    const reader = new globalThis.LexiconTiles.Reader(data.alphabet, data.unicode, data.limits);
    const verdicts = data.plays.map((words) => lexicon.judge(reader, words));
    fs.writeFileSync(output, JSON.stringify(verdicts));
  }
}
main();
