/**
 * The bcolz-ts command-line tool and the reference conformance adapter, as a library.
 *
 * @example
 * ```ts
 * import { readDatasetToDir } from "@fmt/cli";
 * await readDatasetToDir("/data/prices.bcolz", "/tmp/out"); // result.json + values.bin
 * ```
 * @packageDocumentation
 */
import type { DType } from "@fmt/meta";
import type { CArray, CTable, TableColumn } from "@fmt/store";
import { dtypeText } from "./output.js";

export { ADAPTER_INFO, readDatasetToDir, runAdapterCommand, queryToDir, serveAdapter } from "./adapter.js";
export type { AdapterIO } from "./adapter.js";
export { swapBytesInPlace, toStrictJson } from "./output.js";
export { runUnlockCommand, UNLOCK_HELP, unlockDataset } from "./unlock.js";
export type { LockState } from "./unlock.js";
export type { ArrayDescription } from "./output.js";
export { runCli } from "./program.js";
export type { CliStreams } from "./program.js";
export { describeDataset, renderInfo } from "./info.js";
export type { ArrayInfo, DatasetInfo } from "./info.js";
export { validateDataset, renderReport } from "./validate.js";
export type { Problem, ValidateProgress, ValidationReport } from "./validate.js";
export { resolveSlice } from "./args.js";
export { exportDataset, exportFormat, npyHeader } from "./export.js";
export type { ExportFormat, ExportOptions } from "./export.js";
export { importFile } from "./import.js";
export { loadDuckdb, runSqlCommand } from "./sql.js";
export { ClosedPipe, LineSink } from "./output-stream.js";
export type { SinkStream } from "./output-stream.js";
export type { DuckdbApi, SqlCommandOptions } from "./sql.js";
export type { ImportOptions } from "./import.js";
export type { ResolvedSlice } from "./args.js";

/**
 * A JSON-friendly summary of a dataset: what `bcolz-ts info` prints.
 *
 * @example
 * ```ts
 * console.log(summarize(await open(store)));
 * ```
 */
export function summarize(dataset: CArray | CTable): Record<string, unknown> {
  const one = (a: TableColumn): Record<string, unknown> => (a.kind === "vlarray" ? { dtype: dtypeText(a), shape: a.shape, chunklen: a.chunklen, cparams: a.cparams } : {
    dtype: a.dtype.str,
    bcolzDtype: a.dtype.bcolzName,
    shape: a.shape,
    chunklen: a.chunklen,
    cparams: a.cparams,
    nbytes: a.nbytes,
  });
  if (dataset.kind === "carray") return { kind: "carray", ...one(dataset), attrs: dataset.attrs };
  return {
    kind: "ctable",
    length: dataset.length,
    attrs: dataset.attrs,
    columns: Object.fromEntries(dataset.columns.map((c, i) => [dataset.names[i], one(c)])),
  };
}

/**
 * Render one element for display: numbers as JavaScript prints them, byte strings with escapes.
 *
 * @example
 * ```ts
 * formatValue(parseDtype("|S3"), new Uint8Array([97, 0, 0])); // "a"
 * ```
 */
export function formatValue(dtype: DType, value: unknown): string {
  if (value instanceof Uint8Array) {
    let end = value.length;
    while (end > 0 && value[end - 1] === 0) end--;
    return Array.from(value.subarray(0, end), (b) => (b >= 32 && b < 127 && b !== 92 ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("");
  }
  if (dtype.kind === "M" && typeof value === "bigint") return `${value}${dtype.unit ?? ""}`;
  if (ArrayBuffer.isView(value)) return `[${Array.from(value as unknown as ArrayLike<unknown>, (v) => String(v)).join(", ")}]`;
  return String(value);
}
