// Shared by the numexpr oracle test and the regression test: random column blocks and expression
// trees (fast-check), the stored bytes of a column, the Python text of a tree (fully
// parenthesised, so that Python's precedence never matters) and the check of one answer.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { UsageError } from "@fmt/errors";
import { formatExpression } from "@fmt/expr";
import type { ArithmeticOperator, CompareOperator, ExpressionNode, ExpressionSchema } from "@fmt/expr";
import { parseDtype } from "@fmt/meta";
import { MIN_WASM_ROWS } from "../src/compare-wasm.js";
// countMatches is internal (not exported by the package): both from the sources, one module.
import { compileExpression, countMatches, matchRowsOrMask } from "../src/expression.js";

/** A column as both sides see it: numpy dtype.str and the stored bytes in hex. */
export interface OracleColumn {
  dtype: string;
  hex: string;
}

/** What numexpr answered for one expression. */
export type OracleAnswer = { mask: string } | { dtype: string } | { error: string } | { crash: true };

/** A block of columns and the expressions evaluated over it. */
export interface OracleGroup {
  rows: number;
  columns: Record<string, OracleColumn>;
  trees: ExpressionNode[];
}

/** One committed regression case (numexpr-regressions.json). */
export interface RegressionCase {
  why: string;
  expression: string;
  python: string;
  rows: number;
  columns: Record<string, OracleColumn>;
  expect: OracleAnswer;
}

export const ORACLE_SCRIPT = fileURLToPath(new URL("./numexpr-oracle.py", import.meta.url));
export const PYTHON = "/usr/bin/python3";

// ---------------------------------------------------------------------------------------------
// column data

// "<u8" appears once in the list: numexpr refuses uint64 columns, so expressions using one are refusals.
const DTYPES = ["|b1", "|i1", "|u1", "<i2", ">u2", "<i4", ">i4", "<u4", "<i8", ">i8", "<f2", "<f4", ">f4", "<f8", ">f8", "|S3", "|b1", "<i4", "<i8", "<f8", "<u8"] as const;

const INT_EDGES: Record<string, readonly bigint[]> = {
  i1: [-128n, 127n, -1n, 0n, 1n, 2n, -7n, 7n],
  u1: [0n, 1n, 2n, 7n, 127n, 128n, 255n],
  i2: [-32768n, 32767n, -1n, 0n, 2n, -7n, 300n],
  u2: [0n, 1n, 2n, 65535n, 32768n, 7n],
  i4: [-2147483648n, 2147483647n, -1n, 0n, 1n, 2n, -7n, 7n, 65536n, 46341n, -65536n],
  u4: [0n, 1n, 2n, 4294967295n, 2147483648n, 7n, 65536n],
  i8: [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, 1n, 2n, -7n, 7n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 32n, 3037000500n, 2n ** 62n, 2147483648n, 16777217n],
};

const FLOAT_EDGES = [0, -0, 1, -1, 2, 0.5, -7.5, 7, 3, NaN, Infinity, -Infinity, 1e300, -1e-300, 5e-324, 2 ** 53, 2 ** 53 + 2, 16777217, 2 ** 63, 0.1, 65536, 2147483648, 1e20];

function intValue(code: string): fc.Arbitrary<bigint> {
  const size = Number(code.slice(1));
  const bits = BigInt(size * 8);
  const edges = INT_EDGES[code]!;
  const range = code[0] === "u" ? fc.bigInt({ min: 0n, max: 2n ** bits - 1n }) : fc.bigInt({ min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n });
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...edges) }, { weight: 2, arbitrary: fc.bigInt({ min: -20n, max: 20n }).map((v) => (code[0] === "u" && v < 0n ? -v : v)) }, { weight: 1, arbitrary: range });
}

function floatValue(): fc.Arbitrary<number> {
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...FLOAT_EDGES) }, { weight: 2, arbitrary: fc.integer({ min: -20, max: 20 }) }, { weight: 2, arbitrary: fc.double() });
}

const HALF = new DataView(new ArrayBuffer(4));
function toHalfBits(x: number): number {
  // Nearest half-precision value by search over its 2^16 patterns is too slow; a float32 view
  // gives sign, exponent and mantissa, and values are drawn so that most are exact halves.
  HALF.setFloat32(0, x);
  const bits = HALF.getUint32(0);
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) return sign; // flush tiny values to zero: still a valid half
  return sign | (e << 10) | (mant >>> 13);
}

