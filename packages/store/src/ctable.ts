import { FormatError, UsageError } from "@fmt/errors";
import { columnNameProblem, parseAttrs, parseRootdirs } from "@fmt/meta";
import type { JsonValue } from "@fmt/meta";
import type { ReadableStore } from "@fmt/fs-adapters";
import { CArray, checkOptions, openCarray } from "./carray.js";
import type { OpenOptions } from "./carray.js";
import { checkDatasetPath, checkInteger, joinKey, normalizeSlice, readText, requireText, withPath } from "./internal.js";
import type { Values } from "./values.js";

/**
 * One block of rows produced by {@link CTable.iterBlocks}: rows `[start, stop)` of every
 * column, as stored bytes keyed by column name.
 *
 * @example
 * ```ts
 * for await (const block of table.iterBlocks()) console.log(block.start, block.columns["price"]!.length);
 * ```
 */
export interface TableBlock {
  /** First row of the block. */
  start: number;
  /** One past the last row of the block. */
  stop: number;
  /** Stored bytes of each column for these rows. */
  columns: { [name: string]: Uint8Array };
}

/**
 * A bcolz ctable opened for reading: a directory with `__rootdirs__` (the column names, in
 * order), `__attrs__`, and one carray directory per column, named like the column. Every column
 * has its own dtype, cparams and chunklen, and all have the same length.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const t = await openCtable(new FileSystemStore("/data/trades.bcolz"));
 * console.log(t.names, t.length);                 // ["id", "price"] 4321
 * const { id, price } = await t.readRows(0, 10);  // BigInt64Array, Float64Array
 * ```
 */
export class CTable {
  /** Discriminant: `"ctable"`. */
  readonly kind = "ctable" as const;
  /** The store the table is read from. */
  readonly store: ReadableStore;
  /** Store key of the table's directory (`""` = the store root). */
  readonly path: string;
  /** Column names in `__rootdirs__` order. */
  readonly names: readonly string[];
  /** The columns, in the order of {@link CTable.names}. */
  readonly columns: readonly CArray[];
  /** Number of rows (the same in every column). */
  readonly length: number;
  /** User attributes from the table's own `__attrs__` (`{}` when the file is missing). */
  readonly attrs: { [key: string]: JsonValue };

  /**
   * Use {@link openCtable} or {@link open}.
   * @internal
   */
  constructor(store: ReadableStore, path: string, names: string[], columns: CArray[], attrs: { [key: string]: JsonValue }) {
    this.store = store;
    this.path = path;
    this.names = Object.freeze([...names]);
    this.columns = Object.freeze([...columns]);
    this.length = columns[0]?.length ?? 0;
    this.attrs = attrs;
  }

  /**
   * The column called `name` (`UsageError` `INVALID_ARGUMENT` if there is none).
   *
   * @example
   * ```ts
   * const price = t.column("price");
   * console.log(price.dtype.str, price.chunklen);
   * ```
   */
  column(name: string): CArray {
    const i = this.names.indexOf(name);
    if (i < 0) throw new UsageError("INVALID_ARGUMENT", "no such column", { path: this.path, field: "name", expected: this.names.join(", "), actual: name });
    return this.columns[i]!;
  }

  /**
   * Decoded values of one column, sliced like {@link CArray.read}.
   *
   * @example
   * ```ts
   * const prices = await t.readColumn("price");         // whole column
   * const some = await t.readColumn("price", 100, 200);  // rows 100..199
   * ```
   */
  async readColumn(name: string, start?: number, stop?: number, step?: number): Promise<Values> {
    return this.column(name).read(start, stop, step);
  }

  /**
   * Decoded values of rows `start:stop:step` (Python slice semantics, as in
   * {@link CArray.read}) of every column, keyed by column name.
   *
   * @example
   * ```ts
   * const rows = await t.readRows(0, 3);
   * console.log(rows["id"], rows["price"]);
   * ```
   */
  async readRows(start?: number, stop?: number, step?: number): Promise<{ [name: string]: Values }> {
    const s = normalizeSlice(this.length, start, stop, step);
    const values = await Promise.all(this.columns.map((c) => c.read(s.start, s.stop, s.step)));
    return Object.fromEntries(this.names.map((name, i) => [name, values[i]!]));
  }

