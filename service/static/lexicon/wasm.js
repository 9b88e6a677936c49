/* global invalidTiles */
/* exported compiled */
/* The fast path: `decode`, `link` and `countWords` of a file that is right, in WebAssembly
   (static/dawg.wat). A phone opening the page runs these loops once, cold, and V8
   interprets JavaScript before it optimizes it: 97 ms throttled 4x where the target is 50.
   WebAssembly is compiled before it runs. It answers only {edges, words} or null ("not sure":
   a fault, an odd file, no WebAssembly, a policy without 'wasm-unsafe-eval'), and for null the
   JavaScript below does the whole work and names what is wrong. The edges stay a view on the
   module's memory (tile and target bytes and the scratch arrays included: about 2.5 times
   the edges), which saves copying them on a phone.
   `python -m asset_tools.wasm` writes the next line from dawg.wat. */
const WASM = "AGFzbQEAAAABEwJgB39/f39/f38Bf2ADf39/AX8CEwEHbGV4aWNvbgZtZW1vcnkCAAEDAwIAAQcSAgZleHBhbmQAAAVjb3VudAABCpAGAtoDARB/IARBgICABCABQQBHcjYCACAFQQE2AgRBASENQQEhDiABRQRAIANBAEcPC0EBIQcDQCAAIAdBAWtqLQAAIQkgAiAIai0AACELIAhBAWohCCALQf8AcSEKIAtBgAFxBEBBByEMA0AgDEEVSwRAQQEPCyACIAhqLQAAIQsgCEEBaiEIIAogC0H/AHEgDHRyIQogDEEHaiEMIAtBgAFxDQALCyAKQQFGIRUgDiAVaiEOIA5BAWogCiAVGyEKIBMgCUGAAXEgCkGAgIACS3JyIRMgBCAHQQJ0aiAJQR9xQRh0IAlB4ABxQRF0ciAKQQFrQQAgChtyNgIAIAUgDUEBakECdGogB0EBajYCACANIAlBBnYgByABSXFqIQ0gB0EBaiEHIAcgAU0NAAsgEyAIIANHcgRAQQEPCyAEKAIAIRJBASEHA0AgBCAHQQJ0aiEUIBQoAgAhDyAPQf///wFxIRAgD0EYdiERIBAgDUshFiAUIA9BgICAfnEgBUEAIBAgFhtBAnRqKAIAcjYCACATIBZyIAYgEXZBAXEgD0H///8DcUVyIBJBgICABHFFIBEgEkEYdk1xcnIhEyAPIRIgB0EBaiEHIAcgAU0NAAsgEyASQYCAgARxRXILsQIBCX8gACgCAEH///8BcSEDIANFBEBBAA8LIAEgA0ECdGpBfzYCACACIAM2AgAgAiADNgKAAgNAIAIgBEECdGohCyALKAKAAiEGIAAgBkECdGooAgAhByAHQf///wFxIQggASAIQQJ0aigCAEEAIAgbIQkgCEEARyAJRXEEQCABIAhBAnRqQX82AgAgBEEBaiEEIARBwABGBEBBfw8LIAtBBGohCyALIAg2AgAgCyAINgKAAgwBCyAJQQBIBEBBfw8LIAsoAoAEIAlqIAdBFnZBAXFqIQogCkH/////B0sEQEF/DwsgB0GAgIAEcQRAIAohBSABIAsoAgBBAnRqIAo2AgAgC0EANgKABCAEQQFrIQQFIAsgCjYCgAQgCyAGQQFqNgKAAgsgBEEATg0ACyAFCw==";
let wasmModule = null;  // a WebAssembly.Module; false once compiling has failed

function wasmBytes() {
  const text = atob(WASM), bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/* Done while the page downloads its lexicon, so that the first `load` finds them ready: the
   WebAssembly compiled (or compiled at once in `compiled` if that is not done yet) and warmed
   (`warm`), and a first crypto.subtle digest, which sets the digest up (its first call took
   5 ms in Node, a phone's several times that). */
try {
  if (globalThis.crypto && globalThis.crypto.subtle) globalThis.crypto.subtle.digest("SHA-256", new Uint8Array(0)).catch(() => {});
} catch (error) { /* it is only a head start */ }
if (typeof WebAssembly === "object" && typeof atob === "function") {
  try {
    WebAssembly.compile(wasmBytes()).then((made) => { wasmModule = wasmModule || made; warm(made); },
      () => { wasmModule = false; });
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
const WARM_EDGES = 20000, WARM_ROUNDS = 3;

function warm(module) {
  try {
    const n = WARM_EDGES, edgesAt = 2 * n + 8, startsAt = edgesAt + 4 * (n + 1), stackAt = startsAt + 4 * (n + 2);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((stackAt + 3 * 256) / 65536) });
    const code = new WebAssembly.Instance(module, { lexicon: { memory } }).exports;
    const words = new Uint32Array(memory.buffer);
    for (let round = 0; round < WARM_ROUNDS; round++) {
      code.expand(0, n, n, n, edgesAt, startsAt, -1);  // n zero bytes of each stream
      words.fill(0, edgesAt >> 2, stackAt >> 2);
      words[edgesAt >> 2] = 1;                // the root's first edge
      words[(edgesAt >> 2) + n] = 0x800000;   // the last edge ends the root
      code.count(edgesAt, startsAt, stackAt);
    }
    if (globalThis.performance && globalThis.performance.mark) globalThis.performance.mark("lexicon.js warm");
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
    const count = tiles.length, size = targets.length;
    const edgesAt = (count + size + 8 + 3) & ~3;  // after the two streams (and some zeros)
    const startsAt = edgesAt + 4 * (count + 1), stackAt = startsAt + 4 * (count + 2);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((stackAt + 3 * 256) / 65536) });
    const heap = new Uint8Array(memory.buffer);
    heap.set(tiles, 0);
    heap.set(targets, count);
    const code = new WebAssembly.Instance(wasmModule, { lexicon: { memory } }).exports;
    if (code.expand(0, count, count, size, edgesAt, startsAt, invalidTiles(tileCount))) return null;
    heap.fill(0, startsAt, stackAt);  // the states' starts are done with: the counts go there
    const words = code.count(edgesAt, startsAt, stackAt);
    return words < 0 ? null : { edges: new Uint32Array(memory.buffer, edgesAt, count + 1), words };
  } catch (error) {  // no memory that large, a policy refusing WebAssembly, an out-of-bounds trap
    return null;
  }
}
