/**
 * The query language of bcolz ctables and the evaluation of `where` queries, independent of any
 * storage:
 *
 * - {@link parseExpression} turns text into an {@link ExpressionNode} tree,
 *   {@link formatExpression} turns a tree back into canonical text;
 * - {@link compileExpression} type-checks a tree against column dtypes and returns a vectorised
 *   evaluator over blocks of stored column bytes;
 * - {@link runWhere} runs an expression or a JS predicate over any {@link WhereTable} (a table
 *   that hands out row blocks), returning matching row numbers, rows or a count;
 * - {@link decodeValues} turns stored bytes into JavaScript {@link Values}.
 *
 * `@fmt/store` re-exports all of it and implements `CTable.where` with {@link runWhere}.
 *
 * @example
 * ```ts
 * import { compileExpression } from "@fmt/expr";
 * import { parseDtype } from "@fmt/meta";
 *
 * const q = compileExpression("price > 10 & qty < 5", { price: { dtype: parseDtype("<f8") }, qty: { dtype: parseDtype("<i4") } });
 * const mask = q.evaluate({ price: new Uint8Array(new Float64Array([12, 3]).buffer), qty: new Uint8Array(new Int32Array([1, 1]).buffer) }, 2);
 * // mask: Uint8Array [1, 0]
 * ```
 * @packageDocumentation
 */

export { EXPRESSION_KEYWORDS, EXPRESSION_LIMITS, compileExpression, formatExpression, parseExpression } from "./expression.js";
export type { ArithmeticOperator, CompareOperator, CompiledExpression, ExpressionErrorLocation, ExpressionInput, ExpressionNode, ExpressionSchema, FormatExpressionOptions, NodeSpan, StoredComparison } from "./expression.js";
export { runWhere } from "./where.js";
export type { BlockPredicate, PredicateBlock, RowPredicate, WhereBlock, WhereOptions, WhereQuery, WhereResult, WhereTable } from "./where.js";
export { byteOrderUnit, decodeValues, entriesPerElement, halfToNumber, toLittleEndian } from "./values.js";
export type { ColumnValues, Scalar, TypedValues, Values } from "./values.js";
export { checkInteger, normalizeSlice } from "./slice.js";
