// Write-side helpers of CTable: column name rules, dtype inference, input normalisation, key
// copying/removal on stores without rename, and createCtable.
import { ConflictError, UsageError } from "@fmt/errors";
import { columnNameProblem, encodeMetadata, serializeAppendV2, serializeAttrs, serializeRootdirs, serializeStorageV2, createJsonObject, jsonObjectKeys } from "@fmt/meta";
import type { Cparams, JsonObject, JsonValue } from "@fmt/meta";
import type { ChunkCodecPool } from "@fmt/blosc";
import type { WritableStore } from "@fmt/fs-adapters";
import { readOptionsOf, requireWritableStore } from "./carray-open.js";
import type { OpenOptions } from "./options.js";
import type { AddColumnOptions } from "./ctable.js";
import type { CArray } from "./carray.js";
import { createCarray } from "./carray-create.js";
import type { CarrayCreateOptions } from "./carray-create.js";
import type { ArrayInput, ElementInput } from "./carray-encode.js";
import { checkDatasetPath, joinKey } from "./internal.js";
import { DatasetLock, LOCK_FILE } from "./lock.js";
import type { LockOptions } from "./lock.js";
import type { VLArray } from "./vlarray.js";
import type { VLInput, VLType } from "./vlarray-elements.js";
import { copyVLArrayFiles, createVLArray, removeVLArrayFiles } from "./vlarray-open.js";
import type { VLArrayCreateOptions } from "./vlarray-open.js";

/** Python 3 keywords (hard keywords only; soft keywords are valid identifiers). */
const PYTHON_KEYWORDS = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
  "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
  "with", "yield",
]);

/** Name of the journal a ctable append keeps in the table root while columns are being written. */
export const APPEND_JOURNAL_FILE = ".append";

/**
 * Why `name` cannot be the name of a new column, or `undefined` if it can. Writers only use
 * names bcolz accepts and every reader can open: ASCII Python identifiers
 * (`[A-Za-z_][A-Za-z0-9_]*`) that are not Python keywords and not `__attrs__`/`__rootdirs__`.
 *
 * @example
 * ```ts
 * newColumnNameProblem("price"); // undefined
 * newColumnNameProblem("class"); // "is a Python keyword"
 * newColumnNameProblem("2x");    // "is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"
 * ```
 */
export function newColumnNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string") return "is not a string";
  const problem = columnNameProblem(name);
  if (problem !== undefined) return problem;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    const digit = c >= 48 && c <= 57;
    if (!(letter || (digit && i > 0))) return "is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
  }
  if (PYTHON_KEYWORDS.has(name)) return "is a Python keyword";
  return undefined;
}

/** Throws `UsageError` `UNSAFE_NAME` for a name {@link newColumnNameProblem} refuses. */
export function checkNewColumnName(name: unknown, field: string, path?: string): string {
  const problem = newColumnNameProblem(name);
  if (problem !== undefined) {
    throw new UsageError("UNSAFE_NAME", `column name ${problem}`, { path, field, expected: "a Python identifier [A-Za-z_][A-Za-z0-9_]*, not a keyword", actual: name });
  }
  return name as string;
}

/**
 * The numpy dtype a column gets from its data when none is given: from the typed array type
 * (`Float64Array` → `<f8`, `Int32Array` → `<i4`, `BigInt64Array` → `<i8`, `Uint8Array` → `|u1`,
 * …), or for plain arrays like numpy does: all booleans → `|b1`, all numbers → `<i8` when every
 * one is an integer within int64 else `<f8`, all bigints → `<i8` (or `<u8` when one exceeds
 * int64), all strings → `<U<longest>`, all `Uint8Array`s → `|S<longest>`. `undefined` when it
 * cannot tell (iterables, empty or mixed arrays).
 *
 * @example
 * ```ts
 * inferColumnDtype(new Float32Array(3)); // "<f4"
 * inferColumnDtype(["ab", "c"]);         // "<U2"
 * ```
 */
