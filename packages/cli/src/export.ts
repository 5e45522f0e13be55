/**
 * `bcolz-ts export`: writes a dataset to a `.npy` file (a structured array for a ctable), CSV,
 * JSON lines, an Arrow IPC file or (through the optional `@fmt/duckdb`) Parquet, streaming block
 * by block.
 */
import { once } from "node:events";
import { createWriteStream, existsSync } from "node:fs";
import { rename, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { arrowSchemaOf, ipcChunks, toRecordBatches } from "@fmt/arrow";
import { UsageError } from "@fmt/errors";
import type { CArray, CTable } from "@fmt/store";
import { resolveSlice } from "./args.js";
import { csvHeaderCell } from "./csv-types.js";
import { streamRows } from "./rows.js";
import { loadDuckdb } from "./sql.js";

/**
 * Output formats of `export`, chosen from the file extension.
 *
 * @example
 * ```ts
 * const f: ExportFormat = exportFormat("out.csv"); // "csv"
 * ```
 */
export type ExportFormat = "npy" | "csv" | "jsonl" | "arrow" | "parquet";

/**
 * Options of {@link exportDataset}.
 *
 * @example
 * ```ts
 * const o: ExportOptions = { to: "/tmp/out.npy", columns: ["id", "price"], force: true };
 * ```
 */
export interface ExportOptions {
  /** Output file; its extension (`.npy`, `.csv`, `.jsonl`/`.ndjson`, `.arrow`/`.feather`, `.parquet`) picks the format. */
  to: string;
  /** ctable: the columns to write, in this order (default all). */
  columns?: readonly string[];
  /** Replace an existing output file. */
  force?: boolean;
  /** Called with the number of blocks to write, then after each block. */
  progress?: { start(total: number): void; tick(): void };
  /** The format, when `to` has no telling extension (`"-"`, standard output). */
  format?: ExportFormat;
  /**
   * Where text goes instead of the file `to` (standard output for `--to -`): `csv` and `jsonl` only.
   * Nothing is created on disk then.
   */
  sink?: { write(text: string): Promise<void> };
  /** Replaces the `import()` of the optional `@fmt/duckdb` (Parquet; tests). */
  duckdbImporter?: () => Promise<unknown>;
}

/**
 * The format an output path asks for, or a `UsageError` for an unknown extension.
 *
 * @example
 * ```ts
 * exportFormat("out.npy"); // "npy"
 * ```
 */
export function exportFormat(path: string): ExportFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith(".npy")) return "npy";
  if (lower.endsWith(".csv")) return "csv";
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return "jsonl";
  if (lower.endsWith(".arrow") || lower.endsWith(".feather")) return "arrow";
  if (lower.endsWith(".parquet")) return "parquet";
  throw new UsageError("INVALID_ARGUMENT", `cannot tell the format of "${path}": use .npy, .csv or .jsonl (or .arrow, .parquet), or give --format`, { field: "to" });
}

const pyTuple = (dims: readonly number[]): string => `(${dims.join(", ")}${dims.length === 1 ? "," : ""})`;

/**
 * The `.npy` (format 1.0, or 2.0 for very long headers) header for `descr` and `shape`, padded
 * so that the data starts at a multiple of 64 bytes.
 *
 * @example
 * ```ts
 * npyHeader("'<i4'", [3]); // bytes of "\x93NUMPY\x01\x00…{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }   \n"
 * ```
 */
export function npyHeader(descr: string, shape: readonly number[]): Uint8Array {
  const dict = `{'descr': ${descr}, 'fortran_order': False, 'shape': ${pyTuple(shape)}, }`;
  const build = (lenBytes: number, major: number): Uint8Array => {
    const prefix = 6 + 2 + lenBytes;
    const total = Math.ceil((prefix + dict.length + 1) / 64) * 64;
    const text = `${dict}${" ".repeat(total - prefix - dict.length - 1)}\n`;
    const out = new Uint8Array(total);
    out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
    const view = new DataView(out.buffer);
    if (lenBytes === 2) view.setUint16(8, text.length, true);
    else view.setUint32(8, text.length, true);
    for (let i = 0; i < text.length; i++) out[prefix + i] = text.charCodeAt(i);
    return out;
  };
  const v1 = build(2, 1);
  return v1.length - 10 <= 0xffff ? v1 : build(4, 2);
}

