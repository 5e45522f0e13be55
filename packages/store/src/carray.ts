import { FormatError, UsageError } from "@fmt/errors";
import { BLPK_V1_HEADER_SIZE, readBlpkV1Header } from "@fmt/header";
import { initCompression } from "@fmt/blosc";
import type { ChunkCodecPool } from "@fmt/blosc";
import { atomSize as rowSize, parseAttrs, parseSizes, parseStorage } from "@fmt/meta";
import type { Cparams, DType, JsonValue } from "@fmt/meta";
import { readRange } from "@fmt/fs-adapters";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { checkDatasetPath, checkInteger, joinKey, normalizeSlice, readText, withPath } from "./internal.js";
import { callLimits, checkChunkWork } from "./limits.js";
import type { CallLimits } from "./limits.js";
import { chunksTouched, selectedChunks, selectedCount } from "./selection.js";
import { decodeValues, entriesPerElement } from "@fmt/expr";
import type { Scalar, TypedValues, Values } from "@fmt/expr";
import { ChunkReader } from "./carray-read.js";
import type { LoadedChunk } from "./carray-read.js";
import { checkTakeIndices, checkTypedOut, swapInPlace } from "./carray-take.js";
import { AttrStore } from "./attr-store.js";
import { CarrayWriter, JOURNAL_FILE, readJournal } from "./carray-writer.js";
import { checkCodecPool } from "./chunk-writes.js";
import type { LockOptions } from "./lock.js";
import { DatasetLock } from "./lock.js";
import type { ArrayInput, ElementInput, RawRows, ValuesBlock } from "./carray-encode.js";

/**
 * Options for {@link open}, {@link openCarray} and {@link openCtable}.
 *
 * @example
 * ```ts
 * const array = await openCarray(store, "", { maxReadBytes: 256 * 1024 * 1024, prefetch: 8 });
 * ```
 */
export interface OpenOptions {
  /**
   * Largest result, in bytes, of one call: one `readBytes`/`read`/`readRows` call (for a ctable:
   * all its columns together) or one `iterBlocks` block (all its columns together). Larger
   * requests throw `UsageError` `SIZE_LIMIT` (field `maxReadBytes`, naming the limit and the
   * size) before anything is read; read in pieces with `iterBlocks` instead. Default
   * {@link DEFAULT_MAX_READ_BYTES} (2^31 − 1).
   */
  maxReadBytes?: number;
  /**
   * Most chunk files one call may read: one `read`/`readBytes`/`readRows` call, or a whole
   * `iterBlocks` iteration (and so `where`, `sum`, `min`, `max`), over all columns it reads.
   * Counted from the request before the first chunk is fetched; more gives `UsageError`
   * `SIZE_LIMIT` (field `maxChunksPerCall`). With {@link OpenOptions.maxReadBytes} this bounds
   * the work and memory of any call, whatever `meta/sizes` claims. Default
   * {@link DEFAULT_MAX_CHUNKS_PER_CALL} (2^22).
   */
  maxChunksPerCall?: number;
  /**
   * How many chunk files are being read ahead of the one being decoded in sequential reads (so
   * at most `prefetch + 1` compressed chunks are held at a time). Default 4.
   */
  prefetch?: number;
  /**
   * Budget, in bytes, of the array's cache of decoded chunks, decoded Blosc blocks and chunk
   * headers, used by `get`, `getBytes`, `take` and `chunkBytes` (bulk reads copy from it but do
   * not fill it). Least recently used entries go first; every write through this array
   * invalidates what it changes. `0` turns the cache off. Default 4 MiB. Writes made through
   * another handle or process are not seen: reopen the array to see them.
   */
  cacheBytes?: number;
  /**
   * A pool of worker threads (`createBloscPool` of `@fmt/blosc/pool` in Node, `createWebBloscPool`
   * of `@fmt/blosc/pool-web` in browsers, or any {@link ChunkCodecPool}) that decodes runs of whole
   * chunks in parallel for multi-chunk reads and compresses the chunks this array writes, several
   * at once; without it both happen on the calling thread. Results and files are the same either
   * way. The caller owns the pool and closes it after the array.
   */
  workers?: ChunkCodecPool;
  /**
   * `"r"` (default) reads only and takes no lock. `"a"` opens for reading and writing: takes the
   * dataset's `.lock`, finishes an interrupted multi-chunk update, and loads the leftover chunk
   * into memory. `"w"` is `"a"` followed by truncation to length 0 (`meta/storage` and
   * `__attrs__` are kept), like bcolz. `"a"`/`"w"` need a {@link WritableStore}.
   */
  mode?: OpenMode;
  /** With `"a"`/`"w"`: break a stale lock (see {@link LockOptions}). */
  breakLock?: boolean;
}

/**
 * How a dataset is opened: `"r"` read-only, `"a"` read/write, `"w"` read/write after truncating
 * to length 0.
 *
 * @example
 * ```ts
 * const mode: OpenMode = "a";
 * ```
 */
export type OpenMode = "r" | "a" | "w";

/**
 * Options of {@link CArray.iterBlocks}.
 *
 * @example
 * ```ts
 * for await (const b of a.iterBlocks({ blockLen: 1000, start: 10, stop: 5000, step: 3 })) console.log(b.start);
 * ```
 */
export interface IterBlocksOptions {
  /** Rows per block (selected rows when `step > 1`). Default `chunklen`. */
  blockLen?: number;
  /** First row (default 0). */
  start?: number;
  /** One past the last row (default `length`). */
  stop?: number;
  /** Take every `step`-th row from `start` (default 1). */
  step?: number;
}

/**
 * A slice selector for {@link CArray.set}, with Python semantics (negative bounds count from
 * the end; positive step).
 *
 * @example
 * ```ts
 * await a.set({ start: 1500, stop: 3500, step: 7 }, 0.5);
 * ```
 */
export interface SliceSelector {
  /** First row (default 0). */
  start?: number;
  /** One past the last row (default `length`). */
  stop?: number;
  /** Step, at least 1 (default 1). */
  step?: number;
}

