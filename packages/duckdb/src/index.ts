/**
 * SQL over bcolz ctables and carrays with DuckDB, and Parquet export. Each dataset is streamed
 * into an in-memory DuckDB as Arrow record batches (`@fmt/arrow`), one stored block at a time,
 * through DuckDB's appender and data chunks — no DuckDB extension is needed or downloaded.
 *
 * - {@link querySql} runs a query and returns every row; {@link streamSql} yields the result in
 *   DuckDB chunks;
 * - {@link exportParquet} writes a dataset to a Parquet file with `COPY … (FORMAT parquet)`,
 *   leaving no partial file on failure;
 * - {@link loadDataset} loads a dataset into a connection of your own; {@link duckdbType} is the
 *   Arrow → DuckDB type mapping.
 *
 * Node only (DuckDB is a native addon).
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * import { openCtable } from "@fmt/store";
 * import { querySql } from "@fmt/duckdb";
 *
 * const t = await openCtable(new FileSystemStore("/data/trades.bcolz"));
 * const { columnNames, rows } = await querySql({ t }, "SELECT sym, avg(price) FROM t GROUP BY sym ORDER BY sym");
 * ```
 * @packageDocumentation
 */
export { duckdbType, loadDataset, quoteIdentifier, quoteString } from "./load.js";
export type { LoadOptions } from "./load.js";
export { exportParquet, querySql, streamSql } from "./query.js";
export type { ParquetOptions, SqlOptions, SqlResult, SqlRows } from "./query.js";