export function inferColumnDtype(data: unknown): string | undefined {
  if (data instanceof Float64Array) return "<f8";
  if (data instanceof Float32Array) return "<f4";
  if (data instanceof Int8Array) return "|i1";
  if (data instanceof Uint8Array || data instanceof Uint8ClampedArray) return "|u1";
  if (data instanceof Int16Array) return "<i2";
  if (data instanceof Uint16Array) return "<u2";
  if (data instanceof Int32Array) return "<i4";
  if (data instanceof Uint32Array) return "<u4";
  if (data instanceof BigInt64Array) return "<i8";
  if (data instanceof BigUint64Array) return "<u8";
  if (!Array.isArray(data) || data.length === 0) return undefined;
  const first = data[0] as unknown;
  if (typeof first === "boolean") return data.every((v) => typeof v === "boolean") ? "|b1" : undefined;
  if (typeof first === "number") {
    if (!data.every((v) => typeof v === "number")) return undefined;
    return data.every((v) => Number.isInteger(v) && Math.abs(v) < 2 ** 63) ? "<i8" : "<f8";
  }
  if (typeof first === "bigint") {
    if (!data.every((v) => typeof v === "bigint")) return undefined;
    return data.some((v) => v > 2n ** 63n - 1n) ? "<u8" : "<i8";
  }
  if (typeof first === "string") {
    if (!data.every((v) => typeof v === "string")) return undefined;
    return `<U${Math.max(1, ...data.map((v) => [...v].length))}`;
  }
  if (first instanceof Uint8Array) {
    if (!data.every((v) => v instanceof Uint8Array)) return undefined;
    return `|S${Math.max(1, ...data.map((v) => v.length))}`;
  }
  return undefined;
}

/**
 * A column given to {@link createCtable}: its name, data, and carray options (`dtype` is
 * inferred from typed arrays and uniform arrays when omitted).
 *
 * @example
 * ```ts
 * const col: ColumnSpec = { name: "price", data: new Float64Array([1.5, 2.5]), options: { cparams: { cname: "zstd" } } };
 * ```
 */
export interface ColumnSpec {
  /** Column name: an ASCII Python identifier, not a keyword. */
  name: string;
  /**
   * The column's values (any carray input; with `vtype`, the elements: strings, `Uint8Array`s
   * or arrays); all columns must have the same number of rows.
   */
  data: ArrayInput | VLInput;
  /**
   * Format 2: a variable-length column (a vlarray, spec/v2.md §12) of `"utf8"` strings,
   * `"bytes"`, or `"ragged"` arrays of `options.dtype`.
   */
  vtype?: VLType;
  /** Options of the column's carray (`dtype`, `chunklen`, `cparams`, `dflt`, `attrs`, …). */
  options?: Partial<Omit<CarrayCreateOptions, "mode" | "breakLock">>;
}

/**
 * Options of {@link createCtable}.
 *
 * @example
 * ```ts
 * const options: CtableCreateOptions = { mode: "w", cparams: { cname: "blosclz" }, chunklen: 800, attrs: { source: "feed" } };
 * ```
 */
export interface CtableCreateOptions extends LockOptions {
  /** `"a"` (default): `ConflictError` `ALREADY_EXISTS` if anything is at `path`; `"w"`: replace it. */
  mode?: "a" | "w";
  /** Default cparams of every column (a column's own `options.cparams` wins). */
  cparams?: Partial<Cparams>;
  /** Default chunklen of every column; default computed per column from `expectedlen`, like bcolz. */
  chunklen?: number;
  /** Default expectedlen of every column (default: the number of rows). */
  expectedlen?: number;
  /** The table's user attributes (`__attrs__`). */
  attrs?: Record<string, JsonValue>;
  /** Largest read allowed per call, as in {@link OpenOptions}. */
  maxReadBytes?: number;
  /** Most chunk files read per call, as in {@link OpenOptions}. */
  maxChunksPerCall?: number;
  /** Chunk files fetched ahead, as in {@link OpenOptions}. */
  prefetch?: number;
  /** Pool that compresses the chunks of every column, as in {@link OpenOptions}. */
  workers?: ChunkCodecPool;
  /** `1` (default): a bcolz 1.x ctable. `2`: a format-2 ctable (spec/v2.md §11), its columns format-2 carrays. */
  formatVersion?: 1 | 2;
  /** Format 2: superchunk settings of every column (see {@link CarrayCreateOptions}). */
  superchunksize?: number;
  /** Format 2: the checksum of every column. */
  checksum?: CarrayCreateOptions["checksum"];
  /** Format 2: spare room percentage of every column. */
  spare?: number;
}

