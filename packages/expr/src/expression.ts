// The query expression language of `where` queries (CTable.where in @fmt/store): tokenizer,
// recursive-descent parser, formatter, static type checker and a block-wise, vectorised
// evaluator. No eval/Function and no regular expressions take part in evaluation; only single
// characters are classified with Unicode property tests to recognise identifiers.
//
// This module is the entry point: compileExpression, and what runWhere needs of a compiled
// expression (countMatches, matchRowsOrMask). It re-exports the language's public names from
// the modules that implement it, one job each:
// - ast.ts: syntax tree types, operator and keyword sets;
// - tokenizer.ts: limits, positioned errors, tokenizer;
// - parser.ts: parseExpression;
// - format.ts: formatExpression;
// - compile-types.ts: schema, block input, static types, vectors, compiled nodes;
// - columns.ts, operands.ts, compare-text.ts: column data, constants, text comparisons;
// - compiler.ts: the type checker and evaluator builder.
import { UsageError } from "@fmt/errors";
import type { CompareOperator, ExpressionNode } from "./ast.js";
import type { EvalContext, ExpressionInput, ExpressionSchema } from "./compile-types.js";
import { Compiler, termsResult } from "./compiler.js";
import { formatExpression } from "./format.js";
import { countOnes } from "./kernels.js";
import type { NumVec } from "./kernels.js";
import { mergeZeros } from "./operands.js";
import { parseExpression } from "./parser.js";

export { EXPRESSION_KEYWORDS } from "./ast.js";
export type { ArithmeticOperator, CompareOperator, ExpressionNode, NodeSpan } from "./ast.js";
export type { ExpressionInput, ExpressionSchema } from "./compile-types.js";
export { formatExpression } from "./format.js";
export type { FormatExpressionOptions } from "./format.js";
export { parseExpression } from "./parser.js";
export { EXPRESSION_LIMITS } from "./tokenizer.js";
export type { ExpressionErrorLocation } from "./tokenizer.js";

/**
 * An expression checked against a table's columns, ready to evaluate block by block.
 *
 * @example
 * ```ts
 * const q = compileExpression("price > 10 & qty < 5", schema);
 * const mask = q.evaluate({ price: priceBytes, qty: qtyBytes }, 1000); // Uint8Array of 0/1
 * ```
 */
export interface CompiledExpression {
  /** The syntax tree. */
  readonly node: ExpressionNode;
  /** Canonical text of the expression ({@link formatExpression}). */
  readonly text: string;
  /** The columns the expression reads, in order of first use. */
  readonly columns: readonly string[];
  /**
   * Evaluates the expression over `rows` rows given each referenced column's stored bytes for
   * those rows (exactly `rows × itemsize` bytes, in the dtype's byte order, as
   * `@fmt/store`'s `TableBlock` holds them), or for a variable-length column its `rows` elements.
   * Returns a new mask with 1 for matching rows.
   */
  evaluate(columns: ExpressionInput, rows: number): Uint8Array;
}

