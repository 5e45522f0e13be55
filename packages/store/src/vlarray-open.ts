/**
 * Opening and creating vlarrays (spec/v2.md §12): the checks of a vlarray root and its two
 * sub-carrays, the trim of `values/` a writer does first (§13.1), the creation order that keeps a
 * half-written vlarray from opening, and opening a table column of either kind.
 *
 * @example
 * ```ts
 * const words = await openVLArray(store, "words");
 * const column = await openColumn(store, "trades/data/sym"); // CArray or VLArray
 * ```
 * @module
 */
import { ConflictError, FormatError, UsageError } from "@fmt/errors";
import { createJsonObject, encodeMetadata, jsonObjectKeys, parseAttrs, parseDtype, parseStorageV2, serializeAttrs, serializeStorageV2, storageFormatVersion } from "@fmt/meta";
import type { DType, JsonObject, JsonValue } from "@fmt/meta";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import type { CArray } from "./carray.js";
import { createCarray, writableDtype } from "./carray-create.js";
import type { CarrayCreateOptions } from "./carray-create.js";
import { checkOptions, openCarray, readOptionsOf, requireWritableStore } from "./carray-open.js";
import { checkDatasetPath, joinKey, readText, requireNestedFormat2, withPath, pathAndOptions } from "./internal.js";
import { DatasetLock, LOCK_FILE } from "./lock.js";
import type { OpenOptions } from "./options.js";
import { VLArray } from "./vlarray.js";
import { checkVtype, encodeElements } from "./vlarray-elements.js";
import type { VLInput, VLType } from "./vlarray-elements.js";

/**
 * Options of {@link createVLArray}: the vtype, and the options of the two carrays (`chunklen`,
 * `cparams`, superchunk settings apply to both unless `offsetsChunklen` says otherwise).
 *
 * @example
 * ```ts
 * const options: VLArrayCreateOptions = { vtype: "ragged", dtype: "<i4", chunklen: 4096, cparams: { cname: "zstd" } };
 * ```
 */
export interface VLArrayCreateOptions extends Omit<CarrayCreateOptions, "dtype" | "shape" | "formatVersion"> {
  /** `"utf8"`, `"bytes"` or `"ragged"`. */
  vtype: VLType;
  /** `ragged`: the element dtype (required); `utf8`/`bytes`: `|u1` (the default). */
  dtype?: string | DType;
  /** Rows per chunk of `offsets/` (default: `chunklen` when given, else derived from the element count). */
  offsetsChunklen?: number;
  /** Expected number of elements (`offsets/` records one more); default the number given. */
  expectedlen?: number;
}

function inconsistent(message: string, path: string, field: string, expected: unknown, actual: unknown): never {
  throw new FormatError("INCONSISTENT", message, { path, field, expected, actual });
}

/** A sub-carray (or table column) must be format 2 itself; a format-1 root would fail later on its meta/sizes. */
async function checkFormat2(store: ReadableStore, base: string): Promise<void> {
  const key = joinKey(base, "meta/storage");
  const text = await readText(store, key);
  if (text === undefined) return; // openCarray reports MISSING_FILE
  requireNestedFormat2(text, key, "a format-2 dataset holds a format-{v} carray");
}

/** Opens a sub-carray and checks it is one-dimensional with an allowed dtype (§12). */
async function openPart(store: ReadableStore, base: string, name: "offsets" | "values", options: OpenOptions, dtypeOk: (d: DType) => boolean, expected: string): Promise<CArray> {
  const path = joinKey(base, name);
  await checkFormat2(store, path);
  const array = await openCarray(store, path, options);
  try {
    if (!dtypeOk(array.dtype)) inconsistent(`${name}/ must have dtype ${expected}`, joinKey(path, "meta/storage"), "/dtype", expected, array.dtype.str);
    if (array.shape.length !== 1) inconsistent(`${name}/ must be one-dimensional`, joinKey(path, "meta/shape"), "shape", "[length]", array.shape);
    return array;
  } catch (error) {
    await array.close();
    throw error;
  }
}

