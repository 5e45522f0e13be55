import { UsageError } from "@fmt/errors";
import type { DType, JsonValue } from "@fmt/meta";
import { PyFloat } from "@fmt/meta";
import { halfToNumber } from "@fmt/expr";

/**
 * One element given to a writer: a number or bigint for numeric and datetime dtypes (`null` is
 * NaT for datetimes), a boolean (or 0/1) for `b1`, a string or `Uint8Array` for `S<n>`, a string
 * for `U<n>`.
 *
 * @example
 * ```ts
 * const values: ElementInput[] = [1.5, 2n, true, "abc", new Uint8Array([1, 2])];
 * ```
 */
export type ElementInput = number | bigint | boolean | string | Uint8Array | null;

/**
 * Rows given as bytes already in the dataset's element layout and byte order (what
 * `CArray.readBytes` returns), e.g. to copy between datasets without decoding.
 *
 * @example
 * ```ts
 * await target.append({ bytes: await source.readBytes() });
 * ```
 */
export interface RawRows {
  /** C-order rows; the length must be a multiple of the row size. */
  bytes: Uint8Array;
}

/**
 * A block of elements: a typed array (converted element by element, like numpy's casting) or
 * an array of {@link ElementInput}. Multidimensional rows are given flat, in C order.
 *
 * @example
 * ```ts
 * const block: ValuesBlock = new Float64Array([1, 2, 3]);
 * ```
 */
export type ValuesBlock =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array
  | ArrayLike<ElementInput>;

/**
 * Everything writers accept as data: one block ({@link ValuesBlock} or {@link RawRows}), or a
 * sync or async iterable whose items are single elements or whole blocks (typed arrays, arrays,
 * {@link RawRows}). For `S` dtypes a `Uint8Array` item is one element, not a block.
 *
 * @example
 * ```ts
 * await createCarray(store, "x", new Float64Array([1, 2, 3]), { dtype: "<f8" });
 * async function* gen() { for (let i = 0; i < 10; i++) yield new Int32Array([i, i]); }
 * await createCarray(store, "y", gen(), { dtype: "<i4" });
 * ```
 */
export type ArrayInput = ValuesBlock | RawRows | Iterable<ElementInput | ValuesBlock | RawRows> | AsyncIterable<ElementInput | ValuesBlock | RawRows>;

function invalid(message: string, field: string, actual?: unknown): never {
  throw new UsageError("INVALID_ARGUMENT", message, { field, actual });
}

/** True for `{ bytes: Uint8Array }` objects. */
export function isRawRows(value: unknown): value is RawRows {
  return typeof value === "object" && value !== null && !ArrayBuffer.isView(value) && !Array.isArray(value) && (value as RawRows).bytes instanceof Uint8Array;
}

/** True when `value` is a block (several elements) rather than one element, for `dtype`. */
export function isBlock(value: unknown, dtype: DType): boolean {
  if (Array.isArray(value) || isRawRows(value)) return true;
  if (ArrayBuffer.isView(value)) return !(dtype.kind === "S" && value instanceof Uint8Array);
  return false;
}

/** Number of elements in a block (bytes for RawRows are counted by the caller). */
export function blockLength(block: ValuesBlock): number {
  return block.length;
}

const HALF_MIN_SUBNORMAL = 2 ** -24;

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round rounds .5 up; numpy rounds ties to even.
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * IEEE binary16 bits of `x`, rounded to nearest, ties to even (directly from the double, so
 * there is no double rounding through float32).
 *
 * @example
 * ```ts
 * halfBits(1); // 0x3c00
 * ```
 */
export function halfBits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00; // 65520 is halfway between 65504 and 2^16 and rounds to even = inf
  if (a < 2 ** -14) return sign | roundHalfEven(a / HALF_MIN_SUBNORMAL); // 1024 carries into the exponent correctly
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  if (2 ** (e + 1) <= a) e++;
  const m = roundHalfEven((a / 2 ** e - 1) * 1024);
  return sign | (((e + 15) << 10) + m);
}

/**
 * bcolz's lossy float quantization (`cparams.quantize = q > 0`): values are rounded to
 * multiples of 2^-bits, bits = ceil(log2(10^q)), ties to even, in the array's own precision.
 *
 * @example
 * ```ts
 * quantizeValue(0.123456, 1, 8); // 0.125 (multiples of 1/16)
 * ```
 */
export function quantizeValue(x: number, q: number, itemsize: number): number {
  const scale = 2 ** quantizeBits(q);
  if (itemsize === 4) {
    const scaled = Math.fround(scale * x);
    return Math.fround(roundHalfEven(scaled) / scale);
  }
  return roundHalfEven(scale * x) / scale;
}