function fieldDescr(name: string, a: CArray): string {
  const trailing = a.shape.slice(1);
  const quoted = `'${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  return trailing.length === 0 ? `(${quoted}, '${a.dtype.str}')` : `(${quoted}, '${a.dtype.str}', ${pyTuple(trailing)})`;
}

const csvCell = (text: string): string => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * Writes the dataset to `options.to`. `.npy`: the stored bytes (byte order kept), a ctable as a
 * structured array with one field per column; `.csv`: the `cat` text form, comma-separated and
 * quoted where needed, with a header line of column names for a ctable; `.jsonl`: the
 * `cat --json` lines; `arrow`: an Arrow IPC file (the types of `@fmt/arrow`, one record batch
 * per block); `parquet`: a Parquet file written by DuckDB (needs the optional `@fmt/duckdb`).
 * Resolves to the number of rows written.
 *
 * @example
 * ```ts
 * await exportDataset(await open(new FileSystemStore("/data/t.bcolz")), { to: "/tmp/t.npy" });
 * ```
 */
export async function exportDataset(dataset: CArray | CTable, options: ExportOptions): Promise<number> {
  const format = options.format ?? exportFormat(options.to);
  if (options.sink !== undefined && (format === "npy" || format === "arrow" || format === "parquet")) {
    throw new UsageError("INVALID_ARGUMENT", `.${format} is binary: write it to a file, or choose csv or jsonl for standard output`, { field: "format", expected: "csv or jsonl", actual: format });
  }
  if (options.columns !== undefined && dataset.kind === "carray") throw new UsageError("INVALID_ARGUMENT", "--columns applies to a ctable only", { field: "columns" });
  if (options.sink === undefined && options.force !== true && existsSync(options.to)) throw new UsageError("INVALID_ARGUMENT", `${options.to} exists (use --force to replace it)`, { field: "to" });
  const names = dataset.kind === "ctable" ? [...(options.columns ?? dataset.names)] : [];
  const arrays = dataset.kind === "carray" ? [dataset] : names.map((n) => dataset.column(n));
  const first = arrays[0];
  const blockLen = Math.max(1, Math.min(first === undefined ? 1024 : first.kind === "vlarray" ? first.offsets.chunklen : first.chunklen, 65536));
  options.progress?.start(Math.ceil(dataset.length / blockLen));
  if (format === "parquet") {
    // DuckDB writes the file itself, under a temporary name it renames when complete.
    const { exportParquet } = await loadDuckdb(options.duckdbImporter);
    await exportParquet(dataset, options.to, {
      force: options.force === true,
      onBatch: () => options.progress?.tick(),
      ...(dataset.kind === "ctable" ? { columns: names } : {}),
    });
    return dataset.length;
  }
  if (options.sink !== undefined) {
    const sink = options.sink;
    await writeAll((chunk) => sink.write(chunk as string));
    return dataset.length;
  }
  // Written under a temporary name beside the target and renamed when complete: a failed export
  // leaves no partial file (and no file blocking the retry).
  const temp = join(dirname(options.to), `.${basename(options.to)}.${randomBytes(6).toString("hex")}.partial`);
  const file = createWriteStream(temp);
  const failed = once(file, "error").then(([err]) => {
    throw err;
  });
  failed.catch(() => undefined);
  const toFile = async (chunk: string | Uint8Array): Promise<void> => {
    if (!file.write(chunk)) await Promise.race([once(file, "drain"), failed]);
  };
  try {
    await writeAll(toFile);
    file.end();
    await Promise.race([once(file, "finish"), failed]);
    await rename(temp, options.to);
  } catch (error) {
    // The stream opens its file asynchronously: when the export fails before that, destroy()
    // still lets the open finish. Unlink only once the stream has closed, or the file it creates
    // afterwards would be left behind.
    const closed = file.closed ? Promise.resolve() : once(file, "close").then(
      () => undefined,
      () => undefined,
    );
    file.destroy();
    await closed;
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  return dataset.length;

  async function writeAll(write: (chunk: string | Uint8Array) => Promise<void>): Promise<void> {
    if (format === "arrow") {
      const selection = { blockLen, ...(dataset.kind === "ctable" ? { columns: names } : {}) };
      const batches = async function* () {
        for await (const batch of toRecordBatches(dataset, selection)) {
          yield batch;
          options.progress?.tick();
        }
      };
      for await (const chunk of ipcChunks(arrowSchemaOf(dataset, selection), batches(), "file")) await write(chunk);
    } else if (format === "npy") {
      const fixed = arrays.filter((a): a is CArray => a.kind === "carray");
      if (fixed.length !== arrays.length) throw new UsageError("INVALID_ARGUMENT", "a .npy file cannot hold variable-length (vlarray) columns: export to .csv or .jsonl", { field: "to", actual: options.to });
      if (dataset.kind === "carray") {
        await write(npyHeader(`'${dataset.dtype.str}'`, dataset.shape));
        for await (const block of dataset.iterBlocks(blockLen)) {
          await write(block.bytes);
          options.progress?.tick();
        }
      } else {
        await write(npyHeader(`[${names.map((n, i) => fieldDescr(n, fixed[i]!)).join(", ")}]`, [dataset.length]));
        const rowSize = fixed.reduce((s, a) => s + a.atomSize, 0);
        for await (const block of dataset.iterBlocks({ columns: names, blockLen })) {
          const rows = block.stop - block.start;
          const out = new Uint8Array(rows * rowSize);
          let offset = 0;
          names.forEach((n, i) => {
            const size = fixed[i]!.atomSize;
            const src = block.columns[n]!;
            for (let r = 0; r < rows; r++) out.set(src.subarray(r * size, (r + 1) * size), r * rowSize + offset);
            offset += size;
          });
          await write(out);
          options.progress?.tick();
        }
      }
    } else {
      // The typed header import reads back: `name:dtype` per column; a carray's one cell has no
      // name (`:<i4`), which import takes for a carray.
      if (format === "csv") await write(`${dataset.kind === "ctable" ? names.map((n, i) => csvCell(csvHeaderCell(n, arrays[i]!))).join(",") : csvCell(csvHeaderCell("", arrays[0]!))}\n`);
      const slice = resolveSlice(dataset.length);
      for await (const text of streamRows(dataset, slice, format === "jsonl" ? "json" : "text", dataset.kind === "ctable" ? names : undefined)) {
        await write(format === "csv" ? text.split("\n").map((line) => (line === "" ? line : line.split("\t").map(csvCell).join(","))).join("\n") : text);
        options.progress?.tick();
      }
    }
  }
}
