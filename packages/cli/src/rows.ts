/**
 * Streaming rows of a carray or ctable in slices, reading whole blocks (one `read`/`readRows`
 * call per chunk-sized piece), and rendering them as text or JSON lines.
 */
import type { DType } from "@fmt/meta";
import type { CArray, ColumnValues, CTable, TableColumn } from "@fmt/store";
import type { ResolvedSlice } from "./args.js";
import { toStrictJson } from "./output.js";

/**
 * How `cat`, `head` and `where` print rows.
 *
 * @example
 * ```ts
 * const f: RowFormat = "json";
 * ```
 */
export type RowFormat = "text" | "json";

/** One column's decoded values for a piece of rows, plus how many entries make one row. */
interface ColumnPiece {
  dtype: DType;
  values: ColumnValues;
  perRow: number;
  /** A ragged vlarray column: each row is an array of values. */
  ragged?: boolean;
}

/**
 * The piece of rows of `column` holding `values` (as read by `read`/`readRows`/`takeRows`).
 *
 * @example
 * ```ts
 * renderRows([columnPiece(t.column("sym"), await t.readColumn("sym", 0, 2))], 2, "text");
 * ```
 */
export function columnPiece(column: TableColumn, values: ColumnValues): ColumnPiece {
  if (column.kind === "vlarray") return { dtype: column.dtype, values, perRow: 1, ragged: column.vtype === "ragged" };
  return { dtype: column.dtype, values, perRow: entriesPerRow(column) };
}

/**
 * Entries of a decoded row: the trailing dimensions times 2 for complex dtypes.
 *
 * @example
 * ```ts
 * entriesPerRow(carray); // 1 for a plain "<f8" carray
 * ```
 */
export function entriesPerRow(a: CArray): number {
  return a.itemsPerRow * (a.dtype.kind === "c" ? 2 : 1);
}

/**
 * Display text of one decoded entry: byte strings with non-printable bytes escaped as `\xNN`,
 * datetimes with their unit, numbers as JavaScript prints them.
 *
 * @example
 * ```ts
 * formatEntry(parseDtype("|S3"), new Uint8Array([97, 10])); // "a\\x0a"
 * ```
 */
export function formatEntry(dtype: DType, value: unknown): string {
  if (value instanceof Uint8Array) {
    return Array.from(value, (b) => (b >= 32 && b < 127 && b !== 92 ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("");
  }
  if (dtype.kind === "b") return value === 1 || value === true ? "True" : "False";
  if ((dtype.kind === "M" || dtype.kind === "m") && typeof value === "bigint") return `${value}${dtype.unit ?? ""}`;
  if (typeof value === "string") return value.replace(/[\x00-\x1f\x7f\\]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  if (Object.is(value, -0)) return "-0";
  if ((dtype.kind === "f" || dtype.kind === "c") && dtype.itemsize === (dtype.kind === "c" ? 8 : 4) && typeof value === "number") return String(shortestFloat32(value));
  return String(value);
}

/**
 * The shortest decimal that reads back as the same float32 (what numpy prints for float32), so
 * that `1.1` stored as `<f4` prints as `1.1`, not `1.100000023841858`.
 *
 * @example
 * ```ts
 * shortestFloat32(Math.fround(1.1)); // 1.1
 * ```
 */
export function shortestFloat32(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === value) return candidate;
  }
  return value;
}

function jsonEntry(dtype: DType, value: unknown): unknown {
  if (value instanceof Uint8Array) return formatEntry(dtype, value);
  if ((dtype.kind === "f" || dtype.kind === "c") && dtype.itemsize === (dtype.kind === "c" ? 8 : 4) && typeof value === "number") return shortestFloat32(value);
  if (dtype.kind === "b") return value === 1 || value === true;
  return value;
}

function cell(piece: ColumnPiece, row: number, format: RowFormat): unknown {
  const values = piece.values as ArrayLike<unknown>;
  if (piece.ragged === true) {
    const entries = Array.from(values[row] as ArrayLike<unknown>, (v) => (format === "text" ? formatEntry(piece.dtype, v) : jsonEntry(piece.dtype, v)));
    return format === "text" ? `[${entries.join(", ")}]` : entries;
  }
  if (piece.perRow === 1) {
    const v = values[row];
    return format === "text" ? formatEntry(piece.dtype, v) : jsonEntry(piece.dtype, v);
  }
  const out: unknown[] = [];
  for (let k = row * piece.perRow; k < (row + 1) * piece.perRow; k++) out.push(format === "text" ? formatEntry(piece.dtype, values[k]) : jsonEntry(piece.dtype, values[k]));
  return format === "text" ? `[${out.join(", ")}]` : out;
}

/**
 * Renders `count` rows of decoded column pieces: tab-separated text lines, or one JSON value
 * (carray) / object (ctable, `names` given) per line. `index` adds the row numbers first.
 *
 * @example
 * ```ts
 * renderRows([{ dtype, values: new Int32Array([1, 2]), perRow: 1 }], 2, "text"); // "1\n2\n"
 * ```
 */
export function renderRows(pieces: readonly ColumnPiece[], count: number, format: RowFormat, names?: readonly string[], index?: ArrayLike<number>): string {
  let text = "";
  for (let r = 0; r < count; r++) {
    if (format === "text") {
      const cells = pieces.map((p) => cell(p, r, "text") as string);
      if (index !== undefined) cells.unshift(String(index[r]));
      text += `${cells.join("\t")}\n`;
    } else if (names === undefined) {
      text += `${toStrictJson(cell(pieces[0]!, r, "json"))}\n`;
    } else {
      const obj: Record<string, unknown> = {};
      if (index !== undefined) obj["_row"] = index[r];
      names.forEach((n, i) => (obj[n] = cell(pieces[i]!, r, "json")));
      text += `${toStrictJson(obj)}\n`;
    }
  }
  return text;
}

/**
 * Yields the rendered text of the rows selected by `slice`, one chunk-sized piece at a time
 * (each piece is one block read per column).
 *
 * @example
 * ```ts
 * for await (const text of streamRows(carray, resolveSlice(carray.length), "text")) process.stdout.write(text);
 * ```
 */
export async function* streamRows(dataset: CArray | CTable, slice: ResolvedSlice, format: RowFormat, columns?: readonly string[]): AsyncGenerator<string, void, undefined> {
  const names = dataset.kind === "ctable" ? (columns ?? dataset.names) : undefined;
  const arrays = dataset.kind === "carray" ? [dataset] : names!.map((n) => dataset.column(n));
  const rowsPerPiece = Math.max(1, Math.min(arrays[0]?.chunklen ?? 1024, 65536));
  const { stop, step } = slice;
  for (let pos = slice.start; pos < stop; ) {
    const end = Math.min(stop, pos + rowsPerPiece * step);
    let values: ColumnValues[];
    if (dataset.kind === "carray") values = [await dataset.read(pos, end, step)];
    else {
      const got = await dataset.readRows(pos, end, step, names);
      values = names!.map((n) => got[n]!);
    }
    const count = Math.ceil((end - pos) / step);
    const pieces = arrays.map((a, i) => columnPiece(a, values[i]!));
    yield renderRows(pieces, count, format, names);
    pos = end;
  }
}