/**
 * Which rows {@link CArray.set} writes: one row index (negative counts from the end), a
 * {@link SliceSelector}, a list of row indices (typed array or array of numbers; with
 * duplicates the last value wins), or a boolean mask of length `length`.
 *
 * @example
 * ```ts
 * await a.set(-1, 7);                       // last row
 * await a.set([0, 5, 9], [1, 2, 3]);        // index list
 * await a.set(mask, 0);                     // boolean[] of length a.length
 * ```
 */
export type Selector = number | SliceSelector | ArrayLike<number> | readonly boolean[];

/**
 * One block of rows produced by {@link CArray.iterBlocks}: rows `[start, stop)` as stored bytes.
 *
 * @example
 * ```ts
 * for await (const block of carray.iterBlocks()) console.log(block.start, block.stop, block.bytes.length);
 * ```
 */
export interface RowBlock {
  /** First row of the block. */
  start: number;
  /** One past the last row of the block. */
  stop: number;
  /** The rows' bytes, C order, in the dtype's byte order ({@link CArray.readBytes}). */
  bytes: Uint8Array;
  /** Row step of the selection (present only when iterating with `step > 1`; then `bytes` holds rows start, start+step, …). */
  step?: number;
}

interface CArrayInit {
  store: ReadableStore;
  path: string;
  dtype: DType;
  shape: number[];
  chunklen: number;
  cparams: Cparams;
  dflt: JsonValue;
  expectedlen: number | bigint;
  attrs: { [key: string]: JsonValue };
  atomSize: number;
  options: OpenOptions;
  /** Chunks listed by an unfinished `.journal` (read from their `.next` file when it exists). */
  journal?: Set<number>;
  /** Present when opened for writing. */
  writer?: { store: WritableStore; lock: DatasetLock; cbytes: number | bigint };
}

const DEFAULT_CACHE_BYTES = 4 * 1024 * 1024;
/** Above this many bytes, a read first checks that the last chunk it needs exists. */
const PRECHECK_BYTES = 16 * 1024 * 1024;

/**
 * A bcolz carray opened for reading: an N-dimensional array stored as `data/__<k>.blp` chunk
 * files of `chunklen` rows each, described by `meta/sizes`, `meta/storage` and `__attrs__`.
 *
 * The length comes only from `meta/sizes` (`shape[0]`). Chunk files `__0 … __(nchunks−1)` hold
 * full chunks; when `length % chunklen ≠ 0` the file `__<nchunks>` holds the `leftoverRows`
 * remaining rows. Every chunk's Blosc `nbytes` must equal its rows × `atomSize` (else
 * `FormatError` `INCONSISTENT` naming the file); a missing chunk file is `FormatError`
 * `MISSING_FILE`; chunk files beyond those are ignored (bcolz leaves stale ones behind).
 * Chunk files are read lazily, when rows are requested, and every error names the store key of
 * the file it concerns.
 *
 * Byte order: {@link CArray.readBytes}, {@link CArray.getBytes}, {@link CArray.chunkBytes} and
 * {@link CArray.iterBlocks} return bytes exactly as stored, i.e. in the dtype's byte order
 * (little-endian unless `dtype.byteOrder` is `">"`); use {@link toLittleEndian} for a
 * little-endian copy. {@link CArray.read} and {@link CArray.get} return values in the platform's
 * order (see {@link Values}).
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const a = await openCarray(new FileSystemStore("/data/prices.bcolz"));
 * console.log(a.dtype.str, a.shape, a.chunklen);      // "<f8" [100000] 32768
 * const firstTen = await a.read(0, 10);                // Float64Array(10)
 * const last = await a.get(-1);                        // number
 * ```
 */
export class CArray {
  /** Discriminant: `"carray"`. */
  readonly kind = "carray" as const;
  /** The store the array is read from. */
  readonly store: ReadableStore;
  /** Store key of the array's directory (`""` = the store root). */
  readonly path: string;
  /** Base dtype (from `meta/storage`). */
  readonly dtype: DType;
  /** Rows per chunk (from `meta/storage`). */
  readonly chunklen: number;
  /** Compression parameters recorded in `meta/storage` (the chunk headers are authoritative for decoding). */
  readonly cparams: Cparams;
  /** Fill value recorded in `meta/storage`. */
  readonly dflt: JsonValue;
  /** `expectedlen` recorded in `meta/storage` (informational). */
  readonly expectedlen: number | bigint;
  /**
   * User attributes from `__attrs__` (`{}` when the file is missing). Read them with `get`,
   * `keys` or `toJSON()`; `set`/`delete` rewrite `__attrs__` (writable arrays only).
   */
  readonly attrs: AttrStore;
  /** Bytes per row: itemsize × product of the trailing dimensions. */
  readonly atomSize: number;
  /** Elements per row: product of the trailing dimensions. */
  readonly itemsPerRow: number;
  readonly #maxReadBytes: number;
  readonly #limits: CallLimits;
  #shape: number[];
  readonly #journal: Set<number>;
  readonly #reader: ChunkReader;
  #writer: CarrayWriter | undefined;
  readonly #init: CArrayInit;

  /**
   * Use {@link openCarray}, {@link createCarray} or {@link open}; this constructor trusts already
   * validated metadata.
   * @internal
   */
  constructor(init: CArrayInit) {
    this.#init = init;
    this.store = init.store;
    this.path = init.path;
    this.dtype = init.dtype;
    this.#shape = [...init.shape];
    this.chunklen = init.chunklen;
    this.cparams = init.cparams;
    this.dflt = init.dflt;
    this.expectedlen = init.expectedlen;
    this.atomSize = init.atomSize;
    this.itemsPerRow = init.shape.slice(1).reduce((a, b) => a * b, 1);
    this.#limits = callLimits(init.options);
    this.#maxReadBytes = this.#limits.maxReadBytes;
    this.#journal = init.journal ?? new Set();
    this.#reader = new ChunkReader(
      {
        store: init.store,
        path: init.path,
        chunklen: init.chunklen,
        atomSize: init.atomSize,
        prefetch: init.options.prefetch ?? 4,
        cacheBytes: init.options.cacheBytes ?? DEFAULT_CACHE_BYTES,
        journal: this.#journal,
        workers: init.options.workers,
      },
      { length: () => this.#shape[0]!, leftoverInMemory: () => this.#writer?.leftoverBytes() },
    );
    this.#writer = init.writer === undefined ? undefined : new CarrayWriter(this, {
      setLength: (n) => {
        this.#shape[0] = n;
      },
      readChunkRows: async (index, rows) => {
        const loaded = await this.#reader.loadChunk(index);
        return { bytes: this.#reader.decodeRows(loaded, 0, rows), storedNbytes: loaded.storedNbytes };
      },
      chunkChanged: (index) => this.#reader.cache.invalidate(index),
    }, { ...init.writer, workers: init.options.workers });
    this.attrs = new AttrStore(init.attrs, this.path, () => this.#writer);
  }

