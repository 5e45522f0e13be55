import type { Cparams, DType, JsonValue } from "@fmt/meta";
import type { ReadableStore } from "@fmt/fs-adapters";
import { decodeValues, entriesPerElement } from "@fmt/expr";
import type { Scalar, StoredComparison, TypedValues, Values } from "@fmt/expr";
import { normalizeSlice } from "./internal.js";
import { callLimits } from "./limits.js";
import type { CallLimits } from "./limits.js";
import { compareStoredOf } from "./carray-compare.js";
import type { ComparedRows } from "./carray-compare.js";
import { ChunkReader } from "./carray-read.js";
import { checkChunkIndex, checkIndex, checkTrim, requireWriter } from "./carray-checks.js";
import { ArrayExtent, ArrayScan, readerSettings, writerAccess } from "./carray-parts.js";
import { extremeOf, iterBlocksOf, partialSumOf, readBytesOf, readIntoOf, readPartOf, readSteppedOf, sumOf, takeBytesOf } from "./carray-scan.js";
import type { PartialSum } from "./carray-scan.js";
import { helpedRead, helpedSum, helperDatasetOf } from "./read-helpers.js";
import type { HelperDataset } from "./read-helpers.js";
import { AttrStore } from "./attr-store.js";
import { CarrayWriter } from "./carray-writer.js";
import type { ArrayInput, ElementInput, RawRows, ValuesBlock } from "./carray-encode.js";
import type { ChunkLayoutWriter } from "./layout.js";
import type { CArrayInit, IterBlocksOptions, RowBlock, Selector, SuperchunkSettings } from "./options.js";

export type { CArrayInit, SuperchunkSettings } from "./options.js";

