/**
 * Apache Arrow → ctable: an Arrow `Table`, record batches, or IPC bytes (stream or file format)
 * written as a new ctable on any store, batch by batch.
 *
 * @module
 */
import { RecordBatch, RecordBatchReader, Table, Type } from "apache-arrow";
import type { Data, DataType, Field, FixedSizeBinary, FixedSizeList, Schema, Timestamp } from "apache-arrow";
import { FormatError, UsageError } from "@fmt/errors";
import type { WritableStore } from "@fmt/fs-adapters";
import type { Cparams } from "@fmt/meta";
import { createCtable, halfBits } from "@fmt/store";
import type { ArrayInput, ColumnSpec, CTable, ElementInput, VLInput } from "@fmt/store";
import { NAT } from "./types.js";

/**
 * What {@link importArrow} reads: an Arrow `Table`, record batches (sync or async), IPC bytes
 * (stream or file format) in one `Uint8Array`, or IPC stream bytes as an async iterable of
 * chunks (e.g. a file or HTTP body read piece by piece).
 *
 * @example
 * ```ts
 * const source: ArrowSource = tableFromArrays({ id: Int32Array.from([1, 2, 3]) });
 * ```
 */
export type ArrowSource = Table | Uint8Array | Iterable<RecordBatch> | AsyncIterable<RecordBatch> | AsyncIterable<Uint8Array>;

/**
 * Options of {@link importArrow}.
 *
 * @example
 * ```ts
 * const options: ImportArrowOptions = { formatVersion: 2, nullFill: { price: NaN }, cparams: { cname: "zstd", clevel: 5 } };
 * ```
 */
export interface ImportArrowOptions {
  /** `1` (default, bcolz 1.x: strings become fixed `U<n>` / `S<n>`) or `2` (strings become variable-length vlarray columns). */
  formatVersion?: 1 | 2;
  /**
   * Format 1: the `n` of the `U<n>` (code points) or `S<n>` (bytes) dtype of each string column,
   * by column name, or one number for all. Default: the longest value, found by a first pass
   * over the data — which needs a source that can be read twice (a `Table`, bytes, an array of
   * batches); an async source must give it. A longer value is a `UsageError` `OUT_OF_RANGE`.
   */
  stringLength?: number | { readonly [column: string]: number };
  /**
   * The value written for Arrow nulls, by column name, or one value for all columns. Without it
   * a null is a `UsageError` `INVALID_ARGUMENT` naming the column — except in timestamp and date
   * columns, where null becomes NaT.
   */
  nullFill?: ElementInput | { readonly [column: string]: ElementInput };
  /** `"a"` (default): `ConflictError` `ALREADY_EXISTS` if something is at `path`; `"w"`: replace it. */
  mode?: "a" | "w";
  /** Compression of every column. */
  cparams?: Partial<Cparams>;
  /** Rows per chunk of every column (default: from `expectedlen`, like bcolz). */
  chunklen?: number;
  /** Expected number of rows, for the default chunklen (default: the row count when the source tells it). */
  expectedlen?: number;
}

/** How one Arrow field becomes one ctable column. */
interface ColumnTarget {
  name: string;
  /** The input of zero rows. */
  empty: ArrayInput | VLInput;
  spec: (data: ArrayInput | VLInput) => ColumnSpec;
  /** The column input of a batch's data (one chunk of the column). */
  input: (data: Data) => ArrayInput | VLInput;
}

const utf8Decoder = new TextDecoder("utf-8");

function fail(message: string, field: string, actual?: unknown): never {
  throw new UsageError("INVALID_ARGUMENT", message, { field, actual });
}

/** An Arrow type's name (`Int32`, `Timestamp<NANOSECOND>`, …). */
function typeName(type: DataType): string {
  return (type as { toString(): string }).toString();
}

function unsupportedType(name: string, type: DataType): never {
  throw new FormatError("UNSUPPORTED_DTYPE", `Arrow type ${typeName(type)} has no bcolz dtype`, {
    field: `columns.${name}`,
    expected: "Int8…Int64, Uint8…Uint64, Float16/32/64, Bool, Timestamp, Date, Utf8, Binary, FixedSizeBinary, FixedSizeList of those",
    actual: typeName(type),
  });
}

