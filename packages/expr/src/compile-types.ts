// The types the compiler and the evaluators share: what a schema and a block's input look like
// (public), the static type of a compiled node, the vectors passed around during evaluation and
// the record a compiled node is. Types only, so that the helper modules below the compiler
// (columns.ts, operands.ts) can use them without importing it.
import type { DType } from "@fmt/meta";
import type { CompareOperator } from "./ast.js";
import type { ScalarTerm } from "./compare-wasm.js";
import type { Kind, NumVec } from "./kernels.js";
import type { PyValue } from "./python.js";

// ---------------------------------------------------------------------------------------------
// types

/**
 * What {@link compileExpression} needs to know about a column: its dtype and, for
 * multidimensional columns, its shape (such columns cannot be used in expressions).
 *
 * @example
 * ```ts
 * const schema: ExpressionSchema = { price: { dtype: parseDtype("float64") }, sym: { dtype: parseDtype("|S6") } };
 * ```
 */
export type ExpressionSchema = { readonly [name: string]: { readonly dtype: DType; readonly shape?: readonly number[]; readonly vtype?: "utf8" | "bytes" | "ragged" } };

/**
 * What {@link CompiledExpression.evaluate} reads: each referenced column's stored bytes for the
 * block, or, for a variable-length column (schema `vtype`, spec/v2.md §12), its elements: `string[]`
 * for `utf8`, `Uint8Array[]` for `bytes`.
 *
 * @example
 * ```ts
 * const input: ExpressionInput = { price: new Uint8Array(new Float64Array([1.5]).buffer), sym: ["AB"] };
 * ```
 */
export type ExpressionInput = { readonly [name: string]: Uint8Array | readonly (string | Uint8Array)[] };

/**
 * The static type of a compiled node. Numbers and booleans carry numexpr's kind; `const` nodes
 * (no column below them) carry their folded Python value in {@link Compiled.value}.
 */
export type StaticType =
  | { t: "num"; kind: Kind }
  | { t: "const" }
  | { t: "bytes" } // S column
  | { t: "str" } // U column
  | { t: "vstr" } // utf8 vlarray column: one string per row
  | { t: "vbytes" }; // bytes vlarray column: one Uint8Array per row

// ---------------------------------------------------------------------------------------------
// vectors

/** A value during evaluation: a numeric vector, or string data of `n` rows. */
export type Vec =
  | NumVec
  | { k: "sbytes"; v: Uint8Array; w: number } // w < 0: scalar (v is the value, trailing NULs removed)
  | { k: "sstr"; v: Uint32Array; w: number } // code points; w < 0: scalar
  | { k: "list"; v: readonly (string | Uint8Array)[] }; // a variable-length column's elements

export interface EvalContext {
  n: number;
  input: ExpressionInput;
  cache: Map<string, Vec>;
}

export type Evaluator = (ctx: EvalContext) => Vec;

export interface Compiled {
  type: StaticType;
  ev: Evaluator;
  /** The folded value of a constant node. */
  value?: PyValue;
  /** The constants that operations below this node convert, in numexpr's order (see mergeZeros). */
  leaves?: Leaf[];
  /**
   * The node's kind in numexpr's first pass over the text, which only looks for names and types
   * every column as float64 (it matters for x / 0.0, see arithmetic).
   */
  discovery?: Kind;
  /**
   * A boolean node that is one comparison of a column with a constant, or an `&` (or `|`) of
   * such: its comparisons for the SIMD kernels (evaluateTermsWasm), which build the mask, count
   * or row numbers in module memory. `get` gives `undefined` for a block the kernels cannot take
   * (then the node's `ev` answers).
   */
  terms?: { isAnd: boolean | undefined; get: (ctx: EvalContext) => ScalarTerm[] | undefined };
  /**
   * A node that compares a column as it is stored (no arithmetic; in the column's own kind, or
   * in float64, which holds every int32 and float32 value exactly) with a constant: the column,
   * the operator with the column on its left, and the constant (read from the leaf once
   * mergeZeros has run). A table may answer such a query from the column's stored bytes
   * (WhereTable.compareColumn).
   */
  comparison?: { column: string; op: CompareOperator; leaf: Leaf };
}

/** A constant as an operation uses it: converted to the operation's kind. */
export interface Leaf {
  value: PyValue;
  kind: Kind;
  scalar: number | bigint;
}
