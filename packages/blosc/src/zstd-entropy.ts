/**
 * Entropy stages of the zstd decoder (RFC 8878 §4): the backward bit stream, FSE tables (from a
 * table description, predefined, or RLE) and Huffman literal tables. Every reader is bounded by
 * its input range and every table by the RFC's size limits, so hostile input costs work
 * proportional to its length.
 *
 * @example
 * ```ts
 * import { BackwardBits, readFseTable } from "./zstd-entropy.js";
 * const table = readFseTable(src, at, end, 9, 35, fail);
 * ```
 * @module
 */

/**
 * Raises the decoder's error for a stream that breaks the format; never returns.
 *
 * @example
 * ```ts
 * const fail: Fail = (field, reason) => { throw new Error(`${field}: ${reason}`); };
 * ```
 */
export type Fail = (field: string, reason: string, expected?: unknown, actual?: unknown) => never;

/**
 * A bit stream read from its last byte towards its first (RFC 8878 §4.1): the highest set bit of
 * the last byte marks where the data starts. Reads past the first byte yield zero bits and leave
 * `remaining` negative, which decoders check when they finish.
 *
 * @example
 * ```ts
 * const bits = new BackwardBits(src, 0, src.length, fail);
 * const state = bits.read(6);
 * if (bits.remaining !== 0) fail("stream", "unused bits");
 * ```
 */
export class BackwardBits {
  /** Bits not consumed yet; negative after reading past the start. */
  remaining: number;
  private readonly src: Uint8Array;
  private readonly start: number;
  private readonly end: number;

  constructor(src: Uint8Array, start: number, end: number, fail: Fail) {
    if (end <= start) fail("zstd.bitstream", "empty bit stream", ">= 1 byte", 0);
    const last = src[end - 1]!;
    if (last === 0) fail("zstd.bitstream", "bit stream has no end marker", "non-zero last byte", 0);
    this.src = src;
    this.start = start;
    this.end = end;
    this.remaining = (end - start - 1) * 8 + (31 - Math.clz32(last));
  }

  /** The `n` (0..24) bits below the current position, without consuming them. */
  peek(n: number): number {
    const pos = this.remaining - n;
    if (pos >= 0) return (this.word(pos) >>> (pos & 7)) & ((1 << n) - 1);
    if (this.remaining <= 0) return 0;
    // fewer than n bits left: they are the high bits, zeros below
    return ((this.word(0) & ((1 << this.remaining) - 1)) << -pos) & ((1 << n) - 1);
  }

  /** Consume and return `n` (0..31) bits. */
  read(n: number): number {
    // Kept small so that it inlines into the decoding loops; everything unusual goes to readSlow.
    const pos = this.remaining - n;
    const at = this.start + (pos >> 3);
    if (n <= 24 && pos >= 0 && at + 4 <= this.end) {
      this.remaining = pos;
      const s = this.src;
      return ((s[at]! | (s[at + 1]! << 8) | (s[at + 2]! << 16) | (s[at + 3]! << 24)) >>> (pos & 7)) & ((1 << n) - 1);
    }
    return this.readSlow(n);
  }

  private readSlow(n: number): number {
    if (n > 24) {
      const high = this.read(n - 16);
      return high * 65536 + this.read(16);
    }
    const v = this.peek(n);
    this.remaining -= n;
    return v;
  }

  /** Little-endian 32-bit word starting at the byte holding bit `pos` (bytes past the end read 0). */
  private word(pos: number): number {
    const at = this.start + (pos >> 3);
    const s = this.src;
    if (at + 4 <= this.end) return (s[at]! | (s[at + 1]! << 8) | (s[at + 2]! << 16) | (s[at + 3]! << 24)) >>> 0;
    let v = 0;
    for (let i = 0; i < 4 && at + i < this.end; i++) v |= s[at + i]! << (8 * i);
    return v >>> 0;
  }
}

/**
 * An FSE decoding table: for each state its symbol, the bits to read for the next state, and the
 * base the read bits are added to.
 *
 * @example
 * ```ts
 * const next = table.base[state]! + bits.read(table.bits[state]!);
 * ```
 */
export interface FseTable {
  accuracy: number;
  symbol: Uint8Array;
  bits: Uint8Array;
  base: Uint16Array;
}

// Counters of buildFseTable, one per symbol (descriptions allow at most 256 symbols).
const FSE_NEXT = new Uint16Array(256);

/**
 * Build the decoding table of a normalised distribution (RFC 8878 §4.1.1): `-1` marks a
 * "less than one" probability.
 *
 * @example
 * ```ts
 * const table = buildFseTable([4, 3, 2, -1], 4, fail); // sums to 16 = 2^4
 * ```
 */