function columnBytes(dtype: string, values: readonly unknown[]): Uint8Array {
  const d = parseDtype(dtype);
  const size = d.itemsize;
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  const little = d.byteOrder !== ">";
  values.forEach((v, i) => {
    const at = i * size;
    switch (dtype.slice(1)) {
      case "b1":
        out[at] = v === true ? 1 : 0;
        break;
      case "i1":
        view.setInt8(at, Number(v));
        break;
      case "u1":
        view.setUint8(at, Number(v));
        break;
      case "i2":
        view.setInt16(at, Number(v), little);
        break;
      case "u2":
        view.setUint16(at, Number(v), little);
        break;
      case "i4":
        view.setInt32(at, Number(v), little);
        break;
      case "u4":
        view.setUint32(at, Number(v), little);
        break;
      case "i8":
        view.setBigInt64(at, v as bigint, little);
        break;
      case "u8":
        view.setBigUint64(at, v as bigint, little);
        break;
      case "f2":
        view.setUint16(at, toHalfBits(v as number), little);
        break;
      case "f4":
        view.setFloat32(at, v as number, little);
        break;
      case "f8":
        view.setFloat64(at, v as number, little);
        break;
      case "S3":
        out.set(v as Uint8Array, at);
        break;
      default:
        throw new Error(`no generator for ${dtype}`);
    }
  });
  return out;
}

function columnValues(dtype: string, rows: number): fc.Arbitrary<unknown[]> {
  const code = dtype.slice(1);
  let one: fc.Arbitrary<unknown>;
  if (code === "b1") one = fc.boolean();
  else if (code === "S3") one = fc.uint8Array({ minLength: 3, maxLength: 3 }).map((b) => b.map((x) => [0, 0x41, 0x61, 0x62, 0xff][x % 5]!));
  else if (code[0] === "f") one = floatValue();
  else if (code === "u8") one = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
  else one = intValue(code);
  return fc.array(one, { minLength: rows, maxLength: rows });
}

export function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

export function unhex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

// ---------------------------------------------------------------------------------------------
// expressions

const INT_LITERALS = [0n, 1n, 2n, 3n, 7n, -1n, -7n, 127n, 255n, 65536n, 2147483647n, -2147483648n, 2147483648n, 4294967296n, 9007199254740993n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 63n, 10n ** 20n];
const FLOAT_LITERALS = [0.5, -0, 0, 2.5, 3, 1e300, 1e-300, 0.1, 16777217, 9007199254740992, -7.5, 1e20, 2147483648];
const BYTES_LITERALS = [new Uint8Array([0x61, 0x62]), new Uint8Array([0x41, 0, 0]), new Uint8Array([0xff]), new Uint8Array([]), new Uint8Array([0x61, 0x61, 0x61, 0x61])];
const STRING_LITERALS = ["ab", "A", "", "aaa", "é"];

function names(columns: Record<string, OracleColumn>, test: (dtype: string) => boolean): string[] {
  return Object.keys(columns).filter((n) => test(columns[n]!.dtype));
}