  /** Shape: `[length, ...trailing dimensions]` (from `meta/sizes`, then as written). */
  get shape(): readonly number[] {
    return Object.freeze([...this.#shape]);
  }

  /** Number of rows, `shape[0]`. */
  get length(): number {
    return this.#shape[0]!;
  }

  /** Number of full chunks, `floor(length / chunklen)`. */
  get nchunks(): number {
    return Math.floor(this.length / this.chunklen);
  }

  /** Rows in the leftover chunk, `length % chunklen` (0 = no leftover chunk file is read). */
  get leftoverRows(): number {
    return this.length % this.chunklen;
  }

  /** Uncompressed size of all rows, `length × atomSize`. */
  get nbytes(): number {
    return this.length * this.atomSize;
  }

  /** `"r"` for a read-only array, `"a"` while it is open for writing (until {@link CArray.close}). */
  get mode(): "r" | "a" {
    return this.#writer === undefined ? "r" : "a";
  }

  /**
   * Appends rows at the end: any {@link ArrayInput} (typed array, array of elements, `{ bytes }`,
   * sync or async iterable of elements or blocks). Multidimensional rows are given flat (C
   * order); the element count must be a multiple of {@link CArray.itemsPerRow}. Values are
   * checked against the dtype (`UsageError` `INVALID_ARGUMENT` / `OUT_OF_RANGE`), and an append
   * is all or nothing: a bad value anywhere (or a chunk that cannot be written) leaves the length
   * and the rows as they were, and the files too once flushed (chunk files written beyond the
   * committed length are never read and the flush removes them). Input is streamed, not drained
   * first: full chunks are compressed and written as they fill (typed arrays of the dtype's own
   * type straight from their memory), the remaining rows stay in memory until
   * {@link CArray.flush} (or `close`), like bcolz. Read-only arrays throw `UsageError` `READ_ONLY`.
   *
   * @example
   * ```ts
   * const a = await openCarray(store, "prices", { mode: "a" });
   * await a.append(new Float64Array([1.5, 2.5]));
   * await a.close();
   * ```
   */
  async append(values: ArrayInput): Promise<void> {
    // The writer reports every chunk it changes (chunkChanged), which drops it from the cache.
    await this.#requireWriter().append(values);
  }

  /**
   * Writes `values` into the rows chosen by `selector` ({@link Selector}). `values` is one
   * element (broadcast to every selected element), one row's elements (broadcast to every
   * row), or exactly the selected rows' elements in selection order. Changes to rows that are
   * already on disk are written at once and atomically: several chunk files are replaced
   * through a journal (`.journal` + `data/__k.blp.next`) so that a crash leaves either the old
   * or the new content; rows only in memory are persisted by the next flush.
   *
   * @example
   * ```ts
   * await a.set(3, 12345.5);
   * await a.set({ start: 950, stop: 1100 }, new Float64Array(150).fill(1));
   * await a.set([-2], [3.0]);
   * ```
   */
  async set(selector: Selector, values: ElementInput | ValuesBlock | RawRows): Promise<void> {
    await this.#requireWriter().set(selector, values);
  }

  /**
   * Changes the length to `n` rows: growing appends rows filled with `dflt`, shrinking drops
   * rows from the end; then flushes. `n` must be a safe integer ≥ 0 (`UsageError`
   * `INVALID_ARGUMENT` / `OUT_OF_RANGE`), and growing is limited to `n × atomSize ≤`
   * {@link MAX_RESIZE_BYTES} (2^40; `SIZE_LIMIT` otherwise), checked before anything is
   * written. When shrinking, `meta/sizes` is written before chunk files
   * are rewritten or deleted, so an interruption leaves either length.
   *
   * @example
   * ```ts
   * await a.resize(4200); // grow with dflt
   * await a.resize(10);   // shrink
   * ```
   */
  async resize(n: number): Promise<void> {
    await this.#requireWriter().resize(n);
  }

  /**
   * Removes the last `n` rows (bcolz `trim`); `n` must be between 0 and `length`. Flushes.
   *
   * @example
   * ```ts
   * await a.trim(1700); // 5000 rows -> 3300
   * ```
   */
  async trim(n: number): Promise<void> {
    checkInteger(n, "n");
    if (n < 0 || n > this.length) {
      throw new UsageError("OUT_OF_RANGE", "cannot trim more rows than the array has", { path: this.path, field: "n", expected: `0 <= n <= ${this.length}`, actual: n });
    }
    await this.resize(this.length - n);
  }

  /**
   * Writes the rows held in memory (the leftover chunk) and then `meta/sizes`, making every
   * change so far durable. A no-op for read-only arrays and when nothing changed.
   *
   * @example
   * ```ts
   * await a.append([1, 2, 3]);
   * await a.flush();
   * ```
   */
  async flush(): Promise<void> {
    await this.#writer?.flush();
  }

  /**
   * Flushes, releases the write lock and turns the array read-only (reads keep working). A
   * no-op for read-only arrays; idempotent.
   *
   * @example
   * ```ts
   * const a = await createCarray(store, "x", [1, 2, 3], { dtype: "<i4" });
   * await a.close();
   * ```
   */
  async close(): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined) return;
    try {
      await writer.flush();
    } finally {
      this.#writer = undefined;
      // From now on the leftover rows come from their file, not from memory.
      this.#reader.cache.invalidateFrom(this.nchunks);
      await writer.release();
    }
  }

