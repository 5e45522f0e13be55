// where queries (CTable.where of @fmt/store): runs a query (expression text or JS predicate)
// block by block over the row blocks a table hands out, reading only the columns the query and
// the projection need.
import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import { MIN_WASM_ROWS, maskRowsWasm } from "./compare-wasm.js";
import { compileExpression, countMatches, matchRowsOrMask, storedComparison } from "./expression.js";
import type { ExpressionInput, StoredComparison } from "./expression.js";
import { countOnes } from "./kernels.js";
import { checkInteger, normalizeSlice } from "./slice.js";
import { decodeValues, entriesPerElement } from "./values.js";
import type { ColumnValues, Scalar, TypedValues, Values } from "./values.js";

/**
 * One block handed to a {@link BlockPredicate}: rows `[start, stop)` of the predicate's input
 * columns, decoded as {@link Values}.
 *
 * @example
 * ```ts
 * const cheap: BlockPredicate = ({ length, columns }) => {
 *   const price = columns["price"] as Float64Array;
 *   const mask = new Uint8Array(length);
 *   for (let i = 0; i < length; i++) mask[i] = price[i]! < 10 ? 1 : 0;
 *   return mask;
 * };
 * ```
 */
export interface PredicateBlock {
  /** First row of the block. */
  start: number;
  /** One past the last row. */
  stop: number;
  /** Number of rows, `stop − start`. */
  length: number;
  /** Decoded values of each input column for these rows (one element per row for variable-length columns). */
  columns: { [name: string]: ColumnValues };
}

/**
 * A vectorised JS predicate: receives a block of decoded column values and returns one truthy
 * or falsy entry per row (a `Uint8Array` mask, `boolean[]`, …) of exactly `block.length`
 * entries.
 *
 * @example
 * ```ts
 * const pred: BlockPredicate = ({ length, columns }) => {
 *   const q = columns["qty"] as Int32Array;
 *   return Array.from({ length }, (_, i) => q[i]! % 2 === 0);
 * };
 * ```
 */
export type BlockPredicate = (block: PredicateBlock) => ArrayLike<boolean | number>;

/**
 * A per-row JS predicate: receives one row (a {@link Scalar} per column, or the row's
 * {@link Values} for multidimensional and complex columns) and its absolute index.
 *
 * @example
 * ```ts
 * const pred: RowPredicate = (row) => (row["price"] as number) > 10 && row["sym"] instanceof Uint8Array;
 * ```
 */
export type RowPredicate = (row: { [name: string]: Scalar | Values }, index: number) => unknown;

/**
 * What {@link runWhere} (and `CTable.where` of `@fmt/store`) accepts:
 * - an expression string (see {@link compileExpression});
 * - a {@link BlockPredicate} function, given all columns;
 * - `{ block, columns }`: a block predicate given only `columns`;
 * - `{ row, columns }`: a {@link RowPredicate} (given only `columns`, default all).
 *
 * @example
 * ```ts
 * await t.where("price > 10 & qty < 5");
 * await t.where({ row: (r) => (r["qty"] as number) < 5, columns: ["qty"] });
 * ```
 */
export type WhereQuery =
  | string
  | BlockPredicate
  | { block: BlockPredicate; columns?: readonly string[] }
  | { row: RowPredicate; columns?: readonly string[] };

/**
 * Options of {@link runWhere} (and `CTable.where` of `@fmt/store`).
 *
 * @example
 * ```ts
 * const firstTen = await t.where("qty > 3", { as: "rows", columns: ["id", "price"], limit: 10 });
 * ```
 */
