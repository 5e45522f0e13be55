import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";

/**
 * The JavaScript typed arrays that {@link decodeValues} produces for numeric dtypes.
 *
 * @example
 * ```ts
 * const v: TypedValues = new Float64Array([1.5, 2.5]);
 * ```
 */
export type TypedValues =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

/**
 * Decoded element values, one entry per element in C order (rows × trailing dimensions):
 *
 * | dtype kind / size | result |
 * |---|---|
 * | `b1` (bool) | `Uint8Array` of 0/1 |
 * | `i1` `i2` `i4` / `u1` `u2` `u4` | `Int8Array` … `Uint32Array` |
 * | `i8` / `u8` | `BigInt64Array` / `BigUint64Array` |
 * | `f2` | `Float32Array` (every half-precision value converts exactly) |
 * | `f4` / `f8` | `Float32Array` / `Float64Array` |
 * | `c8` / `c16` | `Float32Array` / `Float64Array`, real and imaginary parts interleaved (2 numbers per element) |
 * | `M8[unit]` / `m8[unit]` | `BigInt64Array` of counts of `unit` (NaT is −2^63) |
 * | `S<n>` | `Uint8Array[]`, one per element, trailing NUL bytes removed (like numpy's `bytes_`) |
 * | `U<n>` | `string[]`, trailing NUL code points removed |
 * | `V<n>` | `Uint8Array[]`, one per element, raw |
 *
 * @example
 * ```ts
 * const values: Values = await carray.read(0, 10);
 * if (values instanceof Float64Array) console.log(values[0]);
 * ```
 */
export type Values = TypedValues | string[] | Uint8Array[];

/**
 * The values of one table column: {@link Values} for fixed-size columns; for a variable-length
 * column (a vlarray, spec/v2.md §12) one entry per row: `string[]` (`utf8`), `Uint8Array[]`
 * (`bytes`) or `Values[]` (`ragged`, each row's values).
 *
 * @example
 * ```ts
 * const sym: ColumnValues = ["AB", "", "héllo"];
 * const nums: ColumnValues = [new Int32Array([1, 2]), new Int32Array([])];
 * ```
 */
export type ColumnValues = Values | Values[];

/**
 * One element of {@link Values}: what `CArray.get` of `@fmt/store` returns for 1-dimensional, non-complex
 * arrays.
 *
 * @example
 * ```ts
 * const x: Scalar = await carray.get(0); // number for "<f8", bigint for "<i8", string for "<U3"
 * ```
 */
export type Scalar = number | bigint | string | Uint8Array;

const LITTLE_ENDIAN_PLATFORM = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Size in bytes of the units whose byte order depends on the dtype: the itemsize for numbers and
 * dates, half the itemsize for complex (two floats), 4 for `U` (UCS-4 code points), 1 for
 * `b1`, `S`, `V`.
 *
 * @example
 * ```ts
 * byteOrderUnit(parseDtype(">c16")); // 8
 * byteOrderUnit(parseDtype("<U5"));  // 4
 * ```
 */
export function byteOrderUnit(dtype: DType): number {
  switch (dtype.kind) {
    case "b":
    case "S":
    case "V":
      return 1;
    case "U":
      return 4;
    case "c":
      return dtype.itemsize / 2;
    default:
      return dtype.itemsize;
  }
}

function swapped(bytes: Uint8Array, unit: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  if (bytes.length % unit !== 0) {
    throw new UsageError("INVALID_ARGUMENT", "byte length is not a multiple of the element size", { field: "bytes", expected: `multiple of ${unit}`, actual: bytes.length });
  }
  for (let i = 0; i < bytes.length; i += unit) {
    for (let j = 0; j < unit; j++) out[i + j] = bytes[i + unit - 1 - j]!;
  }
  return out;
}

/**
 * Converts bytes as stored (the byte order of `dtype`, which is what
 * `CArray.readBytes` of `@fmt/store` returns) to little-endian. Returns `bytes` itself when nothing needs
 * swapping (little-endian or byte-order-free dtypes), else a new array.
 *
 * @example
 * ```ts
 * const le = toLittleEndian(await carray.readBytes(), carray.dtype);
 * ```
 */
export function toLittleEndian(bytes: Uint8Array, dtype: DType): Uint8Array {
  const unit = byteOrderUnit(dtype);
  return dtype.byteOrder === ">" && unit > 1 ? swapped(bytes, unit) : bytes;
}

/** Stored bytes in platform order, in a buffer aligned for any typed array. */
function nativeAligned(bytes: Uint8Array, dtype: DType): Uint8Array {
  const unit = byteOrderUnit(dtype);
  const needsSwap = unit > 1 && (dtype.byteOrder === ">") === LITTLE_ENDIAN_PLATFORM;
  if (needsSwap) return swapped(bytes, unit);
  return bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
}

