// The comparison kernels of numbers: `a op b` row by row into a 0/1 mask for every numeric kind
// (int64 values as numbers while both sides have exact float64 copies, else as BigInt64Array),
// and the count of a mask (a `where` count). A block compared with a scalar goes to the SIMD
// kernel of compare-wasm.ts when it computes exactly the same mask; these loops do everything
// else. Apart from the arithmetic (arithmetic.ts): the two share only what vectors.ts holds.
import { compareScalarWasm, countOnesWasm } from "./compare-wasm.js";
import { bigOf } from "./vectors.js";
import type { CmpOp, LongValues, NumArray } from "./vectors.js";

/**
 * `a op b` row by row for numbers, `b` a vector or a scalar; 1 where true. NaN is unordered.
 *
 * @example
 * ```ts
 * compareNumbers(">", new Float64Array([1, 3]), 2, 2); // Uint8Array [0, 1]
 * ```
 */
export function compareNumbers(op: CmpOp, a: NumArray, b: NumArray | number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  if (typeof b === "number") {
    // One loop per element type: a loop that meets several typed-array classes is compiled for
    // all of them and runs three to four times slower (measured on `(f64 > c) & (i32 < c)`).
    if (a instanceof Float64Array) return compareScalarWasm(op, a, b, n, out) >= 0 ? out : compareF64(op, a, b, n, out);
    if (a instanceof Int32Array) return compareScalarWasm(op, a, b, n, out) >= 0 ? out : compareI32(op, a, b, n, out);
    if (a instanceof Float32Array) return compareScalarWasm(op, a, b, n, out) >= 0 ? out : compareF32(op, a, b, n, out);
    switch (op) {
      case "==":
        for (let i = 0; i < n; i++) out[i] = +(a[i] === b);
        break;
      case "!=":
        for (let i = 0; i < n; i++) out[i] = +(a[i] !== b);
        break;
      case "<":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! < b);
        break;
      case "<=":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! <= b);
        break;
      case ">":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! > b);
        break;
      case ">=":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! >= b);
        break;
    }
    return out;
  }
  switch (op) {
    case "==":
      for (let i = 0; i < n; i++) out[i] = +(a[i] === b[i]);
      break;
    case "!=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] !== b[i]);
      break;
    case "<":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! < b[i]!);
      break;
    case "<=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! <= b[i]!);
      break;
    case ">":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! > b[i]!);
      break;
    case ">=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! >= b[i]!);
      break;
  }
  return out;
}

/**
 * The number of 1s of a 0/1 mask (a `where` count).
 *
 * @example
 * ```ts
 * countOnes(new Uint8Array([1, 0, 1])); // 2
 * ```
 */
export function countOnes(mask: Uint8Array): number {
  const counted = countOnesWasm(mask);
  if (counted >= 0) return counted;
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i]!;
  return count;
}

// Copies of one loop, one per element type (see compareNumbers).
function compareF64(op: CmpOp, a: Float64Array, b: number, n: number, out: Uint8Array): Uint8Array {
  switch (op) {
    case "==":
      for (let i = 0; i < n; i++) out[i] = +(a[i] === b);
      break;
    case "!=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] !== b);
      break;
    case "<":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! < b);
      break;
    case "<=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! <= b);
      break;
    case ">":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! > b);
      break;
    case ">=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! >= b);
      break;
  }
  return out;
}

function compareI32(op: CmpOp, a: Int32Array, b: number, n: number, out: Uint8Array): Uint8Array {
  switch (op) {
    case "==":
      for (let i = 0; i < n; i++) out[i] = +(a[i] === b);
      break;
    case "!=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] !== b);
      break;
    case "<":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! < b);
      break;
    case "<=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! <= b);
      break;
    case ">":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! > b);
      break;
    case ">=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! >= b);
      break;
  }
  return out;
}

function compareF32(op: CmpOp, a: Float32Array, b: number, n: number, out: Uint8Array): Uint8Array {
  switch (op) {
    case "==":
      for (let i = 0; i < n; i++) out[i] = +(a[i] === b);
      break;
    case "!=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] !== b);
      break;
    case "<":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! < b);
      break;
    case "<=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! <= b);
      break;
    case ">":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! > b);
      break;
    case ">=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! >= b);
      break;
  }
  return out;
}

function compareBigs(op: CmpOp, a: BigInt64Array, b: BigInt64Array | bigint, n: number): Uint8Array {
  const out = new Uint8Array(n);
  if (typeof b === "bigint") {
    switch (op) {
      case "==":
        for (let i = 0; i < n; i++) out[i] = +(a[i] === b);
        break;
      case "!=":
        for (let i = 0; i < n; i++) out[i] = +(a[i] !== b);
        break;
      case "<":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! < b);
        break;
      case "<=":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! <= b);
        break;
      case ">":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! > b);
        break;
      case ">=":
        for (let i = 0; i < n; i++) out[i] = +(a[i]! >= b);
        break;
    }
    return out;
  }
  switch (op) {
    case "==":
      for (let i = 0; i < n; i++) out[i] = +(a[i] === b[i]);
      break;
    case "!=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] !== b[i]);
      break;
    case "<":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! < b[i]!);
      break;
    case "<=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! <= b[i]!);
      break;
    case ">":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! > b[i]!);
      break;
    case ">=":
      for (let i = 0; i < n; i++) out[i] = +(a[i]! >= b[i]!);
      break;
  }
  return out;
}

/**
 * `a op b` row by row for int64 values, `b` a vector or an int64 constant. float64 copies are
 * exact (within ±2^53), and a constant beyond ±2^53 rounds to a float that still lies beyond
 * every such value, so they compare as numbers.
 *
 * @example
 * ```ts
 * compareLong("<", loadLong(new BigInt64Array([1n, 5n])), 3n, 2); // Uint8Array [1, 0]
 * ```
 */
export function compareLong(op: CmpOp, a: LongValues, b: LongValues | bigint, n: number): Uint8Array {
  if (typeof b === "bigint") return a.b !== undefined ? compareBigs(op, a.b, b, n) : compareNumbers(op, a.f!, Number(b), n);
  if (a.b !== undefined && b.b !== undefined) return compareBigs(op, a.b, b.b, n);
  if (a.f !== undefined && b.f !== undefined) return compareNumbers(op, a.f, b.f, n);
  return compareBigs(op, bigOf(a), bigOf(b), n);
}
