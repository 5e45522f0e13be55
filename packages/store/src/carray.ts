import { FormatError, UsageError } from "@fmt/errors";
import { BLPK_V1_HEADER_SIZE, readBlpkV1Header, readChunkHeader } from "@fmt/header";
import { decompress, decompressInto, decompressRange } from "@fmt/blosc";
import { atomSize as rowSize, parseAttrs, parseSizes, parseStorage } from "@fmt/meta";
import type { Cparams, DType, JsonValue } from "@fmt/meta";
import { readRange } from "@fmt/fs-adapters";
import type { ReadableStore } from "@fmt/fs-adapters";
import { checkDatasetPath, checkInteger, joinKey, normalizeSlice, readText, withPath } from "./internal.js";
import { decodeValues, entriesPerElement } from "./values.js";
import type { Scalar, Values } from "./values.js";

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
   * Largest result, in bytes, that one `readBytes`/`read`/`readRows` call or one `iterBlocks`
   * block may allocate; larger requests throw `UsageError` `SIZE_LIMIT` (read in pieces with
   * `iterBlocks` instead). Default 2^31 − 1.
   */
  maxReadBytes?: number;
  /** How many chunk files are fetched ahead of the one being decoded in sequential reads. Default 4. */
  prefetch?: number;
}

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
}

interface LoadedChunk {
  index: number;
  key: string;
  chunk: Uint8Array;
  /** Absolute row of the chunk's first row. */
  firstRow: number;
  rows: number;
  nbytes: number;
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
}