const HALF_EXP_SCALE = 2 ** -24;

/**
 * The number an IEEE binary16 value stands for, from its 16 bits (`<f2` elements).
 *
 * @example
 * ```ts
 * halfToNumber(0x3c00); // 1
 * halfToNumber(0x7e00); // NaN
 * ```
 */
export function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * HALF_EXP_SCALE;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * (1024 + fraction) * 2 ** (exponent - 25);
}

function stripTrailingNul(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.slice(0, end);
}

/**
 * Decodes stored bytes (byte order of `dtype`, as `CArray.readBytes` of `@fmt/store` returns them) into
 * {@link Values}; see there for the type chosen per dtype. The byte length must be a multiple of
 * `dtype.itemsize`.
 *
 * `U` elements that hold a value above U+10FFFF cannot be a string: they give U+FFFD (numpy
 * refuses such data too; the raw bytes stay available through `readBytes`). The result may
 * share memory with `bytes`.
 *
 * @example
 * ```ts
 * decodeValues(new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0]), parseDtype("<i4")); // Int32Array [1, 2]
 * ```
 */
export function decodeValues(bytes: Uint8Array, dtype: DType): Values {
  const size = dtype.itemsize;
  if (size === 0 ? bytes.length !== 0 : bytes.length % size !== 0) {
    throw new UsageError("INVALID_ARGUMENT", "byte length is not a multiple of the itemsize", { field: "bytes", expected: `multiple of ${size}`, actual: bytes.length });
  }
  const count = size === 0 ? 0 : bytes.length / size;
  switch (dtype.kind) {
    case "S": {
      const out: Uint8Array[] = [];
      for (let i = 0; i < count; i++) out.push(stripTrailingNul(bytes.subarray(i * size, (i + 1) * size)));
      return out;
    }
    case "V": {
      const out: Uint8Array[] = [];
      for (let i = 0; i < count; i++) out.push(bytes.slice(i * size, (i + 1) * size));
      return out;
    }
    case "U":
      return decodeUnicode(bytes, dtype, count);
    default:
      break;
  }
  const native = nativeAligned(bytes, dtype);
  const { buffer, byteOffset } = native;
  const n = native.length;
  switch (`${dtype.kind}${size}`) {
    case "b1":
    case "u1":
      return native;
    case "i1":
      return new Int8Array(buffer, byteOffset, n);
    case "i2":
      return new Int16Array(buffer, byteOffset, n / 2);
    case "u2":
      return new Uint16Array(buffer, byteOffset, n / 2);
    case "i4":
      return new Int32Array(buffer, byteOffset, n / 4);
    case "u4":
      return new Uint32Array(buffer, byteOffset, n / 4);
    case "i8":
    case "M8":
    case "m8":
      return new BigInt64Array(buffer, byteOffset, n / 8);
    case "u8":
      return new BigUint64Array(buffer, byteOffset, n / 8);
    case "f2": {
      const bits = new Uint16Array(buffer, byteOffset, n / 2);
      const out = new Float32Array(bits.length);
      for (let i = 0; i < bits.length; i++) out[i] = halfToNumber(bits[i]!);
      return out;
    }
    case "f4":
    case "c8":
      return new Float32Array(buffer, byteOffset, n / 4);
    case "f8":
    case "c16":
      return new Float64Array(buffer, byteOffset, n / 8);
    default: {
      const out: Uint8Array[] = [];
      for (let i = 0; i < count; i++) out.push(bytes.slice(i * size, (i + 1) * size));
      return out;
    }
  }
}

function decodeUnicode(bytes: Uint8Array, dtype: DType, count: number): string[] {
  const size = dtype.itemsize;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = dtype.byteOrder !== ">";
  const out: string[] = [];
  const points: number[] = [];
  for (let i = 0; i < count; i++) {
    points.length = 0;
    for (let off = i * size; off < (i + 1) * size; off += 4) {
      const cp = view.getUint32(off, little);
      points.push(cp > 0x10ffff ? 0xfffd : cp);
    }
    while (points.length > 0 && points[points.length - 1] === 0) points.pop();
    let text = "";
    // Chunked so that very wide elements never exceed the engine's argument-count limit.
    for (let p = 0; p < points.length; p += 4096) text += String.fromCodePoint(...points.slice(p, p + 4096));
    out.push(text);
  }
  return out;
}

/**
 * Number of entries of {@link Values} per element: 2 for complex (real, imaginary), else 1.
 *
 * @example
 * ```ts
 * entriesPerElement(parseDtype("complex128")); // 2
 * ```
 */
export function entriesPerElement(dtype: DType): number {
  return dtype.kind === "c" ? 2 : 1;
}
