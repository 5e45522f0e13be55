/**
 * The types at the seams of the carray read engine (`ChunkReader` in carray-read.ts): what a
 * reader is given once ({@link ReaderSettings}) and asks of its array as it changes
 * ({@link ArrayGeometry}), and what it hands out for each chunk ({@link LoadedChunk}). Kept
 * apart from the engine so that carray-read.ts holds the reading itself.
 *
 * @example
 * ```ts
 * const reader = new ChunkReader(settings, { length: () => 1000, leftoverInMemory: () => undefined });
 * const loaded: LoadedChunk = await reader.loadChunk(0);
 * ```
 * @module
 */
import type { ChunkCodecPool, ChunkPlan } from "@fmt/blosc";
import type { ChunkLayout } from "./layout.js";

/**
 * A chunk file read and validated, ready to decode. @internal
 *
 * @example
 * ```ts
 * const loaded = await reader.loadChunk(0);
 * ```
 */
export interface LoadedChunk {
  index: number;
  key: string;
  /** The Blosc chunk (container stripped), cut at `cbytes`. */
  chunk: Uint8Array;
  /** Its validated layout (absent for rows held in memory). */
  plan?: ChunkPlan;
  /** Absolute row of the chunk's first row. */
  firstRow: number;
  rows: number;
  nbytes: number;
  /** nbytes announced by the chunk (a lenient leftover chunk may hold more rows than needed). */
  storedNbytes: number;
  /** Rows already decoded (the writer's in-memory leftover chunk). */
  decoded?: Uint8Array;
}

/**
 * What the reader needs to know about its array that changes while it is written. @internal
 *
 * @example
 * ```ts
 * const geometry: ArrayGeometry = { length: () => 1000, leftoverInMemory: () => undefined };
 * ```
 */
export interface ArrayGeometry {
  /** Current number of rows. */
  length(): number;
  /** The writer's leftover rows when the array is open for writing. */
  leftoverInMemory(): Uint8Array | undefined;
}

/**
 * Fixed settings of a reader. @internal
 *
 * @example
 * ```ts
 * const settings: ReaderSettings = { layout, chunklen: 1024, atomSize: 8, prefetch: 4, cacheBytes: 4 << 20 };
 * ```
 */
export interface ReaderSettings {
  /** Where the chunks live (format 1 or 2). */
  layout: ChunkLayout;
  chunklen: number;
  atomSize: number;
  /** Fetches in flight ahead of the chunk being decoded in sequential reads. */
  prefetch: number;
  cacheBytes: number;
  workers?: ChunkCodecPool | undefined;
}
