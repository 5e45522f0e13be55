/**
 * Opening a carray in either format version: the version dispatch of spec/v2.md §3.1, the
 * metadata of each version turned into one description of the array (dtype, shape, chunklen,
 * cparams, attrs) plus its chunk layout, and the checks of the options every open takes.
 *
 * @example
 * ```ts
 * const a = await openCarray(store, "prices.bcolz");
 * a.formatVersion; // 1 or 2
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { initCompression, initZstd } from "@fmt/blosc";
import { checksumKindByName } from "@fmt/header";
import { atomSize as rowSize, isStorableDtype, parseAttrs, parseJournalV2, parseShapeV2, parseSizes, parseStorage, parseStorageV2, storageFormatVersion } from "@fmt/meta";
import type { DType, JsonObject } from "@fmt/meta";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { CArray } from "./carray.js";
import type { CArrayInit } from "./carray.js";
import { checkCodecPool } from "./chunk-writes.js";
import { checkDatasetPath, joinKey, readText, withPath, pathAndOptions } from "./internal.js";
import { JOURNAL_FILE, LayoutV1, readJournal, recoverV1 } from "./layout-v1.js";
import { LayoutV2 } from "./layout-v2.js";
import { DatasetLock } from "./lock.js";
import { checkReadHelpers } from "./read-helpers.js";
import type { OpenOptions } from "./options.js";

function badShape(key: string, shape: unknown): never {
  throw new FormatError("BAD_METADATA", "shape must be a non-empty list of non-negative integers", { path: key, field: "shape", actual: shape });
}

/**
 * Opens the carray whose directory is `path` in `store` (`""` = the store root), in either
 * format version: `meta/storage` decides (spec/v2.md §3.1). Reads and validates `meta/storage`,
 * the length (`meta/sizes` in format 1, `meta/shape` in format 2) and `__attrs__`; chunks are
 * read later, on demand. If a writer was interrupted in the middle of a multi-chunk update (a
 * `.journal` file exists), the chunks it lists are read from their staged `.next` files when
 * present, so the update appears complete.
 *
 * `options.mode` `"a"` or `"w"` opens for writing (see {@link OpenOptions.mode}): the store must
 * be a {@link WritableStore} (`UsageError` `INVALID_ARGUMENT` otherwise), the lock
 * `<path>/.lock` is taken (`ConflictError` `LOCKED` if another writer holds it), an interrupted
 * update is finished, and the array must be closed with {@link CArray.close}.
 *
 * Errors: `FormatError` `MISSING_FILE` (no `meta/storage`, no length file), `UNSUPPORTED_VERSION`, the parse errors of
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
export async function openCarray(store: ReadableStore | WritableStore, options?: OpenOptions): Promise<CArray>;
export async function openCarray(store: ReadableStore | WritableStore, path?: string, options?: OpenOptions): Promise<CArray>;
export async function openCarray(store: ReadableStore | WritableStore, pathOrOptions: string | OpenOptions = "", maybeOptions?: OpenOptions): Promise<CArray> {
  const [path, options] = pathAndOptions(pathOrOptions, maybeOptions);
  return openCarrayAt(store, checkDatasetPath(path), options);
}

/**
 * {@link openCarray} of a checked path, with the text of its `meta/storage` when the caller has
 * read it already (a ctable telling its column kinds apart), so that it is not fetched again.
 * @internal
 */
