/**
 * SQL over datasets with DuckDB, and Parquet export.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import type { DuckDBConnection, DuckDBValue, Json } from "@duckdb/node-api";
import { isBcolzError, StorageError, UsageError } from "@fmt/errors";
import type { CArray, CTable } from "@fmt/store";
import { loadDataset, quoteString } from "./load.js";
import type { LoadOptions } from "./load.js";

/**
 * Options of {@link querySql} and {@link streamSql}.
 *
 * @example
 * ```ts
 * const options: SqlOptions = { threads: 2, onBatch: (rows) => console.log("loaded", rows) };
 * ```
 */
export interface SqlOptions {
  /** DuckDB worker threads (default: DuckDB's choice, the number of cores). */
  threads?: number;
  /** DuckDB's memory limit, e.g. `"1GB"` (beyond it DuckDB spills to its temp directory). */
  memoryLimit?: string;
  /** Called after each record batch of any table went into DuckDB, with its number of rows. */
  onBatch?: LoadOptions["onBatch"];
}

/**
 * One piece of a result: the column names and DuckDB types (as SQL type names), and rows of
 * DuckDB values (numbers, bigints, strings, booleans, `null`, and DuckDB value objects for
 * timestamps, dates, blobs, lists, whose `toString()` is their SQL text form).
 *
 * @example
 * ```ts
 * const piece: SqlRows = { columnNames: ["n"], columnTypes: ["BIGINT"], rows: [[3n]] };
 * ```
 */
export interface SqlRows {
  columnNames: string[];
  columnTypes: string[];
  rows: DuckDBValue[][];
}

/**
 * The result of {@link querySql}: {@link SqlRows} holding every row, plus the rows as JSON-ready
 * objects (`rowObjectsJson()`: numbers, strings for 64-bit integers and timestamps, as DuckDB's
 * JSON conversion gives them).
 *
 * @example
 * ```ts
 * const r: SqlResult = await querySql({ t }, "SELECT 1 AS one");
 * console.log(r.rows[0]![0]); // 1
 * ```
 */
export interface SqlResult extends SqlRows {
  /** The rows as objects of JSON values. */
  json: Record<string, Json>[];
}

/** Python-identifier-like table names are the ones a user can type unquoted; others are quoted. */
function checkTables(tables: Readonly<Record<string, CTable | CArray>>): [string, CTable | CArray][] {
  if (typeof tables !== "object" || tables === null) throw new UsageError("INVALID_ARGUMENT", "tables must be an object of name → dataset", { field: "tables", actual: tables });
  const entries = Object.entries(tables);
  for (const [name, dataset] of entries) {
    if (name === "") throw new UsageError("INVALID_ARGUMENT", "a table name must not be empty", { field: "tables" });
    if (typeof dataset !== "object" || dataset === null || (dataset.kind !== "ctable" && dataset.kind !== "carray")) {
      throw new UsageError("INVALID_ARGUMENT", `table "${name}" must be a CTable or CArray`, { field: `tables.${name}` });
    }
  }
  return entries;
}

async function openDatabase(options: SqlOptions): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const settings: Record<string, string> = {};
  if (options.threads !== undefined) settings["threads"] = String(options.threads);
  if (options.memoryLimit !== undefined) settings["memory_limit"] = options.memoryLimit;
  // No extension may be fetched at run time (offline machines; and no code from the network).
  settings["autoinstall_known_extensions"] = "false";
  settings["autoload_known_extensions"] = "false";
  const instance = await DuckDBInstance.create(":memory:", settings);
  return { instance, connection: await instance.connect() };
}

/** Rethrows a DuckDB error (SQL syntax, binder, …) as a `UsageError` naming the query. */
function sqlError(error: unknown, sql: string): never {
  if (error instanceof Error && !isBcolzError(error)) {
    throw new UsageError("INVALID_ARGUMENT", `DuckDB: ${error.message.split("\n")[0]}`, { field: "sql", actual: sql, cause: error });
  }
  throw error;
}

/**
 * Runs `sql` over `tables` (each dataset registered under its key, e.g. `{ t: table }` makes
 * table `t`) and streams the result: the datasets are first loaded into an in-memory DuckDB,
 * record batch by record batch (one stored block in JS memory at a time), then the result is
 * yielded in DuckDB's chunks of up to 2048 rows. The database is closed when the generator
 * finishes or is abandoned.
 *
 * Errors: `UsageError` `INVALID_ARGUMENT` (field `sql`) for a query DuckDB refuses,
 * `FormatError` `UNSUPPORTED_DTYPE` for a column without Arrow/DuckDB type, the store's read
 * errors.
 *
 * @example
 * ```ts
 * for await (const piece of streamSql({ t: table }, "SELECT sym, sum(qty) FROM t GROUP BY sym")) {
 *   for (const row of piece.rows) console.log(row.map(String).join("\t"));
 * }
 * ```
 */
