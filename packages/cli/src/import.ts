/**
 * `bcolz-ts import`: creates a carray from a simple `.npy` file, or a ctable from a structured
 * `.npy` file or a CSV file with a header line, with the chosen chunklen and cparams.
 */
import { ConflictError, isBcolzError, UsageError } from "@fmt/errors";
import { parseHeaderCell, typedColumn } from "./csv-types.js";
import { readSourceFile } from "./paths.js";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import type { Cparams } from "@fmt/meta";
import { createCarray, createCtable } from "@fmt/store";
import type { CArray, ColumnSpec, CTable } from "@fmt/store";

/** Options of {@link importFile}. */
export interface ImportOptions {
  /** Rows per chunk (default: bcolz's choice from the length). */
  chunklen?: number;
  /** Compression parameters (defaults: lz4, clevel 5, byte shuffle). */
  cparams?: Partial<Cparams>;
  /** Replace a dataset already at the destination. */
  force?: boolean;
  /**
   * `1` (default): a bcolz 1.x dataset; CSV text columns are `<U<longest>`. `2`: a format-2
   * dataset (spec/v2.md); CSV text columns are variable-length `utf8` columns (vlarrays, §12).
   */
  formatVersion?: 1 | 2;
}

/** A parsed `.npy` file: its header fields and data bytes. */
interface Npy {
  descr: string;
  shape: number[];
  body: Uint8Array;
}

function bad(message: string): never {
  throw new UsageError("INVALID_ARGUMENT", message, { field: "source" });
}

function parseNpy(buf: Uint8Array): Npy {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (buf.length < 10 || magic.some((b, i) => buf[i] !== b)) bad("not a .npy file (bad magic)");
  const major = buf[6]!;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  const len = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = 8 + lenBytes;
  const header = new TextDecoder("latin1").decode(buf.subarray(start, start + len));
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  const descrStart = header.indexOf("'descr':");
  if (fortran === undefined || shapeText === undefined || descrStart < 0) bad("unreadable .npy header");
  if (fortran === "True") bad(".npy files in Fortran order are not supported; save with np.ascontiguousarray");
  const shape = shapeText.split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
  const rest = header.slice(descrStart + "'descr':".length).trim();
  let descr: string;
  if (rest.startsWith("[")) {
    let depth = 0;
    let end = 0;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === "[" || rest[i] === "(") depth++;
      if (rest[i] === "]" || rest[i] === ")") depth--;
      if (depth === 0) {
        end = i + 1;
        break;
      }
    }
    descr = rest.slice(0, end);
  } else {
    descr = /^'([^']*)'/.exec(rest)?.[1] ?? bad("unreadable .npy descr");
  }
  return { descr, shape, body: buf.subarray(start + len) };
}

interface Field {
  name: string;
  dtype: string;
  trailing: number[];
  size: number;
}

const itemSize = (dtype: string): number => {
  const m = /^[<>|=]?[a-zA-Z](\d+)/.exec(dtype);
  if (m === null) bad(`unsupported dtype ${dtype}`);
  const n = Number(m[1]);
  return dtype.replace(/^[<>|=]/, "").startsWith("U") ? n * 4 : n;
};

function parseFields(descr: string): Field[] {
  const fields: Field[] = [];
  const re = /\(\s*'([^']*)'\s*,\s*'([^']*)'\s*(?:,\s*\(([\d,\s]*)\))?\s*\)/g;
  for (let m = re.exec(descr); m !== null; m = re.exec(descr)) {
    const trailing = (m[3] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
    fields.push({ name: m[1]!, dtype: m[2]!, trailing, size: itemSize(m[2]!) * trailing.reduce((a, b) => a * b, 1) });
  }
  if (fields.length === 0) bad("a structured .npy descr without fields");
  return fields;
}

/** Splits CSV text (RFC 4180 quoting) into records of fields. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  let quoteLine = 0;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") line++;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') {
      quoted = true;
      quoteLine = line;
    } else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else field += c;
  }
  // A quote still open at the end would swallow every later line into one cell: refuse it.
  if (quoted) bad(`CSV line ${quoteLine}: a quoted field is never closed`);
  if (field !== "" || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** Typed column data from CSV cells: int64, float64, bool (True/False) or unicode strings (variable-length utf8 when `vl`). */
function csvColumn(cells: string[], vl: boolean): { data: ColumnSpec["data"]; dtype?: string; vtype?: "utf8" } {
  if (cells.length > 0 && cells.every((c) => /^-?\d+$/.test(c) && BigInt(c) >= -(2n ** 63n) && BigInt(c) < 2n ** 63n)) return { data: BigInt64Array.from(cells, (c) => BigInt(c)), dtype: "<i8" };
  const number = /^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|Infinity|nan|NaN)$/;
  if (cells.length > 0 && cells.every((c) => number.test(c))) return { data: Float64Array.from(cells, (c) => (/nan/i.test(c) ? NaN : /inf/i.test(c) ? (c.startsWith("-") ? -Infinity : Infinity) : Number(c))), dtype: "<f8" };
  if (cells.length > 0 && cells.every((c) => c === "True" || c === "False")) return { data: cells.map((c) => c === "True"), dtype: "|b1" };
  if (vl) return { data: cells, vtype: "utf8" };
  const longest = cells.reduce((n, c) => Math.max(n, [...c].length), 1);
  return { data: cells, dtype: `<U${longest}` };
}

