/**
 * Input buffers a chunk reader lends to its layout (see `InputBuffers` in layout.ts): one per
 * fetch, given back once the chunks read into it have been used, so that reading many chunk
 * files (format 1) or runs of superchunk slots (format 2) one after another neither allocates
 * nor later collects a buffer per read.
 *
 * @example
 * ```ts
 * const lent = new LentBuffers(chunklen * atomSize);
 * const buffer = lent.take();
 * lent.giveBack(buffer);
 * ```
 * @module
 */
import { READ_BUFFER_OFFSET } from "@fmt/fs-adapters";
import type { InputBuffers } from "./layout.js";

// Lent buffers start READ_BUFFER_OFFSET bytes into their memory, where file reads run at full speed.
function readBuffer(bytes: number): Uint8Array {
  return new Uint8Array(new ArrayBuffer(bytes + READ_BUFFER_OFFSET), READ_BUFFER_OFFSET, bytes);
}

function lendable(buffer: ArrayBufferLike): Uint8Array {
  return new Uint8Array(buffer, READ_BUFFER_OFFSET, buffer.byteLength - READ_BUFFER_OFFSET);
}

/**
 * The input buffers of one pass of the chunk reader (`chunksInOrder`, or single-row reads): lent
 * to the layout for each fetch and given back once the chunks read into it have been used. Only
 * buffers made here and currently lent are taken back, each once: a store may hand back other
 * memory (a larger file, a store without `getInto`), which is never written into, and the
 * chunks of one format-2 run share one buffer, which must not be lent twice.
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
  readonly #lent = new Set<ArrayBufferLike>();
  readonly #spare: Uint8Array[] = [];

  /**
   * `spares`: buffers an earlier pass gave up with {@link LentBuffers.release}, taken over (and
   * emptied) so that a new pass starts with memory already in use rather than fresh pages.
   */
  constructor(chunkBytes: number, spares?: Uint8Array[]) {
    // A chunk file: the 16-byte blpk header, a Blosc chunk of at most nbytes + 16 bytes when
    // stored raw, and room for the block starts and stream sizes of a compressed one.
    this.#size = chunkBytes + chunkBytes / 64 + 4096;
    if (spares !== undefined) this.#spare.push(...spares.splice(0));
  }

  /**
   * The end of a pass: the buffers given back, at most `maxBytes` of them, largest first, for a
   * later pass's constructor. Buffers still lent stay with their borrowers.
   */
  release(maxBytes: number): Uint8Array[] {
    const kept: Uint8Array[] = [];
    let bytes = 0;
    for (const buffer of this.#spare.splice(0).sort((a, b) => b.length - a.length)) {
      if (bytes + buffer.length > maxBytes) continue;
      kept.push(buffer);
      bytes += buffer.length;
    }
    return kept;
  }

  /** A buffer of at least `bytes` bytes (default: one chunk file's worth). */
  take(bytes = this.#size): Uint8Array {
    const at = this.#spare.findIndex((b) => b.length >= bytes);
    let buffer: Uint8Array;
    if (at >= 0) {
      buffer = this.#spare.splice(at, 1)[0]!;
    } else {
      // Grow rather than keep buffers of many sizes: one too small is dropped, and a larger one
      // is made a power of two, so that the next runs of slots (of slightly varying lengths, up
      // to the layout's cap) fit in it.
      this.#spare.pop();
      buffer = readBuffer(bytes <= this.#size ? this.#size : 2 ** Math.ceil(Math.log2(bytes)));
    }
    this.#lent.add(buffer.buffer);
    return buffer;
  }

  /** Takes back the buffer `chunk` lies in, if it is one lent here and not yet given back. */
  giveBack(chunk: Uint8Array): void {
    if (this.#lent.delete(chunk.buffer)) this.#spare.push(lendable(chunk.buffer));
  }

  /**
   * A lent buffer came back as another `ArrayBuffer` with the same memory (transferred to a
   * checksum thread and back): it is still lent, under its new identity.
   */
  replace(before: ArrayBufferLike, after: ArrayBufferLike): void {
    if (this.#lent.delete(before)) this.#lent.add(after);
  }
}
