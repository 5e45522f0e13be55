// A straightforward per-row evaluator of expression trees, written independently of the
// vectorised engine in src/expression.ts, plus fast-check generators of expression trees.
// Semantics restated from the documentation of compileExpression:
// - b1 → boolean; i1..i4/u1..u4 → 32-bit ints as numbers; f2/f4/f8 → numbers; i8/M8 → int64;
//   u8 → uint64; S → bytes; U → code points.
// - comparisons are exact between any numbers; NaN is unordered; strings/bytes compare
//   lexicographically with trailing NULs removed; text literals next to bytes are UTF-8.
// - arithmetic: "/" is float; two 64-bit integers of the same signedness, or a 64-bit integer with
//   an integer literal (fitting) or a ≤32-bit integer column (unless uint64 with a signed one),
//   wrap modulo 2^64; two integer literals → int64; everything else is float64.
import fc from "fast-check";
import type { ExpressionNode, CompareOperator, ArithmeticOperator } from "@fmt/expr";
import { parseDtype } from "@fmt/meta";

export type RefType = "bool" | "i32s" | "u32" | "f" | "i64" | "u64" | "lit" | "S" | "U" | "text";

export interface RefColumn {
  name: string;
  /** numpy dtype.str */
  dtype: string;
  /** Row values: boolean | number | bigint | number[] (S bytes, stripped) | number[] (U code points, stripped). */
  values: unknown[];
}

export class RefTypeError extends Error {}

export function columnRefType(dtype: string): RefType {
  const kind = dtype[1]!;
  const size = Number(dtype.slice(2).replace(/\[.*$/, ""));
  switch (kind) {
    case "b":
      return "bool";
    case "i":
      return size === 8 ? "i64" : "i32s";
    case "u":
      return size === 8 ? "u64" : "u32";
    case "f":
      return "f";
    case "M":
    case "m":
      return "i64";
    case "S":
      return "S";
    case "U":
      return "U";
    default:
      throw new Error(`reference does not know ${dtype}`);
  }
}

const NUMERIC = new Set<RefType>(["i32s", "u32", "f", "i64", "u64", "lit"]);
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

function fits(v: bigint, t: "i64" | "u64"): boolean {
  return t === "i64" ? v >= I64_MIN && v <= I64_MAX : v >= 0n && v <= U64_MAX;
}

/** Static type of a node per the documented rules; throws RefTypeError when invalid. */
export function refType(node: ExpressionNode, schema: Map<string, RefType>): RefType {
  switch (node.kind) {
    case "column": {
      const t = schema.get(node.name);
      if (t === undefined) throw new RefTypeError("unknown column");
      return t;
    }
    case "integer":
      return "lit";
    case "float":
      return "f";
    case "string":
      return "text";
    case "bytes":
      return "S";
    case "boolean":
      return "bool";
    case "not": {
      if (refType(node.operand, schema) !== "bool") throw new RefTypeError("not");
      return "bool";
    }
    case "and":
    case "or":
      for (const o of node.operands) if (refType(o, schema) !== "bool") throw new RefTypeError("logic");
      return "bool";
    case "negate": {
      const t = refType(node.operand, schema);
      if (!NUMERIC.has(t)) throw new RefTypeError("negate");
      if (t === "i64" || t === "u64") return t;
      if (t === "lit") return "i64";
      return "f";
    }
    case "compare": {
      const a = refType(node.left, schema);
      const b = refType(node.right, schema);
      if (a === "bool" || b === "bool") {
        if (a !== b || (node.op !== "==" && node.op !== "!=")) throw new RefTypeError("bool compare");
        return "bool";
      }
      if (NUMERIC.has(a) || NUMERIC.has(b)) {
        if (!NUMERIC.has(a) || !NUMERIC.has(b)) throw new RefTypeError("mixed compare");
        return "bool";
      }
      if ((a === "S" && b === "U") || (a === "U" && b === "S")) throw new RefTypeError("S vs U");
      return "bool";
    }
    case "arithmetic": {
      const a = refType(node.left, schema);
      const b = refType(node.right, schema);
      if (!NUMERIC.has(a) || !NUMERIC.has(b)) throw new RefTypeError("arith");
      if (node.op === "/") return "f";
      if (a === "lit" && b === "lit") {
        if (!fits((node.left as { value: bigint }).value, "i64") || !fits((node.right as { value: bigint }).value, "i64")) throw new RefTypeError("literal range");
        return "i64";
      }
      const aBig = a === "i64" || a === "u64";
      const bBig = b === "i64" || b === "u64";
      if (!aBig && !bBig) return "f";
      const big = (aBig ? a : b) as "i64" | "u64";
      const other = aBig ? b : a;
      const otherNode = aBig ? node.right : node.left;
      if (other === "i64" || other === "u64") return other === big ? big : "f";
      if (other === "lit") {
        const v = (otherNode as { value: bigint }).value;
        if (big === "u64" && v < 0n) return "f";
        if (!fits(v, big)) throw new RefTypeError("literal range");
        return big;
      }
      if (other === "i32s") return big === "u64" ? "f" : big;
      if (other === "u32") return big;
      return "f";
    }
  }
}

/** Exact comparison of two finite-or-infinite numbers/bigints; NaN for unordered. */
function exactSign(x: number | bigint, y: number | bigint): number {
  if (typeof x === "number" && typeof y === "number") return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  if (typeof x === "bigint" && typeof y === "bigint") return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === "bigint") return -exactSign(y, x);
  const d = x as number;
  const b = y as bigint;
  if (Number.isNaN(d)) return NaN;
  if (d === Infinity) return 1;
  if (d === -Infinity) return -1;
  // d = mantissa × 2^exponent exactly; compare in integers.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, d);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let exponent: number;
  if (expBits === 0) exponent = -1074;
  else {
    mantissa |= 1n << 52n;
    exponent = expBits - 1075;
  }
  if (negative) mantissa = -mantissa;
  let lhs = mantissa;
  let rhs = b;
  if (exponent >= 0) lhs <<= BigInt(exponent);
  else rhs <<= BigInt(-exponent);
  return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
}