export interface WhereOptions {
  /**
   * Result form: matching row numbers (default; a `Float64Array`, ascending, exact for every row
   * number up to 2^53), the matching rows, or their count.
   */
  as?: "indices" | "rows" | "count";
  /** For `as: "rows"`: the columns to return, in this order (default: all, in table order). */
  columns?: readonly string[];
  /** Stop after this many matches (default: no limit). */
  limit?: number;
  /** First row to consider; negative counts from the end (Python slice rules). Default 0. */
  start?: number;
  /** One past the last row to consider; negative counts from the end. Default: the length. */
  stop?: number;
  /** Rows per evaluated block; blocks start at multiples of it. Default: the chunklen of the first column read. */
  blockLen?: number;
  /**
   * Largest result, in bytes: the matching rows' stored bytes of the `columns` for `as: "rows"`,
   * 8 bytes per match for `"indices"`. Passing it gives `UsageError` `SIZE_LIMIT` (field
   * `maxReadBytes`) as soon as the matches found exceed it. Default: the table's
   * `maxReadBytes` (an `OpenOptions` field of `@fmt/store`) through `CTable.where`, else
   * 2^31 − 1 (`@fmt/store`'s `DEFAULT_MAX_READ_BYTES`).
   */
  maxResultBytes?: number;
}

/**
 * The table surface {@link runWhere} needs (`CTable` of `@fmt/store` provides it; kept small so that
 * other table-like objects can be queried too).
 *
 * @example
 * ```ts
 * const table: WhereTable = await openCtable(store);
 * await runWhere(table, "qty > 3");
 * ```
 */
export interface WhereTable {
  readonly names: readonly string[];
  readonly length: number;
  /** A column's description; `vtype` marks a variable-length column (spec/v2.md §12). */
  column(name: string): { readonly dtype: DType; readonly shape: readonly number[]; readonly itemsPerRow: number; readonly chunklen: number; readonly vtype?: "utf8" | "bytes" | "ragged" };
  /** Row blocks: stored bytes of fixed-size columns in `columns`, decoded elements of variable-length ones in `elements`. */
  iterBlocks(options: { columns: readonly string[]; blockLen?: number; start: number; stop: number; reuse?: boolean; blocksUnusedAfterLoop?: boolean }): AsyncIterable<WhereBlock>;
  /**
   * Optional: rows `[start, stop)` of a fixed-size column compared with a constant as they are
   * stored, where the table can do so more cheaply than by decoding them (`CTable` of
   * `@fmt/store` compares a byte-shuffled chunk on its byte planes, without unshuffling it).
   * `visit` gets run after run of rows, in order: the run's first row, its number of matches
   * and, with `masks`, a 0/1 byte per row of the run (valid only during the call). Resolves to
   * `false`, having visited nothing, when the table cannot for this column or constant: the
   * query then runs over `iterBlocks`.
   */
  compareColumn?(comparison: StoredComparison, options: { start: number; stop: number; masks: boolean }, visit: (first: number, matches: number, mask: Uint8Array | undefined) => void): Promise<boolean>;
}

/**
 * One block a {@link WhereTable} hands out: rows `[start, stop)`, the stored bytes of fixed-size
 * columns and the elements of variable-length columns.
 *
 * @example
 * ```ts
 * const block: WhereBlock = { start: 0, stop: 2, columns: { qty: new Uint8Array(8) }, elements: { sym: ["a", "b"] } };
 * ```
 */
export interface WhereBlock {
  start: number;
  stop: number;
  columns: { [name: string]: Uint8Array };
  elements?: { [name: string]: ColumnValues };
}

type Evaluate = (block: WhereBlock, decoded: (name: string) => ColumnValues) => Uint8Array;

// Same value as @fmt/store's DEFAULT_MAX_READ_BYTES, which this package cannot import (the store
// depends on it); CTable.where always passes the table's own limit.
const DEFAULT_MAX_RESULT_BYTES = 2 ** 31 - 1;

function badOption(field: string, reason: string, expected: string, actual: unknown): never {
  throw new UsageError("INVALID_ARGUMENT", reason, { field, expected, actual });
}

