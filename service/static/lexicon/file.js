/* global compiled, countWords, digest, expand, hex */
/* exported FORMAT, TARGET, ACCEPT, LAST, SHIFT, LexiconFileError, load, Lexicon, invalidTiles */
/* Lexicon Judge: the browser lexicon (lexicon/browser.py writes it; docs/browser-lexicon.md).
   A page (or Node) gives `LexiconDawg.load` the bytes of GET /v1/lexicons/{id}/browser; it
   verifies the SHA-256 at the end of the file, the header and the tile set, expands the packed
   edges once into the Uint32Array of lexicon/dawg.py (one 32-bit word per edge), checks the
   automaton's structure and word count (WebAssembly for a file that is right, JavaScript for the
   rest: see `compiled`), then answers lookups from that array.
   crypto.subtle exists only in secure contexts (HTTPS, localhost, Node); on a plain-HTTP venue
   network the small SHA-256 of sha256.js does the same work.
   The joint verdict reads words with tiles.js (LexiconTiles.Reader), the rules of the service,
   and looks every word up, always: the work never depends on which word is missing.

   lexicon.js is written in parts, one a concept, in static/lexicon/; service/static_files.py
   (PARTS) sends them as one file, in one function, in this order: file.js (this: the format's
   constants, `load` and the Lexicon it opens), sha256.js (the SHA-256 for a context without
   crypto.subtle), wasm.js (the WebAssembly fast path and its warm-up), check.js (the JavaScript
   that expands and checks a file the fast path is not sure of) and judge.js (the lookups, the
   joint verdict, and what the file exports). They share that function's scope, as the one file
   they were did, and so cost the page no byte and no request. Node and the tests read the
   joined file (`source` in service/static_files.py). What each part uses and gives is said in
   its first lines, as in the judge's page's parts (judge/page.js says how). */
const MAGIC = [0x4c, 0x58, 0x4a, 0x44, 0x41, 0x57, 0x47, 0x1a];  // "LXJDAWG\x1a"
const FORMAT = 1;
const PREFIX = 24, DIGEST = 32;
const TARGET = 0x3fffff, ACCEPT = 1 << 22, LAST = 1 << 23, SHIFT = 24;

function LexiconFileError(message) {
  const error = new Error("browser lexicon: " + message);
  error.name = "LexiconFileError";
  return error;
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
  let bytes;
  try { bytes = toBytes(data); } catch (error) { return Promise.reject(error); }
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[i] !== MAGIC[i]) return Promise.reject(LexiconFileError("not a browser lexicon (no Lexicon Judge DAWG magic)"));
  }
  if (bytes.length < PREFIX + DIGEST) return Promise.reject(LexiconFileError("truncated inside its prefix"));
  const version = bytes[8] | (bytes[9] << 8);
  if (version !== FORMAT) {
    return Promise.reject(LexiconFileError("format version " + version + "; this page reads version " + FORMAT));
  }
  const body = bytes.subarray(0, bytes.length - DIGEST), stored = bytes.subarray(bytes.length - DIGEST);
  // crypto.subtle hashes on another thread: the file is opened meanwhile, and what was found
  // wrong in it is told only once the checksum is right, as if it had been opened after.
  const hashing = digest(body, options);
  let opened;
  try {
    opened = new Lexicon(bytes, null, options || {});
  } catch (error) {
    opened = { error };
  }
  return hashing.then((computed) => {
    for (let j = 0; j < DIGEST; j++) {
      if (computed[j] !== stored[j]) throw LexiconFileError("checksum mismatch: the file is truncated or corrupt");
    }
    if (opened.error) throw opened.error;
    opened.fileChecksum = hex(computed);
    return opened;
  });
}

class Lexicon {
  constructor(bytes, digestHex, options) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const length = view.getUint32(12, true), count = view.getUint32(16, true), targets = view.getUint32(20, true);
    const start = PREFIX + length;
    if (bytes.length !== start + count + targets + DIGEST) throw LexiconFileError("size does not match its prefix");
    let header;
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
    const tileBytes = bytes.subarray(start, start + count);
    const targetBytes = bytes.subarray(start + count, start + count + targets);
    const fast = options.engine === "js" ? null : compiled(tileBytes, targetBytes, header.tiles.length);
    const edges = fast ? fast.edges : expand(tileBytes, targetBytes, header.tiles.length);
    const words = fast ? fast.words : countWords(edges);
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
    for (let i = 0; i < header.tiles.length; i++) this.tileNumber[header.tiles[i]] = i + 1;
  }
}

// Bit t set: tile number t is not in a set of `tileCount` tiles.
function invalidTiles(tileCount) {
  let valid = 0;
  for (let tile = 1; tile <= tileCount && tile < 32; tile++) valid |= 1 << tile;
  return ~valid;
}