/** Expression trees over the given columns: mostly well typed, some that numexpr refuses. */
export function treeArbitrary(columns: Record<string, OracleColumn>): fc.Arbitrary<ExpressionNode> {
  const numeric = names(columns, (d) => d[1] !== "S");
  const bools = names(columns, (d) => d[1] === "b");
  const strings = names(columns, (d) => d[1] === "S");
  const node = (n: ExpressionNode): ExpressionNode => n;
  const column = (list: string[]): fc.Arbitrary<ExpressionNode> => fc.constantFrom(...list).map((name) => node({ kind: "column", name }));
  const intLit = fc
    .oneof({ weight: 4, arbitrary: fc.constantFrom(...INT_LITERALS) }, { weight: 4, arbitrary: fc.bigInt({ min: -9n, max: 9n }) }, { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }) })
    .map((value) => node({ kind: "integer", value }));
  const floatLit = fc
    .oneof({ weight: 4, arbitrary: fc.constantFrom(...FLOAT_LITERALS) }, { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) })
    .map((value) => node({ kind: "float", value }));
  const boolLit = fc.boolean().map((value) => node({ kind: "boolean", value }));
  const arith = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<ArithmeticOperator>("+", "-", "*") },
    { weight: 2, arbitrary: fc.constantFrom<ArithmeticOperator>("/", "%") },
    { weight: 1, arbitrary: fc.constant<ArithmeticOperator>("//") },
  );
  const cmp = fc.constantFrom<CompareOperator>("==", "!=", "<", "<=", ">", ">=");
  const stringSide: fc.Arbitrary<ExpressionNode> =
    strings.length === 0
      ? boolLit
      : fc.oneof(
          column(strings),
          fc.constantFrom(...BYTES_LITERALS).map((value) => node({ kind: "bytes", value })),
          fc.constantFrom(...STRING_LITERALS).map((value) => node({ kind: "string", value })),
        );
  const tree = fc.letrec<{ num: ExpressionNode; cond: ExpressionNode }>((tie) => ({
    num: fc.oneof(
      { maxDepth: 3, depthSize: "small" },
      { weight: 5, arbitrary: numeric.length > 0 ? column(numeric) : intLit },
      { weight: 3, arbitrary: intLit },
      { weight: 2, arbitrary: floatLit },
      { weight: 1, arbitrary: boolLit },
      { weight: 4, arbitrary: fc.tuple(arith, tie("num"), tie("num")).map(([op, left, right]) => node({ kind: "arithmetic", op, left, right })) },
      { weight: 1, arbitrary: tie("num").map((operand) => node({ kind: "negate", operand })) },
      { weight: 1, arbitrary: tie("num").map((operand) => node({ kind: "not", operand })) },
    ),
    cond: fc.oneof(
      { maxDepth: 3, depthSize: "small" },
      { weight: 6, arbitrary: fc.tuple(cmp, tie("num"), tie("num")).map(([op, left, right]) => node({ kind: "compare", op, left, right })) },
      { weight: 1, arbitrary: bools.length > 0 ? column(bools) : boolLit },
      { weight: 1, arbitrary: boolLit },
      { weight: 1, arbitrary: fc.tuple(cmp, stringSide, stringSide).map(([op, left, right]) => node({ kind: "compare", op, left, right })) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom<"and" | "or">("and", "or"), fc.array(tie("cond"), { minLength: 2, maxLength: 3 })).map(([kind, operands]) => node({ kind, operands })) },
      { weight: 1, arbitrary: tie("cond").map((operand) => node({ kind: "not", operand })) },
      { weight: 1, arbitrary: tie("num") },
    ),
  }));
  return tree.cond;
}

/** Random blocks of 12 rows over 6 columns of random dtypes, each with `perGroup` trees. */
export function groupArbitrary(perGroup: number): fc.Arbitrary<OracleGroup> {
  const rows = 12;
  return fc
    .array(fc.constantFrom(...DTYPES), { minLength: 6, maxLength: 6 })
    .chain((dtypes) => fc.tuple(...dtypes.map((d) => columnValues(d, rows))).map((values) => {
      const columns: Record<string, OracleColumn> = {};
      dtypes.forEach((d, i) => {
        columns[`c${i}`] = { dtype: d, hex: hex(columnBytes(d, values[i]!)) };
      });
      return columns;
    }))
    .chain((columns) => fc.array(treeArbitrary(columns), { minLength: perGroup, maxLength: perGroup }).map((trees) => ({ rows, columns, trees })));
}

// ---------------------------------------------------------------------------------------------
// Python text

function pyFloat(v: number): string {
  if (Object.is(v, -0)) return "(-0.0)";
  const s = String(v);
  const text = s.includes(".") || s.includes("e") ? s : `${s}.0`;
  return v < 0 ? `(${text})` : text;
}

function pyString(s: string): string {
  let out = "'";
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x20 && code < 0x7f && ch !== "'" && ch !== "\\") out += ch;
    else if (code < 0x100) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return `${out}'`;
}

function pyBytes(b: Uint8Array): string {
  let out = "b'";
  for (const code of b) out += code >= 0x20 && code < 0x7f && code !== 39 && code !== 92 ? String.fromCharCode(code) : `\\x${code.toString(16).padStart(2, "0")}`;
  return `${out}'`;
}

