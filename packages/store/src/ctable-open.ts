/**
 * Opening ctables of either format (spec/v1.md §3.3, spec/v2.md §11): which file lists the
 * columns, the checks of the names, the columns opened at the table's last committed length (the
 * append journal), the roll-back a writer does, and `open`, which tells tables, carrays and
 * vlarrays apart.
 *
 * @example
 * ```ts
 * const t = await openCtable(store, "trades.bcolz");
 * const any = await open(store, "prices.bcolz"); // CArray | CTable | VLArray
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { columnNameProblem, parseAttrs, parseRootdirs, parseStorageV2, storageFormatVersion } from "@fmt/meta";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import type { CArray } from "./carray.js";
import { checkOptions, openCarray, openCarrayAt, readOptionsOf, requireWritableStore } from "./carray-open.js";
import type { OpenOptions } from "./options.js";
import { CTable } from "./ctable.js";
import type { TableColumn } from "./ctable.js";
import { APPEND_JOURNAL_FILE, createTableFiles, TABLE_V1, TABLE_V2 } from "./ctable-write.js";
import type { ColumnSpec, CtableCreateOptions, TableFormat } from "./ctable-write.js";
import { checkDatasetPath, joinKey, readText, requireNestedFormat2, requireText, withPath, pathAndOptions } from "./internal.js";
import { DatasetLock } from "./lock.js";
import type { VLArray } from "./vlarray.js";
import { openVLArray } from "./vlarray-open.js";

/**
 * Opens column `name`: a carray, or in format 2 a carray or vlarray. A format-2 column's
 * `meta/storage` is read once: it must announce format 2 itself (spec/v2.md §11 and §15.1:
 * `INCONSISTENT`, not the format-1 reading a root would get), its `kind` picks carray or vlarray,
 * and a carray opens from the same text.
 */
async function openTableColumn(store: ReadableStore, format: TableFormat, base: string, name: string, options: OpenOptions): Promise<TableColumn> {
  const path = format.columnPath(base, name);
  if (format.version === 1) return openCarray(store, path, options);
  const key = joinKey(path, "meta/storage");
  const text = await readText(store, key);
  if (text !== undefined) {
    requireNestedFormat2(text, key, "a format-2 table holds a format-{v} column");
    if (withPath(key, () => parseStorageV2(text, key)).kind === "vlarray") return openVLArray(store, path, options);
  }
  return openCarrayAt(store, checkDatasetPath(path), options, text);
}

function checkColumnName(name: unknown, index: number, key: string): string {
  // parseRootdirs checks this too; repeated here because a bad name would reach the store.
  const problem = typeof name === "string" ? columnNameProblem(name) : "not a string";
  if (problem !== undefined) {
    throw new FormatError("UNSAFE_NAME", `column name is not a safe directory name: ${problem}`, { path: key, field: `names.${index}`, actual: name });
  }
  return name as string;
}

/**
 * Opens the ctable whose directory is `path` in `store` (`""` = the store root): reads
 * `__rootdirs__` and `__attrs__` and opens every column as a carray at `<path>/<name>`.
 *
 * `options.mode`: `"r"` (default) reads only and takes no lock. `"a"` opens for writing (needs
 * a WritableStore): takes `<path>/.lock` (`ConflictError` `LOCKED` if another writer holds it;
 * `breakLock` for a stale one), opens every column with mode `"a"`, and rolls back an append
 * that was interrupted (see {@link CTable.append}). `"w"` is `"a"` followed by truncating every
 * column to 0 rows (bcolz refuses to reopen a ctable with `'w'`; here it means "empty it").
 *
 * Errors: `FormatError` `MISSING_FILE` (no `__rootdirs__`, or a column's metadata), `UNSAFE_NAME`
 * (a column name that is not a single safe path segment), `BAD_METADATA` (duplicate names),
 * `INCONSISTENT` (columns of different lengths with no append journal to explain them, naming
 * the column's `meta/sizes`), plus every error of {@link openCarray}. A read-only open during an
 * append (in this or another process, or after one was interrupted) sees the last committed
 * length: columns are read up to the length the append journal records.
 * When several columns are bad, the first in order is reported.
 *
 * @example
 * ```ts
 * const t = await openCtable(store, "trades.bcolz");
 * console.log(t.columns.map((c) => c.dtype.str));
 * const w = await openCtable(store, "trades.bcolz", { mode: "a" });
 * await w.append([{ id: 9n, price: 1.5 }]);
 * await w.close();
 * ```
 */
