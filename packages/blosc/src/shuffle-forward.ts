/**
 * Forward filters of the Blosc 1.x writer, in TypeScript (the fallback when the WebAssembly kernels
 * are unavailable): byte shuffle (format-facts 1.10) and bit shuffle (1.12), each applied to one
 * block on its own with the block's own element count.
 *
 * @example
 * ```ts
 * import { shuffleBlock } from "./shuffle-forward.js";
 * const out = new Uint8Array(10);
 * shuffleBlock(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), out, 4); // 1 5 2 6 3 7 4 8 9 10
 * ```
 * @module
 */

import { bitTranspose } from "./bitshuffle.js";

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Byte-shuffle one block: byte `j` of element `i` goes to `j·n + i` for the `n = floor(len/ts)`
 * whole elements; the `len mod ts` trailing bytes are copied unchanged to the end. With typesize 1
 * (or no whole element) the block is copied. Writes exactly `dst[0, src.length)`; the arrays must
 * not overlap.
 *
 * @param src - the plain block.
 * @param dst - destination of at least `src.length` bytes.
 * @param typesize - element size, 1..255.
 * @example
 * ```ts
 * const planes = new Uint8Array(block.length);
 * shuffleBlock(block, planes, 8);
 * ```
 */
export function shuffleBlock(src: Uint8Array, dst: Uint8Array, typesize: number): void {
  const size = src.length;
  const n = Math.floor(size / typesize);
  const body = n * typesize;
  if (typesize <= 1 || n === 0) {
    dst.set(src);
    return;
  }
  // Whole-word reads are several times faster than byte gathers; they need an aligned source.
  const aligned = LITTLE_ENDIAN && (src.byteOffset & 3) === 0;
  if (typesize === 4 && aligned) {
    const words = new Uint32Array(src.buffer, src.byteOffset, n);
    const p1 = n, p2 = 2 * n, p3 = 3 * n;
    for (let i = 0; i < n; i++) {
      const w = words[i]!;
      dst[i] = w;
      dst[p1 + i] = w >>> 8;
      dst[p2 + i] = w >>> 16;
      dst[p3 + i] = w >>> 24;
    }
  } else if (typesize === 8 && aligned) {
    const words = new Uint32Array(src.buffer, src.byteOffset, 2 * n);
    const p1 = n, p2 = 2 * n, p3 = 3 * n, p4 = 4 * n, p5 = 5 * n, p6 = 6 * n, p7 = 7 * n;
    for (let i = 0, k = 0; i < n; i++, k += 2) {
      const lo = words[k]!;
      const hi = words[k + 1]!;
      dst[i] = lo;
      dst[p1 + i] = lo >>> 8;
      dst[p2 + i] = lo >>> 16;
      dst[p3 + i] = lo >>> 24;
      dst[p4 + i] = hi;
      dst[p5 + i] = hi >>> 8;
      dst[p6 + i] = hi >>> 16;
      dst[p7 + i] = hi >>> 24;
    }
  } else if (typesize === 2 && LITTLE_ENDIAN && (src.byteOffset & 1) === 0) {
    const halves = new Uint16Array(src.buffer, src.byteOffset, n);
    for (let i = 0; i < n; i++) {
      const h = halves[i]!;
      dst[i] = h;
      dst[n + i] = h >>> 8;
    }
  } else {
    for (let j = 0; j < typesize; j++) {
      const plane = j * n;
      for (let i = 0, s = j; i < n; i++, s += typesize) dst[plane + i] = src[s]!;
    }
  }
  if (body < size) dst.set(src.subarray(body), body);
}

/**
 * Bit-shuffle one block ({@link bitTranspose} from elements to rows). With `n = floor(len/ts)`
 * elements: when `n` is a multiple of 8 the element bytes become `8·ts` rows of `n/8` bytes (row
 * `8·j + b` holds bit `b` of byte `j` of every element, element `i` at byte `floor(i/8)`, bit
 * `i mod 8`) and the `len mod ts` trailing bytes are copied; otherwise the whole block is copied
 * unchanged, as c-blosc does. Writes exactly `dst[0, src.length)`; the arrays must not overlap.
 *
 * @param src - the plain block.
 * @param dst - destination of at least `src.length` bytes.
 * @param typesize - element size, 1..255 (1 is transposed too).
 * @example
 * ```ts
 * const rows = new Uint8Array(16);
 * bitshuffleBlock(Uint8Array.of(0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0), rows, 2); // aa cc f0 00 ...
 * ```
 */
export function bitshuffleBlock(src: Uint8Array, dst: Uint8Array, typesize: number): void {
  bitTranspose(src, dst, typesize, src.length, true);
}
