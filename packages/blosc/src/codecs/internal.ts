/**
 * Helpers shared by the codec stream decoders and encoders of this folder. Not part of the
 * package's public API (the package index does not re-export them).
 *
 * @example
 * ```ts
 * import { copyMatch } from "./internal.js";
 * const buf = new Uint8Array([1, 2, 0, 0, 0, 0]);
 * copyMatch(buf, 2, 2, 4); // buf is now 1 2 1 2 1 2
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";

/**
 * Build the error every stream decoder throws for a malformed stream.
 *
 * @param field - dotted field name such as `lz4.offset`.
 * @param reason - short human-readable reason.
 * @param expected - what the decoder needed.
 * @param actual - what it found.
 * @param path - file or key the stream came from, when known.
 * @example
 * ```ts
 * throw corruptStream("lz4.offset", "match offset is zero", ">= 1", 0);
 * ```
 */
export function corruptStream(field: string, reason: string, expected: unknown, actual: unknown, path?: string): FormatError {
  return new FormatError("CORRUPT_STREAM", reason, { path, field, expected, actual });
}

/**
 * Copy an LZ77 match of `length` bytes from `distance` bytes back to position `op` of `buf`, with
 * the byte-by-byte forward semantics every LZ77 format uses (a distance shorter than the length
 * repeats the pattern). The caller has already checked `1 <= distance <= op` and
 * `op + length <= buf.length`; typed arrays would silently drop out-of-range writes, so this
 * function must never be reached with unchecked values.
 *
 * `copyWithin` is a memmove, not a forward replication, so overlapping matches are copied in
 * growing non-overlapping pieces: after the first `distance` bytes the pattern period is still
 * `distance`, but the already-written prefix is periodic too, so each step can copy twice as much.
 *
 * @param buf - output buffer.
 * @param op - current output position (where the copy writes).
 * @param distance - how far back the source starts (>= 1).
 * @param length - number of bytes to produce.
 * @example
 * ```ts
 * const b = new Uint8Array([7, 0, 0, 0]);
 * copyMatch(b, 1, 1, 3); // 7 7 7 7
 * ```
 */
export function copyMatch(buf: Uint8Array, op: number, distance: number, length: number): void {
  if (length <= 16) {
    // Short copies dominate; a plain loop beats the call overhead of copyWithin and is correct
    // for any overlap.
    let from = op - distance;
    const end = op + length;
    while (op < end) buf[op++] = buf[from++]!;
    return;
  }
  if (distance >= length) {
    buf.copyWithin(op, op - distance, op - distance + length);
    return;
  }
  if (distance === 1) {
    buf.fill(buf[op - 1]!, op, op + length);
    return;
  }
  const start = op - distance;
  const end = op + length;
  let step = distance;
  while (op < end) {
    const n = Math.min(step, end - op);
    buf.copyWithin(op, start, start + n);
    op += n;
    step = op - start;
  }
}

/**
 * Copy `length` literal bytes from `src[ip..]` to `dst[op..]`; bounds already checked by the caller.
 *
 * @param src - input stream.
 * @param ip - input position.
 * @param dst - output buffer.
 * @param op - output position.
 * @param length - number of bytes.
 * @example
 * ```ts
 * copyLiterals(new Uint8Array([1, 2]), 0, new Uint8Array(2), 0, 2);
 * ```
 */
export function copyLiterals(src: Uint8Array, ip: number, dst: Uint8Array, op: number, length: number): void {
  if (length <= 32) {
    const end = ip + length;
    while (ip < end) dst[op++] = src[ip++]!;
  } else {
    dst.set(src.subarray(ip, ip + length), op);
  }
}