export async function openCarrayAt(store: ReadableStore | WritableStore, base: string, options: OpenOptions, storageText?: string): Promise<CArray> {
  checkOptions(options);
  const mode = options.mode ?? "r";
  if (mode === "r") return openCarrayWith(store, base, options, undefined, storageText);
  const writable = requireWritableStore(store);
  const lock = await DatasetLock.acquire(writable, base, { breakLock: options.breakLock === true });
  try {
    const array = await openCarrayWith(writable, base, options, lock, storageText);
    if (mode === "w") await array.resize(0);
    return array;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

// The SIMD kernels, loaded once for every writer; the zstd encoder (~0.1 s to load) only for a
// writer of zstd chunks (see openCarrayWith).
let kernelsReady: Promise<void> | undefined;

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
export async function openCarrayWith(store: ReadableStore, base: string, options: OpenOptions, lock: DatasetLock | undefined, knownStorage?: string): Promise<CArray> {
  if (lock !== undefined) {
    // In browsers the SIMD kernels load asynchronously, once.
    kernelsReady ??= initCompression({ zstd: false });
    await kernelsReady;
  }
  const storageKey = joinKey(base, "meta/storage");
  // meta/storage is written at creation only: a text the caller read is still the file's.
  const storageText = knownStorage ?? (await readText(store, storageKey));
  if (storageText === undefined) throw new FormatError("MISSING_FILE", "not a bcolz carray: meta/storage is missing", { path: storageKey, field: "file" });
  const version = withPath(storageKey, () => storageFormatVersion(storageText, storageKey));
  const init = version === 1 ? await readV1(store, base, storageText, lock) : await readV2(store, base, storageText, options, lock);
  // A writer compresses with the array's own cparams only, so only a zstd array needs the encoder
  // (loaded once per thread; a failed load is retried by the next writer that needs it).
  if (lock !== undefined && init.cparams.cname === "zstd") await initZstd();
  const array = new CArray({ ...init, store, path: base, options, ...(lock === undefined ? {} : { writer: { lock, cbytes: init.cbytes } }) });
  if (lock !== undefined) await array.prepareForWriting();
  return array;
}

type FormatInit = Pick<CArrayInit, "formatVersion" | "dtype" | "shape" | "chunklen" | "cparams" | "dflt" | "expectedlen" | "attrs" | "atomSize" | "layout" | "superchunks"> & { cbytes: number | bigint };

/** Checks the shape and row size shared by both versions; returns the row size. */
function checkShape(dtype: DType, shape: unknown, chunklen: number, key: string, storageKey: string): number {
  if (!Array.isArray(shape) || shape.length < 1) badShape(key, shape);
  for (const d of shape as unknown[]) if (typeof d !== "number" || !Number.isSafeInteger(d) || d < 0) badShape(key, shape);
  const dims = shape as number[];
  if (!Number.isSafeInteger(chunklen) || chunklen < 1) {
    throw new FormatError("BAD_METADATA", "chunklen must be a positive integer", { path: storageKey, field: "chunklen", actual: chunklen });
  }
  const atom = withPath(key, () => rowSize(dtype, dims, key));
  if (!Number.isSafeInteger(dims[0]! * atom)) {
    throw new FormatError("SIZE_LIMIT", "array size exceeds 2^53 bytes", { path: key, field: "shape", actual: dims });
  }
  return atom;
}

/** The dataset's `__attrs__` from its text as read (`undefined`: the file is missing). */
function attrsOf(base: string, attrsText: string | undefined): JsonObject {
  const attrsKey = joinKey(base, "__attrs__");
  if (attrsText === undefined) throw new FormatError("MISSING_FILE", "__attrs__ is missing (bcolz cannot open a dataset without it)", { path: attrsKey, field: "file" });
  return withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
}

/** Format 1: `meta/storage` in bcolz spelling, `meta/sizes`, `__attrs__`, chunk files (spec/v1.md). */
async function readV1(store: ReadableStore, base: string, storageText: string, lock: DatasetLock | undefined): Promise<FormatInit> {
  if (lock !== undefined) await recoverV1(store as WritableStore, base);
  const storageKey = joinKey(base, "meta/storage");
  const sizesKey = joinKey(base, "meta/sizes");
  // The three files at once: a remote store pays one round trip instead of three.
  // The three files at once (a remote store pays one round trip instead of three), checked in
  // the order of the spec, so that the error a broken dataset gives does not depend on timing.
  const [journal, sizesText, attrsText] = await settledInOrder([
    lock === undefined ? readJournal(store, joinKey(base, JOURNAL_FILE)) : Promise.resolve(undefined),
    readText(store, sizesKey),
    readText(store, joinKey(base, "__attrs__")),
  ] as const);
  if (sizesText === undefined) throw new FormatError("MISSING_FILE", "meta/sizes is missing", { path: sizesKey, field: "file" });
  const storage = withPath(storageKey, () => parseStorage(storageText, storageKey));
  const sizes = withPath(sizesKey, () => parseSizes(sizesText, sizesKey));
  const attrs = attrsOf(base, attrsText);
  if (!isStorableDtype(storage.dtype)) {
    // Complex and timedelta64 parse as numpy dtypes, but bcolz 1.x cannot save them; void and
    // structured dtypes, and datetimes without a unit or with a multiplier, do not survive its
    // metadata (spec/v1.md §13): no format-version-1 dataset holds one.
    throw new FormatError("UNSUPPORTED_DTYPE", `bcolz 1.x cannot store dtype ${storage.dtype.str}`, { path: storageKey, field: "dtype", expected: "a dtype of spec/v1.md §13", actual: storage.dtype.bcolzName });
  }
  const atom = checkShape(storage.dtype, sizes.shape, storage.chunklen, sizesKey, storageKey);
  const dims = sizes.shape;
  if (BigInt(sizes.nbytes) !== BigInt(dims[0]!) * BigInt(atom)) {
    throw new FormatError("INCONSISTENT", "nbytes is not length times row size", { path: sizesKey, field: "nbytes", expected: dims[0]! * atom, actual: sizes.nbytes });
  }
  return {
    formatVersion: 1, dtype: storage.dtype, shape: dims, chunklen: storage.chunklen, cparams: storage.cparams, dflt: storage.dflt, expectedlen: storage.expectedlen,
    attrs, atomSize: atom, cbytes: sizes.cbytes, layout: (geometry) => new LayoutV1(store, geometry, journal),
  };
}

/** Format 2: `meta/storage` (§10.1), `meta/shape`, `__attrs__`, `.journal`, superchunks (spec/v2.md §10). */
async function readV2(store: ReadableStore, base: string, storageText: string, options: OpenOptions, lock: DatasetLock | undefined): Promise<FormatInit> {
  const storageKey = joinKey(base, "meta/storage");
  const storage = withPath(storageKey, () => parseStorageV2(storageText, storageKey));
  if (storage.kind !== "carray") {
    throw new FormatError("BAD_METADATA", `not a carray: meta/storage says kind "${storage.kind}"`, { path: storageKey, field: "/kind", expected: "carray", actual: storage.kind });
  }
  const shapeKey = joinKey(base, "meta/shape");
  const journalKey = joinKey(base, JOURNAL_FILE);
  const [shapeText, journalText, attrsText] = await settledInOrder([
    readText(store, shapeKey),
    lock === undefined ? readText(store, journalKey) : Promise.resolve(undefined),
    readText(store, joinKey(base, "__attrs__")),
  ] as const);
  if (shapeText === undefined) throw new FormatError("MISSING_FILE", "meta/shape is missing", { path: shapeKey, field: "file" });
  const shape = withPath(shapeKey, () => parseShapeV2(shapeText, shapeKey));
  const attrs = attrsOf(base, attrsText);
  const journal = journalText === undefined ? undefined : withPath(journalKey, () => parseJournalV2(journalText, journalKey));
  const atom = checkShape(storage.dtype, shape, storage.chunklen, shapeKey, storageKey);
  const settings = {
    superchunksize: storage.superchunksize, checksumId: checksumKindByName(storage.checksum).id, spare: storage.spare, typesize: storage.dtype.bloscTypesize,
    verify: options.verifyChecksums !== false,
  };
  return {
    formatVersion: 2, dtype: storage.dtype, shape, chunklen: storage.chunklen, cparams: storage.cparams, dflt: storage.dflt, expectedlen: storage.expectedlen,
    attrs, atomSize: atom, cbytes: 0, superchunks: { superchunksize: storage.superchunksize, checksum: storage.checksum, spare: storage.spare },
    layout: (geometry) => new LayoutV2(store, geometry, settings, journal),
  };
}

/**
 * The options that govern how an array reads (limits, prefetch, cache, pool), picked out of any
 * options object so that a ctable hands the same ones to every column it opens or creates.
 * @internal
 */
export function readOptionsOf(options: OpenOptions): OpenOptions {
  const { maxReadBytes, maxChunksPerCall, prefetch, cacheBytes, workers, helpers, verifyChecksums } = options;
  return { maxReadBytes, maxChunksPerCall, prefetch, cacheBytes, workers, helpers, verifyChecksums };
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
  checkReadHelpers(options.helpers);
  if (options.verifyChecksums !== undefined && typeof options.verifyChecksums !== "boolean") {
    throw new UsageError("INVALID_ARGUMENT", "verifyChecksums must be a boolean", { field: "verifyChecksums", actual: options.verifyChecksums });
  }
  if (options.mode !== undefined && options.mode !== "r" && options.mode !== "a" && options.mode !== "w") {
    throw new UsageError("INVALID_ARGUMENT", 'mode must be "r", "a" or "w"', { field: "mode", actual: options.mode });
  }
}

/**
 * `Promise.all` that waits for every read and then throws the first failure in list order, not
 * in time order: which error an open reports must not depend on which answer came back first.
 */
async function settledInOrder<T extends readonly unknown[]>(reads: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(reads as readonly Promise<unknown>[]);
  const values: unknown[] = [];
  for (const result of settled) {
    if (result.status === "rejected") throw result.reason;
    values.push(result.value);
  }
  return values as unknown as T;
}