/**
 * Imports `source` (`.npy` or `.csv`, by extension) into a new dataset at directory `dest`.
 *
 * @example
 * ```ts
 * const t = await importFile("prices.csv", "/data/prices.bcolz", { chunklen: 10_000, cparams: { cname: "zstd", clevel: 5 } });
 * console.log(t.kind, t.length);
 * ```
 */
export async function importFile(source: string, dest: string, options: ImportOptions = {}): Promise<CArray | CTable> {
  try {
    return await importInto(source, dest, options);
  } catch (err) {
    if (isBcolzError(err, "ALREADY_EXISTS")) throw new ConflictError("ALREADY_EXISTS", `a dataset already exists at ${dest} (use --force to replace it)`, { path: dest });
    throw err;
  }
}

async function importInto(source: string, dest: string, options: ImportOptions): Promise<CArray | CTable> {
  const store = new FileSystemStore(dest);
  const version = options.formatVersion ?? 1;
  if (version !== 1 && version !== 2) bad("the format version must be 1 or 2");
  const common = {
    mode: options.force === true ? ("w" as const) : ("a" as const),
    ...(options.chunklen === undefined ? {} : { chunklen: options.chunklen }),
    ...(options.cparams === undefined ? {} : { cparams: options.cparams }),
    formatVersion: version,
  };
  const lower = source.toLowerCase();
  if (lower.endsWith(".npy")) {
    const buf = await readSourceFile(source);
    const npy = parseNpy(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
    if (!npy.descr.startsWith("[")) {
      const [length = 1, ...trailing] = npy.shape;
      const a = await createCarray(store, "", { bytes: npy.body.subarray(0, length * trailing.reduce((x, y) => x * y, 1) * itemSize(npy.descr)) }, { dtype: npy.descr, shape: trailing, ...common });
      await a.close();
      return a;
    }
    if (npy.shape.length !== 1) bad("a structured .npy must be one-dimensional");
    const fields = parseFields(npy.descr);
    const rowSize = fields.reduce((s, f) => s + f.size, 0);
    const rows = npy.shape[0]!;
    let offset = 0;
    const columns: ColumnSpec[] = fields.map((f) => {
      const bytes = new Uint8Array(rows * f.size);
      for (let r = 0; r < rows; r++) bytes.set(npy.body.subarray(r * rowSize + offset, r * rowSize + offset + f.size), r * f.size);
      offset += f.size;
      return { name: f.name, data: { bytes }, options: { dtype: f.dtype, shape: f.trailing } };
    });
    const t = await createCtable(store, "", columns, common);
    await t.close();
    return t;
  }
  if (lower.endsWith(".csv")) {
    const records = parseCsv(await readSourceFile(source, "utf8"));
    const header = records.shift();
    if (header === undefined || header.length === 0) bad("the CSV file has no header line");
    records.forEach((r, i) => {
      if (r.length !== header.length) bad(`CSV line ${i + 2} has ${r.length} fields, the header ${header.length}`);
    });
    // A typed header (`name:TYPE`, what export writes) gives each column its dtype, read back
    // exactly; an untyped column's dtype is inferred from its cells.
    const cells = header.map(parseHeaderCell);
    // One typed cell without a name (`:<i4`, what export writes for a carray) is a carray.
    if (cells.length === 1 && cells[0]!.name === "" && cells[0]!.type !== undefined) {
      const type = cells[0]!.type;
      if (type.kind !== "fixed") bad("a carray CSV (a header cell without a name) needs a fixed-size dtype; variable-length values import as a ctable column (name:vl:…)");
      const spec = typedColumn("", type, records.map((r) => r[0]!), 2);
      const a = await createCarray(store, "", spec.data as { bytes: Uint8Array }, { ...common, dtype: type.dtype.str, shape: type.trailing });
      await a.close();
      return a;
    }
    const variable = cells.find((c) => c.type?.kind === "vl");
    let tableVersion = version;
    if (variable !== undefined) {
      if (options.formatVersion === 1) bad(`column "${variable.name}" is variable-length (vl:…), which only format 2 stores: import with --format 2`);
      tableVersion = 2;
    }
    const columns: ColumnSpec[] = cells.map(({ name, type }, k) => {
      const column = records.map((r) => r[k]!);
      if (type !== undefined) return typedColumn(name, type, column, 2);
      const { data, dtype, vtype } = csvColumn(column, tableVersion === 2);
      return { name, data, ...(vtype === undefined ? { options: { dtype } } : { vtype }) };
    });
    const t = await createCtable(store, "", columns, { ...common, formatVersion: tableVersion });
    await t.close();
    return t;
  }
  return bad(`cannot tell the format of "${source}": use .npy or .csv`);
}