function test(op: CompareOperator, s: number): boolean {
  if (Number.isNaN(s)) return op === "!=";
  switch (op) {
    case "==":
      return s === 0;
    case "!=":
      return s !== 0;
    case "<":
      return s < 0;
    case "<=":
      return s <= 0;
    case ">":
      return s > 0;
    case ">=":
      return s >= 0;
  }
}

function stripTrailingZeros(a: readonly number[]): number[] {
  const out = [...a];
  while (out.length > 0 && out[out.length - 1] === 0) out.pop();
  return out;
}

function lexSign(a: readonly number[], b: readonly number[]): number {
  const x = stripTrailingZeros(a);
  const y = stripTrailingZeros(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

function utf8(s: string): number[] {
  return [...new TextEncoder().encode(s)];
}

function codePointsOf(s: string): number[] {
  return [...s].map((c) => c.codePointAt(0)!);
}

function pyMod(x: number, y: number): number {
  const m = x % y; // C fmod
  return m !== 0 && y < 0 !== m < 0 ? m + y : m;
}

type RefValue = boolean | number | bigint | { text: string } | { bytes: number[] } | { points: number[] };

export function refEval(node: ExpressionNode, schema: Map<string, RefType>, row: Map<string, unknown>): RefValue {
  switch (node.kind) {
    case "column": {
      const t = schema.get(node.name)!;
      const v = row.get(node.name);
      if (t === "S") return { bytes: v as number[] };
      if (t === "U") return { points: v as number[] };
      if (t === "bool") return v === true || v === 1;
      return v as number | bigint;
    }
    case "integer":
      return node.value;
    case "float":
      return node.value;
    case "string":
      return { text: node.value };
    case "bytes":
      return { bytes: [...node.value] };
    case "boolean":
      return node.value;
    case "not":
      return !(refEval(node.operand, schema, row) as boolean);
    case "and":
      return node.operands.map((o) => refEval(o, schema, row) as boolean).every((x) => x);
    case "or":
      return node.operands.map((o) => refEval(o, schema, row) as boolean).some((x) => x);
    case "negate": {
      const t = refType(node, schema);
      const v = refEval(node.operand, schema, row) as number | bigint;
      if (t === "f") return -Number(v);
      const r = -BigInt(v);
      return t === "u64" ? BigInt.asUintN(64, r) : BigInt.asIntN(64, r);
    }
    case "arithmetic": {
      const t = refType(node, schema);
      const a = refEval(node.left, schema, row) as number | bigint;
      const b = refEval(node.right, schema, row) as number | bigint;
      if (t === "f") {
        const x = Number(a);
        const y = Number(b);
        return arithFloat(node.op, x, y);
      }
      const x = BigInt(a);
      const y = BigInt(b);
      let r: bigint;
      switch (node.op) {
        case "+":
          r = x + y;
          break;
        case "-":
          r = x - y;
          break;
        case "*":
          r = x * y;
          break;
        default: {
          if (y === 0n) r = 0n;
          else {
            r = x % y;
            if (r !== 0n && r < 0n !== y < 0n) r += y;
          }
        }
      }
      return t === "u64" ? BigInt.asUintN(64, r) : BigInt.asIntN(64, r);
    }
    case "compare": {
      const ta = refType(node.left, schema);
      const tb = refType(node.right, schema);
      const a = refEval(node.left, schema, row);
      const b = refEval(node.right, schema, row);
      if (ta === "bool") return test(node.op, a === b ? 0 : 1);
      if (NUMERIC.has(ta)) return test(node.op, exactSign(a as number | bigint, b as number | bigint));
      const asBytes = ta === "S" || tb === "S";
      const seq = (v: RefValue): number[] => {
        const o = v as { text?: string; bytes?: number[]; points?: number[] };
        if (o.bytes !== undefined) return o.bytes;
        if (o.points !== undefined) return o.points;
        return asBytes ? utf8(o.text!) : codePointsOf(o.text!);
      };
      return test(node.op, lexSign(seq(a), seq(b)));
    }
  }
}

function arithFloat(op: ArithmeticOperator, x: number, y: number): number {
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      return x / y;
    case "%":
      return pyMod(x, y);
  }
}

/** Indices of the rows where the reference says the expression is true. */
export function refWhere(node: ExpressionNode, columns: RefColumn[], length: number): number[] {
  const schema = new Map(columns.map((c) => [c.name, columnRefType(c.dtype)] as const));
  const out: number[] = [];
  const row = new Map<string, unknown>();
  for (let i = 0; i < length; i++) {
    for (const c of columns) row.set(c.name, c.values[i]);
    if (refEval(node, schema, row) === true) out.push(i);
  }
  return out;
}

/** Removes parser spans, for comparing trees. */
export function stripSpans(node: ExpressionNode): unknown {
  const { start: _s, end: _e, opStart: _os, opEnd: _oe, ...rest } = node as ExpressionNode & { start?: number; end?: number; opStart?: number; opEnd?: number };
  const out: Record<string, unknown> = { ...rest };
  if ("left" in node) out["left"] = stripSpans(node.left);
  if ("right" in node) out["right"] = stripSpans(node.right);
  if ("operand" in node) out["operand"] = stripSpans(node.operand);
  if ("operands" in node) out["operands"] = node.operands.map(stripSpans);
  return out;
}

// ---------------------------------------------------------------------------------------------
// generators

export interface GenSchema {
  bool: string[];
  num: string[]; // every numeric column (any width)
  bytes: string[];
  text: string[]; // U columns
  /** Interesting numeric literals (e.g. values present in the data). */
  numbers: (number | bigint)[];
  /** Interesting byte strings (e.g. values present in S columns). */
  byteValues: Uint8Array[];
  strings: string[];
}

const compareOps: CompareOperator[] = ["==", "!=", "<", "<=", ">", ">="];
const arithOps: ArithmeticOperator[] = ["+", "-", "*", "/", "%"];

function literal(v: number | bigint): ExpressionNode {
  return typeof v === "bigint" ? { kind: "integer", value: v } : { kind: "float", value: v };
}

/**
 * Expression trees over the schema's columns: mostly well-typed conditions, sometimes ill-typed
 * ones (mixed families, non-boolean results), which must then be refused.
 */
export function expressionArbitrary(s: GenSchema, options: { illTyped?: boolean } = {}): fc.Arbitrary<ExpressionNode> {
  const pick = <T>(xs: T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
  const numLiteral = fc.oneof(
    s.numbers.length > 0 ? pick(s.numbers).map(literal) : fc.constant(literal(0n)),
    fc.bigInt({ min: -(2n ** 66n), max: 2n ** 66n }).map(literal),
    fc.bigInt({ min: -1000n, max: 1000n }).map(literal),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(literal),
    fc.integer({ min: -2000, max: 2000 }).map((i) => literal(i / 4)),
  );
  const strLiteral = fc.oneof(
    s.byteValues.length > 0 ? pick(s.byteValues).map((v): ExpressionNode => ({ kind: "bytes", value: v })) : fc.constant<ExpressionNode>({ kind: "bytes", value: new Uint8Array() }),
    s.strings.length > 0 ? pick(s.strings).map((v): ExpressionNode => ({ kind: "string", value: v })) : fc.constant<ExpressionNode>({ kind: "string", value: "" }),
    fc.uint8Array({ maxLength: 8 }).map((v): ExpressionNode => ({ kind: "bytes", value: v })),
    fc.string({ maxLength: 6, unit: "binary" }).map((v): ExpressionNode => ({ kind: "string", value: v })),
  );
  const cols = (names: string[]): fc.Arbitrary<ExpressionNode>[] => (names.length > 0 ? [pick(names).map((name): ExpressionNode => ({ kind: "column", name }))] : []);

  const tree = fc.letrec<{ cond: ExpressionNode; num: ExpressionNode; str: ExpressionNode; any: ExpressionNode }>((tie) => ({
    cond: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.boolean().map((value): ExpressionNode => ({ kind: "boolean", value })),
      ...cols(s.bool),
      fc.record({ op: pick(compareOps), left: tie("num"), right: tie("num") }).map((r): ExpressionNode => ({ kind: "compare", ...r })),
      fc.record({ op: pick(compareOps), left: tie("str"), right: tie("str") }).map((r): ExpressionNode => ({ kind: "compare", ...r })),
      fc.record({ op: pick<CompareOperator>(["==", "!="]), left: tie("cond"), right: tie("cond") }).map((r): ExpressionNode => ({ kind: "compare", ...r })),
      tie("cond").map((operand): ExpressionNode => ({ kind: "not", operand })),
      fc.record({ kind: pick<"and" | "or">(["and", "or"]), operands: fc.array(tie("cond"), { minLength: 2, maxLength: 4 }) }).map((r): ExpressionNode => r),
      ...(options.illTyped === true
        ? [fc.record({ op: pick(compareOps), left: tie("any"), right: tie("any") }).map((r): ExpressionNode => ({ kind: "compare", ...r }))]
        : []),
    ),
    num: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      numLiteral,
      ...cols(s.num),
      fc.record({ op: pick(arithOps), left: tie("num"), right: tie("num") }).map((r): ExpressionNode => ({ kind: "arithmetic", ...r })),
      tie("num")
        .filter((n) => n.kind !== "integer" && n.kind !== "float")
        .map((operand): ExpressionNode => ({ kind: "negate", operand })),
    ),
    str: fc.oneof(strLiteral, ...cols(s.bytes), ...cols(s.text)),
    any: fc.oneof(tie("cond"), tie("num"), tie("str")),
  }));
  return options.illTyped === true ? fc.oneof({ weight: 4, arbitrary: tree.cond }, { weight: 1, arbitrary: tree.any }) : tree.cond;
}