/** Keys of everything under `prefix/` (and `prefix` itself when it is a key), via list when possible. */
export async function keysUnder(store: WritableStore, base: string, knownFiles: () => string[]): Promise<string[]> {
  if (store.list !== undefined) return store.list(base === "" ? "" : `${base}/`);
  const found: string[] = [];
  for (const rel of knownFiles()) {
    const key = joinKey(base, rel);
    if ((await store.get(key)) !== undefined) found.push(key);
  }
  return found;
}

/** The files of a carray a store without `list` can still find: metadata plus chunk files 0..n. */
export function carrayFiles(chunkFiles: number): string[] {
  const files = ["meta/sizes", "meta/shape", "meta/storage", "__attrs__", LOCK_FILE, ".journal"];
  for (let k = 0; k <= chunkFiles; k++) files.push(`data/__${k}.blp`, `data/__${k}.blp.next`, `data/__${k + 1}__.bin`);
  return files;
}

/** Deletes every key of a column directory (metadata first, so a half-deleted column no longer opens). */
export async function removeColumnFiles(store: WritableStore, base: string, chunkFiles: number): Promise<void> {
  const keys = await keysUnder(store, base, () => carrayFiles(chunkFiles));
  const first = ["meta/sizes", "meta/shape", "meta/storage"].map((f) => joinKey(base, f));
  for (const key of first) await store.delete(key);
  for (const key of keys) if (!first.includes(key)) await store.delete(key);
}

/**
 * Copies a (flushed, unlocked) column directory: chunk files first, then `__attrs__` and
 * `meta/storage`, `meta/sizes` last, so the copy becomes an openable carray only when complete.
 */
export async function copyColumnFiles(store: WritableStore, from: string, to: string, chunkFiles: number): Promise<void> {
  const keys = (await keysUnder(store, from, () => carrayFiles(chunkFiles))).filter((k) => !k.endsWith(`/${LOCK_FILE}`));
  const rank = (key: string): number => (key.endsWith("/meta/sizes") || key.endsWith("/meta/shape") ? 3 : key.endsWith("/meta/storage") ? 2 : key.endsWith("/__attrs__") ? 1 : 0);
  keys.sort((a, b) => rank(a) - rank(b));
  await store.createDirectory?.(joinKey(to, "data"));
  for (const key of keys) {
    const value = await store.get(key);
    if (value !== undefined) await store.put(joinKey(to, key.slice(from.length + 1)), value);
  }
}

/** Whether anything (other than our own lock) is stored under `base`. */
export async function somethingAt(store: WritableStore, base: string): Promise<boolean> {
  const lockKey = joinKey(base, LOCK_FILE);
  if (store.list !== undefined) return (await store.list(base === "" ? "" : `${base}/`)).some((k) => k !== lockKey);
  for (const f of ["__rootdirs__", "__attrs__", "meta/storage", "meta/sizes"]) if ((await store.get(joinKey(base, f))) !== undefined) return true;
  return false;
}

export function attrsText(attrs: Record<string, JsonValue> | JsonObject): string {
  const obj = attrs;
  return serializeAttrs(createJsonObject(jsonObjectKeys(obj).map((k) => [k, obj[k]!] as [string, JsonValue])));
}

export function rootdirsBytes(names: readonly string[]): Uint8Array {
  return encodeMetadata(serializeRootdirs({ names: [...names] }));
}