function checkColumnList(table: WhereTable, list: unknown, field: string): string[] {
  if (!Array.isArray(list)) badOption(field, "must be an array of column names", "string[]", list);
  const out: string[] = [];
  for (const [i, name] of (list as unknown[]).entries()) {
    if (typeof name !== "string" || !table.names.includes(name)) {
      badOption(`${field}.${i}`, `no such column ${JSON.stringify(name)}`, table.names.join(", "), name);
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

function entriesPerRow(table: WhereTable, name: string): number {
  const c = table.column(name);
  return c.vtype !== undefined ? 1 : c.itemsPerRow * entriesPerElement(c.dtype);
}

function toMask(result: unknown, n: number): Uint8Array {
  if (result === null || typeof result !== "object" || typeof (result as { length?: unknown }).length !== "number") {
    badOption("predicate", "a block predicate must return an array-like mask", `an array-like of ${n} entries`, typeof result);
  }
  const values = result as ArrayLike<unknown>;
  if (values.length !== n) badOption("predicate", "the mask returned by the predicate has the wrong length", `${n} entries`, values.length);
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = values[i] ? 1 : 0;
  return mask;
}

function rowValue(values: ColumnValues, i: number, k: number): Scalar | Values {
  if (k === 1) return values[i]!;
  if (Array.isArray(values)) return values.slice(i * k, (i + 1) * k) as Values;
  return values.subarray(i * k, (i + 1) * k);
}

/** The matching entries of `values` (k entries per row). */
function selectRows(values: ColumnValues, mask: Uint8Array, count: number, k: number): ColumnValues {
  if (Array.isArray(values)) {
    const out: unknown[] = [];
    for (let i = 0; i < mask.length; i++) if (mask[i] === 1) for (let j = 0; j < k; j++) out.push(values[i * k + j]!);
    return out as ColumnValues;
  }
  const typed = values;
  const Ctor = typed.constructor as new (n: number) => TypedValues;
  const out = new Ctor(count * k);
  let at = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== 1) continue;
    if (k === 1) (out as { [i: number]: number | bigint })[at++] = typed[i]!;
    else {
      out.set(typed.subarray(i * k, (i + 1) * k) as never, at);
      at += k;
    }
  }
  return out;
}

function concatValues(parts: ColumnValues[], empty: ColumnValues): ColumnValues {
  if (parts.length === 0) return empty;
  if (parts.length === 1) return parts[0]!;
  if (Array.isArray(empty)) return ([] as unknown[]).concat(...(parts as unknown[][])) as ColumnValues;
  const total = parts.reduce((sum, p) => sum + p.length, 0);
  const Ctor = empty.constructor as new (n: number) => TypedValues;
  const out = new Ctor(total);
  let at = 0;
  for (const p of parts as TypedValues[]) {
    out.set(p as never, at);
    at += p.length;
  }
  return out;
}

// reusesInputs: the evaluator keeps nothing of a block's bytes once it returned (expressions;
// a JS predicate may keep what it is given).
// count: a block's number of matching rows without its mask; rowsOrMask: their row numbers
// where the query allows, else the mask, from one evaluation.
function compileQuery(
  table: WhereTable,
  query: WhereQuery,
): {
  inputs: string[];
  evaluate: Evaluate;
  count?: (block: WhereBlock) => number;
  rowsOrMask?: (block: WhereBlock) => { rows: Float64Array } | { mask: Uint8Array };
  reusesInputs?: boolean;
  comparison?: StoredComparison | undefined;
} {
  if (typeof query === "string") {
    type Entry = { dtype: DType; shape: readonly number[]; vtype?: "utf8" | "bytes" | "ragged" };
    const schema: { [name: string]: Entry } = Object.create(null) as { [name: string]: Entry };
    for (const name of table.names) {
      const c = table.column(name);
      schema[name] = c.vtype === undefined ? { dtype: c.dtype, shape: c.shape } : { dtype: c.dtype, shape: c.shape, vtype: c.vtype };
    }
    const compiled = compileExpression(query, schema);
    const input = (block: WhereBlock): ExpressionInput => (block.elements === undefined ? block.columns : { ...block.columns, ...block.elements }) as ExpressionInput;
    return {
      inputs: [...compiled.columns],
      reusesInputs: true,
      evaluate: (block) => compiled.evaluate(input(block), block.stop - block.start),
      count: (block) => countMatches(compiled, input(block), block.stop - block.start),
      rowsOrMask: (block) => matchRowsOrMask(compiled, input(block), block.stop - block.start, block.start),
      comparison: storedComparison(compiled),
    };
  }
  if (typeof query === "function") {
    const fn = query;
    const inputs = [...table.names];
    return { inputs, evaluate: (block, decoded) => callBlock(fn, block, inputs, decoded) };
  }
  if (typeof query === "object" && query !== null) {
    const q = query as { block?: unknown; row?: unknown; columns?: unknown };
    const inputs = q.columns === undefined ? [...table.names] : checkColumnList(table, q.columns, "query.columns");
    if (typeof q.block === "function" && q.row === undefined) {
      const fn = q.block as BlockPredicate;
      return { inputs, evaluate: (block, decoded) => callBlock(fn, block, inputs, decoded) };
    }
    if (typeof q.row === "function" && q.block === undefined) {
      const fn = q.row as RowPredicate;
      const perRow = inputs.map((name) => entriesPerRow(table, name));
      return {
        inputs,
        evaluate: (block, decoded) => {
          const n = block.stop - block.start;
          const values = inputs.map((name) => decoded(name));
          const mask = new Uint8Array(n);
          for (let i = 0; i < n; i++) {
            const row: { [name: string]: Scalar | Values } = {};
            inputs.forEach((name, c) => {
              row[name] = rowValue(values[c]!, i, perRow[c]!);
            });
            mask[i] = fn(row, block.start + i) ? 1 : 0;
          }
          return mask;
        },
      };
    }
  }
  return badOption("query", "a query must be an expression string, a block predicate, { block } or { row }", "string | function | { block } | { row }", typeof query);
}

function callBlock(fn: BlockPredicate, block: { start: number; stop: number }, inputs: string[], decoded: (name: string) => ColumnValues): Uint8Array {
  const n = block.stop - block.start;
  const columns: { [name: string]: ColumnValues } = {};
  for (const name of inputs) columns[name] = decoded(name);
  return toMask(fn({ start: block.start, stop: block.stop, length: n, columns }), n);
}

/**
 * The result of {@link runWhere} (and `CTable.where` of `@fmt/store`): a `Float64Array` of row indices for `as: "indices"`,
 * `{ [column]: Values }` for `as: "rows"`, a `number` for `as: "count"`.
 *
 * @example
 * ```ts
 * const r: WhereResult = await t.where("qty > 3", { as: "count" });
 * ```
 */
export type WhereResult = Float64Array | { [name: string]: ColumnValues } | number;

/**
 * Runs `query` over `table`; the implementation of `CTable.where` in `@fmt/store`.
 *
 * @example
 * ```ts
 * const n = await runWhere(table, "qty > 3", { as: "count" });
 * ```
 */
export async function runWhere(table: WhereTable, query: WhereQuery, options: WhereOptions = {}): Promise<WhereResult> {
  if (typeof options !== "object" || options === null) badOption("options", "options must be an object", "object", options);
  const as = options.as ?? "indices";
  if (as !== "indices" && as !== "rows" && as !== "count") badOption("as", 'unknown result form', '"indices", "rows" or "count"', as);
  const projection = options.columns === undefined ? [...table.names] : checkColumnList(table, options.columns, "columns");
  let limit = Infinity;
  if (options.limit !== undefined) {
    limit = checkInteger(options.limit, "limit");
    if (limit < 0) badOption("limit", "limit must not be negative", ">= 0", limit);
  }
  if (options.blockLen !== undefined && (checkInteger(options.blockLen, "blockLen") < 1)) badOption("blockLen", "blockLen must be at least 1", ">= 1", options.blockLen);
  const { start, stop } = normalizeSlice(table.length, options.start, options.stop, undefined);
  const { inputs, evaluate, count: countBlock, rowsOrMask, reusesInputs, comparison } = compileQuery(table, query);

  const needed = [...inputs];
  if (as === "rows") for (const name of projection) if (!needed.includes(name)) needed.push(name);
  const indices = new RowNumbers();
  const parts = new Map<string, ColumnValues[]>(projection.map((name) => [name, []]));
  let count = 0;
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (!Number.isSafeInteger(maxResultBytes) || maxResultBytes < 0) badOption("maxResultBytes", "maxResultBytes must be a non-negative integer", ">= 0", maxResultBytes);
  // A variable-length element is counted as its 8-byte offset plus one value (an estimate: its length is known only once read).
  const rowBytes = (name: string): number => (table.column(name).vtype !== undefined ? 8 + table.column(name).dtype.itemsize : table.column(name).dtype.itemsize * table.column(name).itemsPerRow);
  const bytesPerMatch = as === "rows" ? projection.reduce((total, name) => total + rowBytes(name), 0) : as === "indices" ? 8 : 0;

  const checkResultBytes = (matches: number): void => {
    if (matches * bytesPerMatch > maxResultBytes) {
      throw new UsageError("SIZE_LIMIT", `the matches found so far take ${matches * bytesPerMatch} bytes, more than maxReadBytes (${maxResultBytes}); narrow the query, set a limit or raise the option`, {
        field: "maxReadBytes",
        expected: `<= ${maxResultBytes}`,
        actual: matches * bytesPerMatch,
      });
    }
  };

  // One comparison of a column as it is stored, counted or listed whole: the table may compare
  // the column's stored bytes (on their byte planes) instead of handing out decoded blocks.
  if (comparison !== undefined && table.compareColumn !== undefined && limit === Infinity && start < stop && as !== "rows") {
    const compared = await table.compareColumn(comparison, { start, stop, masks: as === "indices" }, (first, matches, mask) => {
      if (mask !== undefined) collectMatches(mask, indices, first);
      count += matches;
      checkResultBytes(count);
    });
    if (compared) return as === "count" ? count : indices.toArray();
  }

  if (limit > 0 && start < stop) {
    // Blocks may live in reused memory when nothing outlives the loop's turn: the mask is used up
    // at once, and rows are copied out by selectRows.
    const blockOptions: { columns: string[]; blockLen?: number; start: number; stop: number; reuse?: boolean; blocksUnusedAfterLoop?: boolean } = { columns: needed, start, stop };
    // Nothing of a block outlives the loop, also when a limit ends it early.
    if (reusesInputs === true) Object.assign(blockOptions, { reuse: true, blocksUnusedAfterLoop: true });
    if (options.blockLen !== undefined) blockOptions.blockLen = options.blockLen;
    for await (const block of table.iterBlocks(blockOptions)) {
      // A count of an expression needs no mask where the expression can count without one.
      if (as === "count" && countBlock !== undefined && limit - count >= block.stop - block.start) {
        count += countBlock(block);
        if (count >= limit) break;
        continue;
      }
      const cache = new Map<string, ColumnValues>();
      const decoded = (name: string): ColumnValues => {
        let values = cache.get(name) ?? block.elements?.[name];
        if (values === undefined) {
          values = decodeValues(block.columns[name]!, table.column(name).dtype);
          cache.set(name, values);
        }
        return values;
      };
      // Row numbers straight from the kernels where the query allows; otherwise from the mask.
      const answer = as === "indices" && rowsOrMask !== undefined && limit - count >= block.stop - block.start ? rowsOrMask(block) : { mask: evaluate(block, decoded) };
      const mask = "mask" in answer ? answer.mask : undefined;
      let matches: number;
      if ("rows" in answer) matches = indices.addRows(answer.rows);
      else matches = limit - count >= mask!.length ? collectMatches(mask!, as === "indices" ? indices : undefined, block.start) : collectLimited(mask!, as === "indices" ? indices : undefined, block.start, limit - count);
      checkResultBytes(count + matches);
      if (as === "rows" && matches > 0) {
        for (const name of projection) parts.get(name)!.push(selectRows(decoded(name), mask!, matches, entriesPerRow(table, name)));
      }
      count += matches;
      if (count >= limit) break;
    }
  }
  if (as === "count") return count;
  if (as === "indices") return indices.toArray();
  const rows: { [name: string]: ColumnValues } = {};
  for (const name of projection) rows[name] = concatValues(parts.get(name)!, table.column(name).vtype !== undefined ? [] : decodeValues(new Uint8Array(0), table.column(name).dtype));
  return rows;
}

/** Counts the 1s of a mask (and appends their row numbers to `indices`): the loop of a query without a limit. */
function collectMatches(mask: Uint8Array, indices: RowNumbers | undefined, first: number): number {
  if (indices === undefined) return countOnes(mask);
  let matches = 0;
  if (mask.length >= MIN_WASM_ROWS) {
    const found = indices.addMask(mask, first);
    if (found >= 0) return found;
  }
  // Eight mask bytes at a time: a word of zeros (most of them for a selective query) is skipped
  // in one test; a word with a match is looked at byte by byte.
  let i = 0;
  if (mask.byteOffset % 4 === 0) {
    const words = new Int32Array(mask.buffer, mask.byteOffset, mask.length >> 2);
    const pairs = words.length & ~1;
    for (let w = 0; w < pairs; w += 2) {
      if ((words[w]! | words[w + 1]!) === 0) continue;
      for (let b = w << 2, end = b + 8; b < end; b++) {
        if (mask[b] === 1) {
          indices.add(first + b);
          matches++;
        }
      }
    }
    i = pairs << 2;
  }
  for (; i < mask.length; i++) {
    if (mask[i] === 1) {
      indices.add(first + i);
      matches++;
    }
  }
  return matches;
}

/** {@link collectMatches} stopping at `room` matches; clears the mask after the last one taken. */
function collectLimited(mask: Uint8Array, indices: RowNumbers | undefined, first: number, room: number): number {
  let matches = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== 1) continue;
    if (matches >= room) {
      mask.fill(0, i);
      break;
    }
    matches++;
    indices?.add(first + i);
  }
  return matches;
}

