// A straightforward per-row evaluator of expression trees, written independently of the
// vectorised engine in src/expression.ts, plus fast-check generators of expression trees.
// Semantics restated from spec/expressions.md (numexpr 2.8's, checked against numexpr itself in
// numexpr-oracle.test.ts), for the trees the generators below produce: no operation whose
// operands are all literals (Python's constant folding is left to the oracle test) and no float
// literal ±0 (whose sign numexpr shares between constants):
// - kinds: b1 bool; i1 i2 i4 u1 u2 int32; i8 u4 M8 int64; f2 f4 float32; f8 float64; u8 refused;
//   S bytes; U code points. A literal's kind: bool; int32 or int64 by its value; float64.
// - an operation runs in the later kind of its operands (bool < int < long < float < double);
//   a literal is converted to it (int64 beyond range, or a float overflow, is refused);
//   / is float64 for integers, float32 for float32; x / c with a float64 x and a float literal c
//   is x * (1 / c); int % truncates, x % 0 is 0; float % is a - floor(a / b) * b.
// - comparisons in the common kind; S: signed bytes, NUL padding, an empty literal only asks
//   whether the other side's first byte is not NUL; str literals against S must be ASCII, and
//   not mixed with bytes literals in one tree; a literal left of & or | before a column is refused.
import fc from "fast-check";
import type { ExpressionNode, CompareOperator, ArithmeticOperator } from "@fmt/expr";
import { parseDtype } from "@fmt/meta";

export type RefType = "bool" | "int" | "long" | "f" | "double" | "u64" | "S" | "U";

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
      return size === 8 ? "long" : "int";
    case "u":
      return size === 8 ? "u64" : size === 4 ? "long" : "int";
    case "f":
      return size === 8 ? "double" : "f";
    case "M":
    case "m":
      return "long";
    case "S":
      return "S";
    case "U":
      return "U";
    default:
      throw new Error(`reference does not know ${dtype}`);
  }
}

type Kind = "bool" | "int" | "long" | "f" | "double";
const ORDER: Kind[] = ["bool", "int", "long", "f", "double"];
const later = (a: Kind, b: Kind): Kind => (ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b);

/** Static facts about a node: its kind (or text family) and whether it is a literal. */
interface Info {
  t: Kind | "S" | "U" | "str" | "bytes";
  literal: boolean;
}

function literalKind(node: ExpressionNode): Kind | "str" | "bytes" {
  switch (node.kind) {
    case "boolean":
      return "bool";
    case "integer":
      return node.value >= -(2n ** 31n) && node.value < 2n ** 31n ? "int" : "long";
    case "float":
      return "double";
    case "string":
      return "str";
    default:
      return "bytes";
  }
}

function isKind(t: Info["t"]): t is Kind {
  return (ORDER as string[]).includes(t);
}

/** The value of a literal converted to `kind`, or RefTypeError where numexpr raises. */
function convertLiteral(node: ExpressionNode, kind: Kind): number | bigint {
  const v = node.kind === "boolean" ? (node.value ? 1n : 0n) : node.kind === "integer" ? node.value : (node as { value: number }).value;
  if (kind === "long") {
    if (typeof v !== "bigint" || v < -(2n ** 63n) || v >= 2n ** 63n) throw new RefTypeError("int64 overflow");
    return v;
  }
  const d = Number(v);
  if (!Number.isFinite(d)) throw new RefTypeError("float overflow");
  return kind === "f" ? Math.fround(d) : d;
}

interface State {
  schema: Map<string, RefType>;
  str: boolean;
  bytes: boolean;
}

function info(node: ExpressionNode, s: State): Info {
  switch (node.kind) {
    case "column": {
      const t = s.schema.get(node.name);
      if (t === undefined || t === "u64") throw new RefTypeError("unknown or uint64 column");
      return { t, literal: false };
    }
    case "integer":
    case "float":
    case "boolean":
    case "string":
    case "bytes":
      return { t: literalKind(node), literal: true };
    case "not": {
      if (info(node.operand, s).t !== "bool") throw new RefTypeError("~ of a non-boolean");
      return { t: "bool", literal: false };
    }
    case "and":
    case "or": {
      node.operands.forEach((o, i) => {
        const x = info(o, s);
        if (x.t !== "bool") throw new RefTypeError("& of a non-boolean");
        if (i === 0 && x.literal) throw new RefTypeError("literal left of &");
      });
      return { t: "bool", literal: false };
    }
    case "negate": {
      const x = info(node.operand, s);
      if (!isKind(x.t) || x.t === "bool") throw new RefTypeError("negation");
      return { t: x.t, literal: false };
    }
    case "arithmetic": {
      const a = info(node.left, s);
      const b = info(node.right, s);
      if (!isKind(a.t) || !isKind(b.t) || node.op === "//") throw new RefTypeError("arithmetic");
      let k = later(a.t, b.t);
      if (node.op === "/") k = k === "f" ? "f" : "double";
      else if (k === "bool") throw new RefTypeError("boolean arithmetic");
      if (a.literal) convertLiteral(node.left, node.op === "/" ? k : k);
      if (b.literal) convertLiteral(node.right, k);
      return { t: k, literal: false };
    }
    case "compare": {
      const a = info(node.left, s);
      const b = info(node.right, s);
      if (isKind(a.t) && isKind(b.t)) {
        const k = later(a.t, b.t);
        if (a.literal) convertLiteral(node.left, k);
        if (b.literal) convertLiteral(node.right, k);
        return { t: "bool", literal: false };
      }
      if (isKind(a.t) || isKind(b.t)) throw new RefTypeError("number with text");
      const family = a.literal ? b.t : a.t;
      for (const [x, n] of [
        [a, node.left],
        [b, node.right],
      ] as const) {
        if (!x.literal) {
          if (x.t !== family) throw new RefTypeError("S with U");
        } else if (x.t === "bytes") {
          if (family !== "S") throw new RefTypeError("bytes with U");
          s.bytes = true;
        } else if (family === "S") {
          if ([...(n as { value: string }).value].some((c) => c.codePointAt(0)! > 0x7f)) throw new RefTypeError("non-ASCII");
          s.str = true;
        }
      }
      if (s.str && s.bytes) throw new RefTypeError("str and bytes literals");
      return { t: "bool", literal: false };
    }
  }
}