/**
 * What differs between the two table formats (the rest of a ctable is written once for both):
 * where column `name` lives (`<table>/<name>` in format 1, `<table>/data/<name>` in format 2),
 * which file lists the columns (`__rootdirs__`, or `meta/storage` of kind ctable, spec/v2.md §11)
 * and the append journal's `format`. @internal
 */
export interface TableFormat {
  readonly version: 1 | 2;
  columnPath(base: string, name: string): string;
  /** Store key of the file that lists the columns. */
  namesKey(base: string): string;
  namesBytes(names: readonly string[]): Uint8Array;
  appendJournalBytes(length: number): Uint8Array;
}

/** Format 1 tables (bcolz 1.x). @internal */
export const TABLE_V1: TableFormat = {
  version: 1,
  columnPath: (base, name) => joinKey(base, name),
  namesKey: (base) => joinKey(base, "__rootdirs__"),
  namesBytes: rootdirsBytes,
  appendJournalBytes: (length) => encodeMetadata(`{"format": 1, "length": ${length}}\n`),
};

/** Format 2 tables (spec/v2.md §11). @internal */
export const TABLE_V2: TableFormat = {
  version: 2,
  columnPath: (base, name) => joinKey(base, `data/${name}`),
  namesKey: (base) => joinKey(base, "meta/storage"),
  namesBytes: (names) => encodeMetadata(serializeStorageV2({ formatVersion: 2, kind: "ctable", columns: [...names], raw: createJsonObject([]) })),
  appendJournalBytes: (length) => encodeMetadata(serializeAppendV2(length)),
};

/** Number of rows of a column input when known without consuming it. */
export function knownRows(data: ArrayInput, itemsPerRow: number): number | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  if ("bytes" in data && (data as { bytes: unknown }).bytes instanceof Uint8Array) return undefined; // needs the atom size
  if (ArrayBuffer.isView(data) || Array.isArray(data)) return (data as ArrayLike<unknown>).length / itemsPerRow;
  return undefined;
}

/** Elements repeated `rows` times, in blocks (a column filled with one value). */
export async function* repeatedValue(value: ElementInput | readonly ElementInput[], rows: number, blockRows: number): AsyncGenerator<ElementInput[], void, undefined> {
  const row = Array.isArray(value) ? (value as ElementInput[]) : [value as ElementInput];
  for (let done = 0; done < rows; ) {
    const n = Math.min(blockRows, rows - done);
    const block: ElementInput[] = [];
    for (let i = 0; i < n; i++) block.push(...row);
    yield block;
    done += n;
  }
}

/** What createCtable hands to the CTable constructor. @internal */
export interface CreatedTable {
  store: WritableStore;
  base: string;
  names: string[];
  columns: (CArray | VLArray)[];
  attrs: Record<string, JsonValue>;
  lock: DatasetLock;
  format: TableFormat;
}

function columnOptions(spec: ColumnSpec, table: CtableCreateOptions, index: number): CarrayCreateOptions {
  const own = spec.options ?? {};
  if (typeof own !== "object" || own === null) throw new UsageError("INVALID_ARGUMENT", "column options must be an object", { field: `columns.${index}.options`, actual: own });
  const dtype = spec.vtype !== undefined ? own.dtype : own.dtype ?? inferColumnDtype(spec.data);
  if (dtype === undefined && spec.vtype === undefined) {
    throw new UsageError("INVALID_ARGUMENT", `cannot infer the dtype of column "${spec.name}"; give options.dtype`, { field: `columns.${index}.options.dtype`, expected: "a dtype such as \"<f8\" or \"|S6\"" });
  }
  const out = { ...own, dtype, mode: "a" } as CarrayCreateOptions;
  if (own.cparams === undefined && table.cparams !== undefined) out.cparams = table.cparams;
  if (own.chunklen === undefined && table.chunklen !== undefined) out.chunklen = table.chunklen;
  if (own.expectedlen === undefined && table.expectedlen !== undefined) out.expectedlen = table.expectedlen;
  if (own.maxReadBytes === undefined && table.maxReadBytes !== undefined) out.maxReadBytes = table.maxReadBytes;
  if (own.maxChunksPerCall === undefined && table.maxChunksPerCall !== undefined) out.maxChunksPerCall = table.maxChunksPerCall;
  if (own.prefetch === undefined && table.prefetch !== undefined) out.prefetch = table.prefetch;
  if (own.workers === undefined && table.workers !== undefined) out.workers = table.workers;
  // A table's columns share its format version (spec/v2.md §11: a column's own format_version is 2).
  if (table.formatVersion !== undefined) out.formatVersion = table.formatVersion;
  if (own.superchunksize === undefined && table.superchunksize !== undefined) out.superchunksize = table.superchunksize;
  if (own.checksum === undefined && table.checksum !== undefined) out.checksum = table.checksum;
  if (own.spare === undefined && table.spare !== undefined) out.spare = table.spare;
  return out;
}

