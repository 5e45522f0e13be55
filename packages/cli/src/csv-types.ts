/**
 * The typed CSV header of `export` and `import`: each column of a ctable is named `name:TYPE` in
 * the header line, TYPE being the column's dtype (`<i4`, `|b1`, `<M8[ns]`, `|S3`, `<U10`, …,
 * with `(2,3)` after it for trailing dimensions) or its variable-length type (`vl:utf8`,
 * `vl:bytes`, `vl:<i4`). `import` reads a typed column back exactly from the `cat` text form of
 * its cells, so that export → import is a round trip of dtypes and values.
 */
import { UsageError } from "@fmt/errors";
import { parseDtype } from "@fmt/meta";
import type { DType } from "@fmt/meta";
import { halfBits } from "@fmt/store";
import type { ColumnSpec, TableColumn } from "@fmt/store";
import { dtypeText } from "./output.js";

/**
 * The type a typed CSV header cell names: a fixed dtype with trailing dimensions (a carray
 * column), or a variable-length column (format 2).
 *
 * @example
 * ```ts
 * const t: CsvColumnType = { kind: "fixed", dtype: parseDtype("<i4"), trailing: [] };
 * ```
 */
export type CsvColumnType =
  | { kind: "fixed"; dtype: DType; trailing: number[] }
  | { kind: "vl"; vtype: "utf8" }
  | { kind: "vl"; vtype: "bytes" }
  | { kind: "vl"; vtype: "ragged"; dtype: DType };

const DTYPE = String.raw`[<>|=][a-zA-Z]\d+(?:\[[^\]]*\])?`;
const TYPED_HEADER = new RegExp(String.raw`^(.*?):(vl:(?:utf8|bytes|${DTYPE})|(${DTYPE})(?:\((\d+(?:,\s*\d+)*),?\))?)$`);

/**
 * The header cell `export` writes for a ctable column: `name:TYPE`.
 *
 * @example
 * ```ts
 * csvHeaderCell("price", table.column("price")); // "price:<f8"
 * ```
 */
export function csvHeaderCell(name: string, column: TableColumn): string {
  const trailing = column.kind === "carray" ? column.shape.slice(1) : [];
  return `${name}:${dtypeText(column)}${trailing.length === 0 ? "" : `(${trailing.join(",")})`}`;
}

/**
 * Splits a CSV header cell into the column name and, when the cell is typed (`name:TYPE`), its
 * type; an untyped cell (`name`) gives the name alone.
 *
 * @example
 * ```ts
 * parseHeaderCell("when:<M8[ns]"); // { name: "when", type: { kind: "fixed", dtype: …, trailing: [] } }
 * parseHeaderCell("price");        // { name: "price" }
 * ```
 */
export function parseHeaderCell(cell: string): { name: string; type?: CsvColumnType } {
  const text = cell.trim();
  const m = TYPED_HEADER.exec(text);
  if (m === null) return { name: text };
  const name = m[1]!;
  const field = `header.${name}`;
  const type = m[2]!;
  if (type.startsWith("vl:")) {
    const inner = type.slice(3);
    if (inner === "utf8") return { name, type: { kind: "vl", vtype: "utf8" } };
    if (inner === "bytes") return { name, type: { kind: "vl", vtype: "bytes" } };
    return { name, type: { kind: "vl", vtype: "ragged", dtype: parseDtype(inner, "CSV header", field) } };
  }
  const trailing = (m[4] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
  return { name, type: { kind: "fixed", dtype: parseDtype(m[3]!, "CSV header", field), trailing } };
}

const NAT = -(1n << 63n);
const FLOAT = /^[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|infinity|nan)$/i;

/** Where a cell is, for error messages. */
interface Where {
  line: number;
  column: string;
}

function bad(where: Where, message: string): never {
  throw new UsageError("INVALID_ARGUMENT", `CSV line ${where.line}, column "${where.column}": ${message}`, { field: "source" });
}

/** Undoes the `\xNN` escapes of the text form: bytes for S/V and vl:bytes, code units else. */
function unescapeBytes(text: string, where: Where): Uint8Array {
  const out: number[] = [];
  const utf8 = new TextEncoder();
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      const hex = /^x([0-9a-fA-F]{2})/.exec(text.slice(i + 1, i + 4));
      if (hex === null) bad(where, `"\\" not followed by xNN in a byte string: write a backslash as \\x5c`);
      out.push(parseInt(hex[1]!, 16));
      i += 3;
    } else {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      out.push(...utf8.encode(String.fromCodePoint(cp)));
    }
  }
  return Uint8Array.from(out);
}

