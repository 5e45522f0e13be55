// Typed-array kernels of the evaluator, one per numexpr kind (spec/expressions.md §3):
// bool → Uint8Array of 0/1; int (int32) → any typed array of int32-range integers (results are
// Int32Array, whose stores wrap modulo 2^32 like C's int arithmetic); long (int64) → the column's
// BigInt64Array (V8 compares its elements about as fast as doubles; stores wrap modulo 2^64), or
// a Float64Array when the values come from narrower integers and so lie within ±2^53, where
// float64 arithmetic is exact and faster than BigInt arithmetic; float (float32) →
// Float32Array (a float64 result of + - * / of two float32 values rounds to the same float32 as
// float32 arithmetic); double → Float64Array. Loops switch on the operator outside the loop so
// that each loop body stays monomorphic. Comparisons of a block with a scalar go to the SIMD
// kernel of compare-wasm.ts when it computes exactly the same mask.
import { compareScalarWasm, countOnesWasm } from "./compare-wasm.js";

/**
 * The numeric kinds of numexpr, in promotion order.
 *
 * @example
 * ```ts
 * const k: Kind = "long"; // int64
 * ```
 */
export type Kind = "bool" | "int" | "long" | "float" | "double";

const RANK: Readonly<Record<Kind, number>> = { bool: 0, int: 1, long: 2, float: 3, double: 4 };

/**
 * The common kind of two operands: the later one in bool < int < long < float < double
 * (numexpr's rule; int64 with float32 gives float32).
 *
 * @example
 * ```ts
 * commonKind("long", "float"); // "float"
 * ```
 */
export function commonKind(a: Kind, b: Kind): Kind {
  return RANK[a] >= RANK[b] ? a : b;
}

/**
 * An array of numbers as the kernels read them.
 *
 * @example
 * ```ts
 * const xs: NumArray = new Int32Array([1, 2]);
 * ```
 */
export type NumArray = Uint8Array | Int8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/**
 * int64 values: `f` holds them as float64 when all lie strictly within ±2^53, `b` as BigInt64Array;
 * at least one is present.
 *
 * @example
 * ```ts
 * const l: LongValues = { f: new Float64Array([1, 2]), b: undefined };
 * ```
 */
export interface LongValues {
  f: Float64Array | undefined;
  b: BigInt64Array | undefined;
}

/**
 * A value during evaluation: a vector of one numexpr kind.
 *
 * @example
 * ```ts
 * const v: NumVec = { k: "double", v: new Float64Array([0.5]) };
 * ```
 */
export type NumVec = { k: "bool"; v: Uint8Array } | { k: "int"; v: NumArray } | { k: "long"; v: LongValues } | { k: "float"; v: Float32Array } | { k: "double"; v: Float64Array };

/**
 * A compare operator (as in the expression language).
 *
 * @example
 * ```ts
 * const op: CmpOp = ">=";
 * ```
 */
export type CmpOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

const TWO53 = 9007199254740992;

/**
 * int64 values read from a column (platform byte order): kept as BigInt64Array.
 *
 * @example
 * ```ts
 * loadLong(new BigInt64Array([1n, -2n])).b; // BigInt64Array [1n, -2n]
 * ```
 */
export function loadLong(big: BigInt64Array): LongValues {
  return { f: undefined, b: big };
}

function bigOf(l: LongValues): BigInt64Array {
  if (l.b === undefined) {
    const f = l.f!;
    const b = new BigInt64Array(f.length);
    for (let i = 0; i < f.length; i++) b[i] = BigInt(f[i]!);
    l.b = b;
  }
  return l.b;
}

/**
 * C's `(float)` of an int64: rounded once to the nearest float32 (ties to even). Going through
 * float64 first could round twice, so values beyond 2^53 keep a sticky bit.
 *
 * @example
 * ```ts
 * int64ToFloat32(16777217n); // 16777216
 * ```
 */
export function int64ToFloat32(x: bigint): number {
  const negative = x < 0n;
  let m = negative ? -x : x;
  if (m < 2n ** 53n) return Math.fround(Number(x));
  const shift = m.toString(2).length - 53;
  const low = m & ((1n << BigInt(shift)) - 1n);
  m = (m >> BigInt(shift)) | (low !== 0n ? 1n : 0n);
  const value = Math.fround(Number(m) * 2 ** shift);
  return negative ? -value : value;
}

/**
 * Casts a vector to a wider kind, as numexpr's cast opcodes do (bool → 0/1; int64 → float32 and
 * float64 round to nearest).
 *
 * @example
 * ```ts
 * castVec({ k: "int", v: new Int32Array([16777217]) }, "float").v; // Float32Array [16777216]
 * ```
 */
export function castVec(x: NumVec, to: Kind): NumVec {
  if (x.k === to) return x;
  switch (to) {
    case "bool":
      throw new Error("internal: no cast to bool");
    case "int":
      return { k: "int", v: x.v as Uint8Array };
    case "long":
      return { k: "long", v: { f: new Float64Array(x.v as NumArray), b: undefined } };
    case "float": {
      if (x.k !== "long") return { k: "float", v: new Float32Array(x.v) };
      if (x.v.f !== undefined) return { k: "float", v: new Float32Array(x.v.f) };
      const b = x.v.b!;
      const out = new Float32Array(b.length);
      for (let i = 0; i < b.length; i++) out[i] = int64ToFloat32(b[i]!);
      return { k: "float", v: out };
    }
    case "double": {
      if (x.k !== "long") return { k: "double", v: new Float64Array(x.v) };
      if (x.v.f !== undefined) return { k: "double", v: x.v.f };
      const b = x.v.b!;
      const out = new Float64Array(b.length);
      for (let i = 0; i < b.length; i++) out[i] = Number(b[i]!);
      return { k: "double", v: out };
    }
  }
}

/**
 * A vector of `n` copies of a constant already converted to `kind` (number, or bigint for long).
 *
 * @example
 * ```ts
 * fillVec("int", 7, 3).v; // Int32Array [7, 7, 7]
 * ```
 */
export function fillVec(kind: Kind, value: number | bigint, n: number): NumVec {
  switch (kind) {
    case "bool":
      return { k: "bool", v: new Uint8Array(n).fill(value as number) };
    case "int":
      return { k: "int", v: new Int32Array(n).fill(value as number) };
    case "long": {
      const big = value as bigint;
      const f = Number(big);
      if (Math.abs(f) < TWO53) return { k: "long", v: { f: new Float64Array(n).fill(f), b: undefined } };
      return { k: "long", v: { f: undefined, b: new BigInt64Array(n).fill(big) } };
    }
    case "float":
      return { k: "float", v: new Float32Array(n).fill(value as number) };
    case "double":
      return { k: "double", v: new Float64Array(n).fill(value as number) };
  }
}

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