export async function openCtable(store: ReadableStore, options?: OpenOptions): Promise<CTable>;
export async function openCtable(store: ReadableStore, path?: string, options?: OpenOptions): Promise<CTable>;
export async function openCtable(store: ReadableStore, pathOrOptions: string | OpenOptions = "", maybeOptions?: OpenOptions): Promise<CTable> {
  const [path, options] = pathAndOptions(pathOrOptions, maybeOptions);
  const base = checkDatasetPath(path);
  const source = await tableSource(store, base);
  if (source === undefined) return openCtableWith(store, base, options, { format: TABLE_V1, namesText: await requireText(store, joinKey(base, "__rootdirs__")) });
  return openCtableWith(store, base, options, source);
}

/**
 * Which table format the root `base` holds, with the text of the file that lists its columns:
 * `__rootdirs__` (format 1), or a format-2 `meta/storage` of kind ctable; `undefined` otherwise.
 */
async function tableSource(store: ReadableStore, base: string): Promise<TableSource | undefined> {
  return (await rootOf(store, base)).table;
}

/**
 * What the root `base` is, from `__rootdirs__` and `meta/storage` read once each: a table (with
 * the file listing its columns), a format-2 vlarray, or else (carray or nothing readable) the
 * `meta/storage` text for the carray opener, so that no file is fetched twice.
 */
async function rootOf(store: ReadableStore, base: string): Promise<{ table?: TableSource; vlarray?: boolean; storageText?: string }> {
  const rootdirs = await readText(store, joinKey(base, "__rootdirs__"));
  if (rootdirs !== undefined) return { table: { format: TABLE_V1, namesText: rootdirs } };
  const storageKey = joinKey(base, "meta/storage");
  const storage = await readText(store, storageKey);
  if (storage === undefined) return {};
  try {
    if (storageFormatVersion(storage, storageKey) === 2) {
      const kind = parseStorageV2(storage, storageKey).kind;
      if (kind === "ctable") return { table: { format: TABLE_V2, namesText: storage } };
      if (kind === "vlarray") return { vlarray: true };
    }
  } catch {
    // Not a readable format-2 table or vlarray: opening it as a carray reports what is wrong.
  }
  return { storageText: storage };
}

/** The format of a table and the text of the file listing its columns. @internal */
export interface TableSource {
  format: TableFormat;
  namesText: string;
}

/** Column names from `__rootdirs__` (format 1) or `meta/storage` (format 2), checked. */
function readNames(format: TableFormat, rootKey: string, rootdirsText: string): string[] {
  const names = format.version === 1
    ? withPath(rootKey, () => parseRootdirs(rootdirsText, rootKey)).names
    : withPath(rootKey, () => {
        const storage = parseStorageV2(rootdirsText, rootKey);
        if (storage.kind !== "ctable") throw new FormatError("BAD_METADATA", "not a ctable", { path: rootKey, field: "/kind", expected: "ctable", actual: storage.kind });
        return storage.columns;
      });
  if (format.version === 2) {
    // Stricter than format 1: ASCII identifiers only (spec/v2.md §11).
    names.forEach((name, i) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.length > 255 || name === "__attrs__" || name === "__rootdirs__") {
        throw new FormatError("UNSAFE_NAME", "a format-2 column name is an ASCII identifier of at most 255 bytes", { path: rootKey, field: `/columns/${i}`, expected: "[A-Za-z_][A-Za-z0-9_]*, at most 255 bytes", actual: name });
      }
    });
  }
  const seen = new Set<string>();
  names.forEach((name, i) => {
    checkColumnName(name, i, rootKey);
    if (seen.has(name)) throw new FormatError("BAD_METADATA", "column name listed twice", { path: rootKey, field: `names.${i}`, actual: name });
    seen.add(name);
  });
  return names;
}

/** The old length recorded by an interrupted append, or undefined. */
async function readAppendJournal(store: ReadableStore, base: string): Promise<number | undefined> {
  const key = joinKey(base, APPEND_JOURNAL_FILE);
  const text = await readText(store, key);
  if (text === undefined) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    throw new FormatError("BAD_JSON", "the journal of an interrupted append is not JSON", { path: key, field: "text", cause });
  }
  // spec/v1.md §8.5: an object whose length is an integer >= 0 (an array has a length too).
  const length = typeof doc === "object" && doc !== null && !Array.isArray(doc) ? (doc as { length?: unknown }).length : undefined;
  if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
    throw new FormatError("BAD_METADATA", "the journal of an interrupted append must be an object with a length (an integer >= 0)", { path: key, field: "append.length", expected: "an integer >= 0", actual: Array.isArray(doc) ? "an array" : length });
  }
  return length;
}

