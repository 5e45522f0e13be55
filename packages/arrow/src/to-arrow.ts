/**
 * ctable / carray → Apache Arrow: record batches streamed block by block, a whole `Table`.
 *
 * @module
 */
import { Binary, Field, List, makeData, RecordBatch, Schema, Struct, Table } from "apache-arrow";
import type { Data } from "apache-arrow";
import { FormatError, UsageError } from "@fmt/errors";
import { parseDtype } from "@fmt/meta";
import type { DType } from "@fmt/meta";
import { compileExpression } from "@fmt/store";
import type { CArray, CTable, ExpressionInput, TableBlock, TableColumn, Values, VLValues } from "@fmt/store";
import { binaryLike, columnPlan, leafPlan, stringsData } from "./types.js";
import type { BytesAs, LeafPlan } from "./types.js";

/**
 * Options of {@link toRecordBatches}, {@link tableToArrow} and {@link arrowSchemaOf}.
 *
 * @example
 * ```ts
 * const options: ToArrowOptions = { columns: ["id", "price"], start: 1000, stop: 2000, where: "price > 10" };
 * ```
 */
export interface ToArrowOptions {
  /** ctable: the columns, in this order (default: all, in table order). */
  columns?: readonly string[];
  /** First row (default 0); negative counts from the end (Python slice rules). */
  start?: number;
  /** One past the last row (default: the length); negative counts from the end. */
  stop?: number;
  /**
   * ctable: keep only the rows satisfying this expression (the language of `CTable.where`, e.g.
   * `'price > 10 & sym == "ABC"'`); it may use columns that are not exported.
   */
  where?: string;
  /** Rows per block, so per batch (default: the chunklen of the first column: one batch per chunk). */
  blockLen?: number;
  /** `S<n>` columns as `Binary` (default, trailing NULs stripped) or `FixedSizeBinary(n)` (stored bytes, no copy). */
  bytesAs?: BytesAs;
  /** carray: the name of its one field (default `"values"`). */
  name?: string;
}

/** Python slice bounds (step 1) clamped to `[0, length]`. */
function sliceBounds(length: number, start: number | undefined, stop: number | undefined): { start: number; stop: number } {
  const bound = (value: number | undefined, fallback: number, field: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value)) throw new UsageError("INVALID_ARGUMENT", `${field} must be an integer`, { field, actual: value });
    return value < 0 ? Math.max(0, length + value) : Math.min(length, value);
  };
  const from = bound(start, 0, "start");
  return { start: from, stop: Math.max(from, bound(stop, length, "stop")) };
}

/** How one column of the dataset becomes one Arrow field. */
interface ColumnConverter {
  name: string;
  field: Field;
  /** Arrow data of `count` rows from a block. */
  convert(block: TableBlock, count: number): Data;
}

/**
 * The dataset as the blocks it hands out, a ctable's (or a carray's, under its field name).
 *
 * @internal
 */
function converters(dataset: CTable | CArray, options: ToArrowOptions): ColumnConverter[] {
  if (dataset.kind === "carray") {
    const name = options.name ?? "values";
    const plan = columnPlan(dataset.dtype, dataset.shape, { bytesAs: options.bytesAs, path: dataset.path, field: name });
    return [{ name, field: new Field(name, plan.type, nullableOf(dataset.dtype)), convert: (block, count) => plan.build(block.columns[name]!, count) }];
  }
  const names = options.columns === undefined ? [...dataset.names] : [...options.columns];
  return names.map((name) => columnConverter(name, dataset.column(name), options.bytesAs, dataset.path));
}

/** Datetimes and timedeltas may hold NaT, which becomes null. */
function nullableOf(dtype: DType): boolean {
  return dtype.kind === "M" || dtype.kind === "m";
}

function columnConverter(name: string, column: TableColumn, bytesAs: BytesAs | undefined, path: string): ColumnConverter {
  if (column.kind === "carray") {
    const plan = columnPlan(column.dtype, column.shape, { bytesAs, path: column.path, field: name });
    return { name, field: new Field(name, plan.type, nullableOf(column.dtype)), convert: (block, count) => plan.build(block.columns[name]!, count) };
  }
  if (column.vtype === "utf8") {
    return { name, field: new Field(name, stringsData([]).type, false), convert: (block) => stringsData(block.elements![name] as string[]) };
  }
  if (column.vtype === "bytes") {
    return { name, field: new Field(name, new Binary(), false), convert: (block) => binaryLike(new Binary(), block.elements![name] as Uint8Array[]) };
  }
  // ragged: List<leaf>; the leaf built from the decoded values (native byte order).
  const { child, concat } = raggedLeaf(column.dtype, path, name);
  const type = new List(new Field("item", child.type, nullableOf(column.dtype)));
  return {
    name,
    field: new Field(name, type, false),
    convert: (block, count) => {
      const rows = block.elements![name] as Values[];
      const valueOffsets = new Int32Array(count + 1);
      let total = 0;
      rows.forEach((r, i) => {
        total += r.length;
        valueOffsets[i + 1] = total;
      });
      return makeData({ type, length: count, nullCount: 0, valueOffsets, child: child.build(concat(rows, total), total) });
    },
  };
}

