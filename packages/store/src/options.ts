/**
 * The option and selector types of carrays and ctables, shared by the array, its writer and the
 * open functions (kept apart so that none of them imports another for a type).
 *
 * @example
 * ```ts
 * const options: OpenOptions = { mode: "a", cacheBytes: 0 };
 * ```
 * @module
 */
import type { ChunkCodecPool } from "@fmt/blosc";
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- WritableStore is the target of a {@link} in the docs below
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import type { Cparams, DType, JsonValue } from "@fmt/meta";
import type { ChunkLayoutWriter, LayoutGeometry } from "./layout.js";
import type { DatasetLock } from "./lock.js";
import type { ReadHelpers } from "./read-helpers.js";

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
   * Format 2 only: verify each chunk's stored checksum before decoding it (spec/v2.md §6). Default
   * `true`; `false` skips the comparison (a flipped bit then goes unnoticed).
   */
  verifyChecksums?: boolean;
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
   * at most `prefetch + 1` compressed chunks are held at a time; format 2 also loads the indexes
   * of up to `prefetch / 2` superchunks ahead). Default: the store's
   * `concurrency` hint (16 for the HTTP and S3 stores), else 4.
   */
  prefetch?: number;
  /**
   * Budget, in bytes, of the array's cache of decoded chunks, decoded Blosc blocks and chunk
   * headers, used by `get`, `getBytes`, `take` and `chunkBytes` (bulk reads copy from it but do
   * not fill it). Least recently used entries go first; every write through this array
   * invalidates what it changes. `0` turns the cache off. Default 4 MiB. Writes made through
   * another handle or process are not seen: reopen the array to see them. Format 2 adds, in up
   * to a quarter more, checksums of 2 KiB segments of chunks that single-row reads checked whole
   * (Adler-32 where the file checks its chunks with Adler-32, CRC-32 otherwise),
   * so that later rows of those chunks read a few segments instead of the whole chunk (bytes
   * that differ from the checked ones are never decoded; see spec/v2.md §6). Apart from it, the
   * readers of a thread keep up to 24 MiB of input buffers that their bulk reads gave back, until
   * the thread ends, for the next bulk read of any array to read files into (memory already
   * touched reads faster): stores that read into given buffers (`FileSystemStore` with `io:
   * "sync"`, `HttpStore`), reads without `workers`. Bulk reads from such stores read into the
   * decoder's WebAssembly memory instead when their slots fit in 32 MiB (an instance of the
   * kernels per pass; two of each kind, ordinary and shared, are kept for the thread's next
   * passes, beside the 24 MiB), where chunks decode without a copy in. Format 2 with a CRC-32
   * thread (`useCrc32Worker` of `@fmt/header/node`) reads into a shared memory there, which that
   * thread reads in place; with a thread that takes only transfers it reads into the 24 MiB
   * instead. An array with `cacheBytes: 0` uses neither and adds to neither.
   */
  cacheBytes?: number;
  /**
   * A pool of worker threads (`createBloscPool` of `@fmt/blosc/pool` in Node, `createWebBloscPool`
   * of `@fmt/blosc/pool-web` in browsers, or any {@link ChunkCodecPool}) that decodes runs of whole
   * chunks in parallel for multi-chunk reads and compresses the chunks this array writes, several
   * at once; without it both happen on the calling thread. Results and files are the same either
   * way. The caller owns the pool and closes it after the array. Writes gain from one worker even
   * on two cores (a pool with `compressLent` compresses into memory it recycles). Bulk reads
   * through a pool copy every chunk to a worker and every result back: from local files on a
   * machine with few cores they are slower than reads without one (measured on two cores, lz4 and
   * zstd alike; see `tools/bench/README.md`), so pass `workers` to the arrays you write, or where
   * decoding, not copying, is the bottleneck.
   */
  workers?: ChunkCodecPool;
  /**
   * Threads that do parts of whole-array reads beside this one (`createReadHelpers` of
   * `@fmt/store/node`, or any {@link ReadHelpers}): `CArray.sum` and `CArray.readInto` an array in
   * shared memory (a `SharedArrayBuffer`'s) are split by chunks, each helper reading and decoding
   * its own part of the files (the results are the same to the last bit: a sum's chunk sums are
   * added in chunk order). Used for datasets open read-only (`mode: "r"`) on a store the helpers
   * reach (a `FileSystemStore`), in calls over at least the helpers' `minChunks` chunks; other
   * calls run on this thread alone. Measured on two cores: a sum took 0.7–0.9 of one thread's
   * time, a read into shared memory 0.55–0.8 of a `read()`'s (`tools/bench/README.md`). The
   * caller owns the helpers and closes them after the datasets.
   */
  helpers?: ReadHelpers;
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
  /**
   * Hand out each block in memory that a later block reuses (default false): a block is then
   * valid only until the next one is asked for. Saves allocating (and collecting) one buffer per
   * block for loops that are done with a block when they ask for the next. Applies to `step` 1.
   * Blocks may be views of the decoder's WebAssembly memory (a `SharedArrayBuffer` for format 2
   * read with a CRC-32 thread): a block kept after leaving the loop early keeps that memory (a few
   * MiB) from later reads, and its `buffer` cannot be transferred.
   */
  reuse?: boolean;
  /**
   * With `reuse`: the caller uses no block once it leaves the loop (as `where` of a table does),
   * so the memory the blocks lie in serves later reads at once, also after an early exit.
   * @internal
   */
  blocksUnusedAfterLoop?: boolean;
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
  /**
   * The rows' bytes, C order, in the dtype's byte order ({@link CArray.readBytes}); often a view
   * into a decoded chunk (mind `byteOffset` when viewing it as another typed array; a block kept
   * keeps its whole chunk in memory: `slice()` the few rows worth keeping).
   */
  bytes: Uint8Array;
  /** Row step of the selection (present only when iterating with `step > 1`; then `bytes` holds rows start, start+step, …). */
  step?: number;
}


/**
 * What an array is built from: its metadata (either format version) and its chunk layout.
 * @internal
 */
export interface CArrayInit {
  store: ReadableStore;
  path: string;
  formatVersion: 1 | 2;
  dtype: DType;
  shape: number[];
  chunklen: number;
  cparams: Cparams;
  dflt: JsonValue;
  expectedlen: number | bigint;
  attrs: { [key: string]: JsonValue };
  atomSize: number;
  options: OpenOptions;
  /** Builds the array's chunk layout (format 1 or 2) once the array can say its committed length. */
  layout: (geometry: LayoutGeometry) => ChunkLayoutWriter;
  /** Format 2: the superchunk settings of `meta/storage`. */
  superchunks?: SuperchunkSettings;
  /** Present when opened for writing. */
  writer?: { lock: DatasetLock; cbytes: number | bigint };
}

/**
 * The format-2 settings of a carray (`meta/storage`, spec/v2.md §10.1).
 *
 * @example
 * ```ts
 * const s: SuperchunkSettings = { superchunksize: 128, checksum: "adler32", spare: 10 };
 * ```
 */
export interface SuperchunkSettings {
  /** Chunks per superchunk file. */
  superchunksize: number;
  /** Checksum written after each chunk of new superchunks. */
  checksum: "none" | "adler32" | "crc32" | "md5" | "sha1" | "sha224" | "sha256" | "sha384" | "sha512";
  /** Spare room percentage of new slots. */
  spare: number;
}