/** The tree as Python text, every operation in parentheses; `and`/`or` chains left-associated. */
export function pythonText(node: ExpressionNode): string {
  switch (node.kind) {
    case "column":
      return node.name;
    case "integer":
      return node.value < 0n ? `(${node.value})` : `${node.value}`;
    case "float":
      return pyFloat(node.value);
    case "boolean":
      return node.value ? "True" : "False";
    case "string":
      return pyString(node.value);
    case "bytes":
      return pyBytes(node.value);
    case "compare":
    case "arithmetic":
      return `(${pythonText(node.left)} ${node.op} ${pythonText(node.right)})`;
    case "negate":
      return `(-${pythonText(node.operand)})`;
    case "not":
      return `(~${pythonText(node.operand)})`;
    case "and":
    case "or": {
      const symbol = node.kind === "and" ? "&" : "|";
      return node.operands.map(pythonText).reduce((acc, text) => `(${acc} ${symbol} ${text})`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// running both sides

/** numexpr's answers for every tree of every group, in order (one python3 process, restarted after a crash). */
export function askNumexpr(groups: readonly { rows: number; columns: Record<string, OracleColumn>; exprs: string[] }[]): OracleAnswer[] {
  const total = groups.reduce((n, g) => n + g.exprs.length, 0);
  const answers: OracleAnswer[] = [];
  while (answers.length < total) {
    const result = spawnSync(PYTHON, [ORACLE_SCRIPT], {
      input: JSON.stringify({ start: answers.length, groups }),
      encoding: "utf8",
      maxBuffer: 1 << 30,
      env: { ...process.env, NUMEXPR_MAX_THREADS: "1", OMP_NUM_THREADS: "1" },
    });
    if (result.error !== undefined) throw result.error;
    const lines = result.stdout.split("\n").filter((l) => l !== "");
    for (const line of lines) answers.push(JSON.parse(line) as OracleAnswer);
    if (result.status === 0 && answers.length < total) throw new Error(`oracle stopped early: ${result.stderr}`);
    if (result.status !== 0) {
      if (result.signal === null) throw new Error(`oracle failed (status ${result.status}): ${result.stderr}`);
      answers.push({ crash: true }); // the expression after the last line killed numexpr
    }
  }
  return answers;
}

/** Is numexpr (python3-numexpr) there to ask? */
export function numexprAvailable(): boolean {
  const r = spawnSync(PYTHON, ["-c", "import numexpr"], { encoding: "utf8" });
  return r.status === 0;
}

/** The evaluator's answer in the oracle's terms. */
export function ourAnswer(text: string, rows: number, columns: Record<string, OracleColumn>): OracleAnswer {
  const schema: ExpressionSchema = Object.fromEntries(Object.entries(columns).map(([name, c]) => [name, { dtype: parseDtype(c.dtype) }]));
  let compiled;
  try {
    compiled = compileExpression(text, schema);
  } catch (e) {
    if (e instanceof UsageError && e.code === "INVALID_ARGUMENT" && e.field === "expression") return { error: e.message.split("\n")[0]! };
    throw e;
  }
  const input = Object.fromEntries(compiled.columns.map((name) => [name, unhex(columns[name]!.hex)]));
  const mask = compiled.evaluate(input, rows);
  // The count `where` takes without a mask, over the block repeated often enough for the SIMD
  // kernels (MIN_WASM_ROWS): a wrong count turns the answer into one that agrees with nothing.
  const times = Math.ceil(MIN_WASM_ROWS / Math.max(rows, 1)) + 1;
  const tiled = Object.fromEntries(Object.entries(input).map(([name, bytes]) => {
    const out = new Uint8Array(bytes.length * times);
    for (let t = 0; t < times; t++) out.set(bytes, t * bytes.length);
    return [name, out];
  }));
  const ones = mask.reduce((sum, v) => sum + v, 0);
  const count = countMatches(compiled, tiled, rows * times);
  if (count !== ones * times) return { mask: `countMatches gave ${count} over ${times} copies of the block, not ${times} × ${ones}` };
  // The mask and the row numbers over the tiled block (the kernels' paths for long blocks).
  const tiledMask = compiled.evaluate(tiled, rows * times);
  for (let i = 0; i < rows * times; i++) {
    if (tiledMask[i] !== mask[i % rows]) return { mask: `evaluate over ${times} copies of the block differs at row ${i}` };
  }
  // Row numbers from a first row past 2^32, as a block of a long table has.
  const first = 2 ** 32 + 3;
  const answer = matchRowsOrMask(compiled, tiled, rows * times, first);
  if ("mask" in answer && answer.mask.join("") !== tiledMask.join("")) return { mask: `matchRowsOrMask's mask over ${times} copies of the block differs` };
  if ("rows" in answer) {
    const found = answer.rows;
    const expected = [...tiledMask.keys()].filter((i) => tiledMask[i] === 1).map((i) => first + i);
    if (found.join() !== expected.join()) return { mask: `matchRowsOrMask over ${times} copies of the block: ${found.join()}, not ${expected.join()}` };
  }
  return { mask: [...mask].join("") };
}

/** Do the two answers agree? A refusal matches any numexpr exception or non-boolean result. */
export function agree(ours: OracleAnswer, theirs: OracleAnswer): boolean {
  if ("crash" in theirs) return true; // numexpr died (SIGFPE on INT_MIN % -1); spec/expressions.md §5 says what we answer
  if ("mask" in theirs) return "mask" in ours && ours.mask === theirs.mask;
  return "error" in ours;
}

/** A tree's canonical text in the expression language. */
export function ourText(tree: ExpressionNode): string {
  return formatExpression(tree);
}