/**
 * Removes a whole dataset directory (for mode "w"): `__rootdirs__` first, so a half-removed
 * table never opens as a ctable, then every other key. Without `list`, an old ctable's columns
 * are found through its `__rootdirs__`.
 */
async function removeDataset(store: WritableStore, base: string): Promise<void> {
  const lockKey = joinKey(base, LOCK_FILE);
  const rootKey = joinKey(base, "__rootdirs__");
  if (store.list !== undefined) {
    await store.delete(rootKey);
    for (const key of await store.list(base === "" ? "" : `${base}/`)) if (key !== lockKey) await store.delete(key);
    return;
  }
  const rootdirs = await store.get(rootKey);
  let names: string[] = [];
  if (rootdirs !== undefined) {
    try {
      const doc = JSON.parse(new TextDecoder().decode(rootdirs)) as { names?: unknown };
      if (Array.isArray(doc.names)) names = doc.names.filter((n): n is string => typeof n === "string" && columnNameProblem(n) === undefined);
    } catch {
      // unreadable: only the known root files can be removed
    }
  }
  await store.delete(rootKey);
  for (const name of names) await removeColumnFiles(store, joinKey(base, name), 64);
  for (const f of carrayFiles(64)) if (joinKey(base, f) !== lockKey) await store.delete(joinKey(base, f));
}

/**
 * Creates the columns, `__attrs__` and, last, `__rootdirs__` of a new ctable (so the table
 * opens only once complete). Returns the open, locked parts. @internal
 */
