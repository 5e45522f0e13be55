/**
 * The where-expression target: mutated expressions through `parseExpression` and
 * `compileExpression` against a fixed schema, and the compiled evaluator over a few rows.
 *
 * @example
 * ```ts
 * import { expressionTarget } from "./expression.js";
 * ```
 * @packageDocumentation
 */
import { parseDtype } from "@fmt/meta";
import { compileExpression, parseExpression, type ExpressionSchema } from "@fmt/store";
import { single, singleBytes } from "../input.js";
import { mutateBytes, tokens } from "../mutate.js";
import type { FuzzTarget } from "../target.js";

const SCHEMA: ExpressionSchema = {
  i: { dtype: parseDtype("<i4") },
  u: { dtype: parseDtype("<u8") },
  l: { dtype: parseDtype(">i8") },
  f: { dtype: parseDtype("<f8") },
  h: { dtype: parseDtype("<f2") },
  b: { dtype: parseDtype("|b1") },
  s: { dtype: parseDtype("|S4") },
  w: { dtype: parseDtype("<U3") },
  t: { dtype: parseDtype("<M8[ns]") },
  v: { dtype: parseDtype("<i2"), shape: [0, 3] },
};
const ROWS = 5;
// Column bytes for the evaluator: a fixed pattern covering zero, negative and NaN bit patterns.
const COLUMN_BYTES: { [name: string]: Uint8Array } = Object.fromEntries(
  Object.entries(SCHEMA).map(([name, { dtype, shape }]) => {
    const perRow = dtype.itemsize * (shape?.slice(1).reduce((a, b) => a * b, 1) ?? 1);
    return [name, Uint8Array.from({ length: perRow * ROWS }, (_, k) => (k * 37 + 0xf8) & 0xff)];
  }),
);

const SEEDS = [
  "i > 3", "f < 1.5e3 & i != 0", "(i + 2) * 3 >= u", "s == b'ab'", "w != 'xy'", "b & ~(i < 0)", "l % 7 == -1", "f != f", "t > 0",
  "h <= -0.5 | i // 2 == 1", "u >= 18446744073709551615", "i ** 2 > 100", "-i < 3 and not b", "v > 1", "i in (1, 2, 3)",
  "(((((i)))))", "f == 1.7976931348623157e308", "s > b'\\xff'",
];
const EXPRESSION_TOKENS = tokens(" ", "(", ")", "[", "]", ",", "+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==", "!=", "&", "|", "~", "^",
  "and", "or", "not", "in", "True", "False", "None", "i", "u", "l", "f", "h", "b", "s", "w", "t", "v", "x", "__proto__", "constructor",
  "0", "1e308", "1e999", "0x1F", "-9223372036854775809", "18446744073709551616", "1_000", ".5", "'", "\"", "b'", "'\\x00'", "'\\u12'", "\\",
  "((((((((((((((((", "))))))))))))))))", "\u00e9", "\ud800", "\t", "\n", "#");

/**
 * `parseExpression` + `compileExpression` + `evaluate` on mutated expressions.
 *
 * @example
 * ```ts
 * expressionTarget.run(single(new TextEncoder().encode("i > 3")));
 * ```
 */
export const expressionTarget: FuzzTarget = {
  name: "expression",
  description: "parseExpression + compileExpression + evaluate over 5 rows, mutated where-expressions",
  seeds: () => tokens(...SEEDS).map(single),
  generate: (rng, seeds) => single(mutateBytes(rng, singleBytes(rng.pick(seeds)), { dictionary: EXPRESSION_TOKENS, stack: 6, maxLength: 4096 })),
  run(input) {
    const text = new TextDecoder().decode(singleBytes(input));
    const node = parseExpression(text);
    const compiled = compileExpression(node, SCHEMA);
    const columns: { [name: string]: Uint8Array } = {};
    for (const name of compiled.columns) columns[name] = COLUMN_BYTES[name] ?? new Uint8Array(0);
    compiled.evaluate(columns, ROWS);
  },
};
