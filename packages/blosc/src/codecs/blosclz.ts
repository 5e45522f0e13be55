/**
 * BloscLZ stream decoder (Blosc codec format code 0). Grammar: format-facts section 2.
 *
 * @example
 * ```ts
 * import { decodeBlosclz } from "./blosclz.js";
 * const out = new Uint8Array(256);
 * decodeBlosclz(new Uint8Array([0x20, 0x00, 0xe0, 0xf5, 0x00, 0x00, 0x00]), out); // 256 zero bytes
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import { copyLiterals, copyMatch, corruptStream } from "./internal.js";

/** Largest near distance; far distances start right after it. */
const MAX_NEAR_DISTANCE = 8191;

/**
 * Decode one BloscLZ stream into exactly `dst.length` bytes.
 *
 * Termination: c-blosc 1.21 stops without executing a match that is the very last instruction of
 * the stream (and then fails because the output is short), while c-blosc <= 1.18 (e.g. the 1.14.3
 * bundled with bcolz 1.2.x) executes it. We follow the older, lenient behaviour and execute a
 * trailing match: files written by old encoders may legitimately rely on it, and accepting it
 * cannot make a valid 1.21 stream decode differently. Everything else is strict: every byte the
 * grammar announces must be present, literal runs and matches must fit the output, and match
 * sources must not start before the output start. The output length must equal `dst.length`.
 *
 * @param src - the stream bytes (exactly the `csize` bytes after the stream's size prefix).
 * @param dst - output buffer sized to the expected decoded length (`neblock`).
 * @param path - file or key the stream came from, for error messages.
 * @returns the number of bytes written, always `dst.length`.
 * @throws FormatError CORRUPT_STREAM (fields `blosclz.*`) on any violation.
 * @example
 * ```ts
 * const out = new Uint8Array(256);
 * decodeBlosclz(Uint8Array.of(0x20, 0x00, 0xe0, 0xf5, 0x00, 0x00, 0x00), out);
 * ```
 */
export function decodeBlosclz(src: Uint8Array, dst: Uint8Array, path?: string): number {
  const ilen = src.length;
  const olen = dst.length;
  if (ilen === 0) throw corruptStream("blosclz.stream", "empty BloscLZ stream", ">= 2 bytes", 0, path);
  let ip = 1;
  let op = 0;
  // The top 3 bits of byte 0 are a format marker; byte 0 is always a literal-run control.
  let ctrl = src[0]! & 31;
  for (;;) {
    if (ctrl < 32) {
      const run = ctrl + 1;
      if (ip + run > ilen) {
        throw corruptStream("blosclz.literal", "literal run runs past the end of the stream", run, ilen - ip, path);
      }
      if (op + run > olen) {
        throw corruptStream("blosclz.literal", "literal run runs past the expected output size", olen, op + run, path);
      }
      copyLiterals(src, ip, dst, op, run);
      ip += run;
      op += run;
      if (ip >= ilen) break;
      ctrl = src[ip++]!;
      continue;
    }
    let length = (ctrl >> 5) + 2;
    const high = ctrl & 31;
    if (length === 9) {
      let code: number;
      do {
        if (ip >= ilen) throw corruptStream("blosclz.length", "stream ends inside a match length", "extension byte", "end of stream", path);
        code = src[ip++]!;
        length += code;
      } while (code === 255);
    }
    if (ip >= ilen) throw corruptStream("blosclz.distance", "stream ends before a match distance", "distance byte", "end of stream", path);
    const low = src[ip++]!;
    let distance: number;
    if (low === 255 && high === 31) {
      if (ip + 2 > ilen) throw corruptStream("blosclz.distance", "stream ends inside a far match distance", 2, ilen - ip, path);
      distance = MAX_NEAR_DISTANCE + 1 + ((src[ip]! << 8) | src[ip + 1]!);
      ip += 2;
    } else {
      distance = (high << 8) + low + 1;
    }
    if (distance > op) {
      throw corruptStream("blosclz.distance", "match starts before the start of the output", `<= ${op}`, distance, path);
    }
    if (op + length > olen) {
      throw corruptStream("blosclz.length", "match runs past the expected output size", olen, op + length, path);
    }
    copyMatch(dst, op, distance, length);
    op += length;
    if (ip >= ilen) break; // trailing match: executed on purpose (see above)
    ctrl = src[ip++]!;
  }
  if (op !== olen) {
    throw corruptStream("blosclz.end", "stream decodes to a different size than expected", olen, op, path);
  }
  return op;
}