/**
 * Parses (when given text) and type-checks an expression against the columns of `schema`, and
 * returns its vectorised evaluator.
 *
 * Semantics are numexpr 2.8's, the engine bcolz's `where` runs (spec/expressions.md): each
 * column has a numexpr kind — `b1` bool; `i1 i2 i4 u1 u2` int32; `i8 u4` int64; `f2 f4`
 * float32; `f8` float64 — and every operation runs in the common kind of its operands
 * (bool < int32 < int64 < float32 < float64), so int32 and int64 arithmetic wraps, `/` is true
 * division (float64 for integers, float32 for float32), `%` truncates on integers (`x % 0` is 0)
 * and floors on floats (`x % 0` is NaN), and an int64 compared with a float64 is rounded to
 * float64 first. Sub-expressions made of literals only are folded with Python's semantics
 * (exact integers, floored `%` and `//`), and a literal taking part in an operation on columns
 * is converted to that operation's kind (an integer literal beyond int32 is int64; beyond int64
 * it is refused unless the operation is a float one). What numexpr refuses is refused:
 * `uint64` columns, arithmetic on two booleans, negating a boolean, `~` on numbers, `//` with a
 * column, a column-based number divided by the literal `0.0`, a literal on the left of `&`/`|`
 * next to a column-based operand, non-ASCII string literals against `S` columns, Python
 * exceptions while folding literals (`1 / 0`). `S` columns compare with bytes and ASCII string
 * literals as numexpr does (the shorter side padded with NULs). Extensions beyond numexpr: `U`
 * columns (code points), `datetime64`/`timedelta64` columns (int64 counts) and variable-length
 * columns (schema `vtype`, spec/v2.md §12: `utf8` by code point order with string literals,
 * `bytes` by unsigned byte order with bytes literals and the UTF-8 of string literals). The
 * result must be a boolean. Complex, void, `ragged` and multidimensional columns are refused.
 *
 * Errors: `UsageError` `INVALID_ARGUMENT` with `field: "expression"` (unknown column, operands
 * that do not fit together, non-boolean result), positioned like {@link parseExpression}'s.
 *
 * @example
 * ```ts
 * const t = await openCtable(store);
 * const q = compileExpression('price > 2906.5 & sym == "ABC"', Object.fromEntries(t.names.map((n) => [n, t.column(n)])));
 * q.columns; // ["price", "sym"]
 * ```
 */
export function compileExpression(expression: string | ExpressionNode, schema: ExpressionSchema): CompiledExpression {
  if (typeof schema !== "object" || schema === null) {
    throw new UsageError("INVALID_ARGUMENT", "schema must be an object of column descriptions", { field: "schema", actual: schema });
  }
  const text = typeof expression === "string" ? expression : undefined;
  const node = typeof expression === "string" ? parseExpression(expression) : expression;
  const compiler = new Compiler(text, schema);
  const compiled = compiler.compile(node, 0);
  mergeZeros(compiled.leaves ?? []);
  const constant = compiled.value;
  if (constant !== undefined ? constant.k !== "bool" : compiled.type.t !== "num" || compiled.type.kind !== "bool") {
    compiler.fail(node, `the expression is ${compiler.typeName(compiled)}, not a condition`, "a condition, e.g. a comparison such as price > 10");
  }
  const columns = Object.freeze([...compiler.columns]);
  const canonical = formatExpression(node);
  const context = (input: ExpressionInput, rows: number): EvalContext => {
    if (!Number.isSafeInteger(rows) || rows < 0) {
      throw new UsageError("INVALID_ARGUMENT", "rows must be a non-negative integer", { field: "rows", actual: rows });
    }
    if (typeof input !== "object" || input === null) {
      throw new UsageError("INVALID_ARGUMENT", "columns must be an object of stored bytes", { field: "columns", actual: input });
    }
    return { n: rows, input, cache: new Map() };
  };
  const compiledExpression: CompiledExpression = Object.freeze({
    node,
    text: canonical,
    columns,
    evaluate(input: ExpressionInput, rows: number): Uint8Array {
      return maskOf(context(input, rows));
    },
  });
  const maskOf = (ctx: EvalContext): Uint8Array => {
    // A constant condition reads no column, as in numexpr (which evaluates it once).
    if (constant !== undefined) return new Uint8Array(ctx.n).fill(constant.v === true ? 1 : 0);
    const result = (compiled.ev(ctx) as NumVec & { k: "bool" }).v;
    // A b1 column as the whole condition is the caller's own bytes: hand out a copy.
    return node.kind === "column" ? result.slice() : result;
  };
  const comparison = compiled.comparison;
  internals.set(compiledExpression, {
    comparison: () => (comparison === undefined ? undefined : { column: comparison.column, op: comparison.op, value: comparison.leaf.scalar }),
    count: (input, rows) => {
      const ctx = context(input, rows);
      if (constant !== undefined) return constant.v === true ? rows : 0;
      const inKernels = compiled.terms === undefined ? undefined : termsResult(compiled.terms, ctx, "count");
      return inKernels ?? countOnes((compiled.ev(ctx) as NumVec & { k: "bool" }).v);
    },
    rowsOrMask: (input, rows, first) => {
      const ctx = context(input, rows);
      const found = constant !== undefined || compiled.terms === undefined ? undefined : termsResult(compiled.terms, ctx, "rows", first);
      return found !== undefined ? { rows: found } : { mask: maskOf(ctx) };
    },
  });
  return compiledExpression;
}