export async function* streamSql(tables: Readonly<Record<string, CTable | CArray>>, sql: string, options: SqlOptions = {}): AsyncGenerator<SqlRows, void, undefined> {
  if (typeof sql !== "string" || sql.trim() === "") throw new UsageError("INVALID_ARGUMENT", "the SQL query must be a non-empty string", { field: "sql", actual: sql });
  const entries = checkTables(tables);
  const { instance, connection } = await openDatabase(options);
  try {
    for (const [name, dataset] of entries) await loadDataset(connection, name, dataset, options.onBatch === undefined ? {} : { onBatch: options.onBatch });
    let result;
    try {
      result = await connection.stream(sql);
    } catch (error) {
      sqlError(error, sql);
    }
    const columnNames = result.columnNames();
    const columnTypes = result.columnTypes().map(String);
    let any = false;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) break;
      any = true;
      yield { columnNames, columnTypes, rows: chunk.getRows() };
    }
    if (!any) yield { columnNames, columnTypes, rows: [] };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * Runs `sql` over `tables` like {@link streamSql} and returns the whole result at once.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * import { openCtable } from "@fmt/store";
 * import { querySql } from "@fmt/duckdb";
 *
 * const t = await openCtable(new FileSystemStore("/data/trades.bcolz"));
 * const r = await querySql({ t }, "SELECT count(*) AS n, sum(price) AS total FROM t WHERE qty > 3");
 * console.log(r.columnNames, r.rows[0]); // ["n", "total"] [1234n, 98765.5]
 * ```
 */
export async function querySql(tables: Readonly<Record<string, CTable | CArray>>, sql: string, options: SqlOptions = {}): Promise<SqlResult> {
  if (typeof sql !== "string" || sql.trim() === "") throw new UsageError("INVALID_ARGUMENT", "the SQL query must be a non-empty string", { field: "sql", actual: sql });
  const entries = checkTables(tables);
  const { instance, connection } = await openDatabase(options);
  try {
    for (const [name, dataset] of entries) await loadDataset(connection, name, dataset, options.onBatch === undefined ? {} : { onBatch: options.onBatch });
    let reader;
    try {
      reader = await connection.runAndReadAll(sql);
    } catch (error) {
      sqlError(error, sql);
    }
    return {
      columnNames: reader.columnNames(),
      columnTypes: reader.columnTypes().map(String),
      rows: reader.getRows(),
      json: reader.getRowObjectsJson(),
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * Options of {@link exportParquet}.
 *
 * @example
 * ```ts
 * const options: ParquetOptions = { compression: "zstd", force: true, columns: ["id", "price"] };
 * ```
 */
export interface ParquetOptions extends SqlOptions {
  /** Parquet compression codec (default DuckDB's, snappy). */
  compression?: "uncompressed" | "snappy" | "gzip" | "zstd" | "lz4" | "brotli";
  /** Replace an existing file (default: `UsageError` `INVALID_ARGUMENT` when `path` exists). */
  force?: boolean;
  /** ctable: the columns to write, in this order (default all). */
  columns?: readonly string[];
  /** Rows per Parquet row group (default DuckDB's). */
  rowGroupSize?: number;
}

/**
 * Writes `dataset` to a Parquet file at `path` with DuckDB's `COPY … TO … (FORMAT parquet)`,
 * after streaming it into DuckDB batch by batch. Types follow {@link duckdbType}: datetimes
 * become Parquet timestamps, `U`/`S` strings VARCHAR/BLOB. The file is written under a temporary
 * name in the same directory and renamed when complete: a failed export (a damaged chunk, a full
 * disk) leaves no file, partial or temporary, behind. Resolves to the number of rows written.
 *
 * @example
 * ```ts
 * const rows = await exportParquet(await openCtable(store), "/tmp/trades.parquet", { compression: "zstd" });
 * ```
 */
export async function exportParquet(dataset: CTable | CArray, path: string, options: ParquetOptions = {}): Promise<number> {
  if (typeof path !== "string" || path === "") throw new UsageError("INVALID_ARGUMENT", "the output path must be a non-empty string", { field: "path", actual: path });
  if (options.force !== true) {
    const exists = await stat(path).then(() => true, () => false);
    if (exists) throw new UsageError("INVALID_ARGUMENT", `${path} exists (use force to replace it)`, { field: "path", actual: path });
  }
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.partial`);
  const { instance, connection } = await openDatabase(options);
  try {
    const rows = await loadDataset(connection, "t", dataset, {
      ...(options.columns === undefined ? {} : { columns: options.columns }),
      ...(options.onBatch === undefined ? {} : { onBatch: options.onBatch }),
    });
    const settings = ["FORMAT parquet"];
    if (options.compression !== undefined) settings.push(`COMPRESSION ${options.compression}`);
    if (options.rowGroupSize !== undefined) {
      if (!Number.isSafeInteger(options.rowGroupSize) || options.rowGroupSize < 1) throw new UsageError("INVALID_ARGUMENT", "rowGroupSize must be a positive integer", { field: "rowGroupSize", actual: options.rowGroupSize });
      settings.push(`ROW_GROUP_SIZE ${options.rowGroupSize}`);
    }
    try {
      await connection.run(`COPY "t" TO ${quoteString(temp)} (${settings.join(", ")})`);
    } catch (error) {
      throw new StorageError("IO_ERROR", `DuckDB could not write the Parquet file: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`, { path, cause: error });
    }
    await rename(temp, path);
    return rows;
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
