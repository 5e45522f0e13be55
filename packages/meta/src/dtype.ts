import { FormatError, UsageError } from "@fmt/errors";
import { PyFloat, type JsonValue } from "./json.js";

/**
 * numpy's one-letter dtype kinds that bcolz data can have: bool, signed/unsigned int, float,
 * complex, bytes, unicode, datetime64, timedelta64, void.
 *
 * @example
 * ```ts
 * const k: DTypeKind = parseDtype("float64").kind; // "f"
 * ```
 */
export type DTypeKind = "b" | "i" | "u" | "f" | "c" | "S" | "U" | "M" | "m" | "V";

/**
 * A parsed numpy base dtype, in the two spellings that matter: numpy's `dtype.str` and the
 * `str(dtype)` that bcolz writes to `meta/storage`. Native byte order is taken to be
 * little-endian (every realistic bcolz writer), so `"int32"`, `"<i4"` and `"=i4"` are the same.
 *
 * @example
 * ```ts
 * const d: DType = parseDtype("<U3");
 * // { str: "<U3", kind: "U", itemsize: 12, byteOrder: "<", bcolzName: "<U3", bloscTypesize: 4, bcolzWritable: true }
 * ```
 */
export interface DType {
  /** numpy `dtype.str`: `"<f8"`, `"|b1"`, `"|S7"`, `"<U3"`, `"<M8[ns]"`, `">i4"`. */
  str: string;
  /** numpy kind letter. */
  kind: DTypeKind;
  /** Bytes per element of the base dtype. */
  itemsize: number;
  /** `"|"` when byte order does not apply (1-byte numbers, bool, S, V), else `"<"` or `">"`. */
  byteOrder: "<" | ">" | "|";
  /** For `M`/`m`: the unit with its multiplier (`"ns"`, `"D"`, `"10s"`); absent for generic units. */
  unit?: string;
  /** numpy `str(dtype)`, the spelling bcolz writes in `meta/storage`: `"float64"`, `"|S7"`, `">i4"`. */
  bcolzName: string;
  /** Blosc typesize bcolz uses for this dtype: S → 1, U → 4, V over 255 bytes → 1, else itemsize. */
  bloscTypesize: number;
  /**
   * False for complex and timedelta64: bcolz 1.x cannot save such arrays (it fails serializing the
   * fill value), so no real file has them; they are still accepted for reading.
   */
  bcolzWritable: boolean;
}

/**
 * Largest element accepted (bytes): one element must fit in one Blosc chunk (2^31 − 1 − 16).
 *
 * @example
 * ```ts
 * parseDtype(`|S${MAX_DTYPE_ITEMSIZE + 1}`); // throws UNSUPPORTED_DTYPE
 * ```
 */
export const MAX_DTYPE_ITEMSIZE = 2147483631;

const DATETIME_UNITS = new Set(["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]);

const NUMERIC_SIZES: Record<string, readonly number[]> = {
  b: [1],
  i: [1, 2, 4, 8],
  u: [1, 2, 4, 8],
  f: [2, 4, 8],
  c: [8, 16],
  M: [8],
  m: [8],
};

const NAME_RE = /^(bool|int|uint|float|complex|datetime|timedelta)(\d*)(?:\[([^\]]*)\])?$/;
const CODE_RE = /^([<>|=]?)([biufcSUVMm])([1-9]\d*)(?:\[([^\]]*)\])?$/;

function unsupported(text: unknown, reason: string, path: string | undefined, field: string | undefined): never {
  throw new FormatError("UNSUPPORTED_DTYPE", reason, {
    path,
    field: field ?? "dtype",
    expected: 'a numpy base dtype such as "float64", "<i4", "|S7", "<U3", "datetime64[ns]"',
    actual: typeof text === "string" && text.length > 80 ? `${text.slice(0, 80)}…` : text,
  });
}

function parseUnit(
  inner: string | undefined,
  text: string,
  path: string | undefined,
  field: string | undefined,
): string | undefined {
  if (inner === undefined || inner === "generic") return undefined;
  const m = /^([1-9]\d{0,9})?([A-Za-z]+)$/.exec(inner);
  if (m === null || !DATETIME_UNITS.has(m[2] ?? "")) return unsupported(text, `unknown datetime unit [${inner}]`, path, field);
  const multiplier = m[1] === undefined ? 1 : Number(m[1]);
  if (multiplier > 2147483647) return unsupported(text, "datetime unit multiplier too large", path, field);
  // numpy drops a multiplier of 1: "datetime64[1ns]" is "datetime64[ns]".
  return multiplier === 1 ? (m[2]) : `${multiplier}${m[2] as string}`;
}

