// The value representation of the evaluator's kernels (spec/expressions.md §3): numexpr's five
// kinds in promotion order, the typed arrays that carry a vector of each kind (int64 as exact
// float64 copies or as a BigInt64Array), the compare operator, and the casts and constant fills
// between kinds. A module of its own because the compiler and its helpers (compile-types.ts,
// columns.ts, operands.ts) need this vocabulary without the loops, and both kinds of loop
// (compare-numbers.ts, arithmetic.ts) share it.

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

/**
 * 2^53: int64 values strictly within ±2^53 are exact as float64, so they may be kept (and added,
 * subtracted, multiplied) as float64 copies; a result that reaches it falls back to BigInt64Array.
 *
 * @example
 * ```ts
 * const exact = Math.abs(Number(x)) < TWO53; // a float64 copy of x is exact
 * ```
 */
export const TWO53 = 9007199254740992;

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

/**
 * The BigInt64Array form of int64 values, converted from the float64 copies the first time it is
 * asked for and kept in `l.b`, for an operation whose other side or result needs BigInt64Array.
 *
 * @example
 * ```ts
 * bigOf({ f: new Float64Array([1, 2]), b: undefined }); // BigInt64Array [1n, 2n]
 * ```
 */
export function bigOf(l: LongValues): BigInt64Array {
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
