;; The recordings' JSON escaper (json-escaper.ts runs it; json-escape-wasm.ts is this, compiled by
;; `npm run build:wasm`). Valid UTF-8 in, the body of a JSON string out: `"`, `\` and the bytes below 0x20
;; escaped as JSON.stringify escapes them, every other byte copied as it is.
;;
;; Memory: at 0, the escape of each byte value below 0x60, 8 bytes each (its length, then its text; length 0:
;; the byte is copied as it is), written by json-escaper.ts. Sixteen bytes are looked at a time, with SIMD:
;; terminal output is mostly runs of text between escapes (a `\r\n` every line, an ESC every few cells).
(module
  (memory (export "memory") 1)

  ;; Escapes `len` bytes at `src` into `dst` (room for 6 bytes per byte, and 16 more); returns the bytes written.
  (func (export "escape") (param $src i32) (param $len i32) (param $dst i32) (result i32)
    (local $end i32)
    (local $out i32)
    (local $byte i32)
    (local $entry i32)
    (local $size i32)
    (local $mask i32)
    (local $v v128)
    (local.set $end (i32.add (local.get $src) (local.get $len)))
    (local.set $out (local.get $dst))
    (block $done
      (loop $next
        ;; Sixteen bytes: stored as they are, whatever they hold; the output moves on past those that
        ;; need nothing (all, or those before the first that needs an escape).
        (if (i32.le_u (i32.add (local.get $src) (i32.const 16)) (local.get $end))
          (then
            (local.set $v (v128.load (local.get $src)))
            (local.set $mask
              (i8x16.bitmask
                (v128.or
                  (v128.or
                    (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20)))
                    (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22))))
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))))
            (v128.store (local.get $out) (local.get $v))
            (if (i32.eqz (local.get $mask))
              (then
                (local.set $src (i32.add (local.get $src) (i32.const 16)))
                (local.set $out (i32.add (local.get $out) (i32.const 16)))
                (br $next)))
            (local.set $size (i32.ctz (local.get $mask)))
            (local.set $src (i32.add (local.get $src) (local.get $size)))
            (local.set $out (i32.add (local.get $out) (local.get $size)))))
        ;; One byte: the one that needs an escape, or one of the last fifteen.
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $byte (i32.load8_u (local.get $src)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (if (i32.lt_u (local.get $byte) (i32.const 0x60))
          (then
            (local.set $entry (i32.shl (local.get $byte) (i32.const 3)))
            (local.set $size (i32.load8_u (local.get $entry)))
            (if (local.get $size)
              (then
                ;; Eight bytes stored, `size` of them kept: what follows is written over next.
                (i64.store (local.get $out) (i64.load (i32.add (local.get $entry) (i32.const 1))))
                (local.set $out (i32.add (local.get $out) (local.get $size)))
                (br $next)))))
        (i32.store8 (local.get $out) (local.get $byte))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))
        (br $next)))
    (i32.sub (local.get $out) (local.get $dst)))
)
