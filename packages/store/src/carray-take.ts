/**
 * Argument checks of the batched and caller-buffer reads (`take`, `readInto`): row index lists
 * with Python semantics, typed destination arrays that match a dtype, and the in-place byte swap
 * that turns stored bytes into platform order.
 *
 * @example
 * ```ts
 * const rows = checkTakeIndices([3, -1], 10, "prices"); // Float64Array [3, 9]
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import { byteOrderUnit } from "@fmt/expr";
import type { TypedValues } from "@fmt/expr";

/**
 * Normalizes row indices: integers in `[-length, length)`, negative ones counted from the end.
 * Non-integers are `UsageError` `INVALID_ARGUMENT`; indices out of range `OUT_OF_RANGE` (naming
 * the first offender and its position).
 *
 * @example
 * ```ts
 * checkTakeIndices(new Int32Array([0, -2]), 5, ""); // Float64Array [0, 3]
 * ```
 */
export function checkTakeIndices(indices: ArrayLike<number>, length: number, path: string): Float64Array {
  if (typeof indices !== "object" || indices === null || typeof indices.length !== "number") {
    throw new UsageError("INVALID_ARGUMENT", "indices must be an array or typed array of integers", { path, field: "indices", expected: "ArrayLike<number>", actual: typeof indices });
  }
  const rows = new Float64Array(indices.length);
  for (let p = 0; p < indices.length; p++) {
    const index = indices[p];
    if (typeof index !== "number" || !Number.isSafeInteger(index)) {
      throw new UsageError("INVALID_ARGUMENT", "row indices must be integers", { path, field: `indices[${p}]`, expected: "integer", actual: index });
    }
    const row = index < 0 ? index + length : index;
    if (row < 0 || row >= length) {
      throw new UsageError("OUT_OF_RANGE", "row index out of range", { path, field: `indices[${p}]`, expected: `-${length} <= index < ${length}`, actual: index });
    }
    rows[p] = row;
  }
  return rows;
}

type TypedArrayClass =
  | Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor
  | Int32ArrayConstructor | Uint32ArrayConstructor | BigInt64ArrayConstructor | BigUint64ArrayConstructor
  | Float32ArrayConstructor | Float64ArrayConstructor;

/** The typed array class `decodeValues` returns for a dtype whose stored layout it keeps. */
function typedClassOf(dtype: DType): TypedArrayClass | undefined {
  switch (`${dtype.kind}${dtype.itemsize}`) {
    case "b1":
    case "u1":
      return Uint8Array;
    case "i1":
      return Int8Array;
    case "i2":
      return Int16Array;
    case "u2":
      return Uint16Array;
    case "i4":
      return Int32Array;
    case "u4":
      return Uint32Array;
    case "i8":
    case "M8":
    case "m8":
      return BigInt64Array;
    case "u8":
      return BigUint64Array;
    case "f4":
    case "c8":
      return Float32Array;
    case "f8":
    case "c16":
      return Float64Array;
    default:
      return undefined;
  }
}

/**
 * Checks that `out` can receive `elements` elements of `dtype` (right class, exact length) and
 * returns its bytes.
 *
 * @example
 * ```ts
 * const bytes = checkTypedOut(new Float64Array(10), float64, 10, "prices"); // 80 bytes
 * ```
 */
export function checkTypedOut(out: TypedValues, dtype: DType, elements: number, path: string): Uint8Array {
  const cls = typedClassOf(dtype);
  if (cls === undefined) {
    throw new UsageError("INVALID_ARGUMENT", `readInto has no typed array for dtype ${dtype.str}; use readBytes or read`, { path, field: "dtype", actual: dtype.str });
  }
  const perElement = dtype.kind === "c" ? 2 : 1;
  if (!(out instanceof cls)) {
    throw new UsageError("INVALID_ARGUMENT", `out must be a ${cls.name} for dtype ${dtype.str}`, { path, field: "out", expected: cls.name, actual: describe(out) });
  }
  if (out.length !== elements * perElement) {
    throw new UsageError("INVALID_ARGUMENT", "out must hold exactly the elements of the rows read", { path, field: "out.length", expected: elements * perElement, actual: out.length });
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

function describe(value: unknown): string {
  if (typeof value !== "object" || value === null) return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" ? name : "object";
}

const LITTLE_ENDIAN_PLATFORM = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reverses each element's bytes in place when the dtype's byte order is not the platform's.
 *
 * @example
 * ```ts
 * swapInPlace(bytes, bigEndianFloat64); // now in platform order
 * ```
 */
export function swapInPlace(bytes: Uint8Array, dtype: DType): void {
  const unit = byteOrderUnit(dtype);
  if (unit <= 1 || (dtype.byteOrder === ">") !== LITTLE_ENDIAN_PLATFORM) return;
  for (let i = 0; i + unit <= bytes.length; i += unit) {
    for (let lo = i, hi = i + unit - 1; lo < hi; lo++, hi--) {
      const t = bytes[lo]!;
      bytes[lo] = bytes[hi]!;
      bytes[hi] = t;
    }
  }
}