/** The leaf plan of a ragged column's values as decoded (native order; `f2` decodes to float32). */
function raggedLeaf(dtype: DType, path: string, field: string): { child: LeafPlan; concat: (rows: Values[], total: number) => Uint8Array } {
  if (dtype.kind === "S" || dtype.kind === "U" || dtype.kind === "V" || dtype.kind === "c") {
    throw new FormatError("UNSUPPORTED_DTYPE", `ragged ${dtype.str} values have no Arrow mapping here`, { path, field, actual: dtype.str });
  }
  const native = dtype.kind === "f" && dtype.itemsize === 2 ? parseDtype("<f4") : parseDtype(dtype.str.replace(">", "<"));
  const child = leafPlan(native, { path, field });
  return {
    child,
    concat: (rows, total) => {
      const out = new Uint8Array(total * native.itemsize);
      let at = 0;
      for (const r of rows) {
        const typed = r as ArrayBufferView;
        out.set(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength), at);
        at += typed.byteLength;
      }
      return out;
    },
  };
}

/**
 * The Arrow schema of the batches {@link toRecordBatches} yields for `dataset` (a ctable's
 * columns, or a carray's one field). Throws `FormatError` `UNSUPPORTED_DTYPE` for a column whose
 * dtype has no Arrow equivalent (complex, void, `M8[ps]`, …), naming the column in `field`.
 *
 * @example
 * ```ts
 * const schema = arrowSchemaOf(table, { columns: ["id", "ts"] });
 * console.log(schema.fields.map((f) => `${f.name}: ${f.type}`)); // ["id: Int64", "ts: Timestamp<NANOSECOND>"]
 * ```
 */
export function arrowSchemaOf(dataset: CTable | CArray, options: ToArrowOptions = {}): Schema {
  return new Schema(converters(dataset, options).map((c) => c.field));
}

/**
 * The record batch of one block of {@link CTable.iterBlocks} (or of a carray's block, given as
 * `{ start, stop, columns: { [name]: bytes } }`), for the columns of `schema`'s plan. Fixed-width
 * columns wrap the block's bytes without copying when the layout allows (little-endian dtype,
 * block bytes aligned to the element size); copies are unavoidable for big-endian dtypes
 * (swapped), `|b1` (bit-packed), strings (`S` → Binary, `U` → UTF-8), calendar units converted
 * to Date32 and variable-length columns.
 *
 * @example
 * ```ts
 * const toBatch = batchMaker(table, { columns: ["x"] });
 * for await (const block of table.iterBlocks({ columns: ["x"] })) {
 *   const batch = toBatch(block);
 *   console.log(batch.numRows, batch.getChild("x")!.data[0]!.values.buffer === block.columns["x"]!.buffer); // true for "<f8"
 * }
 * ```
 */
export function batchMaker(dataset: CTable | CArray, options: ToArrowOptions = {}): (block: TableBlock) => RecordBatch {
  const convs = converters(dataset, options);
  const schema = new Schema(convs.map((c) => c.field));
  const struct = new Struct(schema.fields);
  return (block) => {
    const count = block.stop - block.start;
    const children = convs.map((c) => c.convert(block, count));
    return new RecordBatch(schema, makeData({ type: struct, length: count, nullCount: 0, children }));
  };
}

/** The rows of `block` where `mask` is 1, as a new block (fixed columns compacted, elements filtered). */
function selectBlock(block: TableBlock, mask: Uint8Array, rowBytes: Map<string, number>): TableBlock {
  const rows: number[] = [];
  for (let i = 0; i < mask.length; i++) if (mask[i] === 1) rows.push(i);
  const columns: { [name: string]: Uint8Array } = Object.create(null) as { [name: string]: Uint8Array };
  for (const [name, bytes] of Object.entries(block.columns)) {
    const size = rowBytes.get(name)!;
    const out = new Uint8Array(rows.length * size);
    rows.forEach((r, k) => out.set(bytes.subarray(r * size, (r + 1) * size), k * size));
    columns[name] = out;
  }
  let elements: { [name: string]: VLValues } | undefined;
  if (block.elements !== undefined) {
    elements = Object.create(null) as { [name: string]: VLValues };
    for (const [name, values] of Object.entries(block.elements)) elements[name] = rows.map((r) => (values as unknown[])[r]) as VLValues;
  }
  return { start: block.start, stop: block.start + rows.length, columns, ...(elements === undefined ? {} : { elements }) };
}

