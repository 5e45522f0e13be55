/**
 * The interface of a pool of threads that compress and decompress Blosc chunks in parallel:
 * what the store takes as its `workers` option. Browser-safe (types only): the Node worker_threads
 * pool (`@fmt/blosc/pool`) and the Web Worker pool (`@fmt/blosc/pool-web`) both implement it.
 *
 * @example
 * ```ts
 * import type { ChunkCodecPool } from "@fmt/blosc";
 * async function compressAll(pool: ChunkCodecPool, chunks: Uint8Array[]): Promise<Uint8Array[]> {
 *   return pool.compressMany(chunks, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
 * }
 * ```
 * @module
 */
import type { CompressOptions } from "./compress.js";
import type { DecompressOptions } from "./plan.js";

/**
 * A pool of worker threads for Blosc chunk work. Results are exactly what the package's own
 * `compress` and `decompressInto` give on the calling thread (the same bytes), and errors are the
 * same `FormatError`/`UsageError` with the same code, path and field.
 *
 * Inputs are read (or copied) before a call's promise settles; callers must not change them until
 * then. A pool does not keep a process alive while idle; `close` stops its workers.
 *
 * @example
 * ```ts
 * const [chunk] = await pool.compressMany([bytes], { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
 * const out = new Uint8Array(bytes.length);
 * await pool.decompressManyInto([chunk!], out);
 * await pool.close();
 * ```
 */
export interface ChunkCodecPool {
  /** Number of worker threads. */
  readonly threads: number;
  /**
   * Compress each input into one Blosc chunk, spread over the workers; results in input order,
   * each a new array holding exactly one chunk.
   */
  compressMany(inputs: readonly Uint8Array[], options: CompressOptions): Promise<Uint8Array[]>;
  /**
   * Decompress many chunks into `out`, back to back in input order (each takes its header's
   * nbytes); resolves to the views of `out` holding each chunk.
   */
  decompressManyInto(chunks: readonly Uint8Array[], out: Uint8Array, options?: DecompressOptions): Promise<Uint8Array[]>;
  /**
   * Optional: compress one input into memory the pool lends and recycles, with `headroom` free
   * bytes before the chunk in the same buffer (room for a file header written in place), so that
   * neither side allocates per chunk. The bytes are the same as `compressMany` gives. Call the
   * result's `release` once done with its bytes; they must not be used after. `headroom` is an
   * integer in 0..65536 (else a rejection with `UsageError` `INVALID_ARGUMENT`). The `headroom`
   * bytes before the chunk belong to the lease too: the caller may write them (a pool must not
   * lend a view whose preceding bytes hold anything else).
   *
   * @example
   * ```ts
   * const lent = await pool.compressLent!(rows, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, 16);
   * try {
   *   await store.put("data/__0.blp", lent.chunk); // the chunk alone; 16 free bytes lie before it
   * } finally {
   *   lent.release();
   * }
   * ```
   */
  compressLent?(input: Uint8Array, options: CompressOptions, headroom: number): Promise<LentChunk>;
  /** Stop the workers; work still queued is rejected. */
  close(): Promise<void>;
}

/**
 * A compressed chunk in memory a {@link ChunkCodecPool} lends (its `compressLent`).
 *
 * @example
 * ```ts
 * const lent = await pool.compressLent!(rows, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, 16);
 * const file = new Uint8Array(lent.chunk.buffer, lent.chunk.byteOffset - 16, 16 + lent.chunk.length);
 * try {
 *   writeHeader(file); // the 16 bytes before the chunk are free
 *   await store.put("data/__0.blp", file);
 * } finally {
 *   lent.release();
 * }
 * ```
 */
export interface LentChunk {
  /** The Blosc chunk; the buffer holds at least the asked headroom before it. */
  readonly chunk: Uint8Array;
  /** Gives the memory back to the pool (once; later calls do nothing). */
  release(): void;
}
