// The arithmetic kernels: + - * / % of two vectors and unary minus, per numexpr kind, as
// numexpr's C code computes them: int32 and int64 wrap around, `%` truncates for integers and is
// floored for floats, float32 steps round as float32 arithmetic would. int64 stays in exact
// float64 arithmetic while every result lies within ±2^53. Apart from the comparisons
// (compare-numbers.ts): the two share only what vectors.ts holds.
import { TWO53, bigOf } from "./vectors.js";
import type { LongValues, NumArray, NumVec } from "./vectors.js";

/**
 * An arithmetic operator of the kernels (`%` is C's for integers, floored for floats).
 *
 * @example
 * ```ts
 * const op: ArithOp = "*";
 * ```
 */
export type ArithOp = "+" | "-" | "*" | "/" | "%";

/**
 * int32 arithmetic as numexpr's C code does it: wraps modulo 2^32; `%` truncates (the result has
 * the dividend's sign) and `x % 0` is 0.
 *
 * @example
 * ```ts
 * intArith("*", new Int32Array([65536]), new Int32Array([65536]), 1); // Int32Array [0]
 * ```
 */
export function intArith(op: ArithOp, a: NumArray, b: NumArray, n: number): Int32Array {
  const out = new Int32Array(n);
  switch (op) {
    case "+":
      for (let i = 0; i < n; i++) out[i] = a[i]! + b[i]!;
      break;
    case "-":
      for (let i = 0; i < n; i++) out[i] = a[i]! - b[i]!;
      break;
    case "*":
      for (let i = 0; i < n; i++) out[i] = Math.imul(a[i]!, b[i]!);
      break;
    case "%":
      // x % 0 is NaN in JavaScript, which an Int32Array stores as 0: numexpr's answer.
      for (let i = 0; i < n; i++) out[i] = a[i]! % b[i]!;
      break;
    case "/":
      throw new Error("internal: int32 true division is done in float64");
  }
  return out;
}

/**
 * int64 arithmetic: wraps modulo 2^64; `%` truncates and `x % 0` is 0. Exact float64 math when
 * both sides are float64 copies (values within ±2^53) and every result stays strictly within
 * ±2^53 (where float64 holds integers exactly and no wrap can happen), BigInt64Array otherwise.
 * `b` may be an int64 constant.
 *
 * @example
 * ```ts
 * longArith("+", loadLong(new BigInt64Array([2n ** 63n - 1n])), 1n, 1).b; // BigInt64Array [-(2n ** 63n)]
 * ```
 */
export function longArith(op: ArithOp, a: LongValues, b: LongValues | bigint, n: number): LongValues {
  const scalar = typeof b === "bigint";
  const bf = scalar ? (Math.abs(Number(b)) < TWO53 ? Number(b) : undefined) : b.f;
  if (a.f !== undefined && bf !== undefined) {
    const af = a.f;
    const out = new Float64Array(n);
    const y = (i: number): number => (typeof bf === "number" ? bf : bf[i]!);
    let exact = true;
    switch (op) {
      case "+":
        for (let i = 0; i < n; i++) {
          const r = af[i]! + y(i);
          if (r >= TWO53 || r <= -TWO53) exact = false;
          out[i] = r;
        }
        break;
      case "-":
        for (let i = 0; i < n; i++) {
          const r = af[i]! - y(i);
          if (r >= TWO53 || r <= -TWO53) exact = false;
          out[i] = r;
        }
        break;
      case "*":
        for (let i = 0; i < n; i++) {
          const r = af[i]! * y(i) + 0; // + 0 turns a −0 product into the integer 0
          if (r >= TWO53 || r <= -TWO53) exact = false;
          out[i] = r;
        }
        break;
      case "%":
        for (let i = 0; i < n; i++) {
          const d = y(i);
          out[i] = d === 0 ? 0 : (af[i]! % d) + 0;
        }
        break;
      case "/":
        throw new Error("internal: int64 true division is done in float64");
    }
    if (exact) return { f: out, b: undefined };
  }
  const ab = bigOf(a);
  const out = new BigInt64Array(n);
  if (typeof b === "bigint") {
    switch (op) {
      case "+":
        for (let i = 0; i < n; i++) out[i] = ab[i]! + b;
        break;
      case "-":
        for (let i = 0; i < n; i++) out[i] = ab[i]! - b;
        break;
      case "*":
        for (let i = 0; i < n; i++) out[i] = ab[i]! * b;
        break;
      case "%":
        if (b === 0n) break; // x % 0 is 0: the array is already zeros
        for (let i = 0; i < n; i++) out[i] = ab[i]! % b;
        break;
      case "/":
        throw new Error("internal: int64 true division is done in float64");
    }
    return { f: undefined, b: out };
  }
  const bb = bigOf(b);
  switch (op) {
    case "+":
      for (let i = 0; i < n; i++) out[i] = ab[i]! + bb[i]!;
      break;
    case "-":
      for (let i = 0; i < n; i++) out[i] = ab[i]! - bb[i]!;
      break;
    case "*":
      for (let i = 0; i < n; i++) out[i] = ab[i]! * bb[i]!;
      break;
    case "%":
      for (let i = 0; i < n; i++) {
        const y = bb[i]!;
        out[i] = y === 0n ? 0n : ab[i]! % y;
      }
      break;
    case "/":
      throw new Error("internal: int64 true division is done in float64");
  }
  return { f: undefined, b: out };
}