/**
 * The number of fraction bits kept by quantization with `q` significant decimal digits,
 * computed the way bcolz (after netCDF4) does: 1 → 4, 2 → 7, 3 → 10.
 *
 * @example
 * ```ts
 * quantizeBits(3); // 10
 * ```
 */
export function quantizeBits(q: number): number {
  const precision = 10 ** -q;
  let exp = Math.log(precision) / Math.log(10);
  exp = exp < 0 ? Math.floor(exp) : Math.ceil(exp);
  return Math.ceil(Math.log(10 ** -exp) / Math.log(2));
}

const utf8 = new TextEncoder();

function toBigInt(v: ElementInput, field: string): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") {
    if (!Number.isInteger(v)) invalid("an integer dtype needs integral values", field, v);
    return BigInt(v);
  }
  if (typeof v === "boolean") return v ? 1n : 0n;
  return invalid("expected a number or bigint", field, v);
}

function toNumber(v: ElementInput, field: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  return invalid("expected a number", field, v);
}

/** Writes element values into `out` (dtype layout and byte order) starting at element `at`. */
export class ElementEncoder {
  readonly #dtype: DType;
  readonly #quantize: number;
  readonly #little: boolean;

  constructor(dtype: DType, quantize: number) {
    this.#dtype = dtype;
    this.#quantize = dtype.kind === "f" ? quantize : 0;
    this.#little = dtype.byteOrder !== ">";
  }

  /** Encodes `count` elements of `block` into `out` from element index `at`. */
  encode(block: ValuesBlock, out: Uint8Array, at: number): void {
    const d = this.#dtype;
    const size = d.itemsize;
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const n = block.length;
    for (let i = 0; i < n; i++) this.#put(view, out, (at + i) * size, block[i] as ElementInput, i);
  }

  #put(view: DataView, out: Uint8Array, off: number, v: ElementInput, i: number): void {
    const d = this.#dtype;
    const le = this.#little;
    const field = `values[${i}]`;
    switch (d.kind) {
      case "b":
        if (typeof v === "boolean") out[off] = v ? 1 : 0;
        else if (typeof v === "number" || typeof v === "bigint") out[off] = Number(v) !== 0 ? 1 : 0;
        else invalid("a bool dtype needs booleans", field, v);
        return;
      case "i":
      case "u": {
        const x = toBigInt(v, field);
        const bits = BigInt(d.itemsize * 8);
        const min = d.kind === "i" ? -(1n << (bits - 1n)) : 0n;
        const max = d.kind === "i" ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
        if (x < min || x > max) throw new UsageError("OUT_OF_RANGE", `value does not fit dtype ${d.str}`, { field, expected: `${min}..${max}`, actual: String(x) });
        this.#putInt(view, off, x, d.kind === "i");
        return;
      }
      case "M": {
        const x = v === null ? -(1n << 63n) : toBigInt(v, field);
        if (x < -(1n << 63n) || x >= 1n << 63n) throw new UsageError("OUT_OF_RANGE", "datetime count does not fit int64", { field, actual: String(x) });
        view.setBigInt64(off, x, le);
        return;
      }
      case "f": {
        let x = toNumber(v, field);
        if (this.#quantize > 0) x = quantizeValue(x, this.#quantize, d.itemsize);
        if (d.itemsize === 8) view.setFloat64(off, x, le);
        else if (d.itemsize === 4) view.setFloat32(off, x, le);
        else view.setUint16(off, halfBits(x), le);
        return;
      }
      case "S": {
        let bytes: Uint8Array;
        if (v instanceof Uint8Array) bytes = v;
        else if (typeof v === "string") bytes = utf8.encode(v);
        else return invalid("an S dtype needs strings or Uint8Array values", field, v);
        if (bytes.length > d.itemsize) throw new UsageError("OUT_OF_RANGE", `value longer than ${d.itemsize} bytes`, { field, expected: `<= ${d.itemsize} bytes`, actual: bytes.length });
        out.set(bytes, off);
        out.fill(0, off + bytes.length, off + d.itemsize);
        return;
      }
      case "U": {
        if (typeof v !== "string") invalid("a U dtype needs string values", field, v);
        const width = d.itemsize / 4;
        let k = 0;
        for (const ch of v) {
          if (k >= width) throw new UsageError("OUT_OF_RANGE", `value longer than ${width} characters`, { field, expected: `<= ${width} code points`, actual: v.length });
          view.setUint32(off + 4 * k, ch.codePointAt(0)!, le);
          k++;
        }
        out.fill(0, off + 4 * k, off + d.itemsize);
        return;
      }
      default:
        throw new UsageError("INVALID_ARGUMENT", `cannot write dtype ${d.str}`, { field: "dtype", actual: d.str });
    }
  }