/** The type of a tree: "bool" for a valid condition, another type otherwise; RefTypeError where refused. */
export function refType(node: ExpressionNode, schema: Map<string, RefType>): RefType {
  const t = info(node, { schema, str: false, bytes: false }).t;
  return t === "str" || t === "bytes" ? "S" : t;
}

// ---------------------------------------------------------------------------------------------
// values

type RefValue = number | bigint | { seq: number[]; signed: boolean } | { text: number[] };

/** Round an int64 to float32 with one rounding, by hand: keep 24 significant bits, ties to even. */
function int64ToFloat32(x: bigint): number {
  if (x === 0n) return 0;
  const negative = x < 0n;
  let m = negative ? -x : x;
  const bits = m.toString(2).length;
  if (bits > 24) {
    const drop = BigInt(bits - 24);
    const rest = m & ((1n << drop) - 1n);
    const half = 1n << (drop - 1n);
    m >>= drop;
    if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
    m <<= drop;
  }
  return negative ? -Number(m) : Number(m);
}

function cast(v: number | bigint, from: Kind, to: Kind): number | bigint {
  if (from === to) return v;
  if (to === "long") return BigInt(v);
  if (to === "f") return typeof v === "bigint" ? int64ToFloat32(v) : Math.fround(v);
  return Number(v);
}

function kindOfRow(node: ExpressionNode, s: State): Kind {
  return info(node, s).t as Kind;
}

function operand(node: ExpressionNode, k: Kind, s: State, row: Map<string, unknown>): number | bigint {
  const x = info(node, s);
  if (x.literal) return convertLiteral(node, k);
  const v = evalRow(node, s, row);
  return cast(typeof v === "boolean" ? (v ? 1 : 0) : (v as number | bigint), x.t as Kind, k);
}

function truncMod(x: bigint, y: bigint): bigint {
  return y === 0n ? 0n : x % y; // BigInt % truncates, like C
}

function arith(op: ArithmeticOperator, k: Kind, x: number | bigint, y: number | bigint): number | bigint {
  if (k === "int" || k === "long") {
    const a = BigInt(x);
    const b = BigInt(y);
    const r = op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : truncMod(a, b);
    return k === "int" ? Number(BigInt.asIntN(32, r)) : BigInt.asIntN(64, r);
  }
  const r = (z: number): number => (k === "f" ? Math.fround(z) : z);
  const a = x as number;
  const b = y as number;
  switch (op) {
    case "+":
      return r(a + b);
    case "-":
      return r(a - b);
    case "*":
      return r(a * b);
    case "/":
      return r(a / b);
    default:
      return r(a - r(Math.floor(r(a / b)) * b));
  }
}