/** The fill of column `name`, or undefined. */
function fillOf(options: ImportArrowOptions, name: string): ElementInput | undefined {
  const f = options.nullFill;
  if (f === undefined) return undefined;
  if (f === null || typeof f !== "object" || f instanceof Uint8Array) return f;
  return Object.prototype.hasOwnProperty.call(f, name) ? (f)[name] : undefined;
}

function isValid(data: Data, i: number): boolean {
  return data.nullCount === 0 || data.getValid(i);
}

/** The dtype letter/size of a fixed-width Arrow number type. */
function numberDtype(type: DataType): { str: string; bytes: number } | undefined {
  switch (type.typeId) {
    case Type.Int: {
      const t = type as unknown as { bitWidth: number; isSigned: boolean };
      const size = t.bitWidth / 8;
      return { str: `${size === 1 ? "|" : "<"}${t.isSigned ? "i" : "u"}${size}`, bytes: size };
    }
    case Type.Float: {
      const precision = (type as unknown as { precision: number }).precision;
      const size = precision === 0 ? 2 : precision === 1 ? 4 : 8;
      return { str: `<f${size}`, bytes: size };
    }
    default:
      return undefined;
  }
}

const TIME_UNITS = ["s", "ms", "us", "ns"] as const;

/** Little-endian bytes of one element of the given dtype text. */
function fillBytes(dtype: string, size: number, value: ElementInput, field: string): Uint8Array {
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  const kind = dtype[1]!;
  if (value === null) {
    if (kind === "M") view.setBigInt64(0, NAT, true);
    else if (kind === "f") writeFloat(view, size, NaN);
    else fail("a null fill fits only datetime (NaT) and float (NaN) columns", field, value);
    return out;
  }
  if (kind === "b") out[0] = value === true || value === 1 ? 1 : 0;
  else if (kind === "f") writeFloat(view, size, Number(value));
  else if (kind === "i" || kind === "u" || kind === "M") {
    const big = typeof value === "bigint" ? value : typeof value === "number" && Number.isInteger(value) ? BigInt(value) : fail("the fill of an integer column must be an integer", field, value);
    const bits = BigInt(size * 8);
    const min = kind === "u" ? 0n : -(1n << (bits - 1n));
    const max = kind === "u" ? (1n << bits) - 1n : (1n << (bits - 1n)) - 1n;
    if (big < min || big > max) fail(`the fill does not fit ${dtype}`, field, String(big));
    const u = BigInt.asUintN(Number(bits), big);
    if (size === 1) view.setUint8(0, Number(u));
    else if (size === 2) view.setUint16(0, Number(u), true);
    else if (size === 4) view.setUint32(0, Number(u), true);
    else view.setBigUint64(0, u, true);
  } else if (value instanceof Uint8Array) out.set(value.subarray(0, size));
  else fail("the fill does not fit the column", field, value);
  return out;
}

function writeFloat(view: DataView, size: number, x: number): void {
  if (size === 8) view.setFloat64(0, x, true);
  else if (size === 4) view.setFloat32(0, x, true);
  else view.setUint16(0, halfBits(x), true);
}


/** The bytes of `count` fixed-width elements of `data` (`size` bytes each), nulls replaced by `fill`. */
function fixedBytes(data: Data, size: number, count: number, nulls: (i: number) => Uint8Array): Uint8Array {
  const values = data.values as ArrayBufferView;
  let bytes = new Uint8Array(values.buffer, values.byteOffset, count * size);
  if (data.nullCount > 0) {
    bytes = bytes.slice();
    for (let i = 0; i < count; i++) if (!data.getValid(i)) bytes.set(nulls(i), i * size);
  }
  return bytes;
}

function code(s: string): number[] {
  return Array.from(s, (c) => c.codePointAt(0)!);
}

/** The strings (or byte strings) of a Utf8/Binary data chunk (or a dictionary of them), nulls as `undefined`. */
function varValues(data: Data, asString: boolean): (string | Uint8Array | undefined)[] {
  if ((data.type).typeId === Type.Dictionary) {
    const indices = data.values as unknown as ArrayLike<number | bigint>;
    const dictionary = data.dictionary!;
    return Array.from({ length: data.length }, (_, i) => {
      if (!isValid(data, i)) return undefined;
      const v = dictionary.get(Number(indices[i]!)) as string | Uint8Array | null;
      return v === null ? undefined : v;
    });
  }
  const offsets = data.valueOffsets as Int32Array | BigInt64Array;
  const bytes = data.values as Uint8Array;
  const out: (string | Uint8Array | undefined)[] = [];
  for (let i = 0; i < data.length; i++) {
    if (!isValid(data, i)) {
      out.push(undefined);
      continue;
    }
    const a = Number(offsets[i]!);
    const b = Number(offsets[i + 1]!);
    out.push(asString ? utf8Decoder.decode(bytes.subarray(a, b)) : bytes.slice(a, b));
  }
  return out;
}

