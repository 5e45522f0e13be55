/**
 * Conversion between format versions 1 and 2 (spec/v2.md §14): values, dtype, shape, chunklen,
 * cparams, dflt, expectedlen and attributes carry over, and every chunk is copied byte for byte
 * into its new home (a `data/__k.blp` file or a superchunk slot). Only a leftover chunk holding
 * more rows than the length needs (an interrupted append, v1 §8.5) is recompressed with just its
 * rows. A ctable converts column by column, in column order.
 *
 * @example
 * ```ts
 * await convert(new FileSystemStore("/data"), "prices.bcolz", new FileSystemStore("/data"), "prices-v2.bcolz", { formatVersion: 2 });
 * ```
 * @module
 */
import { ConflictError, UsageError } from "@fmt/errors";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { encodeMetadata } from "@fmt/meta";
import type { CArray, SuperchunkSettings } from "./carray.js";
import { requireWritableStore } from "./carray-open.js";
import { createCarray } from "./carray-create.js";
import type { CarrayCreateOptions } from "./carray-create.js";
import { open } from "./ctable.js";
import { attrsText, somethingAt, TABLE_V1, TABLE_V2 } from "./ctable-write.js";
import { checkDatasetPath, joinKey } from "./internal.js";
import { DatasetLock } from "./lock.js";

/**
 * Options of {@link convert}.
 *
 * @example
 * ```ts
 * const options: ConvertOptions = { formatVersion: 2, checksum: "crc32", onChunk: () => bar.tick() };
 * ```
 */
export interface ConvertOptions {
  /** The format version to write. */
  formatVersion: 1 | 2;
  /** Format 2: chunks per superchunk (default spec/v2.md §10.1's: 64 MiB of rows per file). */
  superchunksize?: number;
  /** Format 2: checksum after every chunk (default `"adler32"`). */
  checksum?: SuperchunkSettings["checksum"];
  /** Format 2: spare room percentage (default 10). */
  spare?: number;
  /** `"a"` (default): fail with `ALREADY_EXISTS` when something is at the destination; `"w"`: replace it. */
  mode?: "a" | "w";
  /** Called once with the number of chunks to copy, before the first. */
  onStart?: (chunks: number) => void;
  /** Called after each chunk copied. */
  onChunk?: () => void;
}

/**
 * What {@link convert} did.
 *
 * @example
 * ```ts
 * const { chunks, copied, recompressed } = await convert(src, "a", dst, "b", { formatVersion: 2 });
 * ```
 */
export interface ConvertResult {
  kind: "carray" | "ctable";
  /** Chunks written. */
  chunks: number;
  /** Chunks copied byte for byte. */
  copied: number;
  /** Chunks recompressed (leftover chunks holding more rows than the length needs). */
  recompressed: number;
}

/**
 * Converts the dataset at `srcPath` of `src` (either version, carray or ctable) into format
 * `options.formatVersion` at `dstPath` of `dst`. The destination is written under its lock, in
 * the order each format's writer uses, and the file that makes a ctable a table comes last; when
 * anything fails, what was written at the destination is removed again (on stores that can
 * list) and the error is thrown. Converting a dataset with variable-length columns to format 1
 * is `UsageError` `INVALID_ARGUMENT` (format 1 cannot hold them).
 *
 * @example
 * ```ts
 * const store = new FileSystemStore("/data");
 * await convert(store, "trades.bcolz", store, "trades-v2.bcolz", { formatVersion: 2, superchunksize: 256 });
 * await convert(store, "trades-v2.bcolz", store, "trades-again.bcolz", { formatVersion: 1 });
 * ```
 */
