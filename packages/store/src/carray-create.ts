import { initZstd } from "@fmt/blosc";
import { ConflictError, FormatError, UsageError } from "@fmt/errors";
import { BLOSC_MAX_BUFFERSIZE, CHECKSUM_KINDS, superchunkFileName } from "@fmt/header";
import type { WritableStore } from "@fmt/fs-adapters";
import {
  atomSize as rowSize, createJsonObject, createStorage, defaultDflt, encodeMetadata, jsonObjectKeys, parseDtype, parseSizes, parseStorage, serializeAttrs,
  serializeShapeV2, serializeSizes, serializeStorage, serializeStorageV2, createCarrayStorageV2,
} from "@fmt/meta";
import type { CarrayStorageV2 } from "@fmt/meta";
import type { Cparams, DType, JsonObject, JsonValue } from "@fmt/meta";
import { openCarrayWith, readOptionsOf, requireWritableStore } from "./carray-open.js";
import type { CArray, SuperchunkSettings } from "./carray.js";
import type { OpenOptions } from "./options.js";
import { computeChunklen, normalizeDflt } from "./carray-encode.js";
import type { ArrayInput } from "./carray-encode.js";
import { collectRows, knownElementCount } from "./carray-input.js";
import { checkCodecPool } from "./chunk-writes.js";
import { checkDatasetPath, joinKey, readText } from "./internal.js";
import { DatasetLock, LOCK_FILE } from "./lock.js";
import type { LockOptions } from "./lock.js";

/**
 * Options of {@link createCarray}.
 *
 * @example
 * ```ts
 * const options: CarrayCreateOptions = { dtype: "<f8", shape: [3], chunklen: 1024, cparams: { cname: "zstd" }, dflt: NaN };
 * ```
 */
export interface CarrayCreateOptions extends LockOptions, Pick<OpenOptions, "maxReadBytes" | "maxChunksPerCall" | "prefetch" | "cacheBytes" | "workers"> {
  /**
   * Element type: a numpy name or `dtype.str` (`"float64"`, `"<i4"`, `"|S7"`, `"<U3"`,
   * `"datetime64[ns]"`, `">i2"`) or a parsed {@link DType}. Storable: b1, i1–i8, u1–u8, f2, f4,
   * f8, S<n>, U<n>, M8[unit] (either byte order); anything else is `FormatError`
   * `UNSUPPORTED_DTYPE`.
   */
  dtype: string | DType;
  /** Trailing dimensions of each row, e.g. `[3]` for rows of 3 elements (default `[]`). */
  shape?: number[];
  /** Rows per chunk; default computed from `expectedlen` exactly as bcolz does. */
  chunklen?: number;
  /** Expected number of rows (recorded in `meta/storage`); default the length of `data` (0 without data). */
  expectedlen?: number;
  /** Compression parameters; defaults clevel 5, shuffle 1, cname "lz4", quantize 0 (bcolz 1.2.1). */
  cparams?: Partial<Cparams>;
  /** Fill value for `resize` growth; default zero of the dtype. `NaN`/`Infinity`, big ints as bigint, NaT as null. */
  dflt?: JsonValue;
  /** `"a"` (default): fail with `ConflictError` `ALREADY_EXISTS` if something is at `path`; `"w"`: replace it. */
  mode?: "a" | "w";
  /** Initial user attributes (`__attrs__`; default `{}`). */
  attrs?: Record<string, JsonValue>;
  /**
   * `1` (default): a bcolz 1.x carray, byte for byte what bcolz 1.2.1 writes. `2`: a format-2
   * carray of superchunk files (spec/v2.md), which bcolz 1.x cannot open.
   */
  formatVersion?: 1 | 2;
  /** Format 2: chunks per superchunk file, 1 … 65536 (default: 64 MiB of uncompressed rows per file, spec/v2.md §10.1). */
  superchunksize?: number;
  /** Format 2: the checksum after every chunk (default `"adler32"`; `"none"` gives up corruption detection). */
  checksum?: SuperchunkSettings["checksum"];
  /** Format 2: spare room after each chunk for rewrites in place, in percent of its size, 0 … 100 (default 10). */
  spare?: number;
}

