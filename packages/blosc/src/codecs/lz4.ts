/**
 * Raw LZ4 block decoder (Blosc codec format code 1, written by both lz4 and lz4hc).
 * Format: format-facts section 3.1 and the LZ4 block format description.
 *
 * @example
 * ```ts
 * import { decodeLz4 } from "./lz4.js";
 * const out = new Uint8Array(24);
 * decodeLz4(Uint8Array.of(0x3c, 0x61, 0x62, 0x63, 0x03, 0x00, 0x50, 0x62, 0x63, 0x61, 0x62, 0x63), out); // "abc" x 8
 * ```
 * @module
 */
import { copyLiterals, copyMatch, corruptStream } from "./internal.js";

/** A match must start at least this many bytes before the end of the block. */
const MFLIMIT = 12;
/** The last this-many bytes of a block are always literals. */
const LAST_LITERALS = 5;

/**
 * Decode one raw LZ4 block into exactly `dst.length` bytes.
 *
 * Besides the grammar, the block-end rules of the LZ4 format are enforced the way the reference
 * safe decoder (used by c-blosc) enforces them, so we reject exactly the streams c-blosc rejects:
 * a literal run that ends within 12 bytes of the output end, or leaves fewer than 8 input bytes,
 * must be the last sequence and end exactly at the end of the input; a match must end at least
 * 5 bytes before the output end.
 *
 * @param src - the block bytes (exactly the `csize` bytes after the stream's size prefix).
 * @param dst - output buffer sized to the expected decoded length (`neblock`).
 * @param path - file or key the stream came from, for error messages.
 * @returns the number of bytes written, always `dst.length`.
 * @throws FormatError CORRUPT_STREAM (fields `lz4.*`) on any violation.
 * @example
 * ```ts
 * const out = new Uint8Array(5);
 * decodeLz4(Uint8Array.of(0x50, 0x68, 0x65, 0x6c, 0x6c, 0x6f), out); // "hello"
 * ```
 */
export function decodeLz4(src: Uint8Array, dst: Uint8Array, path?: string): number {
  const ilen = src.length;
  const olen = dst.length;
  let ip = 0;
  let op = 0;
  for (;;) {
    if (ip >= ilen) throw corruptStream("lz4.token", "stream ends before a sequence token", "token byte", "end of stream", path);
    const token = src[ip++]!;
    let literals = token >> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (ip >= ilen) throw corruptStream("lz4.literal", "stream ends inside a literal length", "length byte", "end of stream", path);
        b = src[ip++]!;
        literals += b;
      } while (b === 255);
    }
    if (ip + literals > ilen) {
      throw corruptStream("lz4.literal", "literal run runs past the end of the stream", literals, ilen - ip, path);
    }
    if (op + literals > olen) {
      throw corruptStream("lz4.literal", "literal run runs past the expected output size", olen, op + literals, path);
    }
    if (op + literals > olen - MFLIMIT || ip + literals > ilen - (2 + 1 + LAST_LITERALS)) {
      // Only the last sequence may come this close to either end.
      if (ip + literals !== ilen) {
        throw corruptStream("lz4.literal", "sequence near the end of the block is not the last one", "end of stream after literals", ilen - ip - literals, path);
      }
      copyLiterals(src, ip, dst, op, literals);
      op += literals;
      break;
    }
    copyLiterals(src, ip, dst, op, literals);
    ip += literals;
    op += literals;
    // At least 8 input bytes remain here (checked above), so the offset is present.
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (offset === 0) throw corruptStream("lz4.offset", "match offset is zero", ">= 1", 0, path);
    if (offset > op) throw corruptStream("lz4.offset", "match starts before the start of the output", `<= ${op}`, offset, path);
    let length = token & 15;
    if (length === 15) {
      let b: number;
      do {
        if (ip >= ilen) throw corruptStream("lz4.match", "stream ends inside a match length", "length byte", "end of stream", path);
        b = src[ip++]!;
        length += b;
      } while (b === 255);
    }
    length += 4;
    if (op + length > olen - LAST_LITERALS) {
      throw corruptStream("lz4.match", "match runs into the last 5 bytes of the block", `<= ${olen - LAST_LITERALS}`, op + length, path);
    }
    copyMatch(dst, op, offset, length);
    op += length;
  }
  if (op !== olen) {
    throw corruptStream("lz4.end", "block decodes to a different size than expected", olen, op, path);
  }
  return op;
}