export function buildFseTable(norm: ArrayLike<number>, accuracy: number, fail: Fail): FseTable {
  const size = 1 << accuracy;
  // One allocation for the three arrays (a zstd block may bring three tables and a Huffman one),
  // and the per-symbol counters in reused scratch.
  const memory = new ArrayBuffer(4 * size);
  const base = new Uint16Array(memory, 0, size);
  const symbol = new Uint8Array(memory, 2 * size, size);
  const bits = new Uint8Array(memory, 3 * size, size);
  if (norm.length > FSE_NEXT.length) fail("zstd.fse_table", "FSE table has too many symbols", `<= ${FSE_NEXT.length}`, norm.length);
  const next = FSE_NEXT;
  let high = size - 1;
  for (let s = 0; s < norm.length; s++) {
    if (norm[s] === -1) {
      symbol[high--] = s;
      next[s] = 1;
    } else next[s] = norm[s]!;
  }
  const step = (size >> 1) + (size >> 3) + 3;
  const mask = size - 1;
  let pos = 0;
  for (let s = 0; s < norm.length; s++) {
    const count = norm[s]!;
    for (let i = 0; i < count; i++) {
      symbol[pos] = s;
      do pos = (pos + step) & mask;
      while (pos > high);
    }
  }
  if (pos !== 0) fail("zstd.fse_table", "FSE symbol spread does not close", 0, pos);
  for (let u = 0; u < size; u++) {
    const x = next[symbol[u]!]!++;
    const nb = accuracy - (31 - Math.clz32(x));
    bits[u] = nb;
    base[u] = (x << nb) - size;
  }
  return { accuracy, symbol, bits, base };
}

/**
 * The one-state table of RLE mode: every state gives `symbol` and reads no bits.
 *
 * @example
 * ```ts
 * rleFseTable(3).symbol[0]; // 3
 * ```
 */
export function rleFseTable(symbol: number): FseTable {
  return { accuracy: 0, symbol: Uint8Array.of(symbol), bits: new Uint8Array(1), base: new Uint16Array(1) };
}

/**
 * Read an FSE table description (RFC 8878 §4.1.1) from `src[at..end)` and build its table.
 *
 * @param maxAccuracy - largest accuracy log the caller allows.
 * @param maxSymbol - largest symbol value allowed.
 * @returns the table and the offset just past the description.
 * @example
 * ```ts
 * const { table, end } = readFseTable(src, at, blockEnd, 9, 35, fail);
 * ```
 */
export function readFseTable(src: Uint8Array, at: number, end: number, maxAccuracy: number, maxSymbol: number, fail: Fail): { table: FseTable; end: number } {
  let bit = 0;
  // n <= 16 bits, little-endian from bit `bit`: up to three bytes, read as one word.
  const readBits = (n: number): number => {
    const last = at + ((bit + n - 1) >> 3);
    if (n > 0 && last >= end) fail("zstd.fse_table", "FSE table description runs past its section", "more bytes", end - at);
    const byte = at + (bit >> 3);
    const word = src[byte]! | ((byte + 1 <= last ? src[byte + 1]! : 0) << 8) | ((byte + 2 <= last ? src[byte + 2]! : 0) << 16);
    const v = (word >>> (bit & 7)) & ((1 << n) - 1);
    bit += n;
    return v;
  };
  const accuracy = readBits(4) + 5;
  if (accuracy > maxAccuracy) fail("zstd.fse_table", "FSE accuracy log too large", `<= ${maxAccuracy}`, accuracy);
  const size = 1 << accuracy;
  const norm: number[] = [];
  let remaining = size + 1;
  let threshold = size;
  let nbBits = accuracy + 1;
  while (remaining > 1) {
    if (norm.length > maxSymbol) fail("zstd.fse_table", "FSE table has too many symbols", `<= ${maxSymbol + 1}`, norm.length + 1);
    const max = 2 * threshold - 1 - remaining;
    let count: number;
    const low = readBits(nbBits - 1);
    if (low < max) count = low;
    else {
      count = low | (readBits(1) << (nbBits - 1));
      if (count >= threshold) count -= max;
    }
    count--;
    if (Math.abs(count) > remaining - 1) fail("zstd.fse_table", "FSE probabilities exceed the table size", size, count);
    remaining -= Math.abs(count);
    norm.push(count);
    if (count === 0) {
      for (;;) {
        const repeat = readBits(2);
        for (let i = 0; i < repeat; i++) norm.push(0);
        if (norm.length > maxSymbol + 1) fail("zstd.fse_table", "FSE table has too many symbols", `<= ${maxSymbol + 1}`, norm.length);
        if (repeat !== 3) break;
      }
    }
    while (remaining < threshold && nbBits > 1) {
      nbBits--;
      threshold >>= 1;
    }
  }
  if (remaining !== 1 || norm.length > maxSymbol + 1) fail("zstd.fse_table", "FSE probabilities do not add up", size, size + 1 - remaining);
  return { table: buildFseTable(norm, accuracy, fail), end: at + ((bit + 7) >> 3) };
}

/**
 * A Huffman decoding table indexed by the next `maxBits` bits of a literal stream. Never changed
 * once built: the WebAssembly decoder keeps the table it copied last by object identity.
 *
 * @example
 * ```ts
 * const index = bits.peek(table.maxBits);
 * out[i] = table.symbol[index]!; bits.remaining -= table.bits[index]!;
 * ```
 */