function unescapeText(text: string, where: Where): string {
  return text.replace(/\\(x[0-9a-fA-F]{2})?/g, (all: string, hex: string | undefined) => {
    if (hex === undefined) bad(where, `"\\" not followed by xNN: write a backslash as \\x5c`);
    return String.fromCharCode(parseInt(hex.slice(1), 16));
  });
}

function parseFloatText(text: string, where: Where, dtype: DType): number {
  if (!FLOAT.test(text)) bad(where, `"${text}" is not a number (${dtype.str})`);
  const lower = text.toLowerCase();
  if (lower.endsWith("nan")) return NaN;
  if (lower.endsWith("inf") || lower.endsWith("infinity")) return text.startsWith("-") ? -Infinity : Infinity;
  return Number(text);
}

/** Writes one entry of `dtype` (a complex number's real or imaginary part is one entry) at `off`. */
function writeEntry(view: DataView, off: number, dtype: DType, text: string, where: Where): void {
  const le = dtype.byteOrder !== ">";
  switch (dtype.kind) {
    case "b":
      if (text === "True" || text === "true") view.setUint8(off, 1);
      else if (text !== "False" && text !== "false") bad(where, `"${text}" is not True or False`);
      return;
    case "i":
    case "u": {
      if (!/^[-+]?\d+$/.test(text)) bad(where, `"${text}" is not an integer (${dtype.str})`);
      const x = BigInt(text);
      const bits = BigInt(dtype.itemsize * 8);
      const min = dtype.kind === "i" ? -(1n << (bits - 1n)) : 0n;
      const max = dtype.kind === "i" ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
      if (x < min || x > max) bad(where, `${text} does not fit ${dtype.str} (${min}..${max})`);
      const u = BigInt.asUintN(Number(bits), x);
      if (dtype.itemsize === 1) view.setUint8(off, Number(u));
      else if (dtype.itemsize === 2) view.setUint16(off, Number(u), le);
      else if (dtype.itemsize === 4) view.setUint32(off, Number(u), le);
      else view.setBigUint64(off, u, le);
      return;
    }
    case "f":
    case "c": {
      const x = parseFloatText(text, where, dtype);
      const size = dtype.kind === "c" ? dtype.itemsize / 2 : dtype.itemsize;
      if (size === 8) view.setFloat64(off, x, le);
      else if (size === 4) view.setFloat32(off, x, le);
      else view.setUint16(off, halfBits(x), le);
      return;
    }
    case "M":
    case "m": {
      let x: bigint;
      if (text === "NaT") x = NAT;
      else {
        const m = /^([-+]?\d+)([a-zA-Z0-9]*)$/.exec(text);
        const unit = dtype.unit ?? "";
        if (m === null || (m[2] !== "" && m[2] !== unit)) bad(where, `"${text}" is not a count of ${unit === "" ? "the generic unit" : unit} (${dtype.str}), e.g. 42${unit}, or NaT`);
        x = BigInt(m[1]!);
        if (x < NAT || x >= -NAT) bad(where, `${text} does not fit a 64-bit count`);
      }
      view.setBigInt64(off, x, le);
      return;
    }
    case "S":
    case "V": {
      const bytes = unescapeBytes(text, where);
      if (bytes.length > dtype.itemsize) bad(where, `${bytes.length} bytes do not fit ${dtype.str}`);
      new Uint8Array(view.buffer, view.byteOffset + off, dtype.itemsize).set(bytes);
      return;
    }
    case "U": {
      const width = dtype.itemsize / 4;
      let k = 0;
      for (const ch of unescapeText(text, where)) {
        if (k >= width) bad(where, `more than ${width} characters do not fit ${dtype.str}`);
        view.setUint32(off + 4 * k++, ch.codePointAt(0)!, le);
      }
      return;
    }
    default:
      bad(where, `dtype ${dtype.str} cannot be imported from CSV`);
  }
}

