// The syntax tree of the expression language: the node types that the parser produces, the
// formatter writes back and the compiler type-checks, and the operator and keyword sets those
// three share. A module of its own so that none of them imports another for this vocabulary.

/**
 * Comparison operators of the expression language.
 *
 * @example
 * ```ts
 * const op: CompareOperator = "<=";
 * ```
 */
export type CompareOperator = "==" | "!=" | "<" | "<=" | ">" | ">=";

/**
 * Arithmetic operators of the expression language: `/` is true division, `%` follows numexpr
 * (C's truncating remainder on integer arrays, floored on float arrays, Python's between
 * literals), `//` exists between literals only (spec/expressions.md).
 *
 * @example
 * ```ts
 * const op: ArithmeticOperator = "%";
 * ```
 */
export type ArithmeticOperator = "+" | "-" | "*" | "/" | "//" | "%";

/**
 * Source position of a node: `start`/`end` are UTF-16 offsets into the expression text; binary
 * and unary nodes also carry the operator's span. The parser fills them; nodes built by hand may
 * leave them out, and {@link formatExpression} ignores them.
 *
 * @example
 * ```ts
 * const span: NodeSpan = { start: 0, end: 5 };
 * ```
 */
export interface NodeSpan {
  /** Offset of the node's first character. */
  start?: number;
  /** Offset one past the node's last character. */
  end?: number;
  /** Offset of the operator token (binary and unary nodes). */
  opStart?: number;
  /** Offset one past the operator token. */
  opEnd?: number;
}

/**
 * A node of the syntax tree produced by {@link parseExpression}:
 *
 * | kind | meaning |
 * |---|---|
 * | `column` | a column, by name |
 * | `integer` | integer literal (exact, any size) |
 * | `float` | floating-point literal (finite) |
 * | `string` | text literal: compared with `U` columns as code points, with `S` columns as UTF-8 bytes |
 * | `bytes` | `b"..."` literal: compared with `S` columns only |
 * | `boolean` | `true` / `false` |
 * | `compare` | `left op right`, op in {@link CompareOperator} |
 * | `arithmetic` | `left op right`, op in {@link ArithmeticOperator} |
 * | `negate` | unary minus |
 * | `not` | logical not (`~` or `not`) |
 * | `and` / `or` | two or more operands (`&`/`and`, `\|`/`or`) |
 *
 * @example
 * ```ts
 * const node: ExpressionNode = {
 *   kind: "compare", op: ">",
 *   left: { kind: "column", name: "price" },
 *   right: { kind: "float", value: 2906.5 },
 * };
 * formatExpression(node); // "price > 2906.5"
 * ```
 */
export type ExpressionNode =
  | ({ kind: "column"; name: string } & NodeSpan)
  | ({ kind: "integer"; value: bigint } & NodeSpan)
  | ({ kind: "float"; value: number } & NodeSpan)
  | ({ kind: "string"; value: string } & NodeSpan)
  | ({ kind: "bytes"; value: Uint8Array } & NodeSpan)
  | ({ kind: "boolean"; value: boolean } & NodeSpan)
  | ({ kind: "compare"; op: CompareOperator; left: ExpressionNode; right: ExpressionNode } & NodeSpan)
  | ({ kind: "arithmetic"; op: ArithmeticOperator; left: ExpressionNode; right: ExpressionNode } & NodeSpan)
  | ({ kind: "negate"; operand: ExpressionNode } & NodeSpan)
  | ({ kind: "not"; operand: ExpressionNode } & NodeSpan)
  | ({ kind: "and" | "or"; operands: ExpressionNode[] } & NodeSpan);

export const COMPARE_OPERATORS = new Set<string>(["==", "!=", "<", "<=", ">", ">="]);
export const ARITHMETIC_OPERATORS = new Set<string>(["+", "-", "*", "/", "//", "%"]);
export const KEYWORDS = new Set(["and", "or", "not", "true", "false", "True", "False"]);

/**
 * Words with a meaning in the expression language (`and`, `or`, `not`, `true`, `false`, `True`,
 * `False`). A column with such a name is written in backticks: `` `true` == 1 ``.
 *
 * @example
 * ```ts
 * EXPRESSION_KEYWORDS.has("and"); // true
 * ```
 */
export const EXPRESSION_KEYWORDS: ReadonlySet<string> = KEYWORDS;