/** Largest distance the far form can express: 8192 + 0xFFFF. */
const MAX_FAR_DISTANCE = MAX_NEAR_DISTANCE + 1 + 0xffff;
/** No match may start in the last this-many input bytes (as in the real encoders). */
const END_GUARD = 12;
/** Knuth's multiplicative constant (2654435761) as a signed 32-bit integer for Math.imul. */
const HASH_MULTIPLIER = -1640531535;
/** Give-up thresholds of BloscLZ 2.5.1 (format-facts 2.5), indexed by clevel. */
const MIN_PROBE_RATIO = [0, 2, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0] as const;
/** Largest sample the give-up probe compresses. */
const PROBE_MAX = 4096;

const hashTable = new Int32Array(1 << 14);
const probeScratch = new Uint8Array(2 * PROBE_MAX + 64);

interface BlosclzTuning {
  hashLog: number;
  /** Probe step grows by one per 2^skipShift bytes without a match (0 = never skip). */
  skipShift: number;
  minNear: number;
  minFar: number;
  rehash: number;
}

/**
 * Greedy single-probe LZ77 into the BloscLZ grammar. Returns the stream length, or 0 when it
 * would not fit in `dst`. `src` must be non-empty.
 */
function blosclzCompress(src: Uint8Array, dst: Uint8Array, tuning: BlosclzTuning): number {
  const n = src.length;
  const cap = dst.length;
  const hashLog = tuning.hashLog;
  const shift = 32 - hashLog;
  const minNear = tuning.minNear;
  const minFar = tuning.minFar;
  const rehash = tuning.rehash;
  const skipShift = tuning.skipShift;
  const table = hashTable;
  // Entry 0 doubles as "position 0", which is a real candidate; every candidate is verified.
  table.fill(0, 0, 1 << hashLog);
  const ipBound = n - END_GUARD;
  // A match may run to the last byte but one: the stream must end with a literal run.
  const matchEnd = n - 1;
  let op = 0;
  let anchor = 0;
  let ip = 1;
  while (ip < ipBound) {
    const seq = src[ip]! | (src[ip + 1]! << 8) | (src[ip + 2]! << 16) | (src[ip + 3]! << 24);
    const h = Math.imul(seq, HASH_MULTIPLIER) >>> shift;
    const ref = table[h]!;
    table[h] = ip;
    const distance = ip - ref;
    if (
      distance > MAX_FAR_DISTANCE ||
      (src[ref]! | (src[ref + 1]! << 8) | (src[ref + 2]! << 16) | (src[ref + 3]! << 24)) !== seq ||
      distance === 0
    ) {
      // Long stretches without matches are probably incompressible: probe them more sparsely.
      ip += skipShift === 0 ? 1 : 1 + ((ip - anchor) >> skipShift);
      continue;
    }
    let len = 4;
    const maxLen = matchEnd - ip;
    while (len < maxLen && src[ref + len] === src[ip + len]) len++;
    if (len < (distance > MAX_NEAR_DISTANCE ? minFar : minNear)) {
      ip++;
      continue;
    }
    // Literal run(s) before the match: 32 bytes per control byte.
    let lits = ip - anchor;
    if (lits > 0) {
      if (op + lits + ((lits + 31) >> 5) > cap) return 0;
      while (lits > 0) {
        const run = lits < 32 ? lits : 32;
        dst[op++] = run - 1;
        for (let k = 0; k < run; k++) dst[op++] = src[anchor++]!;
        lits -= run;
      }
    }
    if (op + 6 + ((len - 9) / 255 | 0) > cap) return 0;
    const far = distance > MAX_NEAR_DISTANCE;
    const code = far ? distance - MAX_NEAR_DISTANCE - 1 : distance - 1;
    const high = far ? 31 : code >> 8;
    if (len <= 8) {
      dst[op++] = ((len - 2) << 5) | high;
    } else {
      dst[op++] = 0xe0 | high;
      let rest = len - 9;
      while (rest >= 255) {
        dst[op++] = 255;
        rest -= 255;
      }
      dst[op++] = rest;
    }
    if (far) {
      dst[op++] = 255;
      dst[op++] = code >> 8;
      dst[op++] = code & 255;
    } else {
      dst[op++] = code & 255;
    }
    ip += len;
    anchor = ip;
    // Re-insert positions just before the new cursor so runs keep matching.
    for (let p = ip - rehash; p < ip; p++) {
      if (p + 3 < n) {
        const s = src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16) | (src[p + 3]! << 24);
        table[Math.imul(s, HASH_MULTIPLIER) >>> shift] = p;
      }
    }
  }
  let lits = n - anchor;
  if (op + lits + ((lits + 31) >> 5) > cap) return 0;
  while (lits > 0) {
    const run = lits < 32 ? lits : 32;
    dst[op++] = run - 1;
    if (run > 16) {
      dst.set(src.subarray(anchor, anchor + run), op);
      op += run;
      anchor += run;
    } else {
      for (let k = 0; k < run; k++) dst[op++] = src[anchor++]!;
    }
    lits -= run;
  }
  dst[0] = dst[0]! | 0x20;
  return op;
}

