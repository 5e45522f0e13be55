/**
 * The browser-safe face of a chunk codec pool: what `@fmt/store` needs from a set of worker
 * threads (Node) or Web Workers to decode many chunks at once. `@fmt/blosc/pool`'s `BloscPool`
 * implements it.
 *
 * @example
 * ```ts
 * import type { ChunkCodecPool } from "@fmt/blosc";
 * async function decodeAll(pool: ChunkCodecPool, chunks: Uint8Array[], out: Uint8Array): Promise<void> {
 *   await pool.decompressManyInto(chunks, out);
 * }
 * ```
 * @module
 */
import type { DecompressOptions } from "./plan.js";

/**
 * Decodes many Blosc chunks in parallel. The store hands it runs of whole chunks that go back to
 * back into one destination; errors come back as the `FormatError`s the single-thread decoder
 * throws.
 *
 * @example
 * ```ts
 * import { createBloscPool } from "@fmt/blosc/pool";
 * const workers: ChunkCodecPool = createBloscPool({ threads: 2 });
 * const array = await openCarray(store, "", { workers });
 * ```
 */
export interface ChunkCodecPool {
  /**
   * Decompress `chunks` into `out`, back to back in input order (each takes its header's
   * nbytes); resolves to the views of `out` that hold each chunk. `options.maxBytes` applies to
   * each chunk.
   */
  decompressManyInto(chunks: readonly Uint8Array[], out: Uint8Array, options?: DecompressOptions): Promise<Uint8Array[]>;
}