/** The longest value (code points for strings, bytes for binary) of a Utf8/Binary data chunk. */
function longest(data: Data, asString: boolean): number {
  let max = 0;
  for (const v of varValues(data, asString)) {
    if (v === undefined) continue;
    max = Math.max(max, typeof v === "string" ? code(v).length : v.length);
  }
  return max;
}

interface FixedLeaf {
  dtype: string;
  size: number;
  /** Bytes of `count` leaf elements of `data`. */
  bytes: (data: Data, count: number, fill: ElementInput | undefined, field: string) => Uint8Array;
}

/** A fixed-width Arrow type as a dtype and a byte extractor. */
function fixedLeaf(name: string, type: DataType, stringLengths: Map<string, number>, formatVersion: 1 | 2): FixedLeaf | undefined {
  const number = numberDtype(type);
  const nullsFrom = (dtype: string, size: number, fill: ElementInput | undefined, field: string) => {
    let cached: Uint8Array | undefined;
    return (): Uint8Array => {
      if (fill === undefined) fail(`column "${name}" holds a null and no nullFill was given for it`, field);
      cached ??= fillBytes(dtype, size, fill, field);
      return cached;
    };
  };
  if (number !== undefined) {
    return { dtype: number.str, size: number.bytes, bytes: (data, count, fill, field) => fixedBytes(data, number.bytes, count, nullsFrom(number.str, number.bytes, fill, field)) };
  }
  switch (type.typeId) {
    case Type.Bool:
      return {
        dtype: "|b1",
        size: 1,
        bytes: (data, count, fill, field) => {
          const out = new Uint8Array(count);
          const bits = data.values as Uint8Array;
          const nulls = nullsFrom("|b1", 1, fill, field);
          for (let i = 0; i < count; i++) {
            if (!isValid(data, i)) out[i] = nulls()[0]!;
            else {
              const bit = data.offset + i;
              out[i] = (bits[bit >> 3]! >> (bit & 7)) & 1;
            }
          }
          return out;
        },
      };
    case Type.Timestamp: {
      const unit = TIME_UNITS[(type as Timestamp).unit];
      const dtype = `<M8[${unit}]`;
      return { dtype, size: 8, bytes: (data, count, fill, field) => fixedBytes(data, 8, count, nullsFrom(dtype, 8, fill === undefined ? null : fill, field)) };
    }
    case Type.Date: {
      const days = (type as unknown as { unit: number }).unit === 0;
      const dtype = days ? "<M8[D]" : "<M8[ms]";
      return {
        dtype,
        size: 8,
        bytes: (data, count, fill, field) => {
          const out = new BigInt64Array(count);
          const values = data.values as Int32Array | BigInt64Array;
          const nulls = nullsFrom(dtype, 8, fill === undefined ? null : fill, field);
          for (let i = 0; i < count; i++) {
            if (!isValid(data, i)) out[i] = new BigInt64Array(nulls().slice().buffer)[0]!;
            else if (values instanceof BigInt64Array) out[i] = values[i]!;
            else if (days) out[i] = BigInt(values[i]!);
            // Date64 as int32 pairs (low, high) in older layouts.
            else out[i] = (BigInt(values[2 * i + 1]!) << 32n) | BigInt(values[2 * i]! >>> 0);
          }
          return new Uint8Array(out.buffer);
        },
      };
    }
    case Type.FixedSizeBinary: {
      const size = (type as FixedSizeBinary).byteWidth;
      return { dtype: `|S${size}`, size, bytes: (data, count, fill, field) => fixedBytes(data, size, count, nullsFrom(`|S${size}`, size, fill, field)) };
    }
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary: {
      if (formatVersion === 2) return undefined;
      const asString = type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8;
      const n = Math.max(1, stringLengths.get(name) ?? 1);
      const size = asString ? 4 * n : n;
      const dtype = asString ? `<U${n}` : `|S${n}`;
      return {
        dtype,
        size,
        bytes: (data, count, fill, field) => {
          const out = new Uint8Array(count * size);
          const view = new DataView(out.buffer);
          varValues(data, asString).forEach((v, i) => {
            let value: string | Uint8Array | undefined = v;
            if (value === undefined) {
              if (fill === undefined) fail(`column "${name}" holds a null and no nullFill was given for it`, field);
              value = typeof fill === "string" || fill instanceof Uint8Array ? fill : fail("the fill of a string column must be a string (Utf8) or a Uint8Array (Binary)", field, fill);
            }
            if (typeof value === "string") {
              const points = code(value);
              if (points.length > n) throw new UsageError("OUT_OF_RANGE", `a value of column "${name}" has ${points.length} code points, more than the ${n} of ${dtype}; give stringLength`, { field: "stringLength", expected: `<= ${n}`, actual: points.length });
              points.forEach((cp, k) => view.setUint32(i * size + 4 * k, cp, true));
            } else {
              if (value.length > n) throw new UsageError("OUT_OF_RANGE", `a value of column "${name}" has ${value.length} bytes, more than the ${n} of ${dtype}; give stringLength`, { field: "stringLength", expected: `<= ${n}`, actual: value.length });
              out.set(value, i * size);
            }
          });
          return out;
        },
      };
    }
    default:
      return undefined;
  }
}

