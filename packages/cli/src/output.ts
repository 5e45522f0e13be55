/**
 * Turning an opened dataset into the adapter protocol's output: `result.json` plus raw
 * little-endian value files (spec/conformance.md).
 */
import type { JsonValue } from "@fmt/meta";
import type { TableColumn } from "@fmt/store";

/** What `result.json` holds for a carray or a column. */
export interface ArrayDescription {
  name?: string;
  dtype: string;
  attrs: { [key: string]: JsonValue };
  shape: number[];
  chunklen: number;
  cparams: { clevel: number; shuffle: 0 | 1 | 2; cname: string };
}

/**
 * Reverse the byte order of each `unit`-byte group in place, so big-endian data becomes the
 * little-endian bytes the protocol asks for.
 *
 * @example
 * ```ts
 * swapBytesInPlace(bytes, 4); // ">i4" values → "<i4" bytes
 * ```
 */
export function swapBytesInPlace(bytes: Uint8Array, unit: number): Uint8Array {
  if (unit <= 1) return bytes;
  for (let i = 0; i + unit <= bytes.length; i += unit) {
    for (let a = i, b = i + unit - 1; a < b; a++, b--) {
      const t = bytes[a]!;
      bytes[a] = bytes[b]!;
      bytes[b] = t;
    }
  }
  return bytes;
}

/**
 * Render a metadata value as strict JSON: non-finite floats become the strings "NaN",
 * "Infinity" and "-Infinity", negative zero stays `-0`, big integers keep every digit.
 *
 * @example
 * ```ts
 * toStrictJson({ a: NaN, b: 2n ** 64n }); // '{"a":"NaN","b":18446744073709551616}'
 * ```
 */
export function toStrictJson(value: unknown): string {
  const walk = (v: unknown): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "number") {
      if (Number.isNaN(v)) return '"NaN"';
      if (!Number.isFinite(v)) return v > 0 ? '"Infinity"' : '"-Infinity"';
      if (Object.is(v, -0)) return "-0"; // JSON.stringify would drop the sign
      return JSON.stringify(v);
    }
    if (typeof v === "string" || typeof v === "boolean") return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(walk).join(",")}]`;
    if (typeof v === "object") {
      // Wrapper values (e.g. a float tag that remembers it was written as 1.0) expose valueOf.
      const valueOf = (v as { valueOf?: unknown }).valueOf;
      if (typeof valueOf === "function") {
        const prim: unknown = valueOf.call(v);
        if (prim !== v) return walk(prim);
      }
      return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${walk((v as Record<string, unknown>)[k])}`).join(",")}}`;
    }
    // what is left: a symbol or a function
    return JSON.stringify((v as symbol | (() => unknown)).toString());
  };
  return walk(value);
}

/**
 * The dtype text of a dataset column: numpy's `dtype.str` for a carray, `vl:utf8`, `vl:bytes`
 * or `vl:<dtype.str>` for a vlarray (spec/conformance.md §1.2).
 *
 * @example
 * ```ts
 * dtypeText(table.column("sym")); // "vl:utf8"
 * ```
 */
export function dtypeText(column: TableColumn): string {
  if (column.kind === "carray") return column.dtype.str;
  return column.vtype === "ragged" ? `vl:${column.dtype.str}` : `vl:${column.vtype}`;
}
