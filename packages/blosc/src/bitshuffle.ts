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
 * The bit transpose of one block, both ways: the one kernel behind the writer's bit shuffle
 * (`bitshuffleBlock`, shuffle-forward.ts) and the reader's bit unshuffle ({@link bitunshuffle}).
 * With `n = floor(size/typesize)` elements, when `n` is a multiple of 8 byte `j` of element `i`
 * (element side: index `i·typesize + j`) and bit `b` of it sit, shuffled, in row `8·j + b` of
 * `n/8` bytes (row side), element `i` at byte `floor(i/8)`, bit `i mod 8`; `forward` goes from the
 * element side to the row side, otherwise back. The `size mod typesize` trailing bytes are copied;
 * when `n` is not a multiple of 8 the whole block is copied unchanged, as c-blosc does. Writes
 * exactly `dst[0, size)`; `src` and `dst` must not overlap.
 *
 * Each group of 8 elements at one byte position is an 8×8 bit matrix, its own inverse under
 * transposition: the eight bytes are gathered with one stride (typesize on the element side, n/8
 * on the row side) into two 32-bit words, transposed with three mask-and-shift rounds instead of 64
 * single-bit moves, and scattered with the other stride.
 *
 * @param src - the block, at least `size` bytes.
 * @param dst - destination, at least `size` bytes.
 * @param typesize - element size (1..255; 1 is transposed too).
 * @param size - block size in bytes.
 * @param forward - true to bit-shuffle (elements to rows), false to unshuffle (rows to elements).
 * @example
 * ```ts
 * bitTranspose(block, rows, 8, block.length, true);   // shuffle
 * bitTranspose(rows, back, 8, block.length, false);   // and back
 * ```
 */
export function bitTranspose(src: Uint8Array, dst: Uint8Array, typesize: number, size: number, forward: boolean): void {
  const n = Math.floor(size / typesize);
  if (n % 8 !== 0 || n === 0) {
    dst.set(src.subarray(0, size));
    return;
  }
  const rowLen = n >>> 3;
  const body = n * typesize;
  const inStride = forward ? typesize : rowLen;
  const outStride = forward ? rowLen : typesize;
  for (let j = 0; j < typesize; j++) {
    const rowBase = 8 * j * rowLen;
    for (let g = 0; g < rowLen; g++) {
      // Byte k of the group: element 8g + k at byte j, or row 8j + k at byte g.
      const elementAt = 8 * g * typesize + j;
      const rowAt = rowBase + g;
      const s = forward ? elementAt : rowAt;
      // Bytes 7..4 in x (byte 7 in the top byte), 3..0 in y: the layout under which the classic
      // transpose leaves output bytes 7..4 in x and 3..0 in y in the same positions.
      let y = src[s]! | (src[s + inStride]! << 8) | (src[s + 2 * inStride]! << 16) | (src[s + 3 * inStride]! << 24);
      let x = src[s + 4 * inStride]! | (src[s + 5 * inStride]! << 8) | (src[s + 6 * inStride]! << 16) | (src[s + 7 * inStride]! << 24);
      if ((x | y) !== 0) {
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
      }
      const o = forward ? rowAt : elementAt;
      dst[o] = y;
      dst[o + outStride] = y >>> 8;
      dst[o + 2 * outStride] = y >>> 16;
      dst[o + 3 * outStride] = y >>> 24;
      dst[o + 4 * outStride] = x;
      dst[o + 5 * outStride] = x >>> 8;
      dst[o + 6 * outStride] = x >>> 16;
      dst[o + 7 * outStride] = x >>> 24;
    }
  }
  if (body < size) dst.set(src.subarray(body, size), body);
}

/**
 * Undo the Blosc bit shuffle of a `size`-byte block ({@link bitTranspose} from rows back to
 * elements). Writes exactly `dst[0, size)`; `src` and `dst` must not overlap.
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
  bitTranspose(src, dst, typesize, size, false);
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