  /**
   * Sum of all elements, computed block by block (one chunk in memory at a time): `number`
   * for floats (in double precision; NaN propagates), bools (count of true) and integers up to
   * 4 bytes while the total is a safe integer (else `bigint`); `bigint` for 8-byte integers.
   * `UsageError` `INVALID_ARGUMENT` for S, U and datetime dtypes.
   *
   * @example
   * ```ts
   * await a.sum(); // 4950 for 0..99
   * ```
   */
  async sum(): Promise<number | bigint> {
    const kind = this.dtype.kind;
    if (kind === "S" || kind === "U" || kind === "M" || kind === "m" || kind === "V") {
      throw new UsageError("INVALID_ARGUMENT", `cannot sum dtype ${this.dtype.str}`, { path: this.path, field: "dtype", actual: this.dtype.str });
    }
    const wide = (kind === "i" || kind === "u") && this.dtype.itemsize === 8;
    const integral = kind === "i" || kind === "u" || kind === "b";
    this.#checkWork(0, this.length, 1);
    let big = 0n;
    let acc = 0;
    await this.#reader.scan(0, this.length, (bytes) => {
      const values = decodeValues(bytes, this.dtype);
      if (wide) {
        for (const v of values as BigInt64Array | BigUint64Array) big += v;
        return;
      }
      const numbers = values as Float64Array;
      if (!integral) {
        for (let i = 0; i < numbers.length; i++) acc += numbers[i]!;
        return;
      }
      for (let i = 0; i < numbers.length; i++) {
        acc += numbers[i]!;
        if (Math.abs(acc) > 2 ** 52) {
          big += BigInt(acc);
          acc = 0;
        }
      }
    });
    if (wide) return big;
    if (!integral) return acc;
    const total = big + BigInt(acc);
    return Number.isSafeInteger(Number(total)) ? Number(total) : total;
  }

  /**
   * Smallest element (see {@link CArray.max}).
   *
   * @example
   * ```ts
   * await a.min();
   * ```
   */
  async min(): Promise<number | bigint | boolean> {
    return this.#extreme(-1);
  }

  /**
   * Largest element, computed block by block: `number` for floats (NaN if any element is NaN,
   * like numpy) and integers up to 4 bytes, `bigint` for 8-byte integers and datetimes (NaT if
   * any element is NaT), `boolean` for bool. An empty array or an S/U dtype gives `UsageError`
   * `INVALID_ARGUMENT`.
   *
   * @example
   * ```ts
   * await a.max();
   * ```
   */
  async max(): Promise<number | bigint | boolean> {
    return this.#extreme(1);
  }

  async #extreme(sign: 1 | -1): Promise<number | bigint | boolean> {
    const kind = this.dtype.kind;
    if (kind === "S" || kind === "U" || kind === "V" || kind === "c") {
      throw new UsageError("INVALID_ARGUMENT", `no ordering for dtype ${this.dtype.str}`, { path: this.path, field: "dtype", actual: this.dtype.str });
    }
    if (this.length === 0 || this.itemsPerRow === 0) {
      throw new UsageError("INVALID_ARGUMENT", "min/max of an empty array", { path: this.path, field: "length", actual: 0 });
    }
    const nat = -(2n ** 63n);
    const isDate = kind === "M" || kind === "m";
    let best: number | bigint | undefined;
    let special: number | bigint | undefined;
    this.#checkWork(0, this.length, 1);
    await this.#reader.scan(0, this.length, (bytes) => {
      if (special !== undefined) return;
      const values = decodeValues(bytes, this.dtype) as ArrayLike<number | bigint>;
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        if (typeof v === "number" && Number.isNaN(v)) special = NaN;
        else if (isDate && v === nat) special = nat;
        if (special !== undefined) return;
        if (best === undefined || (sign > 0 ? v > best : v < best)) best = v;
      }
    });
    if (special !== undefined) return special;
    return kind === "b" ? best === 1 : best!;
  }

  /**
   * A read-only array of the first `length` rows of this one, as if `meta/sizes` said so (how a
   * ctable reader sees the last committed length while an append is writing the columns).
   * @internal
   */
  committedPrefix(length: number): CArray {
    const init: CArrayInit = { ...this.#init, shape: [length, ...this.#shape.slice(1)] };
    delete init.writer;
    return new CArray(init);
  }

  /** Loads the leftover chunk into the writer's memory (after opening for writing). @internal */
  async loadLeftoverForWriting(): Promise<void> {
    await this.#writer?.loadLeftover();
  }

  #requireWriter(): CarrayWriter {
    if (this.#writer === undefined) {
      throw new UsageError("READ_ONLY", "the array is open read-only (open it with mode \"a\" to write)", { path: this.path, field: "mode", expected: "a", actual: "r" });
    }
    return this.#writer;
  }

  /**
   * Number of chunk files the array reads: `nchunks`, plus one when there is a leftover chunk.
   *
   * @example
   * ```ts
   * for (let i = 0; i < a.chunkCount; i++) console.log(a.chunkKey(i), a.chunkRows(i));
   * ```
   */
  get chunkCount(): number {
    return this.nchunks + (this.leftoverRows > 0 ? 1 : 0);
  }

  /**
   * Store key of chunk file `i` (`"data/__3.blp"`, prefixed by the array's path).
   *
   * @example
   * ```ts
   * a.chunkKey(0); // "data/__0.blp"
   * ```
   */
  chunkKey(i: number): string {
    return joinKey(this.path, `data/__${i}.blp`);
  }

  /**
   * Rows held by chunk `i`: `chunklen`, or `leftoverRows` for the leftover chunk.
   *
   * @example
   * ```ts
   * a.chunkRows(a.chunkCount - 1); // leftoverRows if there is a leftover chunk
   * ```
   */
  chunkRows(i: number): number {
    this.#checkChunkIndex(i);
    return i < this.nchunks ? this.chunklen : this.leftoverRows;
  }

  /**
   * The decompressed bytes of chunk `i` (`0 ≤ i < chunkCount`, else `UsageError`
   * `OUT_OF_RANGE`), in stored byte order.
   *
   * @example
   * ```ts
   * const raw = await a.chunkBytes(0); // chunklen × atomSize bytes
   * ```
   */
  async chunkBytes(i: number): Promise<Uint8Array> {
    this.#checkChunkIndex(i);
    const cached = this.#reader.cache.chunk(i);
    if (cached !== undefined) return cached.slice(0, this.chunkRows(i) * this.atomSize);
    const loaded = await this.#reader.loadChunk(i);
    return this.#reader.decodeRows(loaded, 0, loaded.rows);
  }

  /**
   * Raw bytes of rows `[start, stop)` in C order and stored byte order. Both bounds must be
   * integers with `0 ≤ start ≤ stop ≤ length` (else `UsageError` `OUT_OF_RANGE`); only the chunk
   * files that hold those rows are read, and partial chunks decode only the Blosc blocks needed.
   *
   * @example
   * ```ts
   * const bytes = await a.readBytes(100, 200); // 100 × atomSize bytes
   * ```
   */
  async readBytes(start = 0, stop: number = this.length): Promise<Uint8Array> {
    this.#checkBounds(start, stop);
    this.#checkWork(start, stop, 1);
    const out = this.#allocate(stop - start);
    await this.#readBytesInto(out, start, stop);
    return out;
  }

  async #readBytesInto(out: Uint8Array, start: number, stop: number): Promise<void> {
    if (out.length === 0) return;
    if (out.length > PRECHECK_BYTES) await this.#precheckChunk(Math.floor((stop - 1) / this.chunklen));
    await this.#reader.readInto(out, start, stop);
  }

  /**
   * Reads rows `[start, stop)` into `out`, a typed array of the class {@link CArray.read}
   * returns for this dtype (`Float64Array` for `<f8`, `BigInt64Array` for `<i8` and datetimes,
   * `Uint8Array` for `|u1` and `|b1`, …) holding exactly the rows' elements
   * (`(stop − start) × itemsPerRow`, doubled for complex). Values end up in the platform's byte
   * order, as `read` gives them; chunks are decoded straight into `out`. Bounds as
   * {@link CArray.readBytes}. A dtype without such an array (`S`, `U`, `V`, `f2`) or an `out`
   * of another class or size throws `UsageError` `INVALID_ARGUMENT`.
   *
   * @example
   * ```ts
   * const buffer = new Float64Array(a.chunklen);
   * for (let start = 0; start < a.length; start += a.chunklen) {
   *   const stop = Math.min(a.length, start + a.chunklen);
   *   await a.readInto(buffer.subarray(0, stop - start), start, stop);
   * }
   * ```
   */
  async readInto(out: TypedValues, start = 0, stop: number = this.length): Promise<void> {
    this.#checkBounds(start, stop);
    const bytes = checkTypedOut(out, this.dtype, (stop - start) * this.itemsPerRow, this.path);
    this.#checkWork(start, stop, 1);
    await this.#readBytesInto(bytes, start, stop);
    swapInPlace(bytes, this.dtype);
  }

  /**
   * Stored bytes of the rows at `indices` (any order, duplicates allowed, negative indices
   * count from the end), row `indices[p]` at byte `p × atomSize`. Each chunk that holds a
   * requested row is read and decoded once. Non-integers give `UsageError` `INVALID_ARGUMENT`,
   * indices outside `[-length, length)` `OUT_OF_RANGE`.
   *
   * @example
   * ```ts
   * const bytes = await a.takeBytes([5, -1, 5]); // 3 × atomSize bytes
   * ```
   */
  async takeBytes(indices: ArrayLike<number>): Promise<Uint8Array> {
    const rows = checkTakeIndices(indices, this.length, this.path);
    const chunks = new Set<number>();
    for (const row of rows) chunks.add(Math.floor(row / this.chunklen));
    checkChunkWork(this.#limits, chunks.size, this.path);
    const out = this.#allocate(rows.length);
    if (out.length > 0) await this.#reader.takeInto(rows, out);
    return out;
  }

  /**
   * Decoded values of the rows at `indices`, in the order given (like numpy's `a[indices]`;
   * bcolz's `c[index_array]`): any order, duplicates, negative indices counting from the end.
   * Each chunk needed is read and decoded once, however many indices fall into it. Errors as
   * {@link CArray.takeBytes}.
   *
   * @example
   * ```ts
   * await a.take([3, 0, -1, 3]); // Float64Array of 4 values for "<f8"
   * ```
   */
  async take(indices: ArrayLike<number>): Promise<Values> {
    return decodeValues(await this.takeBytes(indices), this.dtype);
  }

  /**
   * Decoded values of the rows selected like Python's `a[start:stop:step]`: negative bounds
   * count from the end, bounds are clamped to the array, `step` must be a positive integer
   * (default 1). Multidimensional rows are flattened (C order). See {@link Values} for the
   * JavaScript type used per dtype.
   *
   * @example
   * ```ts
   * await a.read();            // every row
   * await a.read(-10);         // the last ten rows
   * await a.read(0, 1000, 10); // every tenth row of the first thousand
   * ```
   */
  async read(start?: number, stop?: number, step?: number): Promise<Values> {
    const s = normalizeSlice(this.length, start, stop, step);
    if (s.step === 1) return decodeValues(await this.readBytes(s.start, s.stop), this.dtype);
    return decodeValues(await this.#readStepped(s.start, s.stop, s.step), this.dtype);
  }

  /**
   * Stored bytes of row `index` (negative counts from the end), decoding only the Blosc block(s)
   * that hold it. Out of range → `UsageError` `OUT_OF_RANGE`.
   *
   * @example
   * ```ts
   * const rowBytes = await a.getBytes(12345); // atomSize bytes
   * ```
   */
  async getBytes(index: number): Promise<Uint8Array> {
    return this.#reader.rowBytes(this.#checkIndex(index));
  }

  /**
   * The value of row `index` (negative counts from the end): a {@link Scalar} for
   * 1-dimensional non-complex arrays, else the row's {@link Values} (e.g. `[re, im]` or the
   * trailing dimensions). Decodes only the Blosc block(s) that hold the row.
   *
   * @example
   * ```ts
   * const x = await a.get(0);    // number for "<f8", bigint for "<i8"
   * const y = await a.get(-1);   // last row
   * ```
   */
  async get(index: number): Promise<Scalar | Values> {
    const values = decodeValues(await this.getBytes(index), this.dtype);
    if (this.itemsPerRow === 1 && entriesPerElement(this.dtype) === 1) return values[0]!;
    return values;
  }

  /**
   * Rows `[start, stop)` in consecutive blocks of stored bytes (arguments either positional
   * `(blockLen, start, stop)` or one {@link IterBlocksOptions} object, which may also give a
   * `step`: then each block holds `blockLen` selected rows). Block boundaries fall on
   * multiples of `blockLen` (default `chunklen`, so that each block is one chunk); the first and
   * last block are cut at `start` and `stop`. Each chunk file is read and decoded once, and only
   * one decoded chunk is held at a time (plus `prefetch` compressed ones).
   *
   * @example
   * ```ts
   * let sum = 0;
   * for await (const { bytes } of a.iterBlocks()) {
   *   for (const x of new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8)) sum += x;
   * }
   * ```
   */
  async *iterBlocks(blockLenOrOptions: number | IterBlocksOptions = this.chunklen, start = 0, stop: number = this.length): AsyncGenerator<RowBlock, void, undefined> {
    let blockLen: number;
    if (typeof blockLenOrOptions === "object" && blockLenOrOptions !== null) {
      const o = blockLenOrOptions;
      blockLen = o.blockLen ?? this.chunklen;
      start = o.start ?? 0;
      stop = o.stop ?? this.length;
      const step = o.step ?? 1;
      checkInteger(step, "step");
      if (step < 1) throw new UsageError("INVALID_ARGUMENT", "step must be at least 1", { field: "step", expected: ">= 1", actual: step });
      if (step > 1) {
        yield* this.#iterStepped(blockLen, start, stop, step);
        return;
      }
    } else {
      blockLen = blockLenOrOptions;
    }
    checkInteger(blockLen, "blockLen");
    if (blockLen < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: blockLen });
    this.#checkBounds(start, stop);
    this.#checkWork(start, stop, 1);
    this.#checkAllocation(Math.min(blockLen, stop - start));
    if (start === stop) return;
    const first = Math.floor(start / this.chunklen);
    const last = Math.floor((stop - 1) / this.chunklen);
    const chunks = this.#chunksInOrder(range(first, last + 1));
    // Rows [currentFrom, currentTo) of the array, decoded from the current chunk.
    let current: Uint8Array | undefined;
    let currentFrom = 0;
    let currentTo = 0;
    const nextChunk = async (): Promise<void> => {
      const step = await chunks.next();
      if (step.done === true) throw new Error("internal: ran out of chunks"); // unreachable: chunks cover [start, stop)
      const loaded = step.value;
      currentFrom = Math.max(start, loaded.firstRow);
      currentTo = Math.min(stop, loaded.firstRow + loaded.rows);
      current = this.#decodeRows(loaded, currentFrom - loaded.firstRow, currentTo - loaded.firstRow);
    };
    try {
      let pos = start;
      while (pos < stop) {
        const blockEnd = Math.min(stop, (Math.floor(pos / blockLen) + 1) * blockLen);
        if (current === undefined || pos >= currentTo) await nextChunk();
        if (currentFrom === pos && currentTo === blockEnd) {
          // The block is exactly the decoded part of one chunk: hand it over without a copy.
          const bytes = current!;
          current = undefined;
          yield { start: pos, stop: blockEnd, bytes };
          pos = blockEnd;
          continue;
        }
        const out = new Uint8Array((blockEnd - pos) * this.atomSize);
        let row = pos;
        while (row < blockEnd) {
          if (current === undefined || row >= currentTo) await nextChunk();
          const to = Math.min(blockEnd, currentTo);
          out.set(current!.subarray((row - currentFrom) * this.atomSize, (to - currentFrom) * this.atomSize), (row - pos) * this.atomSize);
          row = to;
        }
        yield { start: pos, stop: blockEnd, bytes: out };
        pos = blockEnd;
      }
    } finally {
      await chunks.return(undefined);
    }
  }

  async *#iterStepped(blockLen: number, start: number, stop: number, step: number): AsyncGenerator<RowBlock, void, undefined> {
    checkInteger(blockLen, "blockLen");
    if (blockLen < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: blockLen });
    this.#checkBounds(start, stop);
    this.#checkWork(start, stop, step);
    const count = selectedCount(start, stop, step);
    this.#checkAllocation(Math.min(blockLen, count));
    if (count === 0) return;
    const atom = this.atomSize;
    const lastRow = start + (count - 1) * step;
    let out = new Uint8Array(0);
    let filled = 0;
    let first = start;
    let next = start; // the next selected row; only chunks holding one are read
    for await (const loaded of this.#chunksInOrder(selectedChunks(start, lastRow, step, this.chunklen))) {
      const lastSelected = Math.min(lastRow, next + Math.floor((loaded.firstRow + loaded.rows - 1 - next) / step) * step);
      const rows = this.#decodeRows(loaded, next - loaded.firstRow, lastSelected + 1 - loaded.firstRow);
      for (let r = next; r <= lastSelected; r += step) {
        if (filled === 0) {
          first = r;
          out = new Uint8Array(Math.min(blockLen, selectedCount(r, stop, step)) * atom);
        }
        const at = (r - next) * atom;
        out.set(rows.subarray(at, at + atom), filled * atom);
        filled++;
        if (filled * atom === out.length) {
          yield { start: first, stop: r + 1, step, bytes: out };
          filled = 0;
        }
      }
      next = lastSelected + step;
    }
  }

  #checkChunkIndex(i: number): void {
    checkInteger(i, "chunk");
    if (i < 0 || i >= this.chunkCount) {
      throw new UsageError("OUT_OF_RANGE", "chunk index out of range", { path: this.path, field: "chunk", expected: `0 <= chunk < ${this.chunkCount}`, actual: i });
    }
  }

  #checkIndex(index: number): number {
    checkInteger(index, "index");
    const i = index < 0 ? index + this.length : index;
    if (i < 0 || i >= this.length) {
      throw new UsageError("OUT_OF_RANGE", "row index out of range", { path: this.path, field: "index", expected: `-${this.length} <= index < ${this.length}`, actual: index });
    }
    return i;
  }

  #checkBounds(start: number, stop: number): void {
    checkInteger(start, "start");
    checkInteger(stop, "stop");
    if (start < 0 || stop > this.length || start > stop) {
      throw new UsageError("OUT_OF_RANGE", "row range out of bounds", { path: this.path, field: "start..stop", expected: `0 <= start <= stop <= ${this.length}`, actual: `${start}..${stop}` });
    }
  }

  #checkAllocation(rows: number): number {
    const bytes = rows * this.atomSize;
    if (bytes > this.#maxReadBytes) {
      throw new UsageError("SIZE_LIMIT", "read larger than maxReadBytes; read in pieces (iterBlocks) or raise the option", { path: this.path, field: "maxReadBytes", expected: `<= ${this.#maxReadBytes}`, actual: bytes });
    }
    return bytes;
  }

  /** Refuses a call that would read more chunk files than `maxChunksPerCall` allows. */
  #checkWork(start: number, stop: number, step: number): void {
    checkChunkWork(this.#limits, chunksTouched(start, stop, step, this.chunklen), this.path);
  }

  #allocate(rows: number): Uint8Array {
    return new Uint8Array(this.#checkAllocation(rows));
  }

  async #readStepped(start: number, stop: number, step: number): Promise<Uint8Array> {
    const count = selectedCount(start, stop, step);
    this.#checkWork(start, stop, step);
    const out = this.#allocate(count);
    if (count === 0 || out.length === 0) return out;
    const lastRow = start + (count - 1) * step;
    if (out.length > PRECHECK_BYTES) await this.#precheckChunk(Math.floor(lastRow / this.chunklen));
    const atom = this.atomSize;
    for await (const loaded of this.#chunksInOrder(selectedChunks(start, lastRow, step, this.chunklen))) {
      const chunkStart = loaded.firstRow;
      const chunkEnd = chunkStart + loaded.rows;
      const firstSelected = chunkStart <= start ? start : start + Math.ceil((chunkStart - start) / step) * step;
      const lastSelected = Math.min(lastRow, firstSelected + Math.floor((chunkEnd - 1 - firstSelected) / step) * step);
      const rows = this.#decodeRows(loaded, firstSelected - chunkStart, lastSelected + 1 - chunkStart);
      for (let r = firstSelected; r <= lastSelected; r += step) {
        const at = (r - firstSelected) * atom;
        out.set(rows.subarray(at, at + atom), ((r - start) / step) * atom);
      }
    }
    return out;
  }

  /**
   * Before allocating a large result, make sure the last chunk it needs exists and announces
   * the right size, so that a `meta/sizes` claiming too many rows fails before the allocation.
   */
  async #precheckChunk(index: number): Promise<void> {
    if (this.#journal.has(index) || (index >= this.nchunks && this.#writer !== undefined)) return;
    const key = this.chunkKey(index);
    const head = await readRange(this.store, key, { offset: 0, length: BLPK_V1_HEADER_SIZE + 16 });
    if (head === undefined) throw new FormatError("MISSING_FILE", `chunk file ${index} is missing`, { path: key, field: "file" });
    withPath(key, () => readBlpkV1Header(head, key));
    if (head.length < BLPK_V1_HEADER_SIZE + 16) {
      throw new FormatError("TRUNCATED", "chunk file ends inside the Blosc header", { path: key, field: "blosc.header", expected: BLPK_V1_HEADER_SIZE + 16, actual: head.length });
    }
    const nbytes = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(BLPK_V1_HEADER_SIZE + 4, true);
    const rows = index < this.nchunks ? this.chunklen : this.leftoverRows;
    this.#reader.checkStoredNbytes(key, nbytes, rows * this.atomSize, index >= this.nchunks, rows);
  }

  /** Chunk files in the given order, `prefetch` ahead. */
  #chunksInOrder(indices: Iterable<number>): AsyncGenerator<LoadedChunk, void, undefined> {
    return this.#reader.chunksInOrder(indices);
  }

  /** Decoded bytes of rows [from, to) of a loaded chunk (relative rows). */
  #decodeRows(loaded: LoadedChunk, from: number, to: number): Uint8Array {
    return this.#reader.decodeRows(loaded, from, to);
  }
}