/**
 * Compress `src` as one BloscLZ stream into `dst`, for the codec slot of a Blosc chunk.
 *
 * The output always starts with a literal run whose control byte carries the 0x20 marker, ends
 * with a literal run (c-blosc >= 1.19 rejects streams ending with a match) and uses near distances
 * up to 8191 and far distances up to 73727, so every c-blosc 1.x decodes it. The match finder is a
 * greedy one-entry hash table over 4-byte sequences, tuned like BloscLZ 2.5.1 (c-blosc 1.21.1+):
 * hash size by clevel, a probe of the input's last quarter that gives up on poorly compressible
 * data (ratio below the 2.5.1 threshold of that clevel) and that also picks the minimum match
 * length (5 or 6 bytes; far matches need 8).
 *
 * @param src - the bytes of one split or block.
 * @param dst - output space; the Blosc writer passes `neblock` bytes.
 * @param clevel - compression level 0..9; 0 means "do not compress" and returns 0.
 * @returns the stream length, or 0 when the data should be stored raw (does not fit in `dst`,
 *   is empty, or the probe says it does not compress at this level).
 * @example
 * ```ts
 * const src = new Uint8Array(4096); // zeros
 * const dst = new Uint8Array(src.length);
 * const n = encodeBlosclz(src, dst, 5); // a few dozen bytes
 * const back = new Uint8Array(src.length);
 * decodeBlosclz(dst.subarray(0, n), back);
 * ```
 */
export function encodeBlosclz(src: Uint8Array, dst: Uint8Array, clevel: number): number {
  checkLevel(clevel);
  const n = src.length;
  if (clevel === 0 || n === 0 || dst.length === 0) return 0;
  let hashLog = clevel === 1 ? 12 : clevel === 2 ? 13 : 14;
  // Small inputs do not need (and should not pay to clear) a large table.
  while (hashLog > 8 && 1 << (hashLog - 2) > n) hashLog--;
  const rehash = clevel === 9 ? 2 : 1;
  const tuning: BlosclzTuning = { hashLog, skipShift: clevel === 9 ? 0 : 10, minNear: 5, minFar: 8, rehash };
  const probeLen = Math.min(n >> 2, PROBE_MAX);
  if (probeLen >= 64) {
    const sample = src.subarray(n - probeLen, n);
    const with5 = blosclzCompress(sample, probeScratch, tuning);
    tuning.minNear = 6;
    const with6 = blosclzCompress(sample, probeScratch, tuning);
    if (with5 <= with6) tuning.minNear = 5;
    const best = Math.min(with5, with6);
    if (probeLen / best < MIN_PROBE_RATIO[clevel]!) return 0;
  }
  return blosclzCompress(src, dst, tuning);
}

function checkLevel(clevel: number): void {
  if (!Number.isInteger(clevel) || clevel < 0 || clevel > 9) {
    throw new UsageError("INVALID_ARGUMENT", "clevel must be an integer from 0 to 9", { field: "cparams.clevel", expected: "0..9", actual: clevel });
  }
}