/** The vtype of a format-2 `meta/storage` of kind vlarray, or a FormatError. */
function vlarrayVtype(text: string, key: string): VLType {
  return withPath(key, () => {
    if (storageFormatVersion(text, key) !== 2) throw new FormatError("BAD_METADATA", "a vlarray exists only in format 2", { path: key, field: "/format_version", expected: 2 });
    const storage = parseStorageV2(text, key);
    if (storage.kind !== "vlarray") throw new FormatError("BAD_METADATA", `not a vlarray: meta/storage says kind "${storage.kind}"`, { path: key, field: "/kind", expected: "vlarray", actual: storage.kind });
    return storage.vtype;
  });
}

/**
 * Opens the vlarray whose root is `path` in `store` (spec/v2.md §12): checks its `meta/storage`
 * (`BAD_METADATA`), `__attrs__` (`MISSING_FILE`), and its `offsets/` (`<i8`, one-dimensional,
 * at least one row) and `values/` (`|u1` for utf8 and bytes) carrays (`INCONSISTENT`, field
 * `/dtype`; every error of {@link openCarray} for each). Elements are checked as they are read.
 *
 * `options.mode` `"a"`/`"w"` opens for writing: the root's `.lock` is taken (then each carray's),
 * `values/` is trimmed to `offsets[n]` (left longer by an interrupted append), and `"w"` empties
 * the array. Close it with {@link VLArray.close}.
 *
 * @example
 * ```ts
 * const words = await openVLArray(store, "words");
 * console.log(words.vtype, words.length, await words.get(0));
 * const w = await openVLArray(store, "words", { mode: "a" });
 * await w.append(["new"]);
 * await w.close();
 * ```
 */