export async function createTableFiles(store: WritableStore, path: string, columns: readonly ColumnSpec[], options: CtableCreateOptions): Promise<CreatedTable> {
  const base = checkDatasetPath(path);
  const writable = requireWritableStore(store);
  if (typeof options !== "object" || options === null) throw new UsageError("INVALID_ARGUMENT", "options must be an object", { field: "options", actual: options });
  const mode = options.mode ?? "a";
  if (mode !== "a" && mode !== "w") throw new UsageError("INVALID_ARGUMENT", 'mode must be "a" or "w"', { field: "mode", actual: mode });
  const version = options.formatVersion ?? 1;
  if (version !== 1 && version !== 2) throw new UsageError("INVALID_ARGUMENT", "formatVersion must be 1 or 2", { field: "formatVersion", actual: version });
  const format = version === 1 ? TABLE_V1 : TABLE_V2;
  const given: unknown = columns; // an array of specs, checked for JavaScript callers
  if (!Array.isArray(given) || columns.length === 0) {
    throw new UsageError("INVALID_ARGUMENT", "a ctable needs at least one column", { field: "columns", expected: "a non-empty array of { name, data, options? }", actual: columns });
  }
  const names: string[] = [];
  const specs = columns.map((spec, i) => {
    if (typeof spec !== "object" || spec === null) throw new UsageError("INVALID_ARGUMENT", "a column is { name, data, options? }", { field: `columns.${i}`, actual: spec });
    const name = checkNewColumnName(spec.name, `columns.${i}.name`, base);
    if (names.includes(name)) throw new UsageError("INVALID_ARGUMENT", `column "${name}" is given twice`, { field: `columns.${i}.name`, actual: name });
    names.push(name);
    return { spec, options: columnOptions(spec, options, i) };
  });
  const attrs = options.attrs ?? {};
  const attrsFile = encodeMetadata(attrsText(attrs));
  // Lengths known up front are checked before anything is written.
  const known = specs.map(({ spec }) => knownRows(spec.data as ArrayInput, 1));
  const firstKnown = known.find((n) => n !== undefined);
  known.forEach((n, i) => {
    if (n !== undefined && firstKnown !== undefined && n !== firstKnown && specs[i]!.options.shape === undefined) {
      throw new UsageError("INVALID_ARGUMENT", `column "${names[i]}" has ${n} rows, column "${names[known.indexOf(firstKnown)]}" has ${firstKnown}`, { field: `columns.${i}.data`, expected: firstKnown, actual: n });
    }
  });

  const lock = await DatasetLock.acquire(writable, base, options);
  const created: (CArray | VLArray)[] = [];
  let attrsWritten = false;
  try {
    if (await somethingAt(writable, base)) {
      if (mode === "a") throw new ConflictError("ALREADY_EXISTS", 'a dataset already exists at this path (use mode "w" to replace it)', { path: base, field: "path" });
      await removeDataset(writable, base);
    }
    for (const { spec, options: colOptions } of specs) {
      const key = format.columnPath(base, spec.name);
      created.push(spec.vtype === undefined ? await createCarray(writable, key, spec.data as ArrayInput, colOptions) : await createVLColumn(writable, key, spec.data, false, undefined, { ...colOptions, vtype: spec.vtype }, version));
    }
    const length = created[0]!.length;
    created.forEach((c, i) => {
      if (c.length !== length) {
        throw new UsageError("INVALID_ARGUMENT", `column "${names[i]}" has ${c.length} rows, column "${names[0]}" has ${length}`, { field: `columns.${i}.data`, expected: length, actual: c.length });
      }
    });
    attrsWritten = true;
    await writable.put(joinKey(base, "__attrs__"), attrsFile);
    await writable.put(format.namesKey(base), format.namesBytes(names));
    return { store: writable, base, names, columns: created, attrs, lock, format };
  } catch (error) {
    // Undo: without __rootdirs__ the partial columns are not a table; remove them too.
    for (const c of created) await c.close().catch(() => undefined);
    for (const c of created) await removeColumn(writable, c).catch(() => undefined);
    if (attrsWritten) await writable.delete(joinKey(base, "__attrs__")).catch(() => undefined);
    await lock.release();
    throw error;
  }
}

/**
 * Creates a vlarray column (spec/v2.md §11–§12) at `key` from its elements, or `rows` copies of
 * one element when `isFill`; a format-1 table cannot hold one (`UsageError` `INVALID_ARGUMENT`).
 *
 * @example
 * ```ts
 * const sym = await createVLColumn(store, "t/data/sym", "n/a", true, 3, { dtype: "|u1", vtype: "utf8" }, 2);
 * ```
 * @internal
 */
export async function createVLColumn(store: WritableStore, key: string, data: unknown, isFill: boolean, rows: number | undefined, options: CarrayCreateOptions & { vtype: VLType; offsetsChunklen?: number }, version: 1 | 2): Promise<VLArray> {
  if (version !== 2) throw new UsageError("INVALID_ARGUMENT", "variable-length columns (vlarrays) need a format-2 table", { path: key, field: "vtype", actual: options.vtype });
  const { shape, formatVersion: _f, ...rest } = options;
  if (shape !== undefined && shape.length > 0) throw new UsageError("INVALID_ARGUMENT", "a vlarray column has no trailing dimensions", { path: key, field: "shape", actual: shape });
  const vlOptions = { ...rest, ...(rows === undefined ? {} : { expectedlen: rest.expectedlen ?? rows }) } as VLArrayCreateOptions;
  if (vlOptions.dtype === undefined) delete vlOptions.dtype;
  const elements: VLInput = isFill ? repeatElement(data, rows ?? 0) : (data as VLInput);
  return createVLArray(store, key, elements, vlOptions);
}