  /**
   * Rows `[start, stop)` of all columns in blocks whose boundaries fall on multiples of
   * `blockLen` (default: the first column's chunklen). Columns are decoded in step, one chunk
   * per column at a time.
   *
   * @example
   * ```ts
   * for await (const { start, stop, columns } of t.iterBlocks(10_000)) {
   *   console.log(start, stop, Object.keys(columns));
   * }
   * ```
   */
  async *iterBlocks(blockLen?: number, start = 0, stop: number = this.length): AsyncGenerator<TableBlock, void, undefined> {
    const len = blockLen ?? this.columns[0]?.chunklen ?? 1;
    checkInteger(len, "blockLen");
    checkInteger(start, "start");
    checkInteger(stop, "stop");
    if (start < 0 || stop > this.length || start > stop) {
      throw new UsageError("OUT_OF_RANGE", "row range out of bounds", { path: this.path, field: "start..stop", expected: `0 <= start <= stop <= ${this.length}`, actual: `${start}..${stop}` });
    }
    const iterators = this.columns.map((c) => c.iterBlocks(len, start, stop));
    try {
      for (let pos = start; pos < stop; ) {
        const steps = await Promise.all(iterators.map((it) => it.next()));
        const columns: { [name: string]: Uint8Array } = Object.create(null) as { [name: string]: Uint8Array };
        let blockStop = pos;
        steps.forEach((step, i) => {
          // Every column yields the same block boundaries, since they depend only on the arguments.
          if (step.done !== true) {
            columns[this.names[i]!] = step.value.bytes;
            blockStop = step.value.stop;
          }
        });
        if (this.columns.length === 0) return;
        yield { start: pos, stop: blockStop, columns };
        pos = blockStop;
      }
    } finally {
      await Promise.all(iterators.map((it) => it.return(undefined)));
    }
  }
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
 * Errors: `FormatError` `MISSING_FILE` (no `__rootdirs__`, or a column's metadata), `UNSAFE_NAME`
 * (a column name that is not a single safe path segment), `BAD_METADATA` (duplicate names),
 * `INCONSISTENT` (columns of different lengths, naming the column's `meta/sizes`), plus every
 * error of {@link openCarray}. When several columns are bad, the first in order is reported.
 *
 * @example
 * ```ts
 * const t = await openCtable(store, "trades.bcolz");
 * console.log(t.columns.map((c) => c.dtype.str));
 * ```
 */
export async function openCtable(store: ReadableStore, path = "", options: OpenOptions = {}): Promise<CTable> {
  const base = checkDatasetPath(path);
  return openCtableWith(store, base, options, await requireText(store, joinKey(base, "__rootdirs__")));
}

/** {@link openCtable} with the `__rootdirs__` text already read. */
export async function openCtableWith(store: ReadableStore, base: string, options: OpenOptions, rootdirsText: string): Promise<CTable> {
  checkOptions(options);
  const rootKey = joinKey(base, "__rootdirs__");
  const attrsKey = joinKey(base, "__attrs__");
  const { names } = withPath(rootKey, () => parseRootdirs(rootdirsText, rootKey));
  const seen = new Set<string>();
  names.forEach((name, i) => {
    checkColumnName(name, i, rootKey);
    if (seen.has(name)) throw new FormatError("BAD_METADATA", "column name listed twice", { path: rootKey, field: `names.${i}`, actual: name });
    seen.add(name);
  });
  const attrsText = await readText(store, attrsKey);
  const attrs = attrsText === undefined ? {} : withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
  const settled = await Promise.allSettled(names.map((name) => openCarray(store, joinKey(base, name), options)));
  const columns: CArray[] = [];
  for (const result of settled) {
    if (result.status === "rejected") throw result.reason;
    columns.push(result.value);
  }
  const first = columns[0];
  for (const [i, column] of columns.entries()) {
    if (first !== undefined && column.length !== first.length) {
      throw new FormatError("INCONSISTENT", `column "${names[i]}" has ${column.length} rows, column "${names[0]}" has ${first.length}`, {
        path: joinKey(column.path, "meta/sizes"),
        field: "shape.0",
        expected: first.length,
        actual: column.length,
      });
    }
  }
  return new CTable(store, base, names, columns, attrs);
}

/**
 * Opens the bcolz dataset at `path` in `store`, like `bcolz.open`: a {@link CTable} when
 * `<path>/__rootdirs__` exists, else a {@link CArray}.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const dataset = await open(new FileSystemStore("/data/prices.bcolz"));
 * if (dataset.kind === "ctable") console.log(dataset.names);
 * else console.log(dataset.dtype.str, dataset.length);
 * ```
 */
export async function open(store: ReadableStore, path = "", options: OpenOptions = {}): Promise<CArray | CTable> {
  const base = checkDatasetPath(path);
  checkOptions(options);
  const rootdirs = await readText(store, joinKey(base, "__rootdirs__"));
  if (rootdirs !== undefined) return openCtableWith(store, base, options, rootdirs);
  return openCarray(store, base, options);
}