function* range(from: number, to: number): Generator<number> {
  for (let i = from; i < to; i++) yield i;
}

function badShape(key: string, shape: unknown): never {
  throw new FormatError("BAD_METADATA", "shape must be a non-empty list of non-negative integers", { path: key, field: "shape", actual: shape });
}

/**
 * Opens the carray whose directory is `path` in `store` (`""` = the store root). Reads and
 * validates `meta/storage`, `meta/sizes` and `__attrs__` (optional when reading: missing means
 * `{}`); chunk files are read later, on demand. If a writer was interrupted in the middle of a
 * multi-chunk update (a `.journal` file exists), the chunks it lists are read from their
 * `data/__k.blp.next` files when present, so the update appears complete.
 *
 * `options.mode` `"a"` or `"w"` opens for writing (see {@link OpenOptions.mode}): the store must
 * be a {@link WritableStore} (`UsageError` `INVALID_ARGUMENT` otherwise), the lock
 * `<path>/.lock` is taken (`ConflictError` `LOCKED` if another writer holds it), an interrupted
 * update is finished, and the array must be closed with {@link CArray.close}.
 *
 * Errors: `FormatError` `MISSING_FILE` (no `meta/storage` or `meta/sizes`), the parse errors of
 * `@fmt/meta` (`BAD_JSON`, `BAD_METADATA`, `UNSUPPORTED_DTYPE`), all carrying the key of the
 * file; `UsageError` `UNSAFE_NAME` for a bad `path`.
 *
 * @example
 * ```ts
 * const store = new FileSystemStore("/data");
 * const prices = await openCarray(store, "prices.bcolz");
 * console.log(prices.length, prices.chunkKey(0)); // 100000 "prices.bcolz/data/__0.blp"
 * const w = await openCarray(store, "prices.bcolz", { mode: "a" });
 * await w.append([1.5]);
 * await w.close();
 * ```
 */