/**
 * Matching row numbers as they are found, turned into the `Float64Array` result once at the end:
 * the row numbers the SIMD kernel lists for each block, already in the result's form, are kept
 * as they come (one exact-length copy out of the module), rows found one by one go into a typed
 * array that doubles when full. A growing array of all rows would copy them again at every
 * doubling.
 *
 * The result is a typed array, as the values of numeric columns are, and not a `number[]`:
 * a `number[]` of more than 16,384 numbers is an object of its own in V8's large-object space,
 * mapped fresh for every query and faulted in page by page (500,000 row numbers: ~980 faults,
 * 15–17 ms of a 33 ms query on a virtual machine where a fault costs ~15 µs), while the memory
 * of a typed array comes from the C allocator, which hands the same pages back query after query
 * (tools/bench/README.md, "where row numbers").
 */
class RowNumbers {
  // In order: blocks' row numbers from the kernel and runs of rows added one by one.
  readonly #parts: Float64Array[] = [];
  #loose = new Float64Array(1024);
  #looseLength = 0;
  #length = 0;

  /** Adds `first + i` for each 1 at `mask[i]` through the SIMD kernel; -1 when it is unavailable. */
  addMask(mask: Uint8Array, first: number): number {
    const rows = maskRowsWasm(mask, first);
    return rows === undefined ? -1 : this.addRows(rows);
  }

  /** Adds `rows` (increasing, after every row added so far; kept as they are); returns their count. */
  addRows(rows: Float64Array): number {
    this.#endLoose();
    if (rows.length > 0) this.#parts.push(rows);
    this.#length += rows.length;
    return rows.length;
  }

  add(row: number): void {
    if (this.#looseLength === this.#loose.length) {
      const grown = new Float64Array(this.#loose.length * 2);
      grown.set(this.#loose);
      this.#loose = grown;
    }
    this.#loose[this.#looseLength++] = row;
    this.#length++;
  }

  #endLoose(): void {
    if (this.#looseLength === 0) return;
    this.#parts.push(this.#loose.slice(0, this.#looseLength));
    this.#looseLength = 0;
  }

  toArray(): Float64Array {
    this.#endLoose();
    // One part (all rows of one block, or all found one by one) is already an exact-length copy.
    if (this.#parts.length === 1) return this.#parts[0]!;
    const out = new Float64Array(this.#length);
    let at = 0;
    for (const part of this.#parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}