/**
 * float32 (`single`) or float64 (`!single`) arithmetic; `%` is numexpr's `a - floor(a / b) * b`
 * with every step rounded to the kind (so `x % 0` is NaN).
 *
 * @example
 * ```ts
 * floatArith("%", new Float64Array([-7]), new Float64Array([2]), 1, false); // Float64Array [1]
 * ```
 */
export function floatArith(op: ArithOp, a: NumArray, b: NumArray, n: number, single: boolean): Float32Array | Float64Array {
  const out = single ? new Float32Array(n) : new Float64Array(n);
  switch (op) {
    case "+":
      for (let i = 0; i < n; i++) out[i] = a[i]! + b[i]!;
      break;
    case "-":
      for (let i = 0; i < n; i++) out[i] = a[i]! - b[i]!;
      break;
    case "*":
      for (let i = 0; i < n; i++) out[i] = a[i]! * b[i]!;
      break;
    case "/":
      for (let i = 0; i < n; i++) out[i] = a[i]! / b[i]!;
      break;
    case "%":
      if (single) {
        for (let i = 0; i < n; i++) {
          const x = a[i]!;
          const y = b[i]!;
          out[i] = x - Math.fround(Math.floor(Math.fround(x / y)) * y);
        }
      } else {
        for (let i = 0; i < n; i++) {
          const x = a[i]!;
          const y = b[i]!;
          out[i] = x - Math.floor(x / y) * y;
        }
      }
      break;
  }
  return out;
}

/**
 * Unary minus of a vector of kind int (wraps), long (wraps) or float/double.
 *
 * @example
 * ```ts
 * negateVec({ k: "int", v: new Int32Array([-2147483648]) }).v; // Int32Array [-2147483648]
 * ```
 */
export function negateVec(x: NumVec): NumVec {
  switch (x.k) {
    case "bool":
      throw new Error("internal: booleans have no negation");
    case "int": {
      const out = new Int32Array(x.v.length);
      for (let i = 0; i < out.length; i++) out[i] = -x.v[i]!;
      return { k: "int", v: out };
    }
    case "long": {
      if (x.v.f !== undefined) {
        const f = x.v.f;
        const out = new Float64Array(f.length);
        for (let i = 0; i < out.length; i++) out[i] = 0 - f[i]!;
        return { k: "long", v: { f: out, b: undefined } };
      }
      const b = x.v.b!;
      const out = new BigInt64Array(b.length);
      for (let i = 0; i < out.length; i++) out[i] = -b[i]!;
      return { k: "long", v: { f: undefined, b: out } };
    }
    case "float": {
      const out = new Float32Array(x.v.length);
      for (let i = 0; i < out.length; i++) out[i] = -x.v[i]!;
      return { k: "float", v: out };
    }
    case "double": {
      const out = new Float64Array(x.v.length);
      for (let i = 0; i < out.length; i++) out[i] = -x.v[i]!;
      return { k: "double", v: out };
    }
  }
}