/** The ctable column of one Arrow field. */
function columnTarget(field: Field, stringLengths: Map<string, number>, options: ImportArrowOptions): ColumnTarget {
  const name = field.name;
  const formatVersion = options.formatVersion ?? 1;
  const fill = fillOf(options, name);
  const where = `columns.${name}`;
  const type = valueType(field.type as DataType);
  // Dictionary encoding is undone for strings (apache-arrow's tableFromArrays makes it); other dictionaries are refused.
  if ((field.type as DataType).typeId === Type.Dictionary && !containsVariable(type)) unsupportedType(name, field.type as DataType);
  if (formatVersion === 2 && (type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8 || type.typeId === Type.Binary || type.typeId === Type.LargeBinary)) {
    const asString = type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8;
    return {
      name,
      empty: [],
      spec: (data) => ({ name, vtype: asString ? "utf8" : "bytes", data: data as VLInput }),
      input: (data) =>
        varValues(data, asString).map((v) => {
          if (v !== undefined) return v;
          if (fill === undefined) fail(`column "${name}" holds a null and no nullFill was given for it`, where);
          if (asString ? typeof fill !== "string" : !(fill instanceof Uint8Array)) fail(`the fill of column "${name}" must be a ${asString ? "string" : "Uint8Array"}`, where, fill);
          return fill as string | Uint8Array;
        }),
    };
  }
  // Fixed-size: a leaf type under zero or more FixedSizeLists (the trailing dimensions).
  const dims: number[] = [];
  let leafType = type;
  while (leafType.typeId === Type.FixedSizeList) {
    const list = leafType as FixedSizeList;
    dims.push(list.listSize);
    leafType = list.children[0]!.type as DataType;
  }
  const leaf = fixedLeaf(name, leafType, stringLengths, formatVersion);
  if (leaf === undefined) unsupportedType(name, type);
  return {
    name,
    empty: { bytes: new Uint8Array(0) },
    spec: (data) => ({ name, data: data as ArrayInput, options: { dtype: leaf.dtype, shape: dims } }),
    input: (data) => {
      // Walk down to the leaf data: rows × items elements; lists may not hold nulls.
      // (apache-arrow slices the children of a sliced FixedSizeList along with it.)
      let d = data;
      let count = data.length;
      for (const k of dims) {
        if (d.nullCount > 0) fail(`column "${name}" has a null list; a multidimensional column cannot hold nulls`, where);
        count *= k;
        d = d.children[0]!;
      }
      return { bytes: leaf.bytes(d, count, fill, where) };
    },
  };

}

function isAsyncIterable(x: unknown): x is AsyncIterable<unknown> {
  return typeof x === "object" && x !== null && typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
}

