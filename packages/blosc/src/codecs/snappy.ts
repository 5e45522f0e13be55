/**
 * Raw Snappy decoder (Blosc codec format code 2). Format: format-facts section 3.2 and Snappy's
 * format description.
 *
 * @example
 * ```ts
 * import { decodeSnappy } from "./snappy.js";
 * const out = new Uint8Array(24);
 * decodeSnappy(Uint8Array.of(0x18, 0x08, 0x61, 0x62, 0x63, 0x52, 0x03, 0x00), out); // "abc" x 8
 * ```
 * @module
 */
import { copyLiterals, copyMatch, corruptStream } from "./internal.js";

/**
 * Read the little-endian base-128 uncompressed-length preamble of a raw Snappy stream.
 *
 * @param src - the stream.
 * @param path - file or key, for error messages.
 * @returns the length and the number of preamble bytes.
 * @throws FormatError CORRUPT_STREAM (`snappy.length`) if truncated or above 2^32 - 1.
 * @example
 * ```ts
 * readSnappyLength(Uint8Array.of(0x80, 0x02)); // { length: 256, size: 2 }
 * ```
 */
export function readSnappyLength(src: Uint8Array, path?: string): { length: number; size: number } {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (i >= src.length) throw corruptStream("snappy.length", "stream ends inside the length preamble", "varint byte", "end of stream", path);
    const b = src[i]!;
    if (i === 4 && b > 15) throw corruptStream("snappy.length", "length preamble exceeds 32 bits", "<= 4294967295", "larger", path);
    value += (b & 127) * 2 ** (7 * i);
    if (b < 128) return { length: value, size: i + 1 };
  }
  throw corruptStream("snappy.length", "length preamble is longer than 5 bytes", "<= 5 bytes", "more", path);
}

/**
 * Decode one raw Snappy stream into exactly `dst.length` bytes. The stream's length preamble must
 * equal `dst.length`, and the elements must produce exactly that many bytes.
 *
 * @param src - the stream bytes (exactly the `csize` bytes after the stream's size prefix).
 * @param dst - output buffer sized to the expected decoded length (`neblock`).
 * @param path - file or key the stream came from, for error messages.
 * @returns the number of bytes written, always `dst.length`.
 * @throws FormatError CORRUPT_STREAM (fields `snappy.*`) on any violation.
 * @example
 * ```ts
 * const out = new Uint8Array(3);
 * decodeSnappy(Uint8Array.of(0x03, 0x08, 0x61, 0x62, 0x63), out); // "abc"
 * ```
 */
export function decodeSnappy(src: Uint8Array, dst: Uint8Array, path?: string): number {
  const ilen = src.length;
  const olen = dst.length;
  const preamble = readSnappyLength(src, path);
  if (preamble.length !== olen) {
    throw corruptStream("snappy.length", "length preamble differs from the expected output size", olen, preamble.length, path);
  }
  let ip = preamble.size;
  let op = 0;
  while (ip < ilen) {
    const tag = src[ip++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let length = tag >> 2;
      if (length >= 60) {
        const extra = length - 59;
        if (ip + extra > ilen) throw corruptStream("snappy.literal", "stream ends inside a literal length", extra, ilen - ip, path);
        length = 0;
        for (let i = extra - 1; i >= 0; i--) length = length * 256 + src[ip + i]!;
        ip += extra;
      }
      length += 1;
      if (ip + length > ilen) {
        throw corruptStream("snappy.literal", "literal runs past the end of the stream", length, ilen - ip, path);
      }
      if (op + length > olen) {
        throw corruptStream("snappy.literal", "literal runs past the expected output size", olen, op + length, path);
      }
      copyLiterals(src, ip, dst, op, length);
      ip += length;
      op += length;
      continue;
    }
    let length: number;
    let offset: number;
    if (kind === 1) {
      if (ip >= ilen) throw corruptStream("snappy.offset", "stream ends inside a copy offset", 1, 0, path);
      length = ((tag >> 2) & 7) + 4;
      offset = ((tag >> 5) << 8) | src[ip++]!;
    } else if (kind === 2) {
      if (ip + 2 > ilen) throw corruptStream("snappy.offset", "stream ends inside a copy offset", 2, ilen - ip, path);
      length = (tag >> 2) + 1;
      offset = src[ip]! | (src[ip + 1]! << 8);
      ip += 2;
    } else {
      if (ip + 4 > ilen) throw corruptStream("snappy.offset", "stream ends inside a copy offset", 4, ilen - ip, path);
      length = (tag >> 2) + 1;
      offset = (src[ip]! | (src[ip + 1]! << 8) | (src[ip + 2]! << 16)) + src[ip + 3]! * 0x1000000;
      ip += 4;
    }
    if (offset === 0) throw corruptStream("snappy.offset", "copy offset is zero", ">= 1", 0, path);
    if (offset > op) throw corruptStream("snappy.offset", "copy starts before the start of the output", `<= ${op}`, offset, path);
    if (op + length > olen) {
      throw corruptStream("snappy.copy", "copy runs past the expected output size", olen, op + length, path);
    }
    copyMatch(dst, op, offset, length);
    op += length;
  }
  if (op !== olen) {
    throw corruptStream("snappy.end", "stream decodes to a different size than expected", olen, op, path);
  }
  return op;
}