/**
 * A bcolz carray: an N-dimensional array kept as Blosc chunks of `chunklen` rows, in format 1
 * one `data/__<k>.blp` file per chunk (bcolz 1.x), in format 2 superchunk files
 * `data/__<s>__.bin` of many chunks each (spec/v2.md). {@link openCarray} opens one, read-only or
 * for writing (`mode: "a"`); {@link createCarray} makes one.
 *
 * The length comes only from the committed metadata (`meta/sizes` in format 1, `meta/shape` in
 * format 2): chunks `0 … nchunks−1` are full and, when `length % chunklen ≠ 0`, one more holds the
 * `leftoverRows`; chunks beyond are ignored (bcolz leaves stale files behind). Chunks are read
 * lazily, when rows are requested. A chunk whose Blosc `nbytes` is not its rows × `atomSize` is
 * `FormatError` `INCONSISTENT`, a missing file `MISSING_FILE`; every error names the store key of
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
  /** The format version of the dataset: 1 (bcolz 1.x, chunk files) or 2 (superchunks). */
  readonly formatVersion: 1 | 2;
  /** Format 2: the superchunk settings of `meta/storage`; `undefined` in format 1. */
  readonly superchunks: Readonly<SuperchunkSettings> | undefined;
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
  readonly #limits: CallLimits;
  /** The shape (`#shape` is `#extent.shape`) and the writer, as the reader and layout see them. */
  readonly #extent: ArrayExtent;
  readonly #shape: number[];
  readonly #layout: ChunkLayoutWriter;
  readonly #reader: ChunkReader;
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
    this.formatVersion = init.formatVersion;
    this.superchunks = init.superchunks === undefined ? undefined : Object.freeze({ ...init.superchunks });
    this.dtype = init.dtype;
    this.#extent = new ArrayExtent([...init.shape], init);
    this.#shape = this.#extent.shape;
    this.chunklen = init.chunklen;
    this.cparams = init.cparams;
    this.dflt = init.dflt;
    this.expectedlen = init.expectedlen;
    this.atomSize = init.atomSize;
    this.itemsPerRow = init.shape.slice(1).reduce((a, b) => a * b, 1);
    this.#limits = callLimits(init.options);
    // The layout checks files against the committed length: what is on the store.
    this.#layout = init.layout(this.#extent.committed);
    this.#reader = new ChunkReader(readerSettings(init, this.#layout), this.#extent);
    this.#writer = init.writer === undefined ? undefined : new CarrayWriter(this, writerAccess(this.#reader, (n) => {
      this.#shape[0] = n;
    }), { layout: this.#layout, lock: init.writer.lock, cbytes: init.writer.cbytes, workers: init.options.workers });
    this.attrs = new AttrStore(init.attrs, this.path, () => this.#writer);
  }

  /** The array's writer while it has one: kept in `#extent`, where the reader and layout see it. */
  get #writer(): CarrayWriter | undefined {
    return this.#extent.writer;
  }

  set #writer(writer: CarrayWriter | undefined) {
    this.#extent.writer = writer;
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
    await requireWriter(this, this.#writer).append(values);
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
    await requireWriter(this, this.#writer).set(selector, values);
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
    await requireWriter(this, this.#writer).resize(n);
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
    await this.resize(this.length - checkTrim(this, n));
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
   * `UsageError` `INVALID_ARGUMENT` for S, U and datetime dtypes. With the `helpers` option, helper
   * threads sum the later chunks (the same result; see the `helpers` option of {@link openCarray}).
   *
   * @example
   * ```ts
   * await a.sum(); // 4950 for 0..99
   * ```
   */
  async sum(): Promise<number | bigint> {
    return sumOf(this.#scan(), (integral, sumHere) => helpedSum(this.#init.options.helpers, this.store, this.#helperDataset(), this.#writer === undefined, integral, sumHere));
  }

  /** A helper's part of {@link CArray.sum}: rows `[start, stop)` as a {@link PartialSum}. @internal */
  partialSum(start: number, stop: number): Promise<PartialSum> {
    return partialSumOf(this.#scan(), start, stop);
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
    return extremeOf(this.#scan(), -1);
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
    return extremeOf(this.#scan(), 1);
  }

  /**
   * Chunk `i` as stored: its checked Blosc bytes (container stripped, checksum verified), the rows
   * it holds for this array's length, and those rows decoded. For conversions that copy chunks
   * byte for byte. @internal
   */
  async storedChunk(i: number): Promise<{ chunk: Uint8Array; rows: number; exact: boolean; decoded: Uint8Array }> {
    checkChunkIndex(this, i);
    const loaded = await this.#reader.loadChunk(i);
    const decoded = this.#reader.decodeRows(loaded, 0, loaded.rows);
    return { chunk: loaded.chunk, rows: loaded.rows, exact: loaded.storedNbytes === loaded.nbytes && loaded.decoded === undefined, decoded };
  }

  /** Appends a chunk exactly as stored (see {@link CArray.storedChunk}). @internal */
  async appendStoredChunk(chunk: Uint8Array, rows: number, decoded: Uint8Array): Promise<void> {
    await requireWriter(this, this.#writer).appendStoredChunk(chunk, rows, decoded);
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

  /**
   * After opening for writing: the layout's own recovery (format 2, spec/v2.md §13.1), then the
   * leftover chunk into the writer's memory. @internal
   */
  async prepareForWriting(): Promise<void> {
    if (this.#writer === undefined) return;
    await this.#layout.recover();
    await this.#writer.loadLeftover();
  }

  /**
   * Format 2: rewrites every superchunk that holds dead space (left by relocations and
   * interrupted writes) with its chunks in order and fresh spare room, each file by one atomic
   * replacement (spec/v2.md §13.6), and resolves to the number of bytes reclaimed. Flushes first.
   * Format 1 has no dead space: resolves to 0. Needs the array open for writing.
   *
   * @example
   * ```ts
   * const a = await openCarray(store, "prices.bcolz", { mode: "a" });
   * console.log(await a.compact(), "bytes reclaimed");
   * await a.close();
   * ```
   */
  async compact(): Promise<number> {
    const writer = requireWriter(this, this.#writer);
    await writer.flush();
    const reclaimed = await this.#layout.compact();
    this.#reader.cache.invalidateFrom(0);
    return reclaimed;
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
   * Store key of the file holding chunk `i`, prefixed by the array's path: `"data/__3.blp"` in
   * format 1, the superchunk `"data/__1__.bin"` in format 2.
   *
   * @example
   * ```ts
   * a.chunkKey(0); // "data/__0.blp" or "data/__1__.bin"
   * ```
   */
  chunkKey(i: number): string {
    return this.#layout.keyOf(i);
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
    checkChunkIndex(this, i);
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
    checkChunkIndex(this, i);
    const cached = this.#reader.cache.chunk(i);
    if (cached !== undefined) return cached.slice(0, this.chunkRows(i) * this.atomSize);
    const loaded = await this.#reader.loadChunk(i);
    return this.#reader.decodeRows(loaded, 0, loaded.rows);
  }

  /**
   * Raw bytes of rows `[start, stop)` in C order and stored byte order. Both bounds must be
   * integers with `0 ≤ start ≤ stop ≤ length` (else `UsageError` `OUT_OF_RANGE`); only the chunk
   * files that hold those rows are read, and partial chunks decode only the Blosc blocks needed.
   * A result of 32 MiB or more views the start of a buffer less than 2 MiB longer (`byteOffset`
   * 0, an odd `buffer.byteLength`), allocated so that Linux can back it with huge pages
   * (result-memory.ts): use the result's `byteLength`, not its buffer's. `read` and
   * `CTable.readColumn` return views of that buffer too, unless they swap bytes or convert.
   *
   * @example
   * ```ts
   * const bytes = await a.readBytes(100, 200); // 100 × atomSize bytes
   * ```
   */
  async readBytes(start = 0, stop: number = this.length): Promise<Uint8Array> {
    return readBytesOf(this.#scan(), start, stop);
  }

  /** What a helper thread checks of its own opening of this array. */
  #helperDataset(): HelperDataset {
    return helperDatasetOf(this, this.#init.options.verifyChecksums !== false, this.#limits);
  }

  /** A helper's part of a read: stored bytes of rows `[start, stop)` into `out` (exactly their size). @internal */
  readPart(out: Uint8Array, start: number, stop: number): Promise<void> {
    return readPartOf(this.#scan(), out, start, stop);
  }

  /**
   * Reads rows `[start, stop)` into `out`, a typed array of the class {@link CArray.read}
   * returns for this dtype (`Float64Array` for `<f8`, `BigInt64Array` for `<i8` and datetimes,
   * `Uint8Array` for `|u1` and `|b1`, …) holding exactly the rows' elements
   * (`(stop − start) × itemsPerRow`, doubled for complex). Values end up in the platform's byte
   * order, as `read` gives them; chunks are decoded straight into `out`. Bounds as
   * {@link CArray.readBytes}. A dtype without such an array (`S`, `U`, `V`, `f2`) or an `out`
   * of another class or size throws `UsageError` `INVALID_ARGUMENT`. With the `helpers` option
   * and an `out` in a `SharedArrayBuffer`, helper threads read the later chunks straight into it.
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
    await readIntoOf(this.#scan(), out, start, stop, (bytes, readHere) => helpedRead(this.#init.options.helpers, this.store, this.#helperDataset(), this.#writer === undefined, bytes, start, stop, readHere));
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
    return takeBytesOf(this.#scan(), indices);
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
   * JavaScript type used per dtype; a typed result of 32 MiB or more may view the start of a
   * longer buffer (see {@link CArray.readBytes}).
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
    return decodeValues(await readSteppedOf(this.#scan(), s.start, s.stop, s.step), this.dtype);
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
    return this.#reader.rowBytes(checkIndex(this, index));
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
    yield* iterBlocksOf(this.#scan(), blockLenOrOptions, start, stop);
  }

  /**
   * Rows `[start, stop)` compared with a constant as they are stored (`CTable.compareColumn`, see
   * `compareStoredOf`). @internal
   *
   * @example
   * ```ts
   * await a.compareStored({ column: "", op: ">", value: 2.5 }, { start: 0, stop: a.length, masks: false }, (first, n) => (count += n));
   * ```
   */
  compareStored(comparison: StoredComparison, options: { start: number; stop: number; masks: boolean }, visit: ComparedRows): Promise<boolean> {
    return compareStoredOf(this.#scan(), comparison, options, visit);
  }

  /** The array's state as the scans of `carray-scan.ts` need it. */
  #scan(): ArrayScan {
    return new ArrayScan(this, this.#reader, this.#limits, this.#writer !== undefined);
  }
}
