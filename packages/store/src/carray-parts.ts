/**
 * How a `CArray` is put together from its `CArrayInit` (carray.ts): the settings of its read
 * engine, with the defaults of the open options that concern reading (`prefetch`, `cacheBytes`),
 * and the access its writer gets to the array's private state ({@link CarrayWriterAccess}: the
 * length, the chunks as stored, the reader's cache). Kept apart so that carray.ts holds the
 * array's API.
 *
 * @example
 * ```ts
 * const reader = new ChunkReader(readerSettings(init, layout), geometry);
 * const writer = new CarrayWriter(array, writerAccess(reader, (n) => (shape[0] = n)), writerInit);
 * ```
 * @module
 */
import type { ChunkReader } from "./carray-read.js";
import type { ReaderSettings } from "./carray-read-types.js";
import type { CarrayWriterAccess } from "./carray-writer.js";
import type { ChunkLayout } from "./layout.js";
import type { CArrayInit } from "./options.js";

/** The cache budget of an array opened without `cacheBytes` (as `OpenOptions.cacheBytes` documents). */
const DEFAULT_CACHE_BYTES = 4 * 1024 * 1024;

/**
 * The settings of an array's read engine: its geometry, and the read options with their defaults.
 *
 * @example
 * ```ts
 * const reader = new ChunkReader(readerSettings(init, layout), geometry);
 * ```
 */
export function readerSettings(init: CArrayInit, layout: ChunkLayout): ReaderSettings {
  return {
    layout,
    chunklen: init.chunklen,
    atomSize: init.atomSize,
    // A remote store tells how many requests it serves well at once; local reads need few.
    prefetch: init.options.prefetch ?? init.store.concurrency ?? 4,
    cacheBytes: init.options.cacheBytes ?? DEFAULT_CACHE_BYTES,
    workers: init.options.workers,
  };
}

/**
 * The access of an array's writer to what the array keeps private: `setLength` changes the
 * array's length; chunks are read back and invalidated through the array's reader.
 *
 * @example
 * ```ts
 * const writer = new CarrayWriter(array, writerAccess(reader, (n) => (shape[0] = n)), writerInit);
 * ```
 */
export function writerAccess(reader: ChunkReader, setLength: (n: number) => void): CarrayWriterAccess {
  return {
    setLength,
    readChunkRows: async (index, rows) => {
      const loaded = await reader.loadChunk(index);
      return { bytes: reader.decodeRows(loaded, 0, rows), storedNbytes: loaded.storedNbytes };
    },
    chunkChanged: (index) => reader.cache.invalidate(index),
  };
}