/** Random column data for SCHEMA_TYPES, as reference values and as stored bytes. */
export function randomBlock(types: readonly (readonly [string, string])[], n: number, seed: number): { ref: RefColumn[]; bytes: { [name: string]: Uint8Array } } {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const choose = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const ref: RefColumn[] = [];
  const bytes: { [name: string]: Uint8Array } = {};
  for (const [name, dtype] of types) {
    const size = parseDtype(dtype).itemsize;
    const buf = new Uint8Array(n * size);
    const view = new DataView(buf.buffer);
    const little = dtype[0] !== ">";
    const values: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const at = i * size;
      switch (dtype) {
        case "|b1": {
          const v = next() < 0.5;
          buf[at] = v ? 1 : 0;
          values.push(v);
          break;
        }
        case "|i1": {
          const v = choose([-128, -1, 0, 1, 2, 127, Math.floor(next() * 256) - 128]);
          view.setInt8(at, v);
          values.push(v);
          break;
        }
        case "<i4": {
          const v = choose([-2147483648, 2147483647, 0, -1, 3, 10, Math.floor(next() * 2 ** 32) - 2 ** 31]);
          view.setInt32(at, v, little);
          values.push(v);
          break;
        }
        case "<u2":
        case ">u4": {
          const max = dtype === "<u2" ? 65535 : 4294967295;
          const v = choose([0, 1, 2, 10, max, Math.floor(next() * (max + 1))]);
          if (dtype === "<u2") view.setUint16(at, v, little);
          else view.setUint32(at, v, little);
          values.push(v);
          break;
        }
        case "<f4": {
          view.setFloat32(at, choose([0, -0, 0.5, NaN, Infinity, -Infinity, 3.4e38, (next() - 0.5) * 100]), little);
          values.push(view.getFloat32(at, little));
          break;
        }
        case "<f2": {
          const bits = choose([0x0000, 0x8000, 0x3c00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff, Math.floor(next() * 65536)]);
          view.setUint16(at, bits, little);
          // Independent half → number conversion.
          const sign = bits >> 15 ? -1 : 1;
          const e = (bits >> 10) & 31;
          const f = bits & 1023;
          values.push(e === 0 ? sign * f * 2 ** -24 : e === 31 ? (f ? NaN : sign * Infinity) : sign * (1 + f / 1024) * 2 ** (e - 15));
          break;
        }
        case "<f8": {
          const v = choose([0, -0, 2906.5, NaN, Infinity, -Infinity, 9007199254740993, 2 ** 63, -(2 ** 63), 1e300, 5e-324, (next() - 0.5) * 1e4]);
          view.setFloat64(at, v, little);
          values.push(v);
          break;
        }
        case "<i8":
        case "<M8[ns]": {
          const v = choose([-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 9007199254740993n, 9007199254740992n, BigInt(Math.floor(next() * 2 ** 40)) - 2n ** 39n]);
          view.setBigInt64(at, v, little);
          values.push(v);
          break;
        }
        case "<u8": {
          const v = choose([0n, 1n, 2n ** 64n - 1n, 2n ** 63n, 9007199254740993n, BigInt(Math.floor(next() * 2 ** 40))]);
          view.setBigUint64(at, v, little);
          values.push(v);
          break;
        }
        case "|S4": {
          const v = choose([[], [0x61, 0, 0x62], [0xff], [0x41, 0x42, 0x43, 0x44], [0x61, 0x62], [0xc3, 0xa9]]);
          buf.set(v, at);
          values.push(v);
          break;
        }
        case "<U3":
        case ">U2": {
          const width = size / 4;
          const v = choose([[], [0xe9], [0x1f600], [0x61, 0x62], [0x61, 0]]).slice(0, width);
          v.forEach((cp, k) => view.setUint32(at + 4 * k, cp, little));
          values.push(v);
          break;
        }
        default:
          throw new Error(dtype);
      }
    }
    ref.push({ name, dtype: dtype.replace(">", "<"), values });
    bytes[name] = buf;
  }
  return { ref, bytes };
}