function checkLengths(names: string[], columns: TableColumn[], interrupted: boolean): void {
  const first = columns[0];
  for (const [i, column] of columns.entries()) {
    if (first !== undefined && column.length !== first.length) {
      const hint = interrupted ? ' (an append was interrupted; open the table with mode "a" to roll it back)' : "";
      throw new FormatError("INCONSISTENT", `column "${names[i]}" has ${column.length} rows, column "${names[0]}" has ${first.length}${hint}`, {
        path: joinKey(column.path, column.kind === "vlarray" ? "offsets/meta/shape" : column.formatVersion === 1 ? "meta/sizes" : "meta/shape"),
        field: "shape.0",
        expected: first.length,
        actual: column.length,
      });
    }
  }
}

/** How often a reader re-reads the columns' `meta/sizes` when it caught a writer between two of them. */
const READ_ATTEMPTS = 8;

/**
 * Opens every column read-only and returns them at the table's last committed length (spec v1
 * §8.5). The append journal is read after the columns: when it exists, its length is committed
 * and every column holds at least that many rows (rows beyond it belong to the append in
 * progress and are left out). A journal claiming more rows than some column has, or unequal
 * columns without a journal, means a writer moved on between the reads: read again. Only
 * columns that stay unequal with no journal are `INCONSISTENT`.
 */
async function committedColumns(store: ReadableStore, base: string, names: string[], options: OpenOptions, format: TableFormat): Promise<TableColumn[]> {
  for (let attempt = 1; ; attempt++) {
    const settled = await Promise.allSettled(names.map((name) => openTableColumn(store, format, base, name, options)));
    const columns: TableColumn[] = [];
    for (const result of settled) {
      if (result.status === "rejected") throw result.reason;
      columns.push(checkColumnVersion(result.value, format));
    }
    const journalLength = await readAppendJournal(store, base);
    if (journalLength !== undefined && columns.every((c) => c.length >= journalLength)) {
      return columns.map((c) => (c.length === journalLength ? c : c.committedPrefix(journalLength)));
    }
    if (journalLength === undefined && columns.every((c) => c.length === columns[0]!.length)) return columns;
    if (attempt === READ_ATTEMPTS) {
      checkLengths(names, columns, journalLength !== undefined);
      // Equal columns below the journal's length: the journal is not this table's.
      throw new FormatError("INCONSISTENT", `the append journal records ${journalLength} rows, the columns have ${columns[0]!.length}`, {
        path: joinKey(base, APPEND_JOURNAL_FILE),
        field: "length",
        expected: `<= ${columns[0]!.length}`,
        actual: journalLength,
      });
    }
  }
}



/** A format-2 table's columns are format-2 carrays (spec/v2.md §11). */
function checkColumnVersion(column: TableColumn, format: TableFormat): TableColumn {
  if (column.formatVersion !== format.version) {
    throw new FormatError("INCONSISTENT", `a format-${format.version} table holds a format-${column.formatVersion} column`, { path: joinKey(column.path, "meta/storage"), field: "/format_version", expected: format.version, actual: column.formatVersion });
  }
  return column;
}

