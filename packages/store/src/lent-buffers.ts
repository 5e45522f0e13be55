/**
 * Input buffers a chunk reader lends to its layout (see `InputBuffers` in layout.ts): one per
 * fetch, given back once the chunk read into it has been used, so that reading many chunk files
 * one after another neither allocates nor later collects a buffer per file.
 *
 * @example
 * ```ts
 * const lent = new LentBuffers(chunklen * atomSize);
 * const buffer = lent.take();
 * lent.giveBack(buffer);
 * ```
 * @module
 */
import type { InputBuffers } from "./layout.js";

/**
 * The input buffers of one pass of the chunk reader (`chunksInOrder`, or single-row reads): lent
 * to the layout for each fetch and given back once the chunk read into it has been used. Only
 * buffers made here are reused: a store may hand back other memory (a larger file, a store
 * without `getInto`), which is never written into.
 *
 * @example
 * ```ts
 * const lent = new LentBuffers(65536 * 8);
 * const stored = await layout.read(3, lent.take());
 * lent.giveBack(stored.chunk);
 * ```
 */
export class LentBuffers implements InputBuffers {
  readonly #size: number;
  readonly #mine = new WeakSet<ArrayBufferLike>();
  readonly #spare: Uint8Array[] = [];

  constructor(chunkBytes: number) {
    // A chunk file: the 16-byte blpk header, a Blosc chunk of at most nbytes + 16 bytes when
    // stored raw, and room for the block starts and stream sizes of a compressed one.
    this.#size = chunkBytes + chunkBytes / 64 + 4096;
  }

  take(): Uint8Array {
    const spare = this.#spare.pop();
    if (spare !== undefined) return spare;
    const made = new Uint8Array(this.#size);
    this.#mine.add(made.buffer);
    return made;
  }

  giveBack(chunk: Uint8Array): void {
    if (this.#mine.has(chunk.buffer)) this.#spare.push(new Uint8Array(chunk.buffer));
  }
}

