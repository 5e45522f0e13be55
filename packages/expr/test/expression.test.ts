// The expression language on its own: parse trees, formatting round trips, type errors with
// positions, hostile input, and the vectorised evaluator against the per-row reference on
// hand-built blocks.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { UsageError, isBcolzError } from "@fmt/errors";
import { parseDtype } from "@fmt/meta";
import { EXPRESSION_LIMITS, compileExpression, formatExpression, parseExpression } from "../src/expression.js";
import type { ExpressionNode, ExpressionSchema } from "../src/expression.js";
import { RefTypeError, columnRefType, expressionArbitrary, randomBlock, refType, refWhere, stripSpans } from "./expression-reference.js";
import type { GenSchema } from "./expression-reference.js";

function col(name: string): ExpressionNode {
  return { kind: "column", name };
}

function thrown(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw new Error(`expected a UsageError, got ${String(e)}`, { cause: e });
  }
  throw new Error("expected a UsageError, nothing was thrown");
}

describe("parseExpression", () => {
  it("parses the documented example with comparisons binding tighter than & and |", () => {
    const tree = stripSpans(parseExpression('f64 > 2906.5 & (i32 < 10 | name == "x")'));
    expect(tree).toEqual({
      kind: "and",
      operands: [
        { kind: "compare", op: ">", left: col("f64"), right: { kind: "float", value: 2906.5 } },
        {
          kind: "or",
          operands: [
            { kind: "compare", op: "<", left: col("i32"), right: { kind: "integer", value: 10n } },
            { kind: "compare", op: "==", left: col("name"), right: { kind: "string", value: "x" } },
          ],
        },
      ],
    });
  });

  it("reads words and symbols alike, and Python's True/False", () => {
    const a = stripSpans(parseExpression("not a and b or c"));
    const b = stripSpans(parseExpression("~a & b | c"));
    expect(a).toEqual(b);
    expect(a).toEqual({ kind: "or", operands: [{ kind: "and", operands: [{ kind: "not", operand: col("a") }, col("b")] }, col("c")] });
    expect(stripSpans(parseExpression("True"))).toEqual({ kind: "boolean", value: true });
    expect(stripSpans(parseExpression("false"))).toEqual({ kind: "boolean", value: false });
  });

  it("reads literals: big and negative integers, floats, exponents, strings with escapes, bytes", () => {
    const lit = (text: string): unknown => stripSpans(parseExpression(`x == ${text}`));
    const right = (text: string): unknown => (lit(text) as { right: unknown }).right;
    expect(right("18446744073709551616")).toEqual({ kind: "integer", value: 18446744073709551616n });
    expect(right("-9223372036854775808")).toEqual({ kind: "integer", value: -9223372036854775808n });
    expect(right("-2.5e-3")).toEqual({ kind: "float", value: -0.0025 });
    expect(right("1.")).toEqual({ kind: "float", value: 1 });
    expect(right(".5")).toEqual({ kind: "float", value: 0.5 });
    expect(right("1E+2")).toEqual({ kind: "float", value: 100 });
    expect(right("'it\\'s \\\"q\\\" \\\\ \\n\\t\\0\\x41\\u00e9\\u{1F600}'")).toEqual({ kind: "string", value: "it's \"q\" \\ \n\t\0A\u00e9\u{1F600}" });
    expect(right('b"\\xff\\xfeA"')).toEqual({ kind: "bytes", value: new Uint8Array([0xff, 0xfe, 0x41]) });
    expect(right("`true`")).toEqual(col("true"));
    expect(right("`weird name`")).toEqual(col("weird name"));
    expect(right("café")).toEqual(col("café"));
  });

  it("records the source spans of nodes and operators", () => {
    const tree = parseExpression("  price >= 10");
    expect(tree).toMatchObject({ kind: "compare", start: 2, end: 13, opStart: 8, opEnd: 10 });
  });

  it.each([
    ["a = 1", 2, "="],
    ["a > ", 4, "end of expression"],
    ["(a > 1", 6, "end of expression"],
    ["a > 1)", 5, ")"],
    ["a < b < c", 6, "<"],
    ["a >> 3", 3, ">"],
    ["x == 'abc", 5, "'abc"],
    ["1abc > 2", 0, "1abc"],
    ["a ! b", 2, "!"],
    ["a > 1e", 4, "1e"],
    ["x == '\\q'", 6, "\\q"],
    ["x == b'é'", 7, "é"],
    ["x == b'\\u0041'", 7, "\\u"],
    ["a and and b", 6, "and"],
    ["", 0, "end of expression"],
    ["x == `", 5, "`"],
    ["1e999 > x", 0, "1e999"],
    ["a $ b", 2, "$"],
  ])("refuses %j at offset %i", (text, position, token) => {
    const e = thrown(() => parseExpression(text));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.field).toBe("expression");
    expect(typeof e.expected).toBe("string");
    expect(e.actual).toMatchObject({ position });
    expect((e.actual as { token: string }).token.startsWith(token)).toBe(true);
  });

  it("shows the expression with a caret under the bad token", () => {
    const e = thrown(() => parseExpression("price = 5"));
    const lines = e.message.split("\n");
    expect(lines[0]).toContain('unexpected "=" at column 7');
    expect(lines[1]).toBe("  price = 5");
    expect(lines[2]!.startsWith("        ^ ")).toBe(true);
    const multi = thrown(() => parseExpression("a > 1 &\n  (b < 2 |\n   c $ 3)"));
    expect(multi.message).toContain("line 3, column 6");
    expect(multi.message.split("\n")[1]).toBe("     c $ 3)");
    expect(multi.message.split("\n")[2]).toMatch(/^ {7}\^ /);
  });

  it("refuses integer literals longer than the limit and accepts the limit", () => {
    const max = EXPRESSION_LIMITS.maxIntegerDigits;
    expect(parseExpression(`x > ${"9".repeat(max)}`).kind).toBe("compare");
    expect(thrown(() => parseExpression(`x > ${"9".repeat(max + 1)}`)).code).toBe("INVALID_ARGUMENT");
  });

  it("bounds nesting depth: parentheses, unary chains and tall trees", () => {
    const n = 100_000 / 4;
    for (const text of [
      `${"(".repeat(n)}a${")".repeat(n)}`,
      `${"~".repeat(n)}a`,
      `${"not ".repeat(n / 2)}a`,
      `x == ${"-".repeat(n)}y`,
      `x > ${"a + ".repeat(n / 2)}a`,
      `x > ${"a * (".repeat(n / 2)}a${")".repeat(n / 2)}`,
    ]) {
      const e = thrown(() => parseExpression(text));
      expect(e.code).toBe("INVALID_ARGUMENT");
      expect(e.message).toContain("nested too deeply");
    }
    const d = EXPRESSION_LIMITS.maxDepth;
    expect(() => parseExpression(`${"(".repeat(d - 1)}a${")".repeat(d - 1)}`)).not.toThrow();
    // Flat chains of & and | do not grow the tree, so long membership tests stay possible.
    const many = Array.from({ length: 5000 }, (_, i) => `x == ${i}`).join(" | ");
    expect(parseExpression(many)).toMatchObject({ kind: "or" });
  });

  it("refuses texts longer than the limit", () => {
    expect(thrown(() => parseExpression(`a${" ".repeat(EXPRESSION_LIMITS.maxLength)}`)).code).toBe("INVALID_ARGUMENT");
    expect(thrown(() => parseExpression(42 as unknown as string)).code).toBe("INVALID_ARGUMENT");
  });

  it("never throws anything but UsageError INVALID_ARGUMENT on arbitrary text", () => {
    const pieces = ["(", ")", "~", "&", "|", "==", "=", "!", "!=", "<", ">=", "-", "+", "*", "/", "%", "a", "b1", "`x`", "'s'", '"\\', "b'", "1", "1e", ".", "0.5", "99999999999999999999", "and", "not", "or", "true", " ", "\n", "\u{1F600}", "\0"];
    const schema: ExpressionSchema = { a: { dtype: parseDtype("<f8") }, b1: { dtype: parseDtype("|b1") }, x: { dtype: parseDtype("|S3") } };
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((p) => p.join(""))), (text) => {
        for (const fn of [() => parseExpression(text), () => compileExpression(text, schema)]) {
          try {
            fn();
          } catch (e) {
            if (!isBcolzError(e, "INVALID_ARGUMENT") || !(e instanceof UsageError) || e.field !== "expression") throw e;
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});

const SCHEMA_TYPES: [string, string][] = [
  ["b", "|b1"],
  ["i1", "|i1"],
  ["i4", "<i4"],
  ["u2", "<u2"],
  ["u4", ">u4"],
  ["f4", "<f4"],
  ["f8", "<f8"],
  ["h", "<f2"],
  ["i8", "<i8"],
  ["u8", "<u8"],
  ["ts", "<M8[ns]"],
  ["s", "|S4"],
  ["u", "<U3"],
  ["ub", ">U2"],
];
const SCHEMA: ExpressionSchema = Object.fromEntries(SCHEMA_TYPES.map(([n, d]) => [n, { dtype: parseDtype(d) }]));

const GEN: GenSchema = {
  bool: ["b"],
  num: ["i1", "i4", "u2", "u4", "f4", "f8", "h", "i8", "u8", "ts"],
  bytes: ["s"],
  text: ["u", "ub"],
  numbers: [0n, -1n, 2147483647n, -2147483648n, 4294967295n, 9007199254740993n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 64n - 1n, 2n ** 64n, 0.5, -0, 1e300, 5e-324],
  byteValues: [new Uint8Array([0x61, 0, 0x62]), new Uint8Array([0xff]), new Uint8Array([0x41, 0x42, 0x43, 0x44, 0x45])],
  strings: ["é", "a\0", "\u{1F600}", "ab"],
};

describe("formatExpression", () => {
  it("writes minimal parentheses and canonical literals", () => {
    expect(formatExpression(parseExpression("(a>1)&(b<2|c==-3)"))).toBe("a > 1 & (b < 2 | c == -3)");
    expect(formatExpression(parseExpression("((a | b) | c) & ~(d & e)"))).toBe("((a | b) | c) & ~(d & e)");
    expect(formatExpression(parseExpression("x - (y - z) == -(x * y) % 2"))).toBe("x - (y - z) == -(x * y) % 2");
    expect(formatExpression(parseExpression("x == 2.0 | y == -0.0 | z == 1e21"))).toBe("x == 2.0 | y == -0.0 | z == 1e+21");
    expect(formatExpression(parseExpression("`and` == 'a\"\\\\\\n'"))).toBe('`and` == "a\\"\\\\\\u{a}"');
    expect(formatExpression(parseExpression("a & ~b | c"), { words: true })).toBe("a and not b or c");
  });

  it("round-trips random trees through text (symbols and words)", () => {
    fc.assert(
      fc.property(expressionArbitrary(GEN, { illTyped: true }), fc.boolean(), (tree, words) => {
        const text = formatExpression(tree, { words });
        expect(stripSpans(parseExpression(text))).toEqual(stripSpans(tree));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("compileExpression type checks", () => {
  it.each([
    ['f8 > "x"', "cannot compare a float64 number with a string", ">"],
    ["s == u", "cannot compare bytes with a string", "=="],
    ['u == b"x"', "cannot compare a string with bytes", "=="],
    ["b + b > 0", "arithmetic on two booleans", "+"],
    ["-b == 1", "cannot negate a boolean", "-"],
    ["i4 + s > 1", "arithmetic needs numbers, not bytes", "+"],
    ["-s == s", "cannot negate bytes", "-"],
    ["~i4", '"not" needs a condition, not an int32 number', "~"],
    ["i4 & b", '"and" needs conditions, not an int32 number', "i4"],
    ["b & 1", '"and" needs conditions, not an integer', "1"],
    ["nope > 1", 'unknown column "nope"', "nope"],
    ["i4 + 1", "the expression is an int32 number, not a condition", "i4 + 1"],
    ["~true", "the expression is an integer, not a condition", "~true"],
    ["i8 + 9223372036854775808 > 0", "Python int too large to convert to C long (numexpr raises OverflowError)", "9223372036854775808"],
    ["i4 > -9223372036854775809", "Python int too large to convert to C long", "-9223372036854775809"],
    ["u8 > 1", 'column "u8" has dtype <u8: numexpr cannot cast uint64 to int64 safely', "u8"],
    ["i4 // 2 > 0", "numexpr has no floor division of arrays", "//"],
    ["1 / 0 < i4", "division by zero (numexpr raises ZeroDivisionError)", "/"],
    ["7 % 0 < i4", "integer modulo by zero (numexpr raises ZeroDivisionError)", "%"],
    ["f8 / 0.0 > 1", "float division by zero (numexpr raises ZeroDivisionError)", "/"],
    ["i4 / -0.0 > 1", "float division by zero", "/"],
    ["true & (i4 > 0)", 'a constant on the left of "&" with a column-based right side', "i4 > 0"],
    ["false | b", 'a constant on the left of "|" with a column-based right side', "b"],
    ["s == 'é'", "non-ASCII string literal compared with an S column", "'é'"],
    ["s == 'a' | s == b'b'", "string and bytes literals in one expression", "b'b'"],
    ["2 < 'x' | b", "'<' not supported between instances of 'int' and 'str' (numexpr raises TypeError)", "<"],
  ])("%j → %s", (text, reason, token) => {
    const e = thrown(() => compileExpression(text, SCHEMA));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.field).toBe("expression");
    expect(e.message).toContain(reason);
    expect((e.actual as { token: string; position: number }).token).toBe(token);
    expect((e.actual as { position: number }).position).toBe(text.indexOf(token));
  });

  it("refuses an integer literal beyond float64 in a float64 operation, as numexpr does", () => {
    const e = thrown(() => compileExpression(`f8 > 1${"0".repeat(400)}`, SCHEMA));
    expect(e.message).toContain("integer too large to convert to float (numexpr raises OverflowError)");
    expect((e.actual as { position: number }).position).toBe(5);
    // One that float64 holds is converted, rounded once.
    expect(compileExpression(`f8 > 1${"0".repeat(300)}`, SCHEMA).columns).toEqual(["f8"]);
  });

  it("refuses complex, void and multidimensional columns", () => {
    const schema: ExpressionSchema = { c: { dtype: parseDtype("<c16") }, v: { dtype: parseDtype("|V4") }, m: { dtype: parseDtype("<f8"), shape: [10, 3] }, ok: { dtype: parseDtype("<f8"), shape: [10, 1] } };
    expect(thrown(() => compileExpression("c == 1", schema)).message).toContain("expressions do not support it");
    expect(thrown(() => compileExpression("v == 1", schema)).message).toContain("expressions do not support it");
    expect(thrown(() => compileExpression("m == 1", schema)).message).toContain("multidimensional");
    expect(compileExpression("ok == 1", schema).columns).toEqual(["ok"]);
  });

  it("agrees with the reference on which random trees are well typed", () => {
    const types = new Map(SCHEMA_TYPES.map(([n, d]) => [n, columnRefType(d)] as const));
    fc.assert(
      fc.property(expressionArbitrary(GEN, { illTyped: true }), (tree) => {
        let valid: boolean;
        try {
          valid = refType(tree, types) === "bool";
        } catch (e) {
          if (!(e instanceof RefTypeError)) throw e;
          valid = false;
        }
        let compiled = true;
        try {
          compileExpression(formatExpression(tree), SCHEMA);
        } catch (e) {
          if (!(e instanceof UsageError) || e.code !== "INVALID_ARGUMENT") throw e;
          compiled = false;
        }
        expect(compiled).toBe(valid);
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses hand-built trees that are malformed, cyclic or too deep with UsageError", () => {
    const cyclic: { kind: "not"; operand: unknown } = { kind: "not", operand: undefined };
    cyclic.operand = cyclic;
    let deep: ExpressionNode = { kind: "boolean", value: true };
    for (let i = 0; i < 10_000; i++) deep = { kind: "not", operand: deep };
    const bad: unknown[] = [
      null,
      42,
      { kind: "what" },
      { kind: "and", operands: [{ kind: "boolean", value: true }] },
      { kind: "integer", value: 1 },
      { kind: "column", name: 5 },
      { kind: "negate" },
      { kind: "float", value: NaN },
      { kind: "compare", op: "<>", left: { kind: "integer", value: 1n }, right: { kind: "integer", value: 1n } },
      cyclic,
      deep,
    ];
    for (const node of bad) {
      expect(thrown(() => compileExpression(node as ExpressionNode, SCHEMA)).code).toBe("INVALID_ARGUMENT");
      expect(thrown(() => formatExpression(node as ExpressionNode)).code).toBe("INVALID_ARGUMENT");
    }
  });
});

// ---------------------------------------------------------------------------------------------
// evaluation on hand-built blocks

describe("vectorised evaluation", () => {
  const types = new Map(SCHEMA_TYPES.map(([n, d]) => [n, columnRefType(d)] as const));
  it("matches the per-row reference on random blocks", () => {
    fc.assert(
      fc.property(
        expressionArbitrary(GEN).filter((t) => {
          try {
            return refType(t, types) === "bool";
          } catch {
            return false;
          }
        }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer(),
        (tree, n, seed) => {
          const { ref, bytes } = randomBlock(SCHEMA_TYPES, n, seed);
          const compiled = compileExpression(formatExpression(tree), SCHEMA);
          const mask = compiled.evaluate(bytes, n);
          const got = [...mask.keys()].filter((i) => mask[i] === 1);
          expect(got).toEqual(refWhere(tree, ref, n));
          // A tree compiles to the same evaluator as its text.
          expect(compileExpression(tree, SCHEMA).evaluate(bytes, n)).toEqual(mask);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("treats int64 as numexpr does: exact with int literals, rounded to float64 next to floats, wrapping", () => {
    // Expected values measured with python3-numexpr 2.8.4.
    const i8 = new BigInt64Array([9007199254740992n, 9007199254740993n, -(2n ** 63n), 2n ** 63n - 1n]);
    const f8 = new Float64Array([9007199254740992, 9007199254740992, -(2 ** 63), 2 ** 63]);
    const schema: ExpressionSchema = { i8: { dtype: parseDtype("<i8") }, f8: { dtype: parseDtype("<f8") } };
    const input = { i8: new Uint8Array(i8.buffer), f8: new Uint8Array(f8.buffer) };
    const run = (text: string): number[] => [...compileExpression(text, schema).evaluate(input, 4)];
    expect(run("i8 == 9007199254740993")).toEqual([0, 1, 0, 0]);
    expect(run("i8 == f8")).toEqual([1, 1, 1, 1]);
    expect(run("i8 < f8")).toEqual([0, 0, 0, 0]);
    expect(run("i8 > 9007199254740992.5")).toEqual([0, 0, 0, 1]);
    expect(run("i8 < 1e300 & i8 > -1e300")).toEqual([1, 1, 1, 1]);
    expect(run("i8 + 1 < i8")).toEqual([0, 0, 0, 1]); // int64 wraps like C
    expect(run("i8 % 0 == 0")).toEqual([1, 1, 1, 1]);
    expect(run("f8 % 0 == f8 % 0")).toEqual([0, 0, 0, 0]); // NaN
  });

  it("answers 0 for INT_MIN % -1, where numexpr dies with SIGFPE (spec/expressions.md §8)", () => {
    const schema: ExpressionSchema = { a: { dtype: parseDtype("<i4") }, l: { dtype: parseDtype("<i8") }, m: { dtype: parseDtype("<i8") } };
    const input = { a: new Uint8Array(new Int32Array([-2147483648, 7]).buffer), l: new Uint8Array(new BigInt64Array([-(2n ** 63n), 7n]).buffer), m: new Uint8Array(new BigInt64Array([-1n, -1n]).buffer) };
    const run = (text: string): number[] => [...compileExpression(text, schema).evaluate(input, 2)];
    expect(run("a % -1 == 0")).toEqual([1, 1]);
    expect(run("l % m == 0")).toEqual([1, 1]);
    expect(run("-a == a")).toEqual([1, 0]); // wraps
  });

  it("keeps Python's meaning of unary + and reads // (literals only)", () => {
    expect(formatExpression(parseExpression("+true == 1"))).toBe("true * 1 == 1");
    expect(formatExpression(parseExpression("+i4 > +5"))).toBe("i4 > 5");
    expect(formatExpression(parseExpression("7 // 2 == i4 // 1"))).toBe("7 // 2 == i4 // 1");
    const input = { i4: new Uint8Array(new Int32Array([1, 3]).buffer) };
    expect([...compileExpression("i4 == 7 // 2", SCHEMA).evaluate(input, 2)]).toEqual([0, 1]);
    expect([...compileExpression("i4 == -7 // 2 + 5", SCHEMA).evaluate(input, 2)]).toEqual([1, 0]);
    expect([...compileExpression("i4 + +true == 2", SCHEMA).evaluate(input, 2)]).toEqual([1, 0]);
  });

  it("checks the byte length of every input column", () => {
    const schema: ExpressionSchema = { x: { dtype: parseDtype("<i4") } };
    const q = compileExpression("x > 1", schema);
    expect(thrown(() => q.evaluate({ x: new Uint8Array(7) }, 2)).code).toBe("INVALID_ARGUMENT");
    expect(thrown(() => q.evaluate({}, 2)).code).toBe("INVALID_ARGUMENT");
    expect(thrown(() => q.evaluate({ x: new Uint8Array(8) }, -1)).code).toBe("INVALID_ARGUMENT");
    expect([...compileExpression("x > 1 | true", schema).evaluate({ x: new Uint8Array(8) }, 2)]).toEqual([1, 1]);
    // The columns of an operation whose answer a literal decides are still checked.
    expect(thrown(() => compileExpression("x > 1 | true", schema).evaluate({ x: new Uint8Array(7) }, 2)).code).toBe("INVALID_ARGUMENT");
  });
});