export async function openCarray(store: ReadableStore | WritableStore, path = "", options: OpenOptions = {}): Promise<CArray> {
  const base = checkDatasetPath(path);
  checkOptions(options);
  const mode = options.mode ?? "r";
  if (mode === "r") return openCarrayWith(store, base, options, undefined);
  const writable = requireWritableStore(store);
  const lock = await DatasetLock.acquire(writable, base, { breakLock: options.breakLock === true });
  try {
    const array = await openCarrayWith(writable, base, options, lock);
    if (mode === "w") await array.resize(0);
    return array;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

let compressionReady: Promise<void> | undefined;

/** Checks that `store` can be written (put and delete). */
export function requireWritableStore(store: ReadableStore | WritableStore): WritableStore {
  const s = store as Partial<WritableStore>;
  if (typeof s.put !== "function" || typeof s.delete !== "function") {
    throw new UsageError("INVALID_ARGUMENT", "writing needs a WritableStore (put and delete)", { field: "store", expected: "WritableStore" });
  }
  return store as WritableStore;
}

/**
 * Opens with metadata validation; with a `lock`, as a writer (the lock is then owned by the
 * array). @internal
 */
export async function openCarrayWith(store: ReadableStore, base: string, options: OpenOptions, lock: DatasetLock | undefined): Promise<CArray> {
  if (lock !== undefined) {
    // The zstd encoder (and, in browsers, the SIMD kernels) load asynchronously, once.
    compressionReady ??= initCompression();
    await compressionReady;
    await CarrayWriter.recover(store as WritableStore, base);
  }
  const journal = lock === undefined ? await readJournal(store, joinKey(base, JOURNAL_FILE)) : undefined;
  const storageKey = joinKey(base, "meta/storage");
  const sizesKey = joinKey(base, "meta/sizes");
  const attrsKey = joinKey(base, "__attrs__");
  const [storageText, sizesText, attrsText] = await Promise.all([readText(store, storageKey), readText(store, sizesKey), readText(store, attrsKey)]);
  if (storageText === undefined) throw new FormatError("MISSING_FILE", "not a bcolz carray: meta/storage is missing", { path: storageKey, field: "file" });
  if (sizesText === undefined) throw new FormatError("MISSING_FILE", "meta/sizes is missing", { path: sizesKey, field: "file" });
  const storage = withPath(storageKey, () => parseStorage(storageText, storageKey));
  const sizes = withPath(sizesKey, () => parseSizes(sizesText, sizesKey));
  if (attrsText === undefined) throw new FormatError("MISSING_FILE", "__attrs__ is missing (bcolz cannot open a dataset without it)", { path: attrsKey, field: "file" });
  const attrs = withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
  if (storage.dtype.bcolzWritable === false) {
    // Complex and timedelta64 parse as numpy dtypes, but bcolz 1.x cannot save them, so no
    // format-version-1 dataset holds one (spec/v1.md §13).
    throw new FormatError("UNSUPPORTED_DTYPE", `bcolz 1.x cannot store dtype ${storage.dtype.str}`, { path: storageKey, field: "dtype", actual: storage.dtype.bcolzName });
  }

  const shape = sizes.shape as unknown;
  if (!Array.isArray(shape) || shape.length < 1) badShape(sizesKey, shape);
  for (const d of shape as unknown[]) if (typeof d !== "number" || !Number.isSafeInteger(d) || d < 0) badShape(sizesKey, shape);
  const dims = shape as number[];
  if (!Number.isSafeInteger(storage.chunklen) || storage.chunklen < 1) {
    throw new FormatError("BAD_METADATA", "chunklen must be a positive integer", { path: storageKey, field: "chunklen", actual: storage.chunklen });
  }
  const atom = withPath(sizesKey, () => rowSize(storage.dtype, dims, sizesKey));
  if (!Number.isSafeInteger(dims[0]! * atom)) {
    throw new FormatError("SIZE_LIMIT", "array size exceeds 2^53 bytes", { path: sizesKey, field: "shape", actual: dims });
  }
  if (BigInt(sizes.nbytes) !== BigInt(dims[0]!) * BigInt(atom)) {
    throw new FormatError("INCONSISTENT", "nbytes is not length times row size", { path: sizesKey, field: "nbytes", expected: dims[0]! * atom, actual: sizes.nbytes });
  }
  const array = new CArray({
    store,
    path: base,
    dtype: storage.dtype,
    shape: dims,
    chunklen: storage.chunklen,
    cparams: storage.cparams,
    dflt: storage.dflt,
    expectedlen: storage.expectedlen,
    attrs,
    atomSize: atom,
    options,
    ...(journal === undefined ? {} : { journal }),
    ...(lock === undefined ? {} : { writer: { store: store as WritableStore, lock, cbytes: sizes.cbytes } }),
  });
  if (lock !== undefined) await array.loadLeftoverForWriting();
  return array;
}

/**
 * The options that govern how an array reads (limits, prefetch, cache, pool), picked out of any
 * options object so that a ctable hands the same ones to every column it opens or creates.
 * @internal
 */
export function readOptionsOf(options: OpenOptions): OpenOptions {
  const { maxReadBytes, maxChunksPerCall, prefetch, cacheBytes, workers } = options;
  return { maxReadBytes, maxChunksPerCall, prefetch, cacheBytes, workers };
}

/** Validates {@link OpenOptions}. */
export function checkOptions(options: OpenOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new UsageError("INVALID_ARGUMENT", "options must be an object", { field: "options", actual: options });
  }
  if (options.maxReadBytes !== undefined && (!Number.isSafeInteger(options.maxReadBytes) || options.maxReadBytes < 0)) {
    throw new UsageError("INVALID_ARGUMENT", "maxReadBytes must be a non-negative integer", { field: "maxReadBytes", actual: options.maxReadBytes });
  }
  if (options.maxChunksPerCall !== undefined && (!Number.isSafeInteger(options.maxChunksPerCall) || options.maxChunksPerCall < 0)) {
    throw new UsageError("INVALID_ARGUMENT", "maxChunksPerCall must be a non-negative integer", { field: "maxChunksPerCall", actual: options.maxChunksPerCall });
  }
  if (options.prefetch !== undefined && (!Number.isSafeInteger(options.prefetch) || options.prefetch < 0 || options.prefetch > 1024)) {
    throw new UsageError("INVALID_ARGUMENT", "prefetch must be an integer in [0, 1024]", { field: "prefetch", actual: options.prefetch });
  }
  if (options.cacheBytes !== undefined && (!Number.isSafeInteger(options.cacheBytes) || options.cacheBytes < 0)) {
    throw new UsageError("INVALID_ARGUMENT", "cacheBytes must be a non-negative integer", { field: "cacheBytes", actual: options.cacheBytes });
  }
  checkCodecPool(options.workers);
  if (options.mode !== undefined && options.mode !== "r" && options.mode !== "a" && options.mode !== "w") {
    throw new UsageError("INVALID_ARGUMENT", 'mode must be "r", "a" or "w"', { field: "mode", actual: options.mode });
  }
}