export interface HuffmanTable {
  maxBits: number;
  symbol: Uint8Array;
  bits: Uint8Array;
}

const MAX_HUFFMAN_BITS = 11;
const MAX_WEIGHTS = 255;
const WEIGHT_ACCURACY = 6;

/**
 * Read a Huffman tree description (RFC 8878 §4.2.1) starting at `at` and build its table.
 *
 * @returns the table and the offset just past the description.
 * @example
 * ```ts
 * const { table, end } = readHuffmanTable(src, at, literalsEnd, fail);
 * ```
 */
export function readHuffmanTable(src: Uint8Array, at: number, end: number, fail: Fail): { table: HuffmanTable; end: number } {
  if (at >= end) fail("zstd.huffman", "Huffman tree description missing", ">= 1 byte", 0);
  const header = src[at]!;
  const weights = new Uint8Array(MAX_WEIGHTS + 1);
  let count = 0;
  let next: number;
  if (header >= 128) {
    count = header - 127;
    next = at + 1 + ((count + 1) >> 1);
    if (next > end) fail("zstd.huffman", "Huffman weights run past the literals section", next - at, end - at);
    for (let i = 0; i < count; i++) {
      const byte = src[at + 1 + (i >> 1)]!;
      weights[i] = i & 1 ? byte & 15 : byte >> 4;
    }
  } else {
    next = at + 1 + header;
    if (next > end) fail("zstd.huffman", "Huffman weights run past the literals section", next - at, end - at);
    const { table, end: tableEnd } = readFseTable(src, at + 1, next, WEIGHT_ACCURACY, 255, fail);
    const bits = new BackwardBits(src, tableEnd, next, fail);
    // Two states share the table and alternate; the stream ends when an update overreads, and
    // then the other state gives the last weight (RFC 8878 §4.2.1.2).
    let s1 = bits.read(table.accuracy);
    let s2 = bits.read(table.accuracy);
    for (;;) {
      if (count + 2 > MAX_WEIGHTS) fail("zstd.huffman", "Huffman weight stream does not end within 255 weights", `<= ${MAX_WEIGHTS}`, "more");
      weights[count++] = table.symbol[s1]!;
      s1 = table.base[s1]! + bits.read(table.bits[s1]!);
      if (bits.remaining < 0) {
        weights[count++] = table.symbol[s2]!;
        break;
      }
      weights[count++] = table.symbol[s2]!;
      s2 = table.base[s2]! + bits.read(table.bits[s2]!);
      if (bits.remaining < 0) {
        weights[count++] = table.symbol[s1]!;
        break;
      }
    }
  }
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const w = weights[i]!;
    if (w > MAX_HUFFMAN_BITS) fail("zstd.huffman", "Huffman weight above 11", `<= ${MAX_HUFFMAN_BITS}`, w);
    if (w > 0) sum += 1 << (w - 1);
  }
  if (sum === 0) fail("zstd.huffman", "Huffman weights are all zero", "> 0", 0);
  const maxBits = 32 - Math.clz32(sum);
  if (maxBits > MAX_HUFFMAN_BITS) fail("zstd.huffman", "Huffman code longer than 11 bits", `<= ${MAX_HUFFMAN_BITS}`, maxBits);
  const rest = (1 << maxBits) - sum;
  if ((rest & (rest - 1)) !== 0) fail("zstd.huffman", "Huffman weights leave no power of two for the last symbol", "power of two", rest);
  weights[count++] = 32 - Math.clz32(rest);
  const size = 1 << maxBits;
  const symbol = new Uint8Array(size);
  const bits = new Uint8Array(size);
  // codes are handed out by increasing weight, then by symbol value
  let pos = 0;
  for (let w = 1; w <= maxBits; w++) {
    const span = 1 << (w - 1);
    const nb = maxBits + 1 - w;
    for (let s = 0; s < count; s++) {
      if (weights[s] !== w) continue;
      symbol.fill(s, pos, pos + span);
      bits.fill(nb, pos, pos + span);
      pos += span;
    }
  }
  return { table: { maxBits, symbol, bits }, end: next };
}

/**
 * Decode one Huffman-coded literal stream `src[start..end)` into exactly `out[from..to)`; the
 * stream must be consumed to its last bit.
 *
 * @example
 * ```ts
 * decodeHuffmanStream(src, at, at + size, table, literals, 0, regenerated, fail);
 * ```
 */
export function decodeHuffmanStream(src: Uint8Array, start: number, end: number, table: HuffmanTable, out: Uint8Array, from: number, to: number, fail: Fail): void {
  const bits = new BackwardBits(src, start, end, fail);
  const { maxBits, symbol, bits: lengths } = table;
  for (let i = from; i < to; i++) {
    const index = bits.peek(maxBits);
    out[i] = symbol[index]!;
    bits.remaining -= lengths[index]!;
  }
  if (bits.remaining !== 0) fail("zstd.literals", "Huffman literal stream not consumed exactly", 0, bits.remaining);
}