/** LZ4 offsets are 16-bit. */
const LZ4_MAX_DISTANCE = 65535;
/** Knuth's multiplicative constant (2654435761) as a signed 32-bit integer for Math.imul. */
const HASH_MULTIPLIER = -1640531535;

/**
 * LZ4's 5-byte hash above 64 KiB is `((the 8 bytes at p) << 24) * 889523592379 >> 52` in 64-bit
 * arithmetic: bits 28..39 of x × 889523592379 mod 2^40, x the 5 bytes at p. With the prime as
 * 207 × 2^32 + PRIME5_LOW and x as low + 2^32 × b4, bits 0..31 are Math.imul(low, PRIME5_LOW),
 * and bits 32..39 the low byte of (the high word of low × PRIME5_LOW) + low × 207 + b4 ×
 * PRIME5_LOW. That high word is the double product's, rounded after the low word is taken off:
 * the double is off by less than 2^8, far below the 2^32 that separates candidates.
 */
const PRIME5_LOW = 465362107;
const PRIME5_HIGH = 207;

/** LZ4 switches table layout (and hash width) for inputs of 64 KiB + 11 bytes and more. */
const LZ4_64K_LIMIT = 65536 + 11;

/** LZ4's hash of position `p`: 13 bits of 4 bytes below 64 KiB + 11 (`small`), 12 bits of 5 bytes above. */
function hashAt(src: Uint8Array, p: number, small: boolean): number {
  const low = read32(src, p) >>> 0;
  if (small) return Math.imul(low, HASH_MULTIPLIER) >>> 19;
  const lowWord = Math.imul(low, PRIME5_LOW) >>> 0;
  const highWord = Math.round((low * PRIME5_LOW - lowWord) / 4294967296);
  const bits32to39 = (highWord + Math.imul(low, PRIME5_HIGH) + Math.imul(src[p + 4]!, PRIME5_LOW)) & 0xff;
  return (bits32to39 << 4) | (lowWord >>> 28);
}

const fastTable = new Int32Array(1 << 13);
const hcHead = new Int32Array(1 << 15);
const hcChain = new Uint16Array(1 << 16);

function read32(src: Uint8Array, p: number): number {
  return src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16) | (src[p + 3]! << 24);
}

/**
 * Append one sequence (literals `src[anchor..ip)`, then a match of `len` bytes at `offset`, or no
 * match when `len` is 0) at `op`. Returns the new output position, or -1 when it would not fit.
 * Fitting exactly is LZ4's rule too: the 6 bytes more it wants free after a match when `dst` is
 * below its worst-case bound are needed anyway by the block's last literals (at least 5, and a token).
 */
function writeSequence(src: Uint8Array, anchor: number, ip: number, dst: Uint8Array, op: number, offset: number, len: number): number {
  const lits = ip - anchor;
  const ml = len - 4;
  const need = 1 + lits + ((lits + 240) / 255 | 0) + (len > 0 ? 2 + ((ml + 240) / 255 | 0) : 0);
  if (op + need > dst.length) return -1;
  const tokenPos = op++;
  let token: number;
  if (lits >= 15) {
    token = 0xf0;
    let rest = lits - 15;
    while (rest >= 255) {
      dst[op++] = 255;
      rest -= 255;
    }
    dst[op++] = rest;
  } else {
    token = lits << 4;
  }
  if (lits > 32) {
    dst.set(src.subarray(anchor, ip), op);
    op += lits;
  } else {
    for (let p = anchor; p < ip; p++) dst[op++] = src[p]!;
  }
  if (len > 0) {
    dst[op++] = offset & 255;
    dst[op++] = offset >> 8;
    if (ml >= 15) {
      token |= 15;
      let rest = ml - 15;
      while (rest >= 255) {
        dst[op++] = 255;
        rest -= 255;
      }
      dst[op++] = rest;
    } else {
      token |= ml;
    }
  }
  dst[tokenPos] = token;
  return op;
}