/** Knuth's multiplicative constant (2654435761) as a signed 32-bit integer for Math.imul. */
const HASH_MULTIPLIER = -1640531535;
/** Copies use 1- or 2-byte offsets only. */
const SNAPPY_MAX_DISTANCE = 65535;

const snappyTable = new Int32Array(1 << 14);

function read32(src: Uint8Array, p: number): number {
  return src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16) | (src[p + 3]! << 24);
}

/** Append literals `src[from..to)`; returns the new output position or -1 if they do not fit. */
function writeLiteral(src: Uint8Array, from: number, to: number, dst: Uint8Array, op: number): number {
  const len = to - from;
  if (len === 0) return op;
  const n = len - 1;
  const extra = n < 60 ? 0 : n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
  if (op + 1 + extra + len > dst.length) return -1;
  if (extra === 0) {
    dst[op++] = n << 2;
  } else {
    dst[op++] = (59 + extra) << 2;
    for (let i = 0, v = n; i < extra; i++, v = Math.floor(v / 256)) dst[op++] = v & 255;
  }
  if (len > 32) {
    dst.set(src.subarray(from, to), op);
    op += len;
  } else {
    for (let p = from; p < to; p++) dst[op++] = src[p]!;
  }
  return op;
}

/** Append a copy of `len` (>= 4) bytes at `offset`; returns the new position or -1 if it does not fit. */
function writeCopy(dst: Uint8Array, op: number, offset: number, len: number): number {
  // Worst case: one 3-byte element per 64 bytes, plus two more.
  if (op + 3 * ((len >> 6) + 2) > dst.length) return -1;
  while (len >= 68) {
    dst[op++] = (63 << 2) | 2;
    dst[op++] = offset & 255;
    dst[op++] = offset >> 8;
    len -= 64;
  }
  if (len > 64) {
    // Leave at least 4 bytes so the tail can still use the short form.
    dst[op++] = (59 << 2) | 2;
    dst[op++] = offset & 255;
    dst[op++] = offset >> 8;
    len -= 60;
  }
  if (len < 12 && offset < 2048) {
    dst[op++] = ((offset >> 8) << 5) | ((len - 4) << 2) | 1;
    dst[op++] = offset & 255;
  } else {
    dst[op++] = ((len - 1) << 2) | 2;
    dst[op++] = offset & 255;
    dst[op++] = offset >> 8;
  }
  return op;
}

/**
 * Compress `src` as one raw Snappy stream (length preamble + elements), as Blosc's `snappy` codec
 * stores it. Greedy matching over a one-entry hash table of 4-byte sequences with Snappy's
 * skipping heuristic (the probe step grows by one every 32 misses); copies use 1- or 2-byte
 * offsets (window 65535).
 *
 * Note that Blosc gives Snappy an output limit of its worst-case bound (`32 + n + n/6`), not
 * `neblock`, so a Snappy stream may legitimately be longer than its input.
 *
 * @param src - the bytes of one split or block (at most 2^32 - 1).
 * @param dst - output space.
 * @returns the stream length, or 0 when it would not fit in `dst`.
 * @example
 * ```ts
 * const src = new TextEncoder().encode("abc".repeat(8));
 * const dst = new Uint8Array(64);
 * const n = encodeSnappy(src, dst); // 18 08 61 62 63 ... (length 24, literal "abc", copies)
 * ```
 */
export function encodeSnappy(src: Uint8Array, dst: Uint8Array): number {
  const n = src.length;
  let op = 0;
  for (let v = n; ; v = Math.floor(v / 128)) {
    if (op >= dst.length) return 0;
    if (v < 128) {
      dst[op++] = v;
      break;
    }
    dst[op++] = (v & 127) | 128;
  }
  let anchor = 0;
  const limit = n - 4; // last position whose 4 bytes can be hashed
  if (n >= 8) {
    let hashLog = 14;
    while (hashLog > 8 && 1 << (hashLog - 2) > n) hashLog--;
    const shift = 32 - hashLog;
    const table = snappyTable;
    table.fill(-1, 0, 1 << hashLog);
    let ip = 0;
    let skip = 32;
    while (ip <= limit) {
      const seq = read32(src, ip);
      const h = Math.imul(seq, HASH_MULTIPLIER) >>> shift;
      const ref = table[h]!;
      table[h] = ip;
      if (ref < 0 || ip - ref > SNAPPY_MAX_DISTANCE || read32(src, ref) !== seq) {
        ip += skip++ >> 5;
        continue;
      }
      skip = 32;
      let len = 4;
      while (ip + len < n && src[ref + len] === src[ip + len]) len++;
      op = writeLiteral(src, anchor, ip, dst, op);
      if (op < 0) return 0;
      op = writeCopy(dst, op, ip - ref, len);
      if (op < 0) return 0;
      ip += len;
      anchor = ip;
      if (ip - 1 <= limit) table[Math.imul(read32(src, ip - 1), HASH_MULTIPLIER) >>> shift] = ip - 1;
    }
  }
  op = writeLiteral(src, anchor, n, dst, op);
  return op < 0 ? 0 : op;
}
