/**
 * Byte unshuffle of one Blosc block (format-facts 1.10): the shuffled block holds byte 0 of every
 * element, then byte 1 of every element, …; the `size mod typesize` trailing bytes are stored
 * unchanged at the end.
 *
 * @example
 * ```ts
 * import { unshuffle } from "./shuffle.js";
 * const out = new Uint8Array(10);
 * unshuffle(Uint8Array.of(1, 5, 2, 6, 3, 7, 4, 8, 9, 10), out, 4, 10); // 1 2 3 4 5 6 7 8 9 10
 * ```
 * @module
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Undo the byte shuffle of a `size`-byte block: `dst[i·ts + j] = src[j·n + i]` for the
 * `n = floor(size/ts)` whole elements, then the remainder copied as is. Writes exactly
 * `dst[0, size)`; `src` and `dst` must not overlap.
 *
 * @param src - shuffled block, at least `size` bytes.
 * @param dst - destination, at least `size` bytes.
 * @param typesize - element size (1 copies the block).
 * @param size - block size in bytes.
 * @example
 * ```ts
 * unshuffle(shuffledBlock, out.subarray(offset, offset + bsize), header.typesize, bsize);
 * ```
 */
export function unshuffle(src: Uint8Array, dst: Uint8Array, typesize: number, size: number): void {
  const n = Math.floor(size / typesize);
  const body = n * typesize;
  if (typesize <= 1 || n === 0) {
    dst.set(src.subarray(0, size));
    return;
  }
  const alignedWords = LITTLE_ENDIAN && (dst.byteOffset & 3) === 0;
  if (typesize === 4 && alignedWords) {
    const out = new Uint32Array(dst.buffer, dst.byteOffset, n);
    const p1 = n, p2 = 2 * n, p3 = 3 * n;
    for (let i = 0; i < n; i++) {
      out[i] = src[i]! | (src[p1 + i]! << 8) | (src[p2 + i]! << 16) | (src[p3 + i]! << 24);
    }
  } else if (typesize === 8 && alignedWords) {
    const out = new Uint32Array(dst.buffer, dst.byteOffset, 2 * n);
    const p1 = n, p2 = 2 * n, p3 = 3 * n, p4 = 4 * n, p5 = 5 * n, p6 = 6 * n, p7 = 7 * n;
    for (let i = 0, k = 0; i < n; i++, k += 2) {
      out[k] = src[i]! | (src[p1 + i]! << 8) | (src[p2 + i]! << 16) | (src[p3 + i]! << 24);
      out[k + 1] = src[p4 + i]! | (src[p5 + i]! << 8) | (src[p6 + i]! << 16) | (src[p7 + i]! << 24);
    }
  } else if (typesize === 2 && LITTLE_ENDIAN && (dst.byteOffset & 1) === 0) {
    const out = new Uint16Array(dst.buffer, dst.byteOffset, n);
    for (let i = 0; i < n; i++) out[i] = src[i]! | (src[n + i]! << 8);
  } else {
    for (let j = 0; j < typesize; j++) {
      const plane = j * n;
      for (let i = 0, o = j; i < n; i++, o += typesize) dst[o] = src[plane + i]!;
    }
  }
  if (body < size) dst.set(src.subarray(body, size), body);
}

/**
 * Byte shuffle, the inverse of `unshuffle` (used by tests and by the future encoder).
 *
 * @param src - plain block, at least `size` bytes.
 * @param dst - destination, at least `size` bytes.
 * @param typesize - element size.
 * @param size - block size in bytes.
 * @example
 * ```ts
 * const out = new Uint8Array(10);
 * shuffle(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), out, 4, 10); // 1 5 2 6 3 7 4 8 9 10
 * ```
 */
export function shuffle(src: Uint8Array, dst: Uint8Array, typesize: number, size: number): void {
  const n = Math.floor(size / typesize);
  const body = n * typesize;
  if (typesize <= 1 || n === 0) {
    dst.set(src.subarray(0, size));
    return;
  }
  for (let j = 0; j < typesize; j++) {
    const plane = j * n;
    for (let i = 0, o = j; i < n; i++, o += typesize) dst[plane + i] = src[o]!;
  }
  if (body < size) dst.set(src.subarray(body, size), body);
}