function* repeatElement(value: unknown, n: number): Generator<never, void, undefined> {
  for (let i = 0; i < n; i++) yield value as never;
}

/**
 * Deletes a table column's directory, of either kind (metadata first, so that a half-deleted
 * column no longer opens).
 *
 * @example
 * ```ts
 * await removeColumn(store, table.column("old"));
 * ```
 * @internal
 */
export async function removeColumn(store: WritableStore, column: CArray | VLArray): Promise<void> {
  if (column.kind === "carray") return removeColumnFiles(store, column.path, column.chunkCount + 1);
  await removeVLArrayFiles(store, column.path, Math.max(column.offsets.chunkCount, column.values.chunkCount) + 1);
}

/**
 * Copies a closed column of either kind to `to`, in an order that makes the copy open only when complete.
 *
 * @example
 * ```ts
 * await copyColumn(store, column, "t/data/renamed");
 * ```
 * @internal
 */
export async function copyColumn(store: WritableStore, column: CArray | VLArray, to: string): Promise<void> {
  if (column.kind === "carray") return copyColumnFiles(store, column.path, to, column.chunkCount + 1);
  await copyVLArrayFiles(store, column.path, to, Math.max(column.offsets.chunkCount, column.values.chunkCount) + 1);
}

/**
 * The input of every column, in column order, from an object of columns or an array of records
 * (`UsageError` `INVALID_ARGUMENT` for unknown or missing columns).
 *
 * @example
 * ```ts
 * columnInputs("t", ["id", "sym"], columns, [{ id: 1, sym: "a" }]); // [[1], ["a"]]
 * ```
 * @internal
 */
export function columnInputs(path: string, names: readonly string[], columns: readonly { itemsPerRow: number }[], rows: unknown): ArrayInput[] {
  if (Array.isArray(rows)) {
    const perColumn: ElementInput[][] = names.map(() => []);
    rows.forEach((record: unknown, r) => {
      if (typeof record !== "object" || record === null) throw new UsageError("INVALID_ARGUMENT", "a record must be an object", { path: path, field: `rows.${r}`, actual: record });
      const keys = Object.keys(record);
      for (const k of keys) if (!names.includes(k)) throw new UsageError("INVALID_ARGUMENT", `unknown column "${k}"`, { path: path, field: `rows.${r}.${k}`, expected: names.join(", ") });
      names.forEach((name, c) => {
        if (!(name in record)) throw new UsageError("INVALID_ARGUMENT", `record lacks column "${name}"`, { path: path, field: `rows.${r}.${name}`, expected: "a value for every column" });
        const value = (record as { [k: string]: unknown })[name];
        if (columns[c]!.itemsPerRow !== 1 && typeof value === "object" && value !== null && "length" in value) perColumn[c]!.push(...Array.from(value as ArrayLike<ElementInput>));
        else perColumn[c]!.push(value as ElementInput);
      });
    });
    return perColumn;
  }
  if (typeof rows !== "object" || rows === null) throw new UsageError("INVALID_ARGUMENT", "rows must be an object of columns or an array of records", { path: path, field: "rows", actual: rows });
  for (const k of Object.keys(rows)) if (!names.includes(k)) throw new UsageError("INVALID_ARGUMENT", `unknown column "${k}"`, { path: path, field: `rows.${k}`, expected: names.join(", ") });
  return names.map((name) => {
    if (!(name in rows)) throw new UsageError("INVALID_ARGUMENT", `column "${name}" is missing`, { path: path, field: `rows.${name}`, expected: "data for every column" });
    return (rows as { [k: string]: ArrayInput })[name]!;
  });
}

/**
 * What {@link createNewColumn} needs to know of the table.
 *
 * @example
 * ```ts
 * const ctx: NewColumnContext = { length: 3, tableOptions: {}, first: t.columns[0], format: TABLE_V2 };
 * ```
 * @internal
 */
