/**
 * Streaming a dataset's Arrow record batches into a DuckDB table through the appender, one data
 * chunk (at most 2048 rows) at a time.
 *
 * @module
 */
import {
  arrayValue,
  DuckDBBlobValue,
  DuckDBDataChunk,
  DuckDBDateValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampValue,
  listValue,
} from "@duckdb/node-api";
import type { DuckDBAppender, DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { Type } from "apache-arrow";
import type { Data, DataType, FixedSizeList, List, RecordBatch, Schema, Timestamp } from "apache-arrow";
import { arrowSchemaOf, toRecordBatches } from "@fmt/arrow";
import type { ToArrowOptions } from "@fmt/arrow";
import { FormatError } from "@fmt/errors";
import { halfToNumber } from "@fmt/store";
import type { CArray, CTable } from "@fmt/store";

/**
 * Options of {@link loadDataset}: the selection of `@fmt/arrow`'s `toRecordBatches` (columns,
 * row slice, `where`, blockLen), plus a hook called after each batch is appended.
 *
 * @example
 * ```ts
 * const options: LoadOptions = { columns: ["id", "price"], onBatch: (rows) => console.log(rows) };
 * ```
 */
export interface LoadOptions extends Omit<ToArrowOptions, "bytesAs"> {
  /** Called after each record batch went into DuckDB, with its number of rows. */
  onBatch?: (rows: number) => void;
}

/** Rows of one DuckDB data chunk (the standard vector size). */
const CHUNK_ROWS = 2048;

/**
 * The DuckDB SQL type of an Arrow type: BOOLEAN, TINYINT…BIGINT, UTINYINT…UBIGINT, FLOAT (also
 * for Float16), DOUBLE, TIMESTAMP_S / TIMESTAMP_MS / TIMESTAMP / TIMESTAMP_NS, DATE, BIGINT (a
 * duration's count), VARCHAR, BLOB, `T[k]` for a FixedSizeList, `T[]` for a List.
 *
 * @example
 * ```ts
 * duckdbType(new TimestampNanosecond()); // "TIMESTAMP_NS"
 * ```
 */
export function duckdbType(type: DataType, field = ""): string {
  switch (type.typeId) {
    case Type.Bool:
      return "BOOLEAN";
    case Type.Int: {
      const t = type as unknown as { bitWidth: number; isSigned: boolean };
      const names = { 8: "TINYINT", 16: "SMALLINT", 32: "INTEGER", 64: "BIGINT" } as Record<number, string>;
      return `${t.isSigned ? "" : "U"}${names[t.bitWidth]!}`;
    }
    case Type.Float:
      return (type as unknown as { precision: number }).precision === 2 ? "DOUBLE" : "FLOAT";
    case Type.Timestamp:
      return ["TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP", "TIMESTAMP_NS"][(type as Timestamp).unit]!;
    case Type.Date:
      return "DATE";
    case Type.Duration:
      return "BIGINT";
    case Type.Utf8:
      return "VARCHAR";
    case Type.Binary:
    case Type.FixedSizeBinary:
      return "BLOB";
    case Type.FixedSizeList: {
      const list = type as FixedSizeList;
      return `${duckdbType(list.children[0]!.type as DataType, field)}[${list.listSize}]`;
    }
    case Type.List:
      return `${duckdbType((type as List).children[0]!.type as DataType, field)}[]`;
    default:
      throw new FormatError("UNSUPPORTED_DTYPE", `Arrow type ${typeName(type)} has no DuckDB column type here`, { field, actual: typeName(type) });
  }
}

/** An Arrow type's name (`Int32`, `Timestamp<NANOSECOND>`, …). */
function typeName(type: DataType): string {
  return (type as { toString(): string }).toString();
}

/** A function reading element `i` of a data chunk as a DuckDB value (null for nulls). */
type Reader = (i: number) => DuckDBValue;

/** Reads elements of `data` (one Arrow data chunk) as DuckDB values. */
function reader(data: Data): Reader {
  const type = data.type;
  const valid = data.nullCount === 0 ? undefined : (i: number): boolean => data.getValid(i);
  const wrap = (read: Reader): Reader => (valid === undefined ? read : (i) => (valid(i) ? read(i) : null));
  switch (type.typeId) {
    case Type.Int:
    case Type.Float: {
      if (type.typeId === Type.Float && (type as unknown as { precision: number }).precision === 0) {
        const bits = data.values as Uint16Array;
        return wrap((i) => halfToNumber(bits[i]!));
      }
      const values = data.values as unknown as ArrayLike<number | bigint>;
      return wrap((i) => values[i]!);
    }
    case Type.Bool: {
      const bits = data.values as Uint8Array;
      const offset = data.offset;
      return wrap((i) => ((bits[(offset + i) >> 3]! >> ((offset + i) & 7)) & 1) === 1);
    }
    case Type.Timestamp: {
      const values = data.values as BigInt64Array;
      const unit = (type as Timestamp).unit;
      const make = [(v: bigint) => new DuckDBTimestampSecondsValue(v), (v: bigint) => new DuckDBTimestampMillisecondsValue(v), (v: bigint) => new DuckDBTimestampValue(v), (v: bigint) => new DuckDBTimestampNanosecondsValue(v)][unit]!;
      return wrap((i) => make(values[i]!));
    }
    case Type.Date: {
      const values = data.values as Int32Array;
      return wrap((i) => new DuckDBDateValue(values[i]!));
    }
    case Type.Duration: {
      const values = data.values as BigInt64Array;
      return wrap((i) => values[i]!);
    }
    case Type.Utf8:
    case Type.Binary: {
      const offsets = data.valueOffsets as Int32Array;
      const bytes = data.values as Uint8Array;
      const decoder = new TextDecoder();
      if (type.typeId === Type.Utf8) return wrap((i) => decoder.decode(bytes.subarray(offsets[i], offsets[i + 1])));
      return wrap((i) => new DuckDBBlobValue(bytes.slice(offsets[i], offsets[i + 1])));
    }
    case Type.FixedSizeBinary: {
      const width = (type as unknown as { byteWidth: number }).byteWidth;
      const bytes = data.values as Uint8Array;
      return wrap((i) => new DuckDBBlobValue(bytes.slice(i * width, (i + 1) * width)));
    }
    case Type.FixedSizeList: {
      const k = (type as FixedSizeList).listSize;
      const child = reader(data.children[0]!); // sliced along with its parent by apache-arrow
      return wrap((i) => arrayValue(Array.from({ length: k }, (_, j) => child(i * k + j))));
    }
    case Type.List: {
      const offsets = data.valueOffsets as Int32Array;
      const child = reader(data.children[0]!);
      return wrap((i) => listValue(Array.from({ length: offsets[i + 1]! - offsets[i]! }, (_, j) => child(offsets[i]! + j))));
    }
    default:
      throw new FormatError("UNSUPPORTED_DTYPE", `Arrow type ${typeName(type)} has no DuckDB column type here`, { actual: typeName(type) });
  }
}


/**
 * A name as a quoted SQL identifier (double quotes doubled).
 *
 * @example
 * ```ts
 * quoteIdentifier('my "t"'); // '"my ""t"""'
 * ```
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A text as a SQL string literal (single quotes doubled).
 *
 * @example
 * ```ts
 * quoteString("it's.parquet"); // "'it''s.parquet'"
 * ```
 */
export function quoteString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Appends one record batch through `appender`, in data chunks of at most 2048 rows, all filled
 * in the one reusable `chunk` (the appender copies each; a new native chunk per 2048 rows would
 * pile up until the garbage collector finalizes them).
 */
function appendBatch(appender: DuckDBAppender, chunk: DuckDBDataChunk, batch: RecordBatch): void {
  const readers = batch.schema.fields.map((_, c) => {
    const datas = batch.getChildAt(c)!.data as readonly Data[];
    // A batch column is one data chunk when it comes from @fmt/arrow.
    return datas.length === 1 ? reader(datas[0]!) : ((vector) => (i: number) => vector.get(i) as DuckDBValue)(batch.getChildAt(c)!);
  });
  for (let start = 0; start < batch.numRows; start += CHUNK_ROWS) {
    const rows = Math.min(CHUNK_ROWS, batch.numRows - start);
    chunk.reset();
    chunk.rowCount = rows;
    readers.forEach((read, c) => {
      const vector = chunk.getColumnVector(c);
      for (let r = 0; r < rows; r++) vector.setItem(r, read(start + r));
      vector.flush();
    });
    appender.appendDataChunk(chunk);
  }
}

/**
 * Creates table `name` on `connection` with the Arrow schema of `dataset` (see
 * {@link duckdbType}) and streams the dataset's record batches into it: one batch (one stored
 * block) is held in JS memory at a time, so a table larger than the JS heap loads fine (DuckDB
 * keeps its own, compressed, copy). Resolves to the number of rows loaded.
 *
 * @example
 * ```ts
 * const db = await DuckDBInstance.create(":memory:");
 * const connection = await db.connect();
 * await loadDataset(connection, "t", await openCtable(store));
 * const reader = await connection.runAndReadAll("SELECT count(*) FROM t");
 * ```
 */
export async function loadDataset(connection: DuckDBConnection, name: string, dataset: CTable | CArray, options: LoadOptions = {}): Promise<number> {
  const { onBatch, ...selection } = options;
  const schema: Schema = arrowSchemaOf(dataset, selection);
  const columns = schema.fields.map((f) => `${quoteIdentifier(f.name)} ${duckdbType(f.type as DataType, f.name)}`);
  await connection.run(`CREATE TABLE ${quoteIdentifier(name)} (${columns.join(", ")})`);
  const appender = await connection.createAppender(name);
  let rows = 0;
  try {
    const chunk = DuckDBDataChunk.create(Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i)));
    for await (const batch of toRecordBatches(dataset, selection)) {
      appendBatch(appender, chunk, batch);
      rows += batch.numRows;
      onBatch?.(batch.numRows);
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  return rows;
}
