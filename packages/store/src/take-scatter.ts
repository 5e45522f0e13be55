/**
 * The last step of a take (`ChunkReader.takeInto`): copying the rows asked for out of one decoded
 * chunk into their places in the result, in whole 4-byte words where the row size allows. Kept
 * apart from the reader because it is plain byte copying, with no chunk, cache or store in sight.
 *
 * @example
 * ```ts
 * // rows[p] is the row wanted at out position p; order[from, to) lists the positions in this chunk.
 * scatter(decoded, loaded.firstRow, atomSize, rows, order, from, to, out);
 * ```
 * @module
 */

/**
 * Copies the rows of positions `order[from, to)` from a decoded chunk starting at `firstRow`.
 *
 * @example
 * ```ts
 * // Rows 10 and 12 of a chunk whose first row is 8 go to positions 1 and 0 of `out`.
 * scatter(chunk, 8, 4, new Float64Array([12, 10]), new Uint32Array([1, 0]), 0, 2, out);
 * ```
 */
export function scatter(bytes: Uint8Array, firstRow: number, atom: number, rows: Float64Array, order: Uint32Array, from: number, to: number, out: Uint8Array): void {
  // Whole 4-byte words when both sides allow it (rows of 4 or 8 bytes): a quarter of the moves.
  if ((atom === 4 || atom === 8) && bytes.byteOffset % 4 === 0 && out.byteOffset % 4 === 0) {
    const src = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
    const dst = new Uint32Array(out.buffer, out.byteOffset, out.length >>> 2);
    const words = atom >>> 2;
    for (let q = from; q < to; q++) {
      const p = order[q]!;
      const s = (rows[p]! - firstRow) * words;
      const d = p * words;
      dst[d] = src[s]!;
      if (words === 2) dst[d + 1] = src[s + 1]!;
    }
    return;
  }
  for (let q = from; q < to; q++) {
    const p = order[q]!;
    const src = (rows[p]! - firstRow) * atom;
    const dst = p * atom;
    for (let b = 0; b < atom; b++) out[dst + b] = bytes[src + b]!;
  }
}