function sign(x: number | bigint, y: number | bigint): number {
  return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
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

/** numexpr's stringcmp: signed bytes, NUL padding, and its shortcut for an empty side. */
function stringcmp(a: number[], b: number[]): number {
  if (b.length === 0) return a.length > 0 && a[0] !== 0 ? 1 : 0;
  if (a.length === 0) return b[0] !== 0 ? 1 : 0;
  const signed = (v: number): number => (v > 127 ? v - 256 : v);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = signed(a[i] ?? 0);
    const y = signed(b[i] ?? 0);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function lexSign(a: readonly number[], b: readonly number[]): number {
  const strip = (v: readonly number[]): number[] => {
    const out = [...v];
    while (out.length > 0 && out[out.length - 1] === 0) out.pop();
    return out;
  };
  const x = strip(a);
  const y = strip(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

const MIRRORED: Record<CompareOperator, CompareOperator> = { "==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

function evalRow(node: ExpressionNode, s: State, row: Map<string, unknown>): RefValue | boolean {
  switch (node.kind) {
    case "column": {
      const t = s.schema.get(node.name)!;
      const v = row.get(node.name);
      // A column item is never empty to stringcmp (its width is the itemsize): pad a stripped one.
      if (t === "S") return { seq: (v as number[]).length === 0 ? [0] : (v as number[]), signed: true };
      if (t === "U") return { text: v as number[] };
      if (t === "bool") return v === true || v === 1;
      if (t === "long") return BigInt(v as number | bigint);
      return v as number;
    }
    case "string":
      return { text: [...node.value].map((c) => c.codePointAt(0)!) };
    case "bytes":
      return { seq: [...node.value], signed: true };
    case "integer":
    case "float":
    case "boolean":
      throw new Error("literals are read by their operation");
    case "not":
      return !(evalRow(node.operand, s, row) as boolean);
    case "and":
    case "or": {
      const values = node.operands.map((o) => (o.kind === "boolean" ? o.value : (evalRow(o, s, row) as boolean)));
      return node.kind === "and" ? values.every((x) => x) : values.some((x) => x);
    }
    case "negate": {
      const k = kindOfRow(node, s);
      const v = evalRow(node.operand, s, row) as number | bigint;
      if (k === "int") return Number(BigInt.asIntN(32, -BigInt(v)));
      if (k === "long") return BigInt.asIntN(64, -(v as bigint));
      return -(v as number);
    }
    case "arithmetic": {
      const k = kindOfRow(node, s);
      const x = operand(node.left, k, s, row);
      if (node.op === "/" && k === "double" && info(node.left, s).t === "double" && node.right.kind === "float") return (x as number) * (1 / node.right.value);
      return arith(node.op, k, x, operand(node.right, k, s, row));
    }
    case "compare": {
      const a = info(node.left, s);
      const b = info(node.right, s);
      if (isKind(a.t) && isKind(b.t)) {
        const k = later(a.t, b.t);
        return test(node.op, sign(operand(node.left, k, s, row), operand(node.right, k, s, row)));
      }
      const family = a.literal ? b.t : a.t;
      const seqOf = (n: ExpressionNode): number[] => {
        const v = evalRow(n, s, row) as { seq?: number[]; text?: number[] };
        if (v.seq !== undefined) return v.seq;
        return family === "S" ? [...new TextEncoder().encode(String.fromCodePoint(...v.text!))] : v.text!;
      };
      if (family === "U") return test(node.op, lexSign(seqOf(node.left), seqOf(node.right)));
      // numexpr's operand order: a literal's comparison goes to the column's reflected one, and
      // a < b is computed as b > a.
      let [l, r, op] = a.literal ? [node.right, node.left, MIRRORED[node.op]] : [node.left, node.right, node.op];
      if (op === "<" || op === "<=") [l, r, op] = [r, l, MIRRORED[op]];
      return test(op, stringcmp(seqOf(l), seqOf(r)));
    }
  }
}

/** Indices of the rows where the reference says the expression is true. */
export function refWhere(node: ExpressionNode, columns: RefColumn[], length: number): number[] {
  const schema = new Map(columns.map((c) => [c.name, columnRefType(c.dtype)] as const));
  const s: State = { schema, str: false, bytes: false };
  const out: number[] = [];
  const row = new Map<string, unknown>();
  for (let i = 0; i < length; i++) {
    for (const c of columns) row.set(c.name, c.values[i]);
    if (node.kind === "boolean" ? node.value : evalRow(node, s, row) === true) out.push(i);
  }
  return out;
}

/** Removes parser spans, for comparing trees. */
export function stripSpans(node: ExpressionNode): unknown {
  const { start: _s, end: _e, opStart: _os, opEnd: _oe, ...rest } = node;
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
  // Float zeros share their sign between constants in numexpr (see the header): 0.25 instead.
  return typeof v === "bigint" ? { kind: "integer", value: v } : { kind: "float", value: v === 0 ? 0.25 : v };
}

function isLiteral(node: ExpressionNode): boolean {
  return node.kind === "integer" || node.kind === "float" || node.kind === "boolean" || node.kind === "string" || node.kind === "bytes";
}

/** No operation on literals only anywhere (the reference does not fold constants). */
function covered(node: ExpressionNode): boolean {
  switch (node.kind) {
    case "compare":
    case "arithmetic":
      return !(isLiteral(node.left) && isLiteral(node.right)) && covered(node.left) && covered(node.right);
    case "negate":
    case "not":
      return !isLiteral(node.operand) && covered(node.operand);
    case "and":
    case "or":
      return !node.operands.every(isLiteral) && node.operands.every(covered);
    default:
      return true;
  }
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
  return (options.illTyped === true ? fc.oneof({ weight: 4, arbitrary: tree.cond }, { weight: 1, arbitrary: tree.any }) : tree.cond).filter(covered);
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
          const v = choose([0, -0, 2906.5, NaN, Infinity, -Infinity, 2 ** 53 + 1, 2 ** 63, -(2 ** 63), 1e300, 5e-324, (next() - 0.5) * 1e4]);
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