/** A source as a function that starts a new pass over its batches (undefined when it can be read once only). */
function passes(source: ArrowSource): { open: () => AsyncIterable<RecordBatch> | Iterable<RecordBatch>; rereadable: boolean; rows?: number } {
  if (source instanceof Table) return { open: () => source.batches, rereadable: true, rows: source.numRows };
  if (source instanceof Uint8Array) return { open: () => RecordBatchReader.from(source), rereadable: true };
  if (Array.isArray(source)) return { open: () => source as RecordBatch[], rereadable: true, rows: (source as RecordBatch[]).reduce((n, b) => n + b.numRows, 0) };
  if (isAsyncIterable(source)) {
    // An async iterable of batches, or of IPC bytes: look at the first item.
    let used = false;
    return {
      rereadable: false,
      open: () => {
        if (used) throw new UsageError("INVALID_ARGUMENT", "an async source can be read once only", { field: "source" });
        used = true;
        return (async function* () {
          const it = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
          const first = await it.next();
          if (first.done === true) return;
          const rest: AsyncIterable<unknown> = { [Symbol.asyncIterator]: () => it };
          if (first.value instanceof RecordBatch) {
            yield first.value;
            for await (const b of rest) yield b as RecordBatch;
            return;
          }
          const bytes = (async function* () {
            yield first.value as Uint8Array;
            for await (const chunk of rest) yield chunk as Uint8Array;
          })();
          const reader = await RecordBatchReader.from(bytes);
          for await (const batch of reader) yield batch;
        })();
      },
    };
  }
  if (typeof source === "object" && source !== null && Symbol.iterator in source) return { open: () => source as Iterable<RecordBatch>, rereadable: false };
  return fail("the source must be an Arrow Table, record batches, or IPC bytes", "source", typeof source);
}

async function firstSchema(batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>): Promise<{ schema?: Schema; iterator: AsyncIterator<RecordBatch> | Iterator<RecordBatch>; first?: RecordBatch }> {
  const iterator = isAsyncIterable(batches) ? batches[Symbol.asyncIterator]() : (batches)[Symbol.iterator]();
  const step = await iterator.next();
  if (step.done === true) return { iterator };
  return { schema: step.value.schema, iterator, first: step.value };
}

/**
 * Writes an Arrow source as a new ctable at `path` of `store`, one record batch at a time (the
 * first batch creates the table, each further batch is appended, all columns together), and
 * returns the table, still open for writing (close it when done).
 *
 * Types: Int8…Int64 → `i1`…`<i8`, Uint8…Uint64 → `u1`…`<u8`, Float16/32/64 → `<f2`/`<f4`/`<f8`,
 * Bool → `|b1`, Timestamp(unit) → `<M8[unit]` (the time zone is dropped: numpy datetimes are
 * naive), Date32 → `<M8[D]`, Date64 → `<M8[ms]`, FixedSizeBinary(n) → `|S<n>`, Utf8 → `<U<n>` in
 * format 1 (n = the longest value in code points, or `stringLength`) or a `utf8` vlarray column in
 * format 2, Binary → `|S<n>` (format 1; trailing NUL bytes are lost, as with numpy) or a `bytes`
 * vlarray column (format 2), FixedSizeList<k, T> → the column of T with a trailing dimension k.
 * Any other type is `FormatError` `UNSUPPORTED_DTYPE`; a null without `nullFill` is `UsageError`
 * `INVALID_ARGUMENT` (timestamps and dates: NaT), a column name that is not a Python identifier is
 * the store's `UNSAFE_NAME`.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * import { tableFromArrays } from "apache-arrow";
 * import { importArrow } from "@fmt/arrow";
 *
 * const store = new MemoryStore();
 * const t = await importArrow(tableFromArrays({ id: Int32Array.from([1, 2]), name: ["a", "bc"] }), store, "t");
 * console.log(t.names, t.column("name").dtype.str); // ["id", "name"] "<U2"
 * await t.close();
 * ```
 */