const CODECS = new Set(["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]);

function invalid(message: string, field: string, actual?: unknown, expected?: unknown): never {
  throw new UsageError("INVALID_ARGUMENT", message, { field, actual, expected });
}

/**
 * Checks and completes compression parameters (bcolz 1.2.1 defaults for what is missing).
 *
 * @example
 * ```ts
 * resolveCparams({ cname: "zstd" }); // { clevel: 5, shuffle: 1, cname: "zstd", quantize: 0 }
 * ```
 */
export function resolveCparams(partial: Partial<Cparams> = {}): Cparams {
  const c = { clevel: 5, shuffle: 1 as 0 | 1 | 2, cname: "lz4" as Cparams["cname"], quantize: 0, ...partial };
  if (!Number.isInteger(c.clevel) || c.clevel < 0 || c.clevel > 9) invalid("clevel must be an integer 0-9", "cparams.clevel", c.clevel);
  if (c.shuffle !== 0 && c.shuffle !== 1 && c.shuffle !== 2) invalid("shuffle must be 0, 1 or 2", "cparams.shuffle", c.shuffle);
  if (!CODECS.has(c.cname)) invalid("unknown codec", "cparams.cname", c.cname, [...CODECS].join(", "));
  if (!Number.isSafeInteger(c.quantize) || c.quantize < 0) invalid("quantize must be a non-negative integer", "cparams.quantize", c.quantize);
  return { clevel: c.clevel, shuffle: c.shuffle, cname: c.cname, quantize: c.quantize };
}

/**
 * Parses and checks a dtype for writing: only what bcolz 1.x can save and reopen.
 *
 * @example
 * ```ts
 * writableDtype("<U3").bcolzName; // "<U3"
 * writableDtype("complex128");    // throws UNSUPPORTED_DTYPE
 * ```
 */
export function writableDtype(dtype: string | DType): DType {
  const d = typeof dtype === "string" ? parseDtype(dtype, undefined, "dtype") : dtype;
  if (typeof d !== "object" || d === null || typeof d.str !== "string") invalid("dtype must be a string or a DType", "dtype", typeof dtype);
  const ok = "biufSUM".includes(d.kind) && d.bcolzWritable !== false && (d.kind !== "M" || (d.unit !== undefined && /^[A-Za-z]+$/.test(d.unit)));
  if (!ok) {
    throw new FormatError("UNSUPPORTED_DTYPE", `bcolz cannot store dtype ${d.str}`, { field: "dtype", actual: d.str, expected: "b1, i1-i8, u1-u8, f2-f8, S<n>, U<n>, M8[unit]" });
  }
  return d;
}

/** The format-2 `meta/storage` of a new carray, with the superchunk options checked. */
function v2Storage(options: CarrayCreateOptions, base: { dtype: DType; cparams: Cparams; chunklen: number; expectedlen: number; dflt: JsonValue; atomsize: number }): CarrayStorageV2 {
  const { superchunksize, checksum, spare } = options;
  if (superchunksize !== undefined && (!Number.isSafeInteger(superchunksize) || superchunksize < 1 || superchunksize > 65536)) invalid("superchunksize must be an integer in 1 … 65536", "superchunksize", superchunksize);
  if (checksum !== undefined && !CHECKSUM_KINDS.some((k) => k.name === checksum)) invalid("unknown checksum", "checksum", checksum, CHECKSUM_KINDS.map((k) => k.name).join(", "));
  if (spare !== undefined && (!Number.isSafeInteger(spare) || spare < 0 || spare > 100)) invalid("spare must be an integer percentage 0 … 100", "spare", spare);
  return createCarrayStorageV2({ ...base, ...(superchunksize === undefined ? {} : { superchunksize }), ...(checksum === undefined ? {} : { checksum }), ...(spare === undefined ? {} : { spare }) });
}

async function datasetExists(store: WritableStore, base: string): Promise<boolean> {
  const lockKey = joinKey(base, LOCK_FILE);
  if (store.list !== undefined) {
    const keys = await store.list(base === "" ? "" : `${base}/`);
    return keys.some((k) => k !== lockKey);
  }
  for (const f of ["meta/storage", "meta/sizes", "meta/shape", "__attrs__", "__rootdirs__"]) if ((await store.get(joinKey(base, f))) !== undefined) return true;
  return false;
}

/** Deletes what remains of a replaced dataset, keeping the new metadata files and the lock. */
async function removeOld(store: WritableStore, base: string, oldChunkFiles: number, version: 1 | 2): Promise<void> {
  // A format-2 root must not keep a meta/sizes (bcolz would open it, spec/v2.md §3.3), nor a format-1 root a meta/shape.
  await store.delete(joinKey(base, version === 1 ? "meta/shape" : "meta/sizes"));
  const keep = new Set([version === 1 ? "meta/sizes" : "meta/shape", "meta/storage", "__attrs__", LOCK_FILE].map((f) => joinKey(base, f)));
  await store.delete(joinKey(base, "__rootdirs__"));
  if (store.list !== undefined) {
    for (const key of await store.list(base === "" ? "" : `${base}/`)) if (!keep.has(key)) await store.delete(key);
    return;
  }
  for (let k = 0; k < oldChunkFiles; k++) await store.delete(joinKey(base, `data/__${k}.blp`));
  for (let s = 1; (await store.get(joinKey(base, superchunkFileName(s)))) !== undefined; s++) await store.delete(joinKey(base, superchunkFileName(s)));
}

/**
 * Creates a bcolz 1.x carray at `path` in `store` and returns it open for writing (call
 * {@link CArray.close} when done; it holds the dataset's `.lock`). Files are exactly as bcolz
 * 1.2.1 writes them: `meta/storage` (dtype in bcolz spelling, four-key cparams, chunklen,
 * expectedlen, dflt), `__attrs__`, `data/__k.blp` chunk files (16-byte blpk v1 header + one
 * Blosc chunk), the unpadded leftover chunk, and `meta/sizes` with bcolz's cbytes formula.
 *
 * Write order: `meta/sizes` with length 0 first, then `meta/storage` and `__attrs__`, then chunk
 * files, `meta/sizes` last, so an interruption leaves a dataset that opens (empty or with a
 * prefix of the rows). With `mode: "w"` an existing carray at `path` is first truncated to
 * length 0 and its files are then removed (an existing ctable is replaced the same way, but is
 * only safe against interruption on stores that can list keys).
 *
 * When neither `chunklen` nor `expectedlen` is given and `data` is an iterable, all of `data`
 * is read into memory first (bcolz derives chunklen from the data's length).
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * const store = new MemoryStore();
 * const a = await createCarray(store, "prices", new Float64Array([1.5, 2.5, 3.5]), { dtype: "float64", chunklen: 2 });
 * await a.close();
 * await store.list("prices/"); // [".lock" gone] "prices/__attrs__", "prices/data/__0.blp", "prices/data/__1.blp", "prices/meta/sizes", "prices/meta/storage"
 * ```
 */
export async function createCarray(store: WritableStore, path: string, data: ArrayInput | undefined, options: CarrayCreateOptions): Promise<CArray> {
  const base = checkDatasetPath(path);
  const writable = requireWritableStore(store);
  if (typeof options !== "object" || options === null) invalid("options with a dtype are required", "options", options);
  const dtype = writableDtype(options.dtype);
  const trailing = options.shape ?? [];
  if (!Array.isArray(trailing)) invalid("shape must be an array of trailing dimensions", "shape", trailing);
  for (const d of trailing) if (!Number.isSafeInteger(d) || d < 1) invalid("trailing dimensions must be positive integers", "shape", trailing);
  const atom = rowSize(dtype, [0, ...trailing]);
  const itemsPerRow = atom / dtype.itemsize;
  const cparams = resolveCparams(options.cparams);
  const mode = options.mode ?? "a";
  if (mode !== "a" && mode !== "w") invalid('mode must be "a" or "w"', "mode", mode);
  checkCodecPool(options.workers);

  let input = data;
  let dataRows: number | undefined;
  if (input !== undefined) {
    const elements = knownElementCount(input, dtype, atom);
    if (elements === undefined && options.chunklen === undefined && options.expectedlen === undefined) {
      const bytes = await collectRows(input, dtype, itemsPerRow, cparams.quantize);
      input = { bytes };
      dataRows = bytes.length / atom;
    } else if (elements !== undefined) {
      dataRows = Math.floor(elements / itemsPerRow);
    }
  }
  const expectedlen = options.expectedlen ?? dataRows ?? 0;
  if (!Number.isSafeInteger(expectedlen) || expectedlen < 0) invalid("expectedlen must be a non-negative integer", "expectedlen", expectedlen);
  const chunklen = options.chunklen ?? computeChunklen(expectedlen, atom);
  if (!Number.isSafeInteger(chunklen) || chunklen < 1) invalid("chunklen must be a positive integer", "chunklen", chunklen);
  if (chunklen * atom > BLOSC_MAX_BUFFERSIZE) {
    throw new UsageError("SIZE_LIMIT", "a chunk would exceed the Blosc buffer limit", { field: "chunklen", expected: `chunklen x ${atom} <= ${BLOSC_MAX_BUFFERSIZE}`, actual: chunklen });
  }
  const dflt = options.dflt === undefined ? defaultDflt(dtype) : normalizeDflt(dtype, options.dflt);
  const version = options.formatVersion ?? 1;
  if (version !== 1 && version !== 2) invalid("formatVersion must be 1 or 2", "formatVersion", version);
  const storageText = version === 1 ? serializeStorage(createStorage({ dtype, cparams, chunklen, expectedlen, dflt })) : serializeStorageV2(v2Storage(options, { dtype, cparams, chunklen, expectedlen, dflt, atomsize: atom }));
  const attrs = (options.attrs ?? {}) as JsonObject;
  const attrsText = serializeAttrs(createJsonObject(jsonObjectKeys(attrs).map((k) => [k, attrs[k]!] as [string, JsonValue])));

  // The zstd encoder loads before anything is written: a failed load leaves the store as it was
  // (the writer's open loads it too, for arrays opened with mode "a").
  if (cparams.cname === "zstd") await initZstd();
  const lock = await DatasetLock.acquire(writable, base, options);
  try {
    let oldChunkFiles = 0;
    if (await datasetExists(writable, base)) {
      if (mode === "a") {
        throw new ConflictError("ALREADY_EXISTS", "a dataset already exists at this path (use mode \"w\" to replace it)", { path: base, field: "path" });
      }
      try {
        const st = parseStorage((await readText(writable, joinKey(base, "meta/storage"))) ?? "", joinKey(base, "meta/storage"));
        const sz = parseSizes((await readText(writable, joinKey(base, "meta/sizes"))) ?? "", joinKey(base, "meta/sizes"));
        oldChunkFiles = Math.ceil((sz.shape[0] ?? 0) / st.chunklen) + 1;
      } catch {
        // not a readable carray: the listing (if any) finds its files
      }
    }
    const chunksize = chunklen * atom;
    // The length file first (empty), so that an interruption leaves a dataset that opens.
    if (version === 1) await writable.put(joinKey(base, "meta/sizes"), encodeMetadata(serializeSizes({ shape: [0, ...trailing], nbytes: 0, cbytes: chunksize })));
    else await writable.put(joinKey(base, "meta/shape"), encodeMetadata(serializeShapeV2([0, ...trailing])));
    await writable.put(joinKey(base, "meta/storage"), encodeMetadata(storageText));
    await writable.put(joinKey(base, "__attrs__"), encodeMetadata(attrsText));
    if (mode === "w") await removeOld(writable, base, oldChunkFiles, version);
    await writable.createDirectory?.(joinKey(base, "data"));
    const array = await openCarrayWith(writable, base, readOptionsOf(options), lock);
    if (input !== undefined) await array.append(input);
    await array.flush();
    return array;
  } catch (error) {
    await lock.release();
    throw error;
  }
}