/**
 * Compress `src` as one raw LZ4 block with the algorithm of LZ4's own fast compressor
 * (`LZ4_compress_fast` of LZ4 1.9, which c-blosc calls for Blosc's `lz4` codec): the same bytes as
 * c-blosc writes, and as the WebAssembly kernels' encoder.
 *
 * Greedy matching over a one-entry hash table (4-byte sequences below 64 KiB + 11 bytes, 5-byte
 * above, as LZ4 does on 64-bit targets) with LZ4's skip acceleration: after every 64 failed probes
 * the step grows by one, scaled by `acceleration`. The block obeys LZ4's end rules (last match
 * starts >= 12 bytes before the end, last 5 bytes are literals), so the reference safe decoder in
 * c-blosc accepts it.
 *
 * @param src - the bytes of one split or block.
 * @param dst - output space; the Blosc writer passes `neblock` bytes.
 * @param acceleration - 1 (best ratio) or more (faster); Blosc uses `10 - clevel`.
 * @returns the block length, or 0 when it would not fit in `dst`.
 * @example
 * ```ts
 * const src = new TextEncoder().encode("abc".repeat(100));
 * const dst = new Uint8Array(src.length);
 * const n = encodeLz4(src, dst, 1);
 * decodeLz4(dst.subarray(0, n), new Uint8Array(src.length));
 * ```
 */
export function encodeLz4(src: Uint8Array, dst: Uint8Array, acceleration: number): number {
  const accel = Number.isFinite(acceleration) && acceleration >= 1 ? Math.min(Math.floor(acceleration), 65537) : 1;
  const n = src.length;
  let op = 0;
  let anchor = 0;
  const mfLimit = n - MFLIMIT; // last position where a match may start
  const matchLimit = n - LAST_LITERALS; // matches end at or before this
  if (n >= MFLIMIT + 1) {
    const small = n < LZ4_64K_LIMIT;
    const table = fastTable;
    // Zeroed, as LZ4's: an empty slot offers position 0, a real candidate.
    table.fill(0, 0, 1 << (small ? 13 : 12));
    table[hashAt(src, 0, small)] = 0;
    let ip = 1;
    let forwardHash = hashAt(src, 1, small);
    outer: for (;;) {
      let ref: number;
      let probes = accel << 6;
      let step = 1; // the byte right after a miss is probed before accelerating
      let forward = ip;
      for (;;) {
        const h = forwardHash;
        ip = forward;
        forward += step;
        step = probes++ >> 6;
        // LZ4 stops once the next probe would lie past n - 11.
        if (forward > mfLimit + 1) break outer;
        ref = table[h]!;
        forwardHash = hashAt(src, forward, small);
        table[h] = ip;
        if ((small || ip - ref <= LZ4_MAX_DISTANCE) && read32(src, ref) === read32(src, ip)) break;
      }
      // Extend backwards over pending literals.
      while (ip > anchor && ref > 0 && src[ip - 1] === src[ref - 1]) {
        ip--;
        ref--;
      }
      for (;;) {
        let len = 4;
        while (ip + len < matchLimit && src[ref + len] === src[ip + len]) len++;
        op = writeSequence(src, anchor, ip, dst, op, ip - ref, len);
        if (op < 0) return 0;
        ip += len;
        anchor = ip;
        if (ip > mfLimit) break outer;
        table[hashAt(src, ip - 2, small)] = ip - 2;
        // A match right at the new position continues without literals.
        const h = hashAt(src, ip, small);
        ref = table[h]!;
        table[h] = ip;
        if ((small || ip - ref <= LZ4_MAX_DISTANCE) && read32(src, ref) === read32(src, ip)) continue;
        ip++;
        forwardHash = hashAt(src, ip, small);
        break;
      }
    }
  }
  op = writeSequence(src, anchor, n, dst, op, 0, 0);
  return op < 0 ? 0 : op;
}

const HC_HASH_LOG = 15;
/** How many following positions the lazy matcher of {@link encodeLz4hc} examines. */
const LAZY_STEPS = 2;
/** Where the last hcFindBest call found its match (module state keeps the hot path allocation-free). */
let hcBestRef = 0;

/** Link positions `from..to-1` into the hash chains. */
function hcInsert(src: Uint8Array, from: number, to: number, shift: number): void {
  const head = hcHead;
  const chain = hcChain;
  for (let p = from; p < to; p++) {
    const h = Math.imul(read32(src, p), HASH_MULTIPLIER) >>> shift;
    const prev = head[h]!;
    const delta = prev < 0 ? 65535 : p - prev;
    chain[p & 0xffff] = delta > 65535 ? 65535 : delta;
    head[h] = p;
  }
}