export async function importArrow(source: ArrowSource, store: WritableStore, path: string, options: ImportArrowOptions = {}): Promise<CTable> {
  if (typeof options !== "object" || options === null) fail("options must be an object", "options", options);
  const formatVersion = options.formatVersion ?? 1;
  if (formatVersion !== 1 && formatVersion !== 2) fail("formatVersion must be 1 or 2", "formatVersion", formatVersion);
  const src = passes(source);
  const stringLengths = new Map<string, number>();
  let expectedlen = options.expectedlen ?? src.rows;
  let peeked = await firstSchema(src.open());
  if (formatVersion === 1) {
    const { schema } = peeked;
    const wanted = (schema?.fields ?? []).filter((f) => containsVariable(f.type as DataType)).map((f) => f.name);
    const given = options.stringLength;
    for (const name of wanted) {
      const n = typeof given === "number" ? given : given?.[name];
      if (n !== undefined) {
        if (!Number.isSafeInteger(n) || n < 1) fail("stringLength must be a positive integer", `stringLength.${name}`, n);
        stringLengths.set(name, n);
      }
    }
    const missing = wanted.filter((n) => !stringLengths.has(n));
    if (missing.length > 0 || expectedlen === undefined) {
      if (!src.rereadable) {
        if (missing.length > 0) fail(`format 1 stores strings at a fixed length: give stringLength for ${missing.join(", ")} (an async source is read once)`, "stringLength", missing.join(", "));
      } else {
        // First pass: the longest value of each string column, and the row count.
        let rows = 0;
        const max = new Map<string, number>(missing.map((n) => [n, 0]));
        const pass: AsyncIterable<RecordBatch> | Iterable<RecordBatch> = src.open();
        for await (const item of pass as AsyncIterable<RecordBatch>) {
          const batch: RecordBatch = item;
          rows += batch.numRows;
          for (const name of missing) {
            const child = batch.getChild(name);
            const vt = valueType(child?.type as DataType);
            for (const data of (child?.data ?? []) as readonly Data[]) max.set(name, Math.max(max.get(name)!, longest(data, vt.typeId === Type.Utf8 || vt.typeId === Type.LargeUtf8)));
          }
        }
        for (const [name, n] of max) stringLengths.set(name, n);
        expectedlen ??= rows;
        peeked = await firstSchema(src.open());
      }
    }
  }
  const { iterator, first } = peeked;
  // A Table knows its schema even without batches: an empty ctable then.
  const schema = peeked.schema ?? (source instanceof Table ? source.schema : undefined);
  if (schema === undefined) fail("the Arrow source holds no record batch, so no schema to create the table from", "source");
  const targets = schema.fields.map((f) => columnTarget(f, stringLengths, options));
  const inputsOf = (batch: RecordBatch): (ArrayInput | VLInput)[] =>
    targets.map((t, i) => {
      const child = batch.getChildAt(i);
      const datas = (child?.data ?? []) as readonly Data[];
      if (datas.length === 1) return t.input(datas[0]!);
      // A column of several chunks: concatenate their inputs.
      const parts = datas.map((d) => t.input(d));
      if (parts.every((p) => Array.isArray(p))) return (parts as unknown[][]).flat() as VLInput;
      const raw = parts as { bytes: Uint8Array }[];
      const total = raw.reduce((n, p) => n + p.bytes.length, 0);
      const bytes = new Uint8Array(total);
      let at = 0;
      for (const p of raw) {
        bytes.set(p.bytes, at);
        at += p.bytes.length;
      }
      return { bytes };
    });
  const firstInputs = first === undefined ? targets.map((t) => t.empty) : inputsOf(first);
  const table = await createCtable(store, path, targets.map((t, i) => t.spec(firstInputs[i]!)), {
    formatVersion,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.cparams === undefined ? {} : { cparams: options.cparams }),
    ...(options.chunklen === undefined ? {} : { chunklen: options.chunklen }),
    ...(expectedlen === undefined || expectedlen === 0 ? {} : { expectedlen }),
  });
  try {
    for (let step = await iterator.next(); step.done !== true; step = await iterator.next()) {
      const batch = step.value;
      if (batch.numRows === 0) continue;
      const inputs = inputsOf(batch);
      await table.append(Object.fromEntries(targets.map((t, i) => [t.name, inputs[i]! as ArrayInput])));
    }
  } catch (error) {
    await table.close().catch(() => undefined);
    throw error;
  }
  return table;
}

/** A dictionary-encoded type as the type of its values. */
function valueType(type: DataType): DataType {
  return type.typeId === Type.Dictionary ? ((type as unknown as { dictionary: DataType }).dictionary) : type;
}

/** True when a column of this type stores strings at a fixed length in format 1. */
function containsVariable(type: DataType): boolean {
  type = valueType(type);
  return type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8 || type.typeId === Type.Binary || type.typeId === Type.LargeBinary;
}