function buildDtype(
  kind: DTypeKind,
  itemsize: number,
  bigEndian: boolean,
  unit: string | undefined,
  text: string,
  path: string | undefined,
  field: string | undefined,
): DType {
  if (!Number.isSafeInteger(itemsize) || itemsize < 1) unsupported(text, "element size must be at least 1 byte", path, field);
  if (itemsize > MAX_DTYPE_ITEMSIZE) unsupported(text, `element size ${itemsize} exceeds ${MAX_DTYPE_ITEMSIZE} bytes`, path, field);
  const allowed = NUMERIC_SIZES[kind];
  if (allowed !== undefined && !allowed.includes(itemsize)) {
    unsupported(text, `no ${kind}${itemsize} type (sizes ${allowed.join(", ")} only; long double is not supported)`, path, field);
  }
  const orderless = kind === "b" || kind === "S" || kind === "V" || itemsize === 1;
  const byteOrder: DType["byteOrder"] = orderless ? "|" : bigEndian ? ">" : "<";
  const count = kind === "U" ? itemsize / 4 : itemsize;
  const unitSuffix = unit === undefined ? "" : `[${unit}]`;
  const str = `${byteOrder}${kind}${count}${unitSuffix}`;
  let bcolzName: string;
  if (kind === "S" || kind === "U" || kind === "V" || byteOrder === ">") {
    bcolzName = str;
  } else {
    const bits = itemsize * 8;
    switch (kind) {
      case "b": bcolzName = "bool"; break;
      case "i": bcolzName = `int${bits}`; break;
      case "u": bcolzName = `uint${bits}`; break;
      case "f": bcolzName = `float${bits}`; break;
      case "c": bcolzName = `complex${bits}`; break;
      case "M": bcolzName = `datetime64${unitSuffix}`; break;
      case "m": bcolzName = `timedelta64${unitSuffix}`; break;
    }
  }
  const bloscTypesize = kind === "S" ? 1 : kind === "U" ? 4 : itemsize > 255 ? 1 : itemsize;
  const dtype: DType = { str, kind, itemsize, byteOrder, bcolzName, bloscTypesize, bcolzWritable: kind !== "c" && kind !== "m" };
  if (unit !== undefined) dtype.unit = unit;
  return dtype;
}

/**
 * Parses a numpy base dtype in either spelling bcolz files use: the `str(dtype)` names bcolz
 * writes (`"float64"`, `"int8"`, `"bool"`, `"datetime64[ns]"`, `"timedelta64[s]"`,
 * `"complex128"`, `"|S7"`, `"<U3"`, `">i4"`, `"|V8"`) and numpy `dtype.str` codes (`"<f8"`,
 * `"|b1"`, `"<M8[ns]"`, also without the byte-order character or with `=`). Rejects `object`,
 * structured/record and subarray dtypes, long double, zero-size flexible types, sizes beyond
 * {@link MAX_DTYPE_ITEMSIZE}, non-canonical numbers (`"S07"`) and anything else with `FormatError`
 * `UNSUPPORTED_DTYPE` naming `path` and `field`.
 *
 * @example
 * ```ts
 * parseDtype("int32").str;          // "<i4"
 * parseDtype("<M8[ns]").bcolzName;  // "datetime64[ns]"
 * parseDtype("object", "meta/storage", "/dtype"); // throws UNSUPPORTED_DTYPE
 * ```
 */
export function parseDtype(text: string, path?: string, field?: string): DType {
  if (typeof text !== "string") return unsupported(text, "dtype must be a string", path, field);
  if (text.length > 64) return unsupported(text, "dtype string too long", path, field);
  const named = NAME_RE.exec(text);
  if (named !== null) {
    const base = named[1] as string;
    const bitsText = named[2] as string;
    const inner = named[3];
    if (base === "bool") {
      if (bitsText !== "" || inner !== undefined) return unsupported(text, "unknown dtype name", path, field);
      return buildDtype("b", 1, false, undefined, text, path, field);
    }
    if (base === "datetime" || base === "timedelta") {
      if (bitsText !== "64") return unsupported(text, "unknown dtype name", path, field);
      const unit = parseUnit(inner, text, path, field);
      return buildDtype(base === "datetime" ? "M" : "m", 8, false, unit, text, path, field);
    }
    if (inner !== undefined || !/^[1-9]\d{0,2}$/.test(bitsText)) return unsupported(text, "unknown dtype name", path, field);
    const bits = Number(bitsText);
    if (bits % 8 !== 0) return unsupported(text, "unknown dtype name", path, field);
    const kind: DTypeKind = base === "int" ? "i" : base === "uint" ? "u" : base === "float" ? "f" : "c";
    return buildDtype(kind, bits / 8, false, undefined, text, path, field);
  }
  const code = CODE_RE.exec(text);
  if (code === null) {
    const hint = text.startsWith("[") || text.startsWith("(") || text.startsWith("{") ? "structured/record and subarray dtypes are not supported" : text === "object" || /^[<>|=]?O\d*$/.test(text) ? "object dtypes (pickled elements) are not supported" : "not a numpy dtype string";
    return unsupported(text, hint, path, field);
  }
  const order = code[1] as string;
  const kind = code[2] as DTypeKind;
  const digits = code[3] as string;
  const inner = code[4];
  if (digits.length > 10) return unsupported(text, "element size too large", path, field);
  const count = Number(digits);
  if (inner !== undefined && kind !== "M" && kind !== "m") return unsupported(text, "only datetime64/timedelta64 take a [unit]", path, field);
  const unit = kind === "M" || kind === "m" ? parseUnit(inner, text, path, field) : undefined;
  const itemsize = kind === "U" ? count * 4 : count;
  return buildDtype(kind, itemsize, order === ">", unit, text, path, field);
}

