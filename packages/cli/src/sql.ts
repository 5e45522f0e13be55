/**
 * `bcolz-ts sql`: SQL over a dataset with DuckDB (the optional package `@fmt/duckdb`, loaded
 * on demand), and the loader that reports its absence clearly.
 */
import { UsageError } from "@fmt/errors";
import type { CArray, CTable } from "@fmt/store";
import type * as DuckdbModule from "@fmt/duckdb";
import type { LineSink } from "./output-stream.js";
import { toStrictJson } from "./output.js";
import { shortestFloat32 } from "./rows.js";

/**
 * What `@fmt/duckdb` exports (the CLI loads it with `import()` since it is an optional
 * dependency: its native DuckDB binary is large).
 *
 * @example
 * ```ts
 * const duckdb: DuckdbApi = await loadDuckdb();
 * ```
 */
export type DuckdbApi = typeof DuckdbModule;

/**
 * Loads `@fmt/duckdb`, or throws `UsageError` `INVALID_ARGUMENT` (exit 2) telling the user to
 * install it when it (or its DuckDB binary) is absent. `importer` replaces the `import()` (tests).
 *
 * @example
 * ```ts
 * const { querySql } = await loadDuckdb();
 * ```
 */
export async function loadDuckdb(importer: () => Promise<unknown> = () => import("@fmt/duckdb")): Promise<DuckdbApi> {
  try {
    return (await importer()) as DuckdbApi;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || (error instanceof Error && /Cannot find (module|package)|duckdb\.node|node-bindings/i.test(error.message))) {
      throw new UsageError("INVALID_ARGUMENT", "this command needs the optional package @fmt/duckdb (SQL and Parquet through DuckDB), which is not installed: run `npm install @fmt/duckdb` next to @fmt/cli (with npx: `npx -p @fmt/cli -p @fmt/duckdb bcolz-ts …`)", {
        field: "@fmt/duckdb",
        expected: "@fmt/duckdb installed",
        actual: error instanceof Error ? error.message.split("\n")[0] : String(error),
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Options of `bcolz-ts sql`.
 *
 * @example
 * ```ts
 * const o: SqlCommandOptions = { name: "trades", json: true };
 * ```
 */
export interface SqlCommandOptions {
  /** The table name the dataset gets in the query (default `t`). */
  name?: string;
  /** JSON lines (one object per row) instead of text. */
  json?: boolean;
  /** Text output: print the column names first (default true). */
  header?: boolean;
  /** DuckDB's memory limit (`--memory-limit`, e.g. `"512MB"`); beyond it DuckDB spills to temporary files. */
  memoryLimit?: string;
  /** DuckDB worker threads (`--threads`). */
  threads?: number;
  /** Called after each record batch of the dataset went into DuckDB (tests, progress). */
  onBatch?: (rows: number) => void;
  /** Replaces the `import()` of `@fmt/duckdb` (tests). */
  importer?: () => Promise<unknown>;
}

const escapeText = (text: string): string => text.replace(/[\x00-\x1f\x7f\\]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
const escapeBytes = (bytes: Uint8Array): string => Array.from(bytes, (b) => (b >= 32 && b < 127 && b !== 92 ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("");

/** A DuckDB value as the text or JSON form of the CLI's other commands. */
function renderValue(value: unknown, type: string, json: boolean): unknown {
  if (value === null || value === undefined) return json ? null : "NULL";
  if (typeof value === "boolean") return json ? value : value ? "True" : "False";
  if (typeof value === "bigint") return json ? value : String(value);
  if (typeof value === "number") {
    const v = type === "FLOAT" ? shortestFloat32(value) : value;
    return json ? v : Object.is(v, -0) ? "-0" : String(v);
  }
  if (typeof value === "string") return json ? value : escapeText(value);
  const bytes = (value as { bytes?: unknown }).bytes;
  if (bytes instanceof Uint8Array) return escapeBytes(bytes);
  const items = (value as { items?: unknown }).items;
  if (Array.isArray(items)) {
    const inner = type.replace(/\[\d*\]$/, "");
    const parts = items.map((v) => renderValue(v, inner, json));
    return json ? parts : `[${parts.join(", ")}]`;
  }
  // DuckDB's value objects (timestamps, dates, intervals, …) print their SQL text form.
  const text = (value as { toString(): string }).toString();
  return json ? text : escapeText(text);
}

/**
 * Runs `bcolz-ts sql`: the dataset becomes table `name` (default `t`) of an in-memory DuckDB,
 * loaded block by block, and the query's rows are written to `out` as they come: text lines of
 * tab-separated values after a header line of column names (`--no-header` drops it), or one JSON
 * object per row with `--json`. Text form: numbers as JavaScript prints them (FLOAT as the
 * shortest float32 decimal), booleans `True`/`False`, NULL as `NULL`, timestamps and dates in
 * DuckDB's text form (`2017-07-14 02:40:00`), blobs with `\xNN` escapes, lists as `[a, b]`.
 *
 * @example
 * ```ts
 * await runSqlCommand(table, "SELECT count(*) FROM t", {}, new LineSink(process.stdout));
 * ```
 */
export async function runSqlCommand(dataset: CArray | CTable, sql: string, opts: SqlCommandOptions, out: LineSink): Promise<void> {
  const name = opts.name ?? "t";
  if (name === "") throw new UsageError("INVALID_ARGUMENT", "--name must not be empty", { field: "name" });
  const duckdb = await loadDuckdb(opts.importer);
  let first = true;
  const sqlOptions = {
    ...(opts.memoryLimit === undefined ? {} : { memoryLimit: opts.memoryLimit }),
    ...(opts.threads === undefined ? {} : { threads: opts.threads }),
    ...(opts.onBatch === undefined ? {} : { onBatch: opts.onBatch }),
  };
  for await (const piece of duckdb.streamSql({ [name]: dataset }, sql, sqlOptions)) {
    let text = "";
    if (first && opts.json !== true && opts.header !== false) text += `${piece.columnNames.map(escapeText).join("\t")}\n`;
    first = false;
    for (const row of piece.rows) {
      if (opts.json === true) {
        const obj: Record<string, unknown> = {};
        piece.columnNames.forEach((n, i) => (obj[n] = renderValue(row[i], piece.columnTypes[i]!, true)));
        text += `${toStrictJson(obj)}\n`;
      } else text += `${row.map((v, i) => renderValue(v, piece.columnTypes[i]!, false) as string).join("\t")}\n`;
    }
    await out.write(text);
  }
}