  #putInt(view: DataView, off: number, x: bigint, signed: boolean): void {
    const le = this.#little;
    switch (this.#dtype.itemsize) {
      case 1:
        view.setUint8(off, Number(BigInt.asUintN(8, x)));
        return;
      case 2:
        view.setUint16(off, Number(BigInt.asUintN(16, x)), le);
        return;
      case 4:
        view.setUint32(off, Number(BigInt.asUintN(32, x)), le);
        return;
      default:
        if (signed) view.setBigInt64(off, x, le);
        else view.setBigUint64(off, x, le);
    }
  }
}

/**
 * Encodes a JSON fill value (`dflt` of `meta/storage`) into one element of `dtype`.
 * NaT (`null`) for datetimes; `PyFloat`, number, bigint for numbers; strings for S/U.
 */
export function encodeFill(dtype: DType, dflt: JsonValue): Uint8Array {
  const out = new Uint8Array(dtype.itemsize);
  const value: ElementInput = dflt instanceof PyFloat ? dflt.value : (dflt as ElementInput);
  new ElementEncoder(dtype, 0).encode([value], out, 0);
  return out;
}

/**
 * The JSON `dflt` bcolz writes for a user-supplied fill value: numpy's `.tolist()` of the value
 * cast to the dtype (floats as Python floats, f4/f2 widened from their rounded value, ints as
 * ints, bools, strings). Throws `UsageError` when the value does not fit.
 */
export function normalizeDflt(dtype: DType, dflt: JsonValue): JsonValue {
  if (dflt === undefined) return dflt;
  const bytes = encodeFill(dtype, dflt);
  const view = new DataView(bytes.buffer);
  const le = dtype.byteOrder !== ">";
  switch (dtype.kind) {
    case "b":
      return bytes[0] === 1;
    case "f": {
      const x = dtype.itemsize === 8 ? view.getFloat64(0, le) : dtype.itemsize === 4 ? view.getFloat32(0, le) : halfToNumber(view.getUint16(0, le));
      return new PyFloat(x);
    }
    case "i":
    case "u": {
      const big = typeof dflt === "bigint" ? dflt : BigInt(dflt instanceof PyFloat ? dflt.value : (dflt as number));
      return Number.isSafeInteger(Number(big)) && BigInt(Number(big)) === big ? Number(big) : big;
    }
    case "M":
      if (dflt === null) return null;
      return typeof dflt === "bigint" && Number.isSafeInteger(Number(dflt)) ? Number(dflt) : dflt;
    case "S":
      return dflt instanceof Uint8Array ? String.fromCharCode(...(dflt as Uint8Array)) : dflt;
    default:
      return dflt;
  }
}


/**
 * Applies quantization to float bytes already in dtype layout (used for {@link RawRows} input).
 */
export function quantizeBytes(bytes: Uint8Array, dtype: DType, q: number): void {
  if (q <= 0 || dtype.kind !== "f") return;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = dtype.byteOrder !== ">";
  const size = dtype.itemsize;
  for (let off = 0; off + size <= bytes.length; off += size) {
    if (size === 8) view.setFloat64(off, quantizeValue(view.getFloat64(off, le), q, 8), le);
    else if (size === 4) view.setFloat32(off, quantizeValue(view.getFloat32(off, le), q, 4), le);
    else view.setUint16(off, halfBits(quantizeValue(halfToNumber(view.getUint16(off, le)), q, 2)), le);
  }
}

/**
 * bcolz's chunklen for an expected length (format-facts 4.9): expected MiB clamped to
 * [1e-4, 1e4], zone = trunc(log10), chunksize = 4096·2^(6+zone), chunklen = chunksize/atomsize
 * (at least 1).
 *
 * @example
 * ```ts
 * computeChunklen(100000, 4); // 65536
 * computeChunklen(10, 24);    // 1365
 * ```
 */
export function computeChunklen(expectedlen: number, atomSize: number): number {
  let mib = (expectedlen * atomSize) / 1048576;
  mib = Math.min(Math.max(mib, 1e-4), 1e4);
  const zone = Math.trunc(Math.log10(mib));
  const chunksize = 4096 * 2 ** (6 + zone);
  return Math.max(1, Math.floor(chunksize / atomSize));
}
