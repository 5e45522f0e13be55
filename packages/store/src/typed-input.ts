// Typed arrays given to a writer become dtype bytes without going element by element: a view of
// the caller's memory when the layout already matches, one bulk conversion when it is a
// conversion numpy does exactly (no value can fail a range check). Anything else takes the
// checked element path of ElementEncoder.
import type { DType } from "@fmt/meta";
import { quantizeBytes } from "./carray-encode.js";

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

type NumberArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/** Value range of each integer typed array, for "every value fits" decisions. */
function integerRange(block: ArrayBufferView): [number, number] | undefined {
  if (block instanceof Int8Array) return [-(2 ** 7), 2 ** 7 - 1];
  if (block instanceof Uint8Array || block instanceof Uint8ClampedArray) return [0, 2 ** 8 - 1];
  if (block instanceof Int16Array) return [-(2 ** 15), 2 ** 15 - 1];
  if (block instanceof Uint16Array) return [0, 2 ** 16 - 1];
  if (block instanceof Int32Array) return [-(2 ** 31), 2 ** 31 - 1];
  if (block instanceof Uint32Array) return [0, 2 ** 32 - 1];
  return undefined;
}

function isNumberArray(block: ArrayBufferView): block is NumberArray {
  return integerRange(block) !== undefined || block instanceof Float32Array || block instanceof Float64Array;
}

/** The typed array class holding `dtype`'s elements in host byte order, when there is one. */
function hostArrayFor(dtype: DType): { create(n: number): NumberArray | BigInt64Array | BigUint64Array; matches(block: ArrayBufferView): boolean; range?: [number, number] } | undefined {
  const hostOrder = dtype.itemsize === 1 || dtype.byteOrder === (HOST_LITTLE_ENDIAN ? "<" : ">");
  if (!hostOrder) return undefined;
  const k = `${dtype.kind}${dtype.itemsize}`;
  switch (k) {
    case "f8": return { create: (n) => new Float64Array(n), matches: (b) => b instanceof Float64Array };
    case "f4": return { create: (n) => new Float32Array(n), matches: (b) => b instanceof Float32Array };
    case "i1": return { create: (n) => new Int8Array(n), matches: (b) => b instanceof Int8Array, range: [-(2 ** 7), 2 ** 7 - 1] };
    case "u1": return { create: (n) => new Uint8Array(n), matches: (b) => b instanceof Uint8Array || b instanceof Uint8ClampedArray, range: [0, 2 ** 8 - 1] };
    case "i2": return { create: (n) => new Int16Array(n), matches: (b) => b instanceof Int16Array, range: [-(2 ** 15), 2 ** 15 - 1] };
    case "u2": return { create: (n) => new Uint16Array(n), matches: (b) => b instanceof Uint16Array, range: [0, 2 ** 16 - 1] };
    case "i4": return { create: (n) => new Int32Array(n), matches: (b) => b instanceof Int32Array, range: [-(2 ** 31), 2 ** 31 - 1] };
    case "u4": return { create: (n) => new Uint32Array(n), matches: (b) => b instanceof Uint32Array, range: [0, 2 ** 32 - 1] };
    case "i8":
    case "M8": return { create: (n) => new BigInt64Array(n), matches: (b) => b instanceof BigInt64Array };
    case "u8": return { create: (n) => new BigUint64Array(n), matches: (b) => b instanceof BigUint64Array };
    default: return undefined;
  }
}

/**
 * The bytes of a typed-array block in `dtype`'s layout, or `undefined` when the block needs the
 * element-by-element path (big-endian dtypes, f2, bool, strings, and conversions where a value
 * could be out of range or not integral). With `quantize` 0 and the dtype's own element type
 * the result is a view of the caller's memory; otherwise it is a new array.
 */
export function typedBlockBytes(block: ArrayBufferView, dtype: DType, quantize: number): Uint8Array | undefined {
  const host = hostArrayFor(dtype);
  if (host === undefined) return undefined;
  const quantized = dtype.kind === "f" && quantize > 0;
  if (host.matches(block)) {
    const view = new Uint8Array(block.buffer, block.byteOffset, block.byteLength);
    if (!quantized) return view;
    const copy = view.slice();
    quantizeBytes(copy, dtype, quantize);
    return copy;
  }
  if (!isNumberArray(block)) return undefined;
  const source = integerRange(block);
  if (dtype.kind === "f") {
    // TypedArray.prototype.set rounds to the target precision exactly as numpy casts.
    const out = host.create(block.length) as Float32Array | Float64Array;
    out.set(block);
    const bytes = new Uint8Array(out.buffer);
    if (quantized) quantizeBytes(bytes, dtype, quantize);
    return bytes;
  }
  if (source !== undefined && host.range !== undefined && host.range[0] <= source[0] && source[1] <= host.range[1]) {
    const out = host.create(block.length) as NumberArray;
    out.set(block);
    return new Uint8Array(out.buffer);
  }
  return undefined;
}