interface Internals {
  comparison(): StoredComparison | undefined;
  count(input: ExpressionInput, rows: number): number;
  rowsOrMask(input: ExpressionInput, rows: number, first: number): { rows: Float64Array } | { mask: Uint8Array };
}

const internals = new WeakMap<CompiledExpression, Internals>();

function internalsOf(expression: CompiledExpression): Internals {
  const found = internals.get(expression);
  if (found === undefined) throw new UsageError("INVALID_ARGUMENT", "not an expression made by compileExpression", { field: "expression" });
  return found;
}

/**
 * What a table may compare on its stored bytes (`WhereTable.compareColumn`): a column as it is
 * stored, the operator (the column on its left) and the constant as the comparison converts it:
 * a bigint for int64 comparisons, else a number (the comparison is made in the column's own
 * kind, or in float64 for int32 and float32 columns, whose values it holds exactly).
 *
 * @example
 * ```ts
 * const c: StoredComparison = { column: "price", op: ">", value: 2.5 };
 * ```
 */
export interface StoredComparison {
  /** The column compared. */
  column: string;
  /** `column op value`. */
  op: CompareOperator;
  /** The constant, as the comparison converts it. */
  value: number | bigint;
}

/**
 * The comparison `expression` is when it is exactly one comparison of a column as it is stored
 * (no arithmetic, no cast that changes a value) with a constant; else `undefined`. For
 * `runWhere`; not part of the package's exports.
 *
 * @example
 * ```ts
 * storedComparison(compileExpression("2.5 < price", schema)); // { column: "price", op: ">", value: 2.5 }
 * ```
 */
export function storedComparison(expression: CompiledExpression): StoredComparison | undefined {
  return internalsOf(expression).comparison();
}

/**
 * How many of `rows` rows `expression` holds for: the number of 1s of its
 * {@link CompiledExpression.evaluate} mask, counted without making the mask where the expression
 * allows (a column compared with a constant). For `runWhere`'s counts; not part of the package's
 * exports.
 *
 * @example
 * ```ts
 * const q = compileExpression("x > 1", { x: { dtype: parseDtype("<f8") } });
 * countMatches(q, { x: new Uint8Array(new Float64Array([0, 2, 3]).buffer) }, 3); // 2
 * ```
 */
export function countMatches(expression: CompiledExpression, input: ExpressionInput, rows: number): number {
  return internalsOf(expression).count(input, rows);
}

/**
 * The row numbers where `expression` holds over a block of `rows` rows whose first row is
 * `first` (`first` + each position of `[0, rows)`, in increasing order), when the SIMD kernels
 * can find them without a mask leaving WebAssembly memory (comparisons of columns with
 * constants joined by one of `&`, `|`); otherwise the mask {@link CompiledExpression.evaluate}
 * gives, from the same evaluation (nothing is computed twice). For `runWhere`'s row numbers;
 * not part of the package's exports.
 *
 * @example
 * ```ts
 * const q = compileExpression("x > 1", { x: { dtype: parseDtype("<f8") } });
 * matchRowsOrMask(q, { x: new Uint8Array(new Float64Array(100).fill(2).buffer) }, 100, 500); // { rows: Float64Array [500, 501, …, 599] }
 * ```
 */
export function matchRowsOrMask(expression: CompiledExpression, input: ExpressionInput, rows: number, first: number): { rows: Float64Array } | { mask: Uint8Array } {
  return internalsOf(expression).rowsOrMask(input, rows, first);
}