/** The entries of one cell: the cell itself, or the items of `[a, b, …]` when a row holds several. */
function cellEntries(cell: string, perRow: number, dtype: DType, where: Where): string[] {
  if (perRow === 1) return [cell];
  if (dtype.kind === "S" || dtype.kind === "U" || dtype.kind === "V") bad(where, `a ${dtype.str} column with several values per row does not round-trip through CSV: export it to .npy`);
  if (!cell.startsWith("[") || !cell.endsWith("]")) bad(where, `expected [a, b, …] with ${perRow} values, got "${cell}"`);
  const inner = cell.slice(1, -1).trim();
  const entries = inner === "" ? [] : inner.split(",").map((s) => s.trim());
  if (entries.length !== perRow) bad(where, `expected ${perRow} values in [${inner}], got ${entries.length}`);
  return entries;
}

/** The bytes of `rows` cells of a fixed-size column in the dtype's layout. */
function fixedBytes(cells: readonly string[], dtype: DType, trailing: readonly number[], column: string, firstLine: number): Uint8Array {
  const items = trailing.reduce((a, b) => a * b, 1);
  const complex = dtype.kind === "c";
  const perRow = items * (complex ? 2 : 1);
  const entrySize = complex ? dtype.itemsize / 2 : dtype.itemsize;
  const out = new Uint8Array(cells.length * items * dtype.itemsize);
  const view = new DataView(out.buffer);
  cells.forEach((cell, r) => {
    const where = { line: firstLine + r, column };
    cellEntries(cell, perRow, dtype, where).forEach((entry, k) => writeEntry(view, (r * perRow + k) * entrySize, dtype, entry, where));
  });
  return out;
}

/**
 * The column spec `import` creates from the cells of a typed CSV column (`firstLine`: the line
 * number of the first cell, for messages).
 *
 * @example
 * ```ts
 * typedColumn("n", { kind: "fixed", dtype: parseDtype("<i4"), trailing: [] }, ["1", "-2"], 2); // { name: "n", data: { bytes }, options: { dtype: "<i4", shape: [] } }
 * ```
 */
export function typedColumn(name: string, type: CsvColumnType, cells: readonly string[], firstLine: number): ColumnSpec {
  if (type.kind === "fixed") {
    return { name, data: { bytes: fixedBytes(cells, type.dtype, type.trailing, name, firstLine) }, options: { dtype: type.dtype.str, shape: type.trailing } };
  }
  if (type.vtype === "utf8") return { name, vtype: "utf8", data: cells.map((c, r) => unescapeText(c, { line: firstLine + r, column: name })) };
  if (type.vtype === "bytes") return { name, vtype: "bytes", data: cells.map((c, r) => unescapeBytes(c, { line: firstLine + r, column: name })) };
  const dtype = type.dtype;
  const entrySize = dtype.kind === "c" ? dtype.itemsize / 2 : dtype.itemsize;
  const data = cells.map((cell, r) => {
    const where = { line: firstLine + r, column: name };
    if (dtype.kind === "S" || dtype.kind === "U" || dtype.kind === "V") bad(where, `a ragged ${dtype.str} column does not round-trip through CSV`);
    if (!cell.startsWith("[") || !cell.endsWith("]")) bad(where, `expected a list [a, b, …], got "${cell}"`);
    const inner = cell.slice(1, -1).trim();
    const entries = inner === "" ? [] : inner.split(",").map((s) => s.trim());
    if (dtype.kind === "c" && entries.length % 2 !== 0) bad(where, `a ${dtype.str} list holds real and imaginary parts in pairs, got ${entries.length} values`);
    const bytes = new Uint8Array(entries.length * entrySize);
    const view = new DataView(bytes.buffer);
    entries.forEach((entry, k) => writeEntry(view, k * entrySize, dtype, entry, where));
    return { bytes };
  });
  return { name, vtype: "ragged", data, options: { dtype: dtype.str } };
}