/** {@link openCtable} with the file listing the columns already read. */
export async function openCtableWith(store: ReadableStore, base: string, options: OpenOptions, source: TableSource): Promise<CTable> {
  checkOptions(options);
  const mode = options.mode ?? "r";
  const { format, namesText: rootdirsText } = source;
  const rootKey = format.namesKey(base);
  const attrsKey = joinKey(base, "__attrs__");
  if (mode === "r") {
    const names = readNames(format, rootKey, rootdirsText);
    const attrsText = await readText(store, attrsKey);
    // bcolz writes the table's own __attrs__ with the table and cannot open one without it.
    if (attrsText === undefined) throw new FormatError("MISSING_FILE", "__attrs__ is missing", { path: attrsKey, field: "file" });
    const attrs = withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
    const columns = await committedColumns(store, base, names, options, format);
    return new CTable(store, base, names, columns, attrs, undefined, options, format);
  }
  const writable = requireWritableStore(store);
  const lock = await DatasetLock.acquire(writable, base, { breakLock: options.breakLock === true });
  const columns: TableColumn[] = [];
  try {
    // Read again under the lock: another writer may have changed the table meanwhile.
    const names = readNames(format, rootKey, await requireText(writable, rootKey));
    const attrsText = await readText(writable, attrsKey);
    const attrs = attrsText === undefined ? {} : withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
    const columnOptions: OpenOptions = { ...options, mode: "a" };
    for (const name of names) columns.push(checkColumnVersion(await openTableColumn(writable, format, base, name, columnOptions), format));
    const journalLength = await readAppendJournal(writable, base);
    if (journalLength !== undefined) {
      // Roll an interrupted append back: every column returns to the length it had before.
      for (const column of columns) if (column.length > journalLength) await column.resize(journalLength);
      checkLengths(names, columns, false);
      await writable.delete(joinKey(base, APPEND_JOURNAL_FILE));
    }
    checkLengths(names, columns, false);
    if (mode === "w") for (const column of columns) await column.resize(0);
    return new CTable(writable, base, names, columns, attrs, { store: writable, lock }, options, format);
  } catch (error) {
    for (const column of columns) await column.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

/**
 * Creates a bcolz 1.x ctable at `path` in `store` from columns (name, data, carray options)
 * and returns it open for writing; call {@link CTable.close} when done (the table holds
 * `<path>/.lock`, each column its own). Files are what bcolz writes: one carray directory per
 * column (see {@link createCarray}), `__attrs__`, and `__rootdirs__` (`{"names": [...]}`),
 * written last so that the table opens only once complete.
 *
 * Column names must be ASCII Python identifiers that are not keywords (`UsageError`
 * `UNSAFE_NAME`); all columns must have the same number of rows (`INVALID_ARGUMENT`). A dtype
 * is inferred from typed arrays and uniform arrays when a column gives none. `mode: "w"`
 * replaces whatever is at `path`; the default `"a"` refuses with `ConflictError`
 * `ALREADY_EXISTS`.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * const store = new MemoryStore();
 * const t = await createCtable(store, "trades", [
 *   { name: "id", data: new BigInt64Array([1n, 2n, 3n]) },
 *   { name: "price", data: [1.5, 2.5, 3.5], options: { dtype: "<f8", cparams: { cname: "zstd" } } },
 *   { name: "sym", data: ["AB", "C", "DEF"], options: { dtype: "|S3" } },
 * ], { chunklen: 1024 });
 * await t.append([{ id: 4n, price: 4.5, sym: "GH" }]);
 * await t.close();
 * ```
 */
export async function createCtable(store: WritableStore, path: string, columns: readonly ColumnSpec[], options: CtableCreateOptions = {}): Promise<CTable> {
  const created = await createTableFiles(store, path, columns, options);
  const openOptions = readOptionsOf(options);
  return new CTable(created.store, created.base, created.names, created.columns, created.attrs, { store: created.store, lock: created.lock }, openOptions, created.format);
}

/**
 * Opens the dataset at `path` in `store`, like `bcolz.open`: a {@link CTable} when
 * `<path>/__rootdirs__` exists or a format-2 `meta/storage` says kind ctable, a {@link VLArray}
 * when it says kind vlarray (spec/v2.md §12), else a {@link CArray}.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const dataset = await open(new FileSystemStore("/data/prices.bcolz"));
 * if (dataset.kind === "ctable") console.log(dataset.names);
 * else if (dataset.kind === "vlarray") console.log(dataset.vtype, dataset.length);
 * else console.log(dataset.dtype.str, dataset.length);
 * ```
 */
export async function open(store: ReadableStore, options?: OpenOptions): Promise<CArray | CTable | VLArray>;
export async function open(store: ReadableStore, path?: string, options?: OpenOptions): Promise<CArray | CTable | VLArray>;
export async function open(store: ReadableStore, pathOrOptions: string | OpenOptions = "", maybeOptions?: OpenOptions): Promise<CArray | CTable | VLArray> {
  const [path, options] = pathAndOptions(pathOrOptions, maybeOptions);
  const base = checkDatasetPath(path);
  checkOptions(options);
  const root = await rootOf(store, base);
  if (root.table !== undefined) return openCtableWith(store, base, options, root.table);
  if (root.vlarray === true) return openVLArray(store, base, options);
  return openCarrayAt(store, base, options, root.storageText);
}

/**
 * The carrays a dataset is made of, in order: the carray itself, a vlarray's `offsets/` and
 * `values/`, a table's columns (each vlarray column as its two carrays). For tools that work chunk
 * by chunk (verify, convert, limits over a whole read).
 *
 * @example
 * ```ts
 * const parts = carraysOf(await open(store, "t.bcolz"));
 * console.log(parts.reduce((n, a) => n + a.chunkCount, 0), "chunks");
 * ```
 */
export function carraysOf(dataset: CArray | CTable | VLArray): CArray[] {
  if (dataset.kind === "carray") return [dataset];
  if (dataset.kind === "vlarray") return [dataset.offsets, dataset.values];
  return dataset.columns.flatMap((c) => (c.kind === "carray" ? [c] : [c.offsets, c.values]));
}