export async function openVLArray(store: ReadableStore | WritableStore, options?: OpenOptions): Promise<VLArray>;
export async function openVLArray(store: ReadableStore | WritableStore, path?: string, options?: OpenOptions): Promise<VLArray>;
export async function openVLArray(store: ReadableStore | WritableStore, pathOrOptions: string | OpenOptions = "", maybeOptions?: OpenOptions): Promise<VLArray> {
  const [path, options] = pathAndOptions(pathOrOptions, maybeOptions);
  const base = checkDatasetPath(path);
  checkOptions(options);
  const mode = options.mode ?? "r";
  if (mode === "r") return openVLArrayWith(store, base, options, undefined);
  const writable = requireWritableStore(store);
  const lock = await DatasetLock.acquire(writable, base, { breakLock: options.breakLock === true });
  try {
    const array = await openVLArrayWith(writable, base, options, { store: writable, lock });
    if (mode === "w") await array.resize(0);
    return array;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** {@link openVLArray} once the lock (if any) is held. */
async function openVLArrayWith(store: ReadableStore, base: string, options: OpenOptions, writer: { store: WritableStore; lock: DatasetLock } | undefined): Promise<VLArray> {
  const storageKey = joinKey(base, "meta/storage");
  const text = await readText(store, storageKey);
  if (text === undefined) throw new FormatError("MISSING_FILE", "not a vlarray: meta/storage is missing", { path: storageKey, field: "file" });
  const vtype = vlarrayVtype(text, storageKey);
  const attrsKey = joinKey(base, "__attrs__");
  const attrsText = await readText(store, attrsKey);
  if (attrsText === undefined) throw new FormatError("MISSING_FILE", "__attrs__ is missing", { path: attrsKey, field: "file" });
  const attrs = withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
  const partOptions: OpenOptions = { ...readOptionsOf(options), mode: writer === undefined ? "r" : "a", ...(options.breakLock === undefined ? {} : { breakLock: options.breakLock }) };
  const offsets = await openPart(store, base, "offsets", partOptions, (d) => d.str === "<i8", "<i8");
  let values: CArray | undefined;
  try {
    if (offsets.length < 1) inconsistent("offsets/ must hold at least one row (offsets[0] = 0)", joinKey(offsets.path, "meta/shape"), "shape.0", ">= 1", 0);
    values = await openPart(store, base, "values", partOptions, (d) => vtype === "ragged" || d.str === "|u1", "|u1");
    const array = new VLArray({ store, path: base, vtype, offsets, values, attrs, ...(writer === undefined ? {} : { writer }) });
    if (writer !== undefined) {
      // An interrupted append leaves values beyond offsets[n]: cut them before any change (§13.1).
      const end = array.length === 0 ? 0 : Number((await offsets.take([array.length]))[0]!);
      if (end > values.length) inconsistent(`offsets[${array.length}] = ${end} is past the ${values.length} rows of values`, offsets.path, `offsets[${array.length}]`, `<= ${values.length}`, end);
      if (values.length > end) await values.resize(end);
    }
    return array;
  } catch (error) {
    await values?.close().catch(() => undefined);
    await offsets.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Whether the root at `base` is a format-2 vlarray (its `meta/storage` says so); never throws.
 *
 * @example
 * ```ts
 * if (await isVLArrayRoot(store, "t/data/sym")) console.log("a vlarray column");
 * ```
 */
export async function isVLArrayRoot(store: ReadableStore, base: string): Promise<boolean> {
  const key = joinKey(base, "meta/storage");
  try {
    const text = await readText(store, key);
    if (text === undefined || storageFormatVersion(text, key) !== 2) return false;
    return parseStorageV2(text, key).kind === "vlarray";
  } catch {
    return false;
  }
}

/**
 * Opens a table column, or any format-2 array: a {@link VLArray} when its `meta/storage` has kind
 * vlarray, else a {@link CArray}.
 *
 * @example
 * ```ts
 * const column = await openColumn(store, "trades/data/sym", { mode: "a" });
 * ```
 */
export async function openColumn(store: ReadableStore | WritableStore, path: string, options: OpenOptions = {}): Promise<CArray | VLArray> {
  return (await isVLArrayRoot(store, path)) ? openVLArray(store, path, options) : openCarray(store, path, options);
}

/** Deletes every key under `base` (meta/storage first, so that a half-removed root does not open). */
async function removeKeys(store: WritableStore, base: string, knownFiles: string[]): Promise<void> {
  const lockKey = joinKey(base, LOCK_FILE);
  await store.delete(joinKey(base, "meta/storage"));
  const keys = store.list !== undefined ? await store.list(base === "" ? "" : `${base}/`) : knownFiles.map((f) => joinKey(base, f));
  for (const key of keys) if (key !== lockKey) await store.delete(key);
}

/** The files of a vlarray whose carrays have at most `files` superchunks (for stores that cannot list). */
function vlarrayFiles(files: number): string[] {
  const out = ["meta/storage", "__attrs__"];
  for (const part of ["offsets", "values"]) {
    out.push(`${part}/meta/shape`, `${part}/meta/storage`, `${part}/__attrs__`, `${part}/.journal`, `${part}/${LOCK_FILE}`);
    for (let s = 1; s <= files; s++) out.push(`${part}/data/__${s}__.bin`);
  }
  return out;
}

/**
 * Creates a vlarray at `path` holding `elements` and returns it open for writing (call
 * {@link VLArray.close}; it holds the root's `.lock`). Writes `values/`, then `offsets/`, then
 * `__attrs__`, and `meta/storage` last, so that a vlarray only opens once complete. `chunklen`,
 * `cparams`, `superchunksize`, `checksum`, `spare` apply to both carrays; `dflt` to `values/`.
 * Each carray's `expectedlen` defaults to its number of rows. `mode: "w"` replaces whatever is at
 * `path`; the default `"a"` refuses with `ConflictError` `ALREADY_EXISTS`.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * const store = new MemoryStore();
 * const words = await createVLArray(store, "words", ["ab", "", "héllo"], { vtype: "utf8", chunklen: 4 });
 * await words.close();
 * const nums = await createVLArray(store, "nums", [new Int32Array([1, 2]), [3]], { vtype: "ragged", dtype: "<i4" });
 * await nums.close();
 * ```
 */
export async function createVLArray(store: WritableStore, path: string, elements: VLInput | undefined, options: VLArrayCreateOptions): Promise<VLArray> {
  const base = checkDatasetPath(path);
  const writable = requireWritableStore(store);
  if (typeof options !== "object" || options === null) throw new UsageError("INVALID_ARGUMENT", "options with a vtype are required", { field: "options", actual: options });
  const vtype = checkVtype(options.vtype, "vtype");
  let dtype: DType;
  if (vtype === "ragged") {
    if (options.dtype === undefined) throw new UsageError("INVALID_ARGUMENT", "a ragged vlarray needs the element dtype", { field: "dtype", expected: 'a dtype such as "<i4"' });
    dtype = writableDtype(options.dtype);
  } else {
    dtype = parseDtype("|u1");
    if (options.dtype !== undefined && writableDtype(options.dtype).str !== "|u1") throw new UsageError("INVALID_ARGUMENT", `a ${vtype} vlarray stores |u1 values`, { field: "dtype", expected: "|u1", actual: options.dtype });
  }
  const mode = options.mode ?? "a";
  if (mode !== "a" && mode !== "w") throw new UsageError("INVALID_ARGUMENT", 'mode must be "a" or "w"', { field: "mode", actual: mode });
  const attrs = (options.attrs ?? {}) as JsonObject;
  const attrsBytes = encodeMetadata(serializeAttrs(createJsonObject(jsonObjectKeys(attrs).map((k) => [k, attrs[k]!] as [string, JsonValue]))));

  const lock = await DatasetLock.acquire(writable, base, options);
  const made: CArray[] = [];
  try {
    const lockKey = joinKey(base, LOCK_FILE);
    const exists = writable.list !== undefined
      ? (await writable.list(base === "" ? "" : `${base}/`)).some((k) => k !== lockKey)
      : (await writable.get(joinKey(base, "meta/storage"))) !== undefined || (await writable.get(joinKey(base, "__attrs__"))) !== undefined;
    if (exists) {
      if (mode === "a") throw new ConflictError("ALREADY_EXISTS", 'a dataset already exists at this path (use mode "w" to replace it)', { path: base, field: "path" });
      await removeKeys(writable, base, vlarrayFiles(64));
    }
    // Bad elements fail here, before anything is written.
    const { vtype: _v, dtype: _d, offsetsChunklen, expectedlen, attrs: _a, mode: _m, breakLock: _b, dflt, ...common } = options;
    const encoded = elements === undefined ? { count: 0, bytes: new Uint8Array(0), rows: [] } : await encodeElements(vtype, dtype, elements, base);
    const ends = new BigInt64Array(encoded.count + 1);
    let end = 0;
    encoded.rows.forEach((n, i) => {
      end += n;
      ends[i + 1] = BigInt(end);
    });
    const part = { ...common, formatVersion: 2 as const, mode: "w" as const };
    made.push(await createCarray(writable, joinKey(base, "values"), { bytes: encoded.bytes }, { ...part, dtype, ...(dflt === undefined ? {} : { dflt }) }));
    made.push(await createCarray(writable, joinKey(base, "offsets"), ends, {
      ...part,
      dtype: "<i8",
      ...(offsetsChunklen === undefined ? {} : { chunklen: offsetsChunklen }),
      ...(expectedlen === undefined ? {} : { expectedlen: expectedlen + 1 }),
    }));
    await writable.put(joinKey(base, "__attrs__"), attrsBytes);
    await writable.put(joinKey(base, "meta/storage"), encodeMetadata(serializeStorageV2({ formatVersion: 2, kind: "vlarray", vtype, raw: createJsonObject([]) })));
    return new VLArray({ store: writable, path: base, vtype, offsets: made[1]!, values: made[0]!, attrs: attrs, writer: { store: writable, lock } });
  } catch (error) {
    for (const array of made) await array.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

/**
 * Deletes a vlarray root (a table column) and everything under it: `meta/storage` first, so that
 * a half-deleted vlarray no longer opens.
 *
 * @example
 * ```ts
 * await removeVLArrayFiles(store, "t/data/sym", 4);
 * ```
 */
export async function removeVLArrayFiles(store: WritableStore, base: string, superchunks: number): Promise<void> {
  await removeKeys(store, base, vlarrayFiles(superchunks));
  await store.delete(joinKey(base, LOCK_FILE));
}

/**
 * Copies a closed vlarray root to `to`: both carrays, then `__attrs__`, `meta/storage` last.
 *
 * @example
 * ```ts
 * await copyVLArrayFiles(store, "t/data/a", "t/data/b", 4);
 * ```
 */
export async function copyVLArrayFiles(store: WritableStore, from: string, to: string, superchunks: number): Promise<void> {
  const files = store.list !== undefined ? (await store.list(`${from}/`)).map((k) => k.slice(from.length + 1)) : vlarrayFiles(superchunks);
  const rank = (f: string): number => (f === "meta/storage" ? 3 : f === "__attrs__" ? 2 : f.endsWith("meta/shape") ? 1 : 0);
  const ordered = files.filter((f) => !f.endsWith(LOCK_FILE)).sort((a, b) => rank(a) - rank(b));
  for (const f of ordered) {
    const value = await store.get(joinKey(from, f));
    if (value !== undefined) await store.put(joinKey(to, f), value);
  }
}