export interface NewColumnContext {
  /** The table's length. */
  length: number;
  /** The table's open options (their read options go to the new column). */
  tableOptions: OpenOptions;
  /** The first column, whose cparams and superchunk settings are the defaults. */
  first: CArray | VLArray | undefined;
  format: TableFormat;
}

/**
 * Creates the files of a column that `CTable.addColumn` adds: from data of the table's length or
 * a fill value, a carray or (with `options.vtype`, format 2) a vlarray, taking the table's format
 * and the first column's cparams and superchunk settings unless given.
 *
 * @example
 * ```ts
 * const column = await createNewColumn(store, "t/data/note", "note", "n/a", { vtype: "utf8" }, ctx);
 * ```
 * @internal
 */
export async function createNewColumn(store: WritableStore, key: string, name: string, data: unknown, options: AddColumnOptions, ctx: NewColumnContext): Promise<CArray | VLArray> {
  const length = ctx.length;
    const isFill = (v: unknown): v is { fill: ElementInput | readonly ElementInput[] } => typeof v === "object" && v !== null && !ArrayBuffer.isView(v) && !Array.isArray(v) && "fill" in v;
    const scalar = data === null || typeof data === "number" || typeof data === "bigint" || typeof data === "boolean" || typeof data === "string";
    const fill = isFill(data) ? data.fill : scalar ? (data as ElementInput) : undefined;
    const hasFill = isFill(data) || scalar;
    const dtype = options.vtype !== undefined ? options.dtype : options.dtype ?? inferColumnDtype(hasFill ? (Array.isArray(fill) ? fill : [fill]) : data);
    if (dtype === undefined && options.vtype === undefined) {
      throw new UsageError("INVALID_ARGUMENT", `cannot infer the dtype of column "${name}"; give options.dtype`, { path: key, field: "options.dtype", expected: 'a dtype such as "<f8" or "|S6"' });
    }
    const itemsPerRow = (options.shape ?? []).reduce((a, b) => a * b, 1);
    const createOptions = {
      ...options,
      ...readOptionsOf(ctx.tableOptions),
      // A pool given for this column wins over the table's.
      workers: options.workers ?? ctx.tableOptions.workers,
      dtype,
      cparams: options.cparams ?? ctx.first?.cparams,
      mode: options.overwrite === true ? "w" : "a",
      // The new column takes the table's format, and in format 2 the first column's superchunk settings unless given.
      formatVersion: ctx.format.version,
      ...(ctx.format.version === 2 ? { ...ctx.first?.superchunks, ...pickDefined(options, ["superchunksize", "checksum", "spare"]) } : {}),
    } as CarrayCreateOptions;
    delete (createOptions as { position?: unknown }).position;
    delete (createOptions as { overwrite?: unknown }).overwrite;
    let input: ArrayInput;
    if (hasFill && options.vtype !== undefined) {
      input = data as ArrayInput;
    } else if (hasFill) {
      input = repeatedValue(fill as ElementInput | readonly ElementInput[], length, 65536);
      createOptions.expectedlen ??= length;
    } else {
      input = data as ArrayInput;
      const known = knownRows(input, itemsPerRow);
      if (known !== undefined && known !== length) {
        throw new UsageError("INVALID_ARGUMENT", `the new column has ${known} rows, the table has ${length}`, { path: key, field: "data", expected: length, actual: known });
      }
    }
    if (options.overwrite !== true && (await somethingAt(store, key))) {
      throw new ConflictError("ALREADY_EXISTS", `a directory "${name}" exists in the table but is not one of its columns (use overwrite: true to replace it)`, { path: key, field: "name" });
    }
    const column: CArray | VLArray = options.vtype === undefined
      ? await createCarray(store, key, input, createOptions)
      : await createVLColumn(store, key, hasFill ? fill : data, hasFill, length, { ...createOptions, vtype: options.vtype }, ctx.format.version);
  return column;
}

function pickDefined<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}