/** Longest match (>= 4 bytes, else 0) at `ip` among at most `attempts` chain candidates. */
function hcFindBest(src: Uint8Array, ip: number, maxLen: number, attempts: number, niceLength: number): number {
  const chain = hcChain;
  const seq = read32(src, ip);
  let best = 0;
  let ref = ip - chain[ip & 0xffff]!;
  for (; attempts > 0 && ref >= 0 && ip - ref <= LZ4_MAX_DISTANCE; attempts--) {
    if (src[ref + best] === src[ip + best] && read32(src, ref) === seq) {
      let len = 4;
      while (len < maxLen && src[ref + len] === src[ip + len]) len++;
      if (len > best) {
        best = len;
        hcBestRef = ref;
        if (len >= maxLen || len >= niceLength) break;
      }
    }
    ref -= chain[ref & 0xffff]!;
  }
  return best;
}

/**
 * Compress `src` as one raw LZ4 block with a better (slower) parser, as Blosc's `lz4hc` codec
 * does. The output is an ordinary LZ4 block.
 *
 * Hash chains over a 64 KiB window, `2^(level-1)` candidates per position (at least 2, at most
 * 2048), lazy matching (a match is deferred while one of the next two positions offers a match
 * longer by more than the literals that costs) and backward extension of each match. Ratios come
 * within about 2% of real lz4hc at the same level.
 *
 * @param src - the bytes of one split or block.
 * @param dst - output space; the Blosc writer passes `neblock` bytes.
 * @param level - 1..12 (Blosc passes clevel 1..9); higher searches more candidates.
 * @returns the block length, or 0 when it would not fit in `dst`.
 * @example
 * ```ts
 * const src = new TextEncoder().encode("abcd".repeat(100));
 * const dst = new Uint8Array(src.length);
 * const n = encodeLz4hc(src, dst, 9);
 * ```
 */
export function encodeLz4hc(src: Uint8Array, dst: Uint8Array, level: number): number {
  const lv = Number.isFinite(level) ? Math.max(1, Math.min(12, Math.floor(level))) : 9;
  const maxAttempts = Math.max(2, 1 << (lv - 1));
  // A match this long is good enough: stop searching the chain and skip the lazy step. Without
  // this cut, long runs make every candidate extend to the end of the run (quadratic time).
  const niceLength = lv >= 9 ? 4096 : 16 << lv;
  const n = src.length;
  let op = 0;
  let anchor = 0;
  const mfLimit = n - MFLIMIT;
  const matchLimit = n - LAST_LITERALS;
  if (n >= MFLIMIT + 1) {
    const shift = 32 - HC_HASH_LOG;
    hcHead.fill(-1);
    let nextToUpdate = 0;
    let ip = 1;
    while (ip <= mfLimit) {
      hcInsert(src, nextToUpdate, ip + 1, shift);
      nextToUpdate = ip + 1;
      let len = hcFindBest(src, ip, matchLimit - ip, maxAttempts, niceLength);
      if (len < 4) {
        // After 4 KiB without a match the data is probably incompressible here: probe (and index)
        // it more sparsely. Real lz4hc does not, but this costs almost no ratio and most of the time.
        ip += 1 + ((ip - anchor) >> 12);
        if (nextToUpdate < ip) nextToUpdate = ip;
        continue;
      }
      let ref = hcBestRef;
      // Lazy matching: defer the match while one of the next positions offers a longer one
      // (by more than the literals it would cost).
      lazy: while (len < niceLength) {
        for (let k = 1; k <= LAZY_STEPS && ip + k <= mfLimit; k++) {
          if (nextToUpdate <= ip + k) {
            hcInsert(src, nextToUpdate, ip + k + 1, shift);
            nextToUpdate = ip + k + 1;
          }
          const later = hcFindBest(src, ip + k, matchLimit - ip - k, maxAttempts, niceLength);
          if (later > len + k - 1) {
            ip += k;
            len = later;
            ref = hcBestRef;
            continue lazy;
          }
        }
        break;
      }
      // Grow the match backwards over pending literals (cheaper than emitting them).
      while (ip > anchor && ref > 0 && src[ip - 1] === src[ref - 1]) {
        ip--;
        ref--;
        len++;
      }
      op = writeSequence(src, anchor, ip, dst, op, ip - ref, len);
      if (op < 0) return 0;
      ip += len;
      anchor = ip;
    }
  }
  op = writeSequence(src, anchor, n, dst, op, 0, 0);
  return op < 0 ? 0 : op;
}