/**
 * Parses only numpy's `dtype.str` form (explicit byte-order character, kind, size, optional unit),
 * as found in manifests and in the output of `np.dtype(x).str`.
 *
 * @example
 * ```ts
 * dtypeFromNumpyStr("<f8").bcolzName; // "float64"
 * dtypeFromNumpyStr("float64");       // throws UNSUPPORTED_DTYPE (a name, not a dtype.str)
 * ```
 */
export function dtypeFromNumpyStr(str: string, path?: string, field?: string): DType {
  if (typeof str !== "string" || !/^[<>|][biufcSUVMm]/.test(str)) {
    return unsupported(str, "not a numpy dtype.str (byte-order character + kind + size)", path, field);
  }
  const d = parseDtype(str, path, field);
  if (d.str !== str) return unsupported(str, `not canonical: numpy writes ${d.str}`, path, field);
  return d;
}

/**
 * Bytes per row (bcolz "atomsize"): the base itemsize times the product of the trailing
 * dimensions of `shape` (`shape[0]` is the length and does not count). Throws `FormatError`
 * `SIZE_LIMIT` if a row would not fit in one Blosc chunk, `UsageError` `INVALID_ARGUMENT` for a
 * shape that is not a list of non-negative integers.
 *
 * @example
 * ```ts
 * atomSize(parseDtype("float64"), [1000, 3, 2]); // 48
 * atomSize(parseDtype("|S7"), [10]);             // 7
 * ```
 */
export function atomSize(dtype: DType, shape: readonly number[], path?: string): number {
  if (!Array.isArray(shape) || shape.length < 1) {
    throw new UsageError("INVALID_ARGUMENT", "shape must have at least one dimension", { path, field: "shape", actual: shape });
  }
  let size = dtype.itemsize;
  for (let i = 1; i < shape.length; i++) {
    const d = shape[i] as number;
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new UsageError("INVALID_ARGUMENT", "shape dimensions must be non-negative integers", { path, field: `shape.${i}`, actual: d });
    }
    size *= d;
    if (size > MAX_DTYPE_ITEMSIZE) {
      throw new FormatError("SIZE_LIMIT", "a row is larger than one Blosc chunk can hold", {
        path,
        field: "shape",
        expected: `row size <= ${MAX_DTYPE_ITEMSIZE} bytes`,
        actual: shape.slice(1).join("x"),
      });
    }
  }
  return size;
}

/**
 * The fill value bcolz records when the user gives none: zero of the dtype, as numpy's
 * `.tolist()` renders it (`0` for ints and datetimes, `0.0` for floats, `false` for bool, `""`
 * for bytes/unicode). Complex, timedelta and void have no JSON form in bcolz; `0` is returned.
 *
 * @example
 * ```ts
 * stringifyPythonJson(defaultDflt(parseDtype("float32"))); // "0.0"
 * defaultDflt(parseDtype("bool"));                          // false
 * ```
 */
export function defaultDflt(dtype: DType): JsonValue {
  switch (dtype.kind) {
    case "b":
      return false;
    case "f":
      return new PyFloat(0);
    case "S":
    case "U":
      return "";
    default:
      return 0;
  }
}

/**
 * Whether a dataset may hold `dtype` (spec/v1.md §13, both format versions): booleans, integers,
 * floats, byte and unicode strings, and datetimes with a plain unit. Complex and timedelta
 * (which bcolz cannot save), void and structured dtypes (whose bcolz spelling numpy cannot parse
 * back) and datetimes without a unit or with a multiplier (`datetime64[10s]`) are not.
 *
 * @example
 * ```ts
 * isStorableDtype(parseDtype("<f8")); // true
 * isStorableDtype(parseDtype("datetime64[10s]")); // false
 * ```
 */
export function isStorableDtype(dtype: DType): boolean {
  return "biufSUM".includes(dtype.kind) && dtype.bcolzWritable && (dtype.kind !== "M" || (dtype.unit !== undefined && /^[A-Za-z]+$/.test(dtype.unit)));
}