const DEFAULT_MAX_READ_BYTES = 2 ** 31 - 1;
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
  /** Shape (from `meta/sizes`): `[length, ...trailing dimensions]`. */
  readonly shape: readonly number[];
  /** Number of rows, `shape[0]`. */
  readonly length: number;
  /** Rows per chunk (from `meta/storage`). */
  readonly chunklen: number;
  /** Compression parameters recorded in `meta/storage` (the chunk headers are authoritative for decoding). */
  readonly cparams: Cparams;
  /** Fill value recorded in `meta/storage`. */
  readonly dflt: JsonValue;
  /** `expectedlen` recorded in `meta/storage` (informational). */
  readonly expectedlen: number | bigint;
  /** User attributes from `__attrs__` (`{}` when the file is missing). */
  readonly attrs: { [key: string]: JsonValue };
  /** Number of full chunks, `floor(length / chunklen)`. */
  readonly nchunks: number;
  /** Rows in the leftover chunk, `length % chunklen` (0 = no leftover chunk file is read). */
  readonly leftoverRows: number;
  /** Bytes per row: itemsize × product of the trailing dimensions. */
  readonly atomSize: number;
  /** Uncompressed size of all rows, `length × atomSize`. */
  readonly nbytes: number;
  /** Elements per row: product of the trailing dimensions. */
  readonly itemsPerRow: number;
  readonly #maxReadBytes: number;
  readonly #prefetch: number;

  /**
   * Use {@link openCarray} or {@link open}; this constructor trusts already validated metadata.
   * @internal
   */
  constructor(init: CArrayInit) {
    this.store = init.store;
    this.path = init.path;
    this.dtype = init.dtype;
    this.shape = Object.freeze([...init.shape]);
    this.length = init.shape[0]!;
    this.chunklen = init.chunklen;
    this.cparams = init.cparams;
    this.dflt = init.dflt;
    this.expectedlen = init.expectedlen;
    this.attrs = init.attrs;
    this.atomSize = init.atomSize;
    this.nchunks = Math.floor(this.length / this.chunklen);
    this.leftoverRows = this.length % this.chunklen;
    this.nbytes = this.length * this.atomSize;
    this.itemsPerRow = init.shape.slice(1).reduce((a, b) => a * b, 1);
    this.#maxReadBytes = init.options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    this.#prefetch = init.options.prefetch ?? 4;
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
    const loaded = await this.#loadChunk(i);
    return this.#decodeRows(loaded, 0, loaded.rows);
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
    const out = this.#allocate(stop - start);
    if (out.length === 0) return out;
    const first = Math.floor(start / this.chunklen);
    const last = Math.floor((stop - 1) / this.chunklen);
    if (out.length > PRECHECK_BYTES) await this.#precheckChunk(last);
    for await (const loaded of this.#chunksInOrder(range(first, last + 1))) {
      const from = Math.max(start, loaded.firstRow) - loaded.firstRow;
      const to = Math.min(stop, loaded.firstRow + loaded.rows) - loaded.firstRow;
      this.#decodeRowsInto(loaded, from, to, out, (loaded.firstRow + from - start) * this.atomSize);
    }
    return out;
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
    const i = this.#checkIndex(index);
    const chunkIndex = Math.floor(i / this.chunklen);
    const loaded = await this.#loadChunk(chunkIndex);
    const row = i - loaded.firstRow;
    return this.#decodeRows(loaded, row, row + 1);
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
   * Rows `[start, stop)` in consecutive blocks of stored bytes. Block boundaries fall on
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
  async *iterBlocks(blockLen: number = this.chunklen, start = 0, stop: number = this.length): AsyncGenerator<RowBlock, void, undefined> {
    checkInteger(blockLen, "blockLen");
    if (blockLen < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: blockLen });
    this.#checkBounds(start, stop);
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

  #allocate(rows: number): Uint8Array {
    return new Uint8Array(this.#checkAllocation(rows));
  }

  async #readStepped(start: number, stop: number, step: number): Promise<Uint8Array> {
    const count = Math.ceil((stop - start) / step);
    const out = this.#allocate(count);
    if (count === 0 || out.length === 0) return out;
    const lastRow = start + (count - 1) * step;
    const needed: number[] = [];
    for (let k = Math.floor(start / this.chunklen); k <= Math.floor(lastRow / this.chunklen); k++) {
      const chunkStart = k * this.chunklen;
      const firstSelected = chunkStart <= start ? start : start + Math.ceil((chunkStart - start) / step) * step;
      if (firstSelected < chunkStart + this.chunklen && firstSelected <= lastRow) needed.push(k);
    }
    if (out.length > PRECHECK_BYTES) await this.#precheckChunk(needed[needed.length - 1]!);
    const atom = this.atomSize;
    for await (const loaded of this.#chunksInOrder(needed)) {
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

  /** Reads chunk file `index` and checks its container header and Blosc nbytes. */
  async #loadChunk(index: number): Promise<LoadedChunk> {
    const key = this.chunkKey(index);
    const rows = index < this.nchunks ? this.chunklen : this.leftoverRows;
    const file = await this.store.get(key);
    if (file === undefined) {
      throw new FormatError("MISSING_FILE", `chunk file ${index} is missing`, { path: key, field: "file", expected: `${rows} rows` });
    }
    return withPath(key, () => {
      readBlpkV1Header(file, key);
      const chunk = file.subarray(BLPK_V1_HEADER_SIZE);
      const header = readChunkHeader(chunk, key);
      const nbytes = rows * this.atomSize;
      if (header.nbytes !== nbytes) {
        throw new FormatError("INCONSISTENT", `chunk holds ${header.nbytes} bytes, the metadata says ${rows} rows of ${this.atomSize} bytes`, {
          path: key,
          field: "blosc.nbytes",
          expected: nbytes,
          actual: header.nbytes,
        });
      }
      return { index, key, chunk: chunk.subarray(0, header.cbytes), firstRow: index * this.chunklen, rows, nbytes };
    });
  }

  /**
   * Before allocating a large result, make sure the last chunk it needs exists and announces
   * the right size, so that a `meta/sizes` claiming too many rows fails before the allocation.
   */
  async #precheckChunk(index: number): Promise<void> {
    const key = this.chunkKey(index);
    const head = await readRange(this.store, key, { offset: 0, length: BLPK_V1_HEADER_SIZE + 16 });
    if (head === undefined) throw new FormatError("MISSING_FILE", `chunk file ${index} is missing`, { path: key, field: "file" });
    withPath(key, () => readBlpkV1Header(head, key));
    if (head.length < BLPK_V1_HEADER_SIZE + 16) {
      throw new FormatError("TRUNCATED", "chunk file ends inside the Blosc header", { path: key, field: "blosc.header", expected: BLPK_V1_HEADER_SIZE + 16, actual: head.length });
    }
    const nbytes = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(BLPK_V1_HEADER_SIZE + 4, true);
    const expected = (index < this.nchunks ? this.chunklen : this.leftoverRows) * this.atomSize;
    if (nbytes !== expected) {
      throw new FormatError("INCONSISTENT", "chunk size disagrees with the metadata", { path: key, field: "blosc.nbytes", expected, actual: nbytes });
    }
  }

  /** Chunk files in the given order, fetched `prefetch` ahead. */
  async *#chunksInOrder(indices: Iterable<number>): AsyncGenerator<LoadedChunk, void, undefined> {
    const iterator = indices[Symbol.iterator]();
    const window: Promise<LoadedChunk>[] = [];
    const fill = (): void => {
      while (window.length <= this.#prefetch) {
        const next = iterator.next();
        if (next.done === true) return;
        const pending = this.#loadChunk(next.value);
        pending.catch(() => undefined); // awaited below; this only keeps an early exit quiet
        window.push(pending);
      }
    };
    fill();
    while (window.length > 0) {
      const pending = window.shift()!;
      fill();
      yield await pending;
    }
  }

  #options(loaded: LoadedChunk): { path: string; maxBytes: number } {
    return { path: loaded.key, maxBytes: loaded.nbytes };
  }

  /** Decoded bytes of rows [from, to) of a loaded chunk (relative rows). */
  #decodeRows(loaded: LoadedChunk, from: number, to: number): Uint8Array {
    return withPath(loaded.key, () => {
      const expected = (to - from) * this.atomSize;
      const bytes =
        from === 0 && to === loaded.rows
          ? decompress(loaded.chunk, this.#options(loaded))
          : decompressRange(loaded.chunk, from * this.atomSize, to * this.atomSize, this.#options(loaded));
      if (bytes.length !== expected) {
        throw new FormatError("CORRUPT_STREAM", "chunk decoded to an unexpected size", { path: loaded.key, field: "blosc.nbytes", expected, actual: bytes.length });
      }
      return bytes;
    });
  }

  #decodeRowsInto(loaded: LoadedChunk, from: number, to: number, out: Uint8Array, offset: number): void {
    if (from === 0 && to === loaded.rows) {
      withPath(loaded.key, () => {
        const written = decompressInto(loaded.chunk, out.subarray(offset, offset + loaded.nbytes), this.#options(loaded));
        if (written !== loaded.nbytes) {
          throw new FormatError("CORRUPT_STREAM", "chunk decoded to an unexpected size", { path: loaded.key, field: "blosc.nbytes", expected: loaded.nbytes, actual: written });
        }
      });
      return;
    }
    out.set(this.#decodeRows(loaded, from, to), offset);
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
 * `{}`); chunk files are read later, on demand.
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
 * ```
 */
export async function openCarray(store: ReadableStore, path = "", options: OpenOptions = {}): Promise<CArray> {
  const base = checkDatasetPath(path);
  checkOptions(options);
  const storageKey = joinKey(base, "meta/storage");
  const sizesKey = joinKey(base, "meta/sizes");
  const attrsKey = joinKey(base, "__attrs__");
  const [storageText, sizesText, attrsText] = await Promise.all([readText(store, storageKey), readText(store, sizesKey), readText(store, attrsKey)]);
  if (storageText === undefined) throw new FormatError("MISSING_FILE", "not a bcolz carray: meta/storage is missing", { path: storageKey, field: "file" });
  if (sizesText === undefined) throw new FormatError("MISSING_FILE", "meta/sizes is missing", { path: sizesKey, field: "file" });
  const storage = withPath(storageKey, () => parseStorage(storageText, storageKey));
  const sizes = withPath(sizesKey, () => parseSizes(sizesText, sizesKey));
  const attrs = attrsText === undefined ? {} : withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));

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
  return new CArray({
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
  });
}

/** Validates {@link OpenOptions}. */
export function checkOptions(options: OpenOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new UsageError("INVALID_ARGUMENT", "options must be an object", { field: "options", actual: options });
  }
  if (options.maxReadBytes !== undefined && (!Number.isSafeInteger(options.maxReadBytes) || options.maxReadBytes < 0)) {
    throw new UsageError("INVALID_ARGUMENT", "maxReadBytes must be a non-negative integer", { field: "maxReadBytes", actual: options.maxReadBytes });
  }
  if (options.prefetch !== undefined && (!Number.isSafeInteger(options.prefetch) || options.prefetch < 0 || options.prefetch > 1024)) {
    throw new UsageError("INVALID_ARGUMENT", "prefetch must be an integer in [0, 1024]", { field: "prefetch", actual: options.prefetch });
  }
}
