;; Lexicon Judge: the browser lexicon's load loops, compiled (service/static/lexicon.js runs them).
;;
;; Why WebAssembly: a phone opening the page runs these loops once, on 100,000+ edges, before V8 has
;; optimized them: as JavaScript they took about 97 ms throttled 4x on a first load, against 50 ms
;; (a phone's target). WebAssembly is compiled before it runs. It is a fast path only: it answers "right"
;; (the edges, linked, and the word count) or "not sure" (1 from `expand`, -1 from `count`), and
;; for "not sure" lexicon.js does the whole work again in JavaScript, which names the fault. So
;; this code may be stricter than lexicon.js (a target of more than four LEB128 bytes, a walk
;; deeper than 64 tiles, more than 2^31 - 1 words), never looser.
;;
;; `python -m asset_tools.wasm` assembles this file with wabt's wat2wasm and writes the result,
;; base64, into lexicon.js (its WASM line); tests/asset_tools/test_wasm.py checks that it is current.
;; The memory is lexicon.js's, laid out there: the tile bytes, the target bytes, then 32-bit arrays.
;; The edge layout is lexicon/dawg.py's: bits 0-21 target, 22 ACCEPT, 23 LAST, 24-31 tile number.
(module
  (import "lexicon" "memory" (memory 1))

  ;; lexicon.js `decode` then `link`: the packed streams into linked edges at $edges, states'
  ;; first edges kept meanwhile at $starts (count + 2 words, zero). 0: right; 1: not sure.
  ;; $invalid: bit t set when tile number t is not in the tile set.

  (func (export "expand")
        (param $tiles i32) (param $count i32) (param $targets i32) (param $size i32)
        (param $edges i32) (param $starts i32) (param $invalid i32) (result i32)
    (local $index i32) (local $at i32) (local $byte i32) (local $code i32) (local $part i32)
    (local $shift i32) (local $states i32) (local $fresh i32) (local $edge i32) (local $state i32)
    (local $tile i32) (local $previous i32) (local $faults i32) (local $place i32) (local $new i32) (local $bad i32)
    ;; edge 0, the sentinel: its target is the root's first edge (1), if there are edges
    (i32.store (local.get $edges)
      (i32.or (i32.const 0x800000) (i32.ne (local.get $count) (i32.const 0))))
    (i32.store offset=4 (local.get $starts) (i32.const 1))
    (local.set $states (i32.const 1))
    (local.set $fresh (i32.const 1))
    (if (i32.eqz (local.get $count))
      (then (return (i32.ne (local.get $size) (i32.const 0)))))
    (local.set $index (i32.const 1))
    ;; one edge a turn, with as few branches on the data as can be: a fault is noted in $faults
    ;; and told after the loop (a target read past its stream leaves $at past $size for good)
    (loop $decode
      (local.set $byte (i32.load8_u (i32.add (local.get $tiles) (i32.sub (local.get $index) (i32.const 1)))))
      ;; the edge's target, LEB128: 0 none, 1 the next new state, n the state n - 2
      (local.set $part (i32.load8_u (i32.add (local.get $targets) (local.get $at))))
      (local.set $at (i32.add (local.get $at) (i32.const 1)))
      (local.set $code (i32.and (local.get $part) (i32.const 0x7f)))
      (if (i32.and (local.get $part) (i32.const 0x80))
        (then
          (local.set $shift (i32.const 7))
          (loop $leb128
            (if (i32.gt_u (local.get $shift) (i32.const 21)) (then (return (i32.const 1))))
            (local.set $part (i32.load8_u (i32.add (local.get $targets) (local.get $at))))
            (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (local.set $code (i32.or (local.get $code)
              (i32.shl (i32.and (local.get $part) (i32.const 0x7f)) (local.get $shift))))
            (local.set $shift (i32.add (local.get $shift) (i32.const 7)))
            (br_if $leb128 (i32.and (local.get $part) (i32.const 0x80))))))
      ;; kept as the state's number + 1 until `link`
      (local.set $new (i32.eq (local.get $code) (i32.const 1)))
      (local.set $fresh (i32.add (local.get $fresh) (local.get $new)))
      (local.set $code (select (i32.add (local.get $fresh) (i32.const 1)) (local.get $code) (local.get $new)))
      (local.set $faults (i32.or (local.get $faults)
        (i32.or (i32.and (local.get $byte) (i32.const 0x80)) (i32.gt_u (local.get $code) (i32.const 0x400000)))))
      (i32.store (i32.add (local.get $edges) (i32.shl (local.get $index) (i32.const 2)))
        (i32.or
          (i32.or (i32.shl (i32.and (local.get $byte) (i32.const 31)) (i32.const 24))
                  (i32.shl (i32.and (local.get $byte) (i32.const 96)) (i32.const 17)))
          (select (i32.sub (local.get $code) (i32.const 1)) (i32.const 0) (local.get $code))))
      ;; starts[states + 1]: where the next state begins, if this edge ends one (not the last)
      (i32.store (i32.add (local.get $starts) (i32.shl (i32.add (local.get $states) (i32.const 1)) (i32.const 2)))
        (i32.add (local.get $index) (i32.const 1)))
      (local.set $states (i32.add (local.get $states)
        (i32.and (i32.shr_u (local.get $byte) (i32.const 6)) (i32.lt_u (local.get $index) (local.get $count)))))
      (local.set $index (i32.add (local.get $index) (i32.const 1)))
      (br_if $decode (i32.le_u (local.get $index) (local.get $count))))
    (if (i32.or (local.get $faults) (i32.ne (local.get $at) (local.get $size))) (then (return (i32.const 1))))
    ;; link: state numbers into first edges; a tile out of the set, a dead end, or tiles out of
    ;; order after an edge that did not end its state is a fault
    (local.set $previous (i32.load (local.get $edges)))
    (local.set $index (i32.const 1))
    (loop $link
      (local.set $place (i32.add (local.get $edges) (i32.shl (local.get $index) (i32.const 2))))
      (local.set $edge (i32.load (local.get $place)))
      (local.set $state (i32.and (local.get $edge) (i32.const 0x3fffff)))
      (local.set $tile (i32.shr_u (local.get $edge) (i32.const 24)))
      (local.set $bad (i32.gt_u (local.get $state) (local.get $states)))  ;; no such state: read state 0
      (i32.store (local.get $place)
        (i32.or (i32.and (local.get $edge) (i32.const 0xffc00000))
                (i32.load (i32.add (local.get $starts)
                  (i32.shl (select (i32.const 0) (local.get $state) (local.get $bad)) (i32.const 2))))))
      (local.set $faults (i32.or (i32.or (local.get $faults) (local.get $bad))
        (i32.or
          (i32.or (i32.and (i32.shr_u (local.get $invalid) (local.get $tile)) (i32.const 1))
                  (i32.eqz (i32.and (local.get $edge) (i32.const 0x7fffff))))
          (i32.and (i32.eqz (i32.and (local.get $previous) (i32.const 0x800000)))
                   (i32.le_u (local.get $tile) (i32.shr_u (local.get $previous) (i32.const 24)))))))
      (local.set $previous (local.get $edge))
      (local.set $index (i32.add (local.get $index) (i32.const 1)))
      (br_if $link (i32.le_u (local.get $index) (local.get $count))))
    ;; and the last edge must end its state
    (i32.or (local.get $faults)
      (i32.eqz (i32.and (local.get $previous) (i32.const 0x800000)))))

  ;; lexicon.js `countWords` on linked edges: the words of the automaton, or -1 (not sure: a
  ;; loop, a walk deeper than 64, more than 2^31 - 1 words). $counted: a zeroed word per edge;
  ;; $stack: 3 x 64 words (the path's states, the edge each is at, the words summed so far).
  (func (export "count") (param $edges i32) (param $counted i32) (param $stack i32) (result i32)
    (local $root i32) (local $depth i32) (local $words i32) (local $index i32) (local $edge i32)
    (local $target i32) (local $below i32) (local $sum i32) (local $slot i32)
    (local.set $root (i32.and (i32.load (local.get $edges)) (i32.const 0x3fffff)))
    (if (i32.eqz (local.get $root)) (then (return (i32.const 0))))
    (i32.store (i32.add (local.get $counted) (i32.shl (local.get $root) (i32.const 2))) (i32.const -1))
    (i32.store (local.get $stack) (local.get $root))
    (i32.store offset=256 (local.get $stack) (local.get $root))
    (loop $walk
      (local.set $slot (i32.add (local.get $stack) (i32.shl (local.get $depth) (i32.const 2))))
      (local.set $index (i32.load offset=256 (local.get $slot)))
      (local.set $edge (i32.load (i32.add (local.get $edges) (i32.shl (local.get $index) (i32.const 2)))))
      (local.set $target (i32.and (local.get $edge) (i32.const 0x3fffff)))
      (local.set $below (select
        (i32.load (i32.add (local.get $counted) (i32.shl (local.get $target) (i32.const 2))))
        (i32.const 0) (local.get $target)))
      ;; a target not yet counted: go down to it (-1 marks it as being counted)
      (if (i32.and (i32.ne (local.get $target) (i32.const 0)) (i32.eqz (local.get $below)))
        (then
          (i32.store (i32.add (local.get $counted) (i32.shl (local.get $target) (i32.const 2))) (i32.const -1))
          (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
          (if (i32.eq (local.get $depth) (i32.const 64)) (then (return (i32.const -1))))
          (local.set $slot (i32.add (local.get $slot) (i32.const 4)))
          (i32.store (local.get $slot) (local.get $target))
          (i32.store offset=256 (local.get $slot) (local.get $target))
          (br $walk)))
      ;; a target still being counted: a loop
      (if (i32.lt_s (local.get $below) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $sum (i32.add (i32.add (i32.load offset=512 (local.get $slot)) (local.get $below))
        (i32.and (i32.shr_u (local.get $edge) (i32.const 22)) (i32.const 1))))
      (if (i32.gt_u (local.get $sum) (i32.const 0x7fffffff)) (then (return (i32.const -1))))
      ;; the state's last edge: its words are known, go back up
      (if (i32.and (local.get $edge) (i32.const 0x800000))
        (then
          (local.set $words (local.get $sum))
          (i32.store (i32.add (local.get $counted) (i32.shl (i32.load (local.get $slot)) (i32.const 2)))
            (local.get $sum))
          (i32.store offset=512 (local.get $slot) (i32.const 0))
          (local.set $depth (i32.sub (local.get $depth) (i32.const 1))))
        (else
          (i32.store offset=512 (local.get $slot) (local.get $sum))
          (i32.store offset=256 (local.get $slot) (i32.add (local.get $index) (i32.const 1)))))
      (br_if $walk (i32.ge_s (local.get $depth) (i32.const 0))))
    (local.get $words)))
