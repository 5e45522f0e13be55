/**
 * `bcolz-ts where`: evaluates an expression over a ctable and prints the matching rows (or
 * their count).
 */
import { UsageError } from "@fmt/errors";
import type { CArray, CTable } from "@fmt/store";
import type { LineSink } from "./output-stream.js";
import { columnPiece, renderRows } from "./rows.js";

/**
 * Options of `bcolz-ts where`.
 *
 * @example
 * ```ts
 * const o: WhereCommandOptions = { columns: ["id"], limit: 10 };
 * ```
 */
export interface WhereCommandOptions {
  /** Columns to print (default: all). */
  columns?: string[];
  /** Stop after this many matches. */
  limit?: number;
  /** Print only the number of matches. */
  count?: boolean;
  /** JSON lines instead of text. */
  json?: boolean;
}

/**
 * Runs `where` on an opened dataset and writes the result to `out`: row number then the
 * selected columns, tab-separated (or JSON objects with `_row`), or just the count.
 *
 * @example
 * ```ts
 * await runWhereCommand(table, "i > 10", { limit: 5 }, new LineSink(process.stdout));
 * ```
 */
export async function runWhereCommand(dataset: CArray | CTable, expr: string, opts: WhereCommandOptions, out: LineSink): Promise<void> {
  if (dataset.kind !== "ctable") throw new UsageError("INVALID_ARGUMENT", "where needs a ctable (this dataset is a carray)", { field: "dir" });
  if (opts.count === true) {
    const n = await dataset.where(expr, { as: "count", ...(opts.limit === undefined ? {} : { limit: opts.limit }) });
    await out.write(opts.json === true ? `{"count":${n}}\n` : `${n}\n`);
    return;
  }
  const names = opts.columns ?? [...dataset.names];
  const limit = opts.limit === undefined ? {} : { limit: opts.limit };
  const indices = await dataset.where(expr, { as: "indices", ...limit });
  // The matches are known: read just their rows instead of scanning the table a second time.
  const rows = await dataset.takeRows(indices, names);
  const pieces = names.map((n) => columnPiece(dataset.column(n), rows[n]!));
  await out.write(renderRows(pieces, indices.length, opts.json === true ? "json" : "text", names, indices));
}
