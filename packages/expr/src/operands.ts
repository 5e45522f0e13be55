// Constants and numeric operands of operations, as numexpr treats them: the kind of a folded
// constant, its conversion to the kind of the operation it takes part in, operands cast to that
// kind, and the bookkeeping of converted constants (their order in numexpr's tree and its shared
// zero register). Separate from the compiler, which decides the kinds; this only converts.
import type { ArithmeticOperator, CompareOperator } from "./ast.js";
import type { Compiled, EvalContext, Leaf } from "./compile-types.js";
import { castVec, fillVec } from "./kernels.js";
import type { Kind, NumArray, NumVec } from "./kernels.js";
import { PyRefusal, intToFloat } from "./python.js";
import type { PyValue } from "./python.js";

/**
 * numexpr keeps one register per distinct constant of a kind, "distinct" in Python's sense, so
 * 0, False, 0.0 and -0.0 share one: the first in its (post-order) walk of the tree. The only
 * observable effect is the sign of a float zero; this gives every zero leaf the first one's.
 */
export function mergeZeros(leaves: readonly Leaf[]): void {
  const first = new Map<Kind, number | bigint>();
  for (const leaf of leaves) {
    if (leaf.kind !== "double" && leaf.kind !== "float") continue;
    const v = leaf.value;
    const zero = v.k === "bool" ? !v.v : v.k === "int" ? v.v === 0n : v.k === "float" && v.v === 0;
    if (!zero) continue;
    const seen = first.get(leaf.kind);
    if (seen === undefined) first.set(leaf.kind, leaf.scalar);
    else leaf.scalar = seen;
  }
}

/**
 * The order in which numexpr's tree holds the operands of `left op right`. Python calls the
 * left operand's method, or the right one's reflected method when the left is a literal; numexpr
 * writes a < b as b > a, and its reflected + and * keep the column first.
 */
export function pythonOrder(op: CompareOperator | ArithmeticOperator, leftIsConstant: boolean): boolean {
  if (!leftIsConstant) return op === "<" || op === "<=";
  return op === "<" || op === "<=" || op === "==" || op === "!=" || op === "+" || op === "*";
}

/** numexpr's kind of a folded Python constant: ints outside int32 are int64, floats are double. */
export function constKind(v: PyValue): Kind | undefined {
  switch (v.k) {
    case "bool":
      return "bool";
    case "int":
      return v.v >= -2147483648n && v.v <= 2147483647n ? "int" : "long";
    case "float":
      return "double";
    default:
      return undefined;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** numexpr's conversion of a constant to the kind of the operation it takes part in. */
export function constToKind(v: PyValue, kind: Kind): number | bigint {
  if (v.k === "bool") return kind === "long" ? (v.v ? 1n : 0n) : v.v ? 1 : 0;
  if (v.k === "int") {
    switch (kind) {
      case "long":
        if (v.v < INT64_MIN || v.v > INT64_MAX) throw new PyRefusal("Python int too large to convert to C long", "OverflowError");
        return v.v;
      case "float":
        return Math.fround(intToFloat(v.v));
      case "double":
        return intToFloat(v.v);
      default:
        return Number(v.v); // int32 range, or the constant would be of kind long
    }
  }
  if (v.k === "float") return kind === "float" ? Math.fround(v.v) : v.v;
  throw new Error("internal: not a numeric constant");
}

/** A numeric operand cast to an operation's kind: its vector, and the constants it converts. */
export interface Operand {
  get: (ctx: EvalContext) => NumVec;
  leaves: Leaf[];
  /** The converted constant, when the operand is one. */
  leaf?: Leaf;
}

/** The vector of a numeric operand, cast to `kind` (constants are filled to `n` rows). */
export function operand(c: Compiled, kind: Kind): Operand {
  if (c.value !== undefined) {
    const leaf: Leaf = { value: c.value, kind, scalar: constToKind(c.value, kind) };
    return { get: (ctx) => fillVec(kind, leaf.scalar, ctx.n), leaves: [leaf], leaf };
  }
  return { get: (ctx) => castVec(c.ev(ctx) as NumVec, kind), leaves: c.leaves ?? [] };
}

export function numberArray(v: NumVec): NumArray {
  return v.v as NumArray;
}