export async function convert(src: ReadableStore, srcPath: string, dst: WritableStore, dstPath: string, options: ConvertOptions): Promise<ConvertResult> {
  const base = checkDatasetPath(dstPath);
  const writable = requireWritableStore(dst);
  if (typeof options !== "object" || options === null || (options.formatVersion !== 1 && options.formatVersion !== 2)) {
    throw new UsageError("INVALID_ARGUMENT", "convert needs options.formatVersion 1 or 2", { field: "formatVersion", actual: (options as Partial<ConvertOptions> | null)?.formatVersion });
  }
  const opened = await open(src, checkDatasetPath(srcPath), { cacheBytes: 0 });
  if (opened.kind === "vlarray" || (opened.kind === "ctable" && opened.columns.some((c) => c.kind === "vlarray"))) {
    // Format 1 cannot hold them (spec/v2.md §14); copying them between format-2 datasets is not done here yet.
    throw new UsageError("INVALID_ARGUMENT", "convert does not handle vlarrays (format 1 cannot represent them)", { path: srcPath, field: "kind", actual: "vlarray" });
  }
  const source = opened;
  const mode = options.mode ?? "a";
  if (mode !== "a" && mode !== "w") throw new UsageError("INVALID_ARGUMENT", 'mode must be "a" or "w"', { field: "mode", actual: mode });
  // Only what this call created is removed after a failure: an existing destination is refused
  // before anything is written (mode "a"), or replaced on purpose (mode "w").
  const existed = await somethingAt(writable, base);
  if (existed && mode === "a") throw new ConflictError("ALREADY_EXISTS", 'a dataset already exists at the destination (use mode "w" to replace it)', { path: base, field: "path" });
  if (existed) {
    // Replacing: the old dataset goes first, its table file before anything (a half-removed table must not open).
    for (const f of ["__rootdirs__", "meta/storage", "meta/sizes", "meta/shape"]) await writable.delete(joinKey(base, f));
    await removeUnder(writable, base);
  }
  const arrays = source.kind === "carray" ? [source] : ([...source.columns] as CArray[]);
  options.onStart?.(arrays.reduce((n, a) => n + a.chunkCount, 0));
  const result: ConvertResult = { kind: source.kind, chunks: 0, copied: 0, recompressed: 0 };
  try {
    if (source.kind === "carray") {
      await copyArray(source, writable, base, options, mode, result);
      return result;
    }
    const format = options.formatVersion === 1 ? TABLE_V1 : TABLE_V2;
    // The table's own lock, like a ctable writer: columns are written under it, the names last.
    const lock = await DatasetLock.acquire(writable, base, {});
    try {
      for (const [i, column] of (source.columns as CArray[]).entries()) await copyArray(column, writable, format.columnPath(base, source.names[i]!), options, mode, result);
      await writable.put(joinKey(base, "__attrs__"), encodeMetadata(attrsText(source.attrs.toJSON())));
      await writable.put(format.namesKey(base), format.namesBytes(source.names));
    } finally {
      await lock.release();
    }
    return result;
  } catch (error) {
    if (!existed) await removeUnder(writable, base);
    throw error;
  }
}

async function copyArray(a: CArray, dst: WritableStore, path: string, options: ConvertOptions, mode: "a" | "w", result: ConvertResult): Promise<void> {
  const v2 = options.formatVersion === 2
    ? {
        formatVersion: 2 as const,
        ...(options.superchunksize === undefined ? {} : { superchunksize: options.superchunksize }),
        ...(options.checksum === undefined ? {} : { checksum: options.checksum }),
        ...(options.spare === undefined ? {} : { spare: options.spare }),
      }
    : {};
  const create: CarrayCreateOptions = {
    dtype: a.dtype, shape: a.shape.slice(1), chunklen: a.chunklen, cparams: a.cparams, dflt: a.dflt, expectedlen: Number(a.expectedlen),
    attrs: a.attrs.toJSON(), mode, ...v2,
  };
  const out = await createCarray(dst, path, undefined, create);
  try {
    for (let i = 0; i < a.chunkCount; i++) {
      const stored = await a.storedChunk(i);
      if (stored.exact) {
        await out.appendStoredChunk(stored.chunk, stored.rows, stored.decoded);
        result.copied++;
      } else {
        // A leftover chunk with more rows than the length needs: only its rows are kept (§14).
        await out.append({ bytes: stored.decoded });
        result.recompressed++;
      }
      result.chunks++;
      options.onChunk?.();
    }
  } finally {
    await out.close();
  }
}

/** Removes what a failed conversion wrote (stores that cannot list keep it; it has no table file, so it does not open as a table). */
async function removeUnder(store: WritableStore, base: string): Promise<void> {
  if (store.list === undefined) return;
  const keys = await store.list(base === "" ? "" : `${base}/`).catch(() => [] as string[]);
  for (const key of keys) await store.delete(key).catch(() => undefined);
}