/**
 * Streams `dataset` (a ctable, or a carray as one field) as Arrow record batches: one batch per
 * block the store yields (by default one chunk of rows), so only one block is held at a time.
 * Options select columns, a row slice (`start`/`stop`), and rows matching a `where` expression
 * (evaluated block by block, like `CTable.where`; blocks with no match yield no batch).
 *
 * Values: NaT becomes null; `U`/`S` lose their trailing NULs (as numpy shows them); see
 * {@link leafPlan} for the type of each dtype and which conversions copy. Errors: `FormatError`
 * `UNSUPPORTED_DTYPE` for a dtype without Arrow equivalent, `UsageError` `INVALID_ARGUMENT` for
 * an unknown column or a bad expression, and the store's read errors.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * import { openCtable } from "@fmt/store";
 * import { toRecordBatches } from "@fmt/arrow";
 *
 * const t = await openCtable(new FileSystemStore("/data/trades.bcolz"));
 * for await (const batch of toRecordBatches(t, { where: "price > 100", columns: ["id", "price"] })) {
 *   console.log(batch.numRows, batch.getChild("price")!.get(0));
 * }
 * ```
 */
export async function* toRecordBatches(dataset: CTable | CArray, options: ToArrowOptions = {}): AsyncGenerator<RecordBatch, void, undefined> {
  if (typeof options !== "object" || options === null) throw new UsageError("INVALID_ARGUMENT", "options must be an object", { field: "options", actual: options });
  if (dataset.kind === "carray" && (options.columns !== undefined || options.where !== undefined)) {
    throw new UsageError("INVALID_ARGUMENT", "columns and where apply to a ctable only", { path: dataset.path, field: options.columns !== undefined ? "columns" : "where" });
  }
  const make = batchMaker(dataset, options);
  const { start, stop } = sliceBounds(dataset.length, options.start, options.stop);
  if (dataset.kind === "carray") {
    const name = options.name ?? "values";
    for await (const block of dataset.iterBlocks({ start, stop, ...(options.blockLen === undefined ? {} : { blockLen: options.blockLen }) })) {
      yield make({ start: block.start, stop: block.stop, columns: { [name]: block.bytes } });
    }
    return;
  }
  const names = options.columns === undefined ? [...dataset.names] : [...options.columns];
  let evaluate: ((block: TableBlock) => Uint8Array) | undefined;
  let needed = names;
  if (options.where !== undefined) {
    type Entry = { dtype: DType; shape: readonly number[]; vtype?: "utf8" | "bytes" | "ragged" };
    const schema: { [name: string]: Entry } = Object.create(null) as { [name: string]: Entry };
    for (const name of dataset.names) {
      const c = dataset.column(name);
      schema[name] = c.kind === "vlarray" ? { dtype: c.dtype, shape: c.shape, vtype: c.vtype } : { dtype: c.dtype, shape: c.shape };
    }
    const compiled = compileExpression(options.where, schema);
    needed = [...names];
    for (const c of compiled.columns) if (!needed.includes(c)) needed.push(c);
    evaluate = (block) => compiled.evaluate((block.elements === undefined ? block.columns : { ...block.columns, ...block.elements }) as ExpressionInput, block.stop - block.start);
  }
  const rowBytes = new Map(needed.map((n) => {
    const c = dataset.column(n);
    return [n, c.kind === "carray" ? c.atomSize : 0] as const;
  }));
  const blockOptions = { columns: needed, start, stop, ...(options.blockLen === undefined ? {} : { blockLen: options.blockLen }) };
  for await (const block of dataset.iterBlocks(blockOptions)) {
    if (evaluate === undefined) {
      yield make(block);
      continue;
    }
    const mask = evaluate(block);
    let hits = 0;
    for (let i = 0; i < mask.length; i++) hits += mask[i]!;
    if (hits === 0) continue;
    yield make(hits === mask.length ? block : selectBlock(block, mask, rowBytes));
  }
}

/**
 * The whole selection of {@link toRecordBatches} as one Arrow `Table` (its batches kept as they
 * came). Holds every selected row in memory: stream with {@link toRecordBatches} for large data.
 *
 * @example
 * ```ts
 * const table = await tableToArrow(await openCtable(store), { columns: ["id", "price"] });
 * console.log(table.numRows, table.getChild("price")!.toArray());
 * ```
 */
export async function tableToArrow(dataset: CTable | CArray, options: ToArrowOptions = {}): Promise<Table> {
  const schema = arrowSchemaOf(dataset, options);
  const batches: RecordBatch[] = [];
  for await (const batch of toRecordBatches(dataset, options)) batches.push(batch);
  return new Table(schema, batches);
}

