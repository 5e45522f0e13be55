/**
 * How a `CArray` is put together from its `CArrayInit` (carray.ts): the settings of its read
 * engine, with the defaults of the open options that concern reading (`prefetch`, `cacheBytes`),
 * its length as the reader and the layout see it ({@link ArrayExtent}), its state as a scan sees it
 * ({@link ArrayScan}), and the access its writer gets to the array's private state
 * ({@link CarrayWriterAccess}: the length, the chunks as stored, the reader's cache). Kept apart so
 * that carray.ts holds the array's API.
 *
 * @example
 * ```ts
 * const reader = new ChunkReader(readerSettings(init, layout), geometry);
 * const writer = new CarrayWriter(array, writerAccess(reader, (n) => (shape[0] = n)), writerInit);
 * ```
 * @module
 */
import type { DType } from "@fmt/meta";
import { checkAllocation, checkBounds, checkWork, precheckChunk } from "./carray-checks.js";
import type { CheckedArray } from "./carray-checks.js";
import type { ChunkReader } from "./carray-read.js";
import type { ArrayGeometry, ReaderSettings } from "./carray-read-types.js";
import type { ScanContext } from "./carray-scan.js";
import type { CarrayWriter, CarrayWriterAccess } from "./carray-writer.js";
import type { ChunkLayout, LayoutGeometry } from "./layout.js";
import { checkChunkWork } from "./limits.js";
import type { CallLimits } from "./limits.js";
import type { CArrayInit } from "./options.js";

/** The cache budget of an array opened without `cacheBytes` (as `OpenOptions.cacheBytes` documents). */
const DEFAULT_CACHE_BYTES = 4 * 1024 * 1024;

/**
 * An array's length as its reader sees it (`shape[0]`, with the leftover rows its writer holds in
 * memory) and as its layout sees it (the committed length, {@link ArrayExtent.committed}).
 *
 * Why methods of a class and not closures made for each array: the reader and the layout call
 * these on every chunk, and optimized code that calls a closure keeps that very closure as a
 * constant. Once the array it came from is collected, V8 throws that code away ("weak objects"),
 * and the next read runs it unoptimized until it is compiled again: with a short-lived array per
 * read (open, read, drop), every collection did that to the reader's `fullChunks`, which it asks
 * for every chunk. Methods are the same functions for every array.
 *
 * @example
 * ```ts
 * const extent = new ArrayExtent([1000], init);
 * const reader = new ChunkReader(readerSettings(init, init.layout(extent.committed)), extent);
 * extent.length(); // 1000
 * ```
 * @internal
 */
export class ArrayExtent implements ArrayGeometry {
  /** The array's shape, changed in place as it grows or shrinks: `shape[0]` is its length. */
  readonly shape: number[];
  /** The array's writer, while it has one (set by the array). */
  writer: CarrayWriter | undefined;
  /** The layout's view: the same array, at its committed length. */
  readonly committed: CommittedExtent;

  constructor(shape: number[], where: Pick<LayoutGeometry, "path" | "chunklen" | "atomSize">) {
    this.shape = shape;
    this.committed = new CommittedExtent(this, where.path, where.chunklen, where.atomSize);
  }

  /** Rows in the array, the leftover rows in memory included. */
  length(): number {
    return this.shape[0]!;
  }

  /** The leftover rows the writer holds in memory, if any. */
  leftoverInMemory(): Uint8Array | undefined {
    return this.writer?.leftoverBytes();
  }
}

/**
 * The layout's geometry of an array: rows on the store, the writer's committed length while it
 * has one (see {@link ArrayExtent} for why this is a class).
 *
 * @example
 * ```ts
 * const layout = init.layout(new ArrayExtent([1000], init).committed);
 * ```
 * @internal
 */
export class CommittedExtent implements LayoutGeometry {
  readonly #extent: ArrayExtent;
  readonly path: string;
  readonly chunklen: number;
  readonly atomSize: number;

  constructor(extent: ArrayExtent, path: string, chunklen: number, atomSize: number) {
    this.#extent = extent;
    this.path = path;
    this.chunklen = chunklen;
    this.atomSize = atomSize;
  }

  /** Rows the store holds: the writer's committed length, else the array's length. */
  length(): number {
    return this.#extent.writer?.committedLength ?? this.#extent.shape[0]!;
  }
}

/**
 * A carray's state as a scan of `carray-scan.ts` sees it from the start of one call: the read
 * engine, the length and whether the array was open for writing, both taken at the call, and the
 * array's checks with its limits, which see the live array. One object of one shape per call, where
 * an object literal made four closures.
 *
 * @example
 * ```ts
 * const total = await sumOf(new ArrayScan(array, reader, limits, false));
 * ```
 * @internal
 */
export class ArrayScan implements ScanContext {
  readonly #array: CheckedArray;
  readonly #limits: CallLimits;
  readonly #writing: boolean;
  readonly reader: ChunkReader;
  readonly dtype: DType;
  readonly path: string;
  readonly length: number;
  readonly chunklen: number;
  readonly atomSize: number;
  readonly itemsPerRow: number;

  /** `writing`: the array is open for writing (its leftover rows are in memory). */
  constructor(array: CheckedArray & { readonly dtype: DType; readonly itemsPerRow: number }, reader: ChunkReader, limits: CallLimits, writing: boolean) {
    this.#array = array;
    this.#limits = limits;
    this.#writing = writing;
    this.reader = reader;
    this.dtype = array.dtype;
    this.path = array.path;
    this.length = array.length;
    this.chunklen = array.chunklen;
    this.atomSize = array.atomSize;
    this.itemsPerRow = array.itemsPerRow;
  }

  checkWork(start: number, stop: number, step: number): void {
    checkWork(this.#array, this.#limits, start, stop, step);
  }

  checkBounds(start: number, stop: number): void {
    checkBounds(this.#array, start, stop);
  }

  checkAllocation(rows: number): number {
    return checkAllocation(this.#array, this.#limits.maxReadBytes, rows);
  }

  checkChunkWork(chunks: number): void {
    checkChunkWork(this.#limits, chunks, this.path);
  }

  get maxReadBytes(): number {
    return this.#limits.maxReadBytes;
  }

  precheck(index: number): Promise<void> {
    return precheckChunk(this.#array, this.reader, this.#writing, index);
  }
}

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
