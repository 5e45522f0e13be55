/**
 * Bit unshuffle of one Blosc block (format-facts 1.12). A block of `n = floor(size/typesize)`
 * elements is bit-transposed only when `n` is a multiple of 8: `8·typesize` rows of `n/8` bytes,
 * row `8·j + b` holding bit `b` of byte `j` of every element (element `i` in byte `floor(i/8)`,
 * bit `i mod 8`). The `size mod typesize` trailing bytes are stored as is. When `n` is not a
 * multiple of 8 the whole block is stored untouched.
 *
 * @example
 * ```ts
 * import { bitunshuffle } from "./bitshuffle.js";
 * const out = new Uint8Array(16);
 * bitunshuffle(Uint8Array.of(0xaa, 0xcc, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), out, 2, 16);
 * // out = u16 LE 0, 1, 2, ..., 7
 * ```
 * @module
 */

/**
 * Undo the Blosc bit shuffle of a `size`-byte block. Writes exactly `dst[0, size)`; `src` and
 * `dst` must not overlap.
 *
 * Each group of 8 elements × 1 byte position is an 8×8 bit matrix, transposed with three
 * mask-and-shift steps on two 32-bit words instead of 64 single-bit moves.
 *
 * @param src - bit-shuffled block, at least `size` bytes.
 * @param dst - destination, at least `size` bytes.
 * @param typesize - element size (1..255; 1 is transposed too).
 * @param size - block size in bytes.
 * @example
 * ```ts
 * bitunshuffle(scratch, out.subarray(offset, offset + bsize), header.typesize, bsize);
 * ```
 */
export function bitunshuffle(src: Uint8Array, dst: Uint8Array, typesize: number, size: number): void {
  const n = Math.floor(size / typesize);
  if (n % 8 !== 0 || n === 0) {
    dst.set(src.subarray(0, size));
    return;
  }
  const rowLen = n >>> 3;
  const body = n * typesize;
  for (let j = 0; j < typesize; j++) {
    const rowBase = 8 * j * rowLen;
    for (let g = 0; g < rowLen; g++) {
      const s = rowBase + g;
      // rows 7..4 in x (row 7 in the top byte), rows 3..0 in y: the layout under which the
      // classic transpose yields element 7 in x's top byte down to element 0 in y's low byte.
      let x = (src[s + 7 * rowLen]! << 24) | (src[s + 6 * rowLen]! << 16) | (src[s + 5 * rowLen]! << 8) | src[s + 4 * rowLen]!;
      let y = (src[s + 3 * rowLen]! << 24) | (src[s + 2 * rowLen]! << 16) | (src[s + rowLen]! << 8) | src[s]!;
      let t = (x ^ (x >> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      t = (x & 0xf0f0f0f0) | ((y >> 4) & 0x0f0f0f0f);
      y = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      x = t;
      let o = 8 * g * typesize + j;
      dst[o] = y;
      dst[(o += typesize)] = y >>> 8;
      dst[(o += typesize)] = y >>> 16;
      dst[(o += typesize)] = y >>> 24;
      dst[(o += typesize)] = x;
      dst[(o += typesize)] = x >>> 8;
      dst[(o += typesize)] = x >>> 16;
      dst[(o += typesize)] = x >>> 24;
    }
  }
  if (body < size) dst.set(src.subarray(body, size), body);
}

/**
 * Bit shuffle, the inverse of `bitunshuffle`, written bit by bit from the layout definition
 * (used as an independent reference by tests and by the future encoder).
 *
 * @param src - plain block, at least `size` bytes.
 * @param dst - destination, at least `size` bytes.
 * @param typesize - element size.
 * @param size - block size in bytes.
 * @example
 * ```ts
 * const out = new Uint8Array(16);
 * bitshuffle(Uint8Array.of(0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0), out, 2, 16); // aa cc f0 00 ...
 * ```
 */
export function bitshuffle(src: Uint8Array, dst: Uint8Array, typesize: number, size: number): void {
  const n = Math.floor(size / typesize);
  if (n % 8 !== 0 || n === 0) {
    dst.set(src.subarray(0, size));
    return;
  }
  const rowLen = n >>> 3;
  const body = n * typesize;
  dst.fill(0, 0, body);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < typesize; j++) {
      const byte = src[i * typesize + j]!;
      for (let b = 0; b < 8; b++) {
        if ((byte >> b) & 1) {
          const k = (8 * j + b) * rowLen + (i >>> 3);
          dst[k] = dst[k]! | (1 << (i & 7));
        }
      }
    }
  }
  if (body < size) dst.set(src.subarray(body, size), body);
}
