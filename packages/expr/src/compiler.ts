// The static type checker and evaluator builder: the Compiler walks an ExpressionNode tree
// against a schema, folds constant sub-trees with Python's semantics, refuses what numexpr
// refuses, and gives each node a closure that evaluates it over a block (comparisons of columns
// with constants also go to the SIMD kernels as terms). compileExpression (expression.ts) drives
// it; column loading, constant conversion and text comparisons live in their own modules.
import { UsageError } from "@fmt/errors";
import { ARITHMETIC_OPERATORS, COMPARE_OPERATORS } from "./ast.js";
import type { ExpressionNode } from "./ast.js";
import { compareBytes, compareCodePoints, compareFixed, compareStrings, codePoints, MIRROR, signTest } from "./compare-text.js";
import type { FixedVec } from "./compare-text.js";
import type { Compiled, EvalContext, Evaluator, ExpressionSchema, Vec } from "./compile-types.js";
import { MIN_WASM_ROWS, evaluateTermsWasm } from "./compare-wasm.js";
import type { ScalarTerm, TermsResult } from "./compare-wasm.js";
import { columnType, loadColumn, loadList } from "./columns.js";
import { badNode, formatExpression } from "./format.js";
import { commonKind, compareLong, compareNumbers, floatArith, intArith, longArith, negateVec } from "./kernels.js";
import type { ArithOp, Kind, LongValues, NumArray, NumVec } from "./kernels.js";
import { constKind, numberArray, operand, pythonOrder } from "./operands.js";
import type { Operand } from "./operands.js";
import { PyRefusal, pyBinary, pyCompare, pyUnary } from "./python.js";
import type { PyValue } from "./python.js";
import { EXPRESSION_LIMITS, expressionError } from "./tokenizer.js";

const KIND_NAMES: Readonly<Record<Kind, string>> = { bool: "a boolean", int: "an int32 number", long: "an int64 number", float: "a float32 number", double: "a float64 number" };
const VALUE_NAMES: Readonly<Record<PyValue["k"], string>> = { bool: "a boolean", int: "an integer", float: "a float", str: "a string", bytes: "bytes" };

const encoder = new TextEncoder();

export class Compiler {
  readonly text: string | undefined;
  readonly schema: ExpressionSchema;
  readonly columns: string[] = [];
  /** The first string and bytes literals compared with S columns (numexpr refuses both in one expression). */
  readonly textLiterals: { str?: ExpressionNode; bytes?: ExpressionNode } = {};

  constructor(text: string | undefined, schema: ExpressionSchema) {
    this.text = text;
    this.schema = schema;
  }

  fail(node: ExpressionNode, reason: string, expected: string, useOperator = false): never {
    const start = useOperator ? (node.opStart ?? node.start) : node.start;
    const end = useOperator ? (node.opEnd ?? node.end) : node.end;
    if (this.text === undefined || start === undefined) {
      throw new UsageError("INVALID_ARGUMENT", reason, { field: "expression", expected, actual: formatSafely(node) });
    }
    throw expressionError(this.text, start, end, reason, expected);
  }

  /**
   * numexpr sorts its constants, comparing those of one kind with numpy's `<`, which raises
   * TypeError for a str and a bytes value: an expression cannot hold both next to S columns.
   */
  textLiteral(k: "str" | "bytes", at: ExpressionNode): void {
    this.textLiterals[k] ??= at;
    if (this.textLiterals.str !== undefined && this.textLiterals.bytes !== undefined) {
      this.fail(at, "string and bytes literals in one expression", "only bytes literals (b\"...\") or only string literals against S columns (numexpr raises TypeError sorting its constants)");
    }
  }

  /** Runs Python's constant folding, turning what Python raises into a positioned error. */
  python<T>(node: ExpressionNode, useOperator: boolean, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof PyRefusal)) throw e;
      return this.fail(node, `${e.message} (numexpr raises ${e.python})`, "an expression numexpr evaluates", useOperator);
    }
  }

  typeName(c: Compiled): string {
    if (c.value !== undefined) return VALUE_NAMES[c.value.k];
    switch (c.type.t) {
      case "num":
        return KIND_NAMES[c.type.kind];
      case "bytes":
      case "vbytes":
        return "bytes";
      default:
        return "a string";
    }
  }

  /** The numexpr kind of a numeric operand (column-based or constant), else undefined. */
  kindOf(c: Compiled): Kind | undefined {
    if (c.value !== undefined) return constKind(c.value);
    return c.type.t === "num" ? c.type.kind : undefined;
  }

  constant(value: PyValue): Compiled {
    return {
      type: { t: "const" },
      value,
      ev: () => {
        throw new Error("internal: constants are folded");
      },
    };
  }

  compile(node: ExpressionNode, depth: number): Compiled {
    if (depth > EXPRESSION_LIMITS.maxDepth) {
      throw new UsageError("INVALID_ARGUMENT", "expression tree is too deep", { field: "expression", expected: `at most ${EXPRESSION_LIMITS.maxDepth} levels` });
    }
    if (typeof node !== "object" || node === null) badNode(node, "not an expression node");
    switch (node.kind) {
      case "column":
        return this.column(node);
      case "integer":
        if (typeof node.value !== "bigint") badNode(node, "integer node value must be a bigint");
        return this.constant({ k: "int", v: node.value });
      case "float":
        if (typeof node.value !== "number" || !Number.isFinite(node.value)) badNode(node, "float node value must be a finite number");
        return this.constant({ k: "float", v: node.value });
      case "string":
        if (typeof node.value !== "string") badNode(node, "string node value must be a string");
        return this.constant({ k: "str", v: node.value });
      case "bytes":
        if (!(node.value instanceof Uint8Array)) badNode(node, "bytes node value must be a Uint8Array");
        return this.constant({ k: "bytes", v: node.value.slice() });
      case "boolean":
        return this.constant({ k: "bool", v: node.value === true });
      case "compare":
        return this.compare(node, depth);
      case "arithmetic":
        return this.arithmetic(node, depth);
      case "negate":
        return this.negate(node, depth);
      case "not":
        return this.not(node, depth);
      case "and":
      case "or":
        return this.logical(node, depth);
      default:
        return badNode(node, "unknown expression node kind");
    }
  }

  column(node: ExpressionNode & { kind: "column" }): Compiled {
    const name = node.name;
    const info = typeof name === "string" && Object.prototype.hasOwnProperty.call(this.schema, name) ? this.schema[name] : undefined;
    if (info === undefined) {
      const names = Object.keys(this.schema);
      this.fail(node, `unknown column ${JSON.stringify(name)}`, names.length > 0 ? `one of ${names.join(", ")}` : "a column of the table");
    }
    const shape = info.shape ?? [];
    if (shape.slice(1).some((d) => d !== 1)) this.fail(node, `column "${name}" is multidimensional`, "a column with one value per row");
    if (info.vtype !== undefined) {
      if (info.vtype !== "utf8" && info.vtype !== "bytes") this.fail(node, `column "${name}" holds ragged arrays, which expressions do not support`, "a bool, integer, float, datetime, string or bytes column");
      if (!this.columns.includes(name)) this.columns.push(name);
      return { type: { t: info.vtype === "utf8" ? "vstr" : "vbytes" }, ev: (ctx) => ctx.cache.get(name) ?? loadList(name, ctx), discovery: "double" };
    }
    const type = columnType(info.dtype);
    if (typeof type === "string") this.fail(node, `column "${name}" has dtype ${info.dtype.str}: ${type}`, "a bool, integer (not uint64), float, datetime, S or U column");
    if (!this.columns.includes(name)) this.columns.push(name);
    const dtype = info.dtype;
    return { type, ev: (ctx) => loadColumn(name, dtype, ctx), discovery: "double" };
  }

  not(node: ExpressionNode & { kind: "not" }, depth: number): Compiled {
    const operand = this.compile(node.operand, depth + 1);
    const value = operand.value;
    if (value !== undefined) return this.constant(this.python(node, true, () => pyUnary("~", value)));
    if (operand.type.t !== "num" || operand.type.kind !== "bool") this.fail(node, `"not" needs a condition, not ${this.typeName(operand)}`, "a boolean operand (numexpr inverts booleans only)", true);
    return {
      type: { t: "num", kind: "bool" },
      leaves: operand.leaves,
      discovery: operand.discovery,
      ev: (ctx) => {
        const v = (operand.ev(ctx) as NumVec & { k: "bool" }).v;
        const out = new Uint8Array(v.length);
        for (let i = 0; i < v.length; i++) out[i] = v[i]! ^ 1;
        return { k: "bool", v: out };
      },
    };
  }

  negate(node: ExpressionNode & { kind: "negate" }, depth: number): Compiled {
    const operand = this.compile(node.operand, depth + 1);
    const value = operand.value;
    if (value !== undefined) return this.constant(this.python(node, true, () => pyUnary("-", value)));
    const kind = this.kindOf(operand);
    if (kind === undefined || kind === "bool") this.fail(node, `cannot negate ${this.typeName(operand)}`, "a numeric operand (numexpr has no negation of booleans)", true);
    return { type: { t: "num", kind }, ev: (ctx) => negateVec(operand.ev(ctx) as NumVec), leaves: operand.leaves, discovery: operand.discovery };
  }

  compare(node: ExpressionNode & { kind: "compare" }, depth: number): Compiled {
    const left = this.compile(node.left, depth + 1);
    const right = this.compile(node.right, depth + 1);
    const op = node.op;
    if (!COMPARE_OPERATORS.has(op)) badNode(node, "unknown comparison operator");
    const mismatch = (): never => this.fail(node, `cannot compare ${this.typeName(left)} with ${this.typeName(right)}`, "operands of the same family: numbers and booleans, strings, or bytes", true);
    const lv = left.value;
    const rv = right.value;
    if (lv !== undefined && rv !== undefined) return this.constant({ k: "bool", v: this.python(node, true, () => pyCompare(op, lv, rv)) });
    const lk = this.kindOf(left);
    const rk = this.kindOf(right);
    if (lk === undefined || rk === undefined) {
      if (lk !== undefined || rk !== undefined) mismatch();
      return this.compareText(node, left, right, mismatch);
    }
    // numexpr compares in the common kind; two booleans are ordered as the integers 0 and 1.
    const kind = commonKind(lk, rk);
    const a = this.python(node.left, false, () => operand(left, kind));
    const b = this.python(node.right, false, () => operand(right, kind));
    const leaves = pythonOrder(op, lv !== undefined) ? [...b.leaves, ...a.leaves] : [...a.leaves, ...b.leaves];
    const result = (ev: Evaluator): Compiled => ({ type: { t: "num", kind: "bool" }, ev, leaves, discovery: "bool" });
    // A constant side stays a scalar (a column on the left, the operator mirrored if needed).
    const [vec, scalarSide, cmpOp] = b.leaf !== undefined ? [a, b.leaf, op] : a.leaf !== undefined ? [b, a.leaf, MIRROR[op]] : [a, undefined, op];
    // A column as it is stored compared with a constant, in the column's own kind or in float64,
    // to which int32 and float32 values convert exactly: the table may compare the stored bytes
    // (Compiled.comparison).
    const side = b.leaf !== undefined ? node.left : node.right;
    const sideKind = this.kindOf(b.leaf !== undefined ? left : right);
    const exact = sideKind === kind || (kind === "double" && (sideKind === "int" || sideKind === "float"));
    const comparison = scalarSide !== undefined && side.kind === "column" && exact ? { comparison: { column: side.name, op: cmpOp, leaf: scalarSide } } : {};
    if (kind === "long") {
      const longOf = (x: Operand, ctx: EvalContext): LongValues => (x.get(ctx) as NumVec & { k: "long" }).v;
      if (scalarSide !== undefined) return { ...result((ctx) => ({ k: "bool", v: compareLong(cmpOp, longOf(vec, ctx), scalarSide.scalar as bigint, ctx.n) })), ...comparison };
      return result((ctx) => ({ k: "bool", v: compareLong(op, longOf(a, ctx), longOf(b, ctx), ctx.n) }));
    }
    // bool and int vectors are compared as they are (casting them would only copy).
    const numbers = (x: Operand, ctx: EvalContext): NumArray => numberArray(x.get(ctx));
    if (scalarSide !== undefined) {
      const scalar = scalarSide.scalar as number;
      // The compared values once per evaluation: the kernels' terms and, when the kernels decline
      // the block, `ev` both read them (an operand with arithmetic would be computed twice).
      const computed = new WeakMap<EvalContext, NumArray>();
      const values = (ctx: EvalContext): NumArray => {
        let a = computed.get(ctx);
        if (a === undefined) {
          a = numbers(vec, ctx);
          computed.set(ctx, a);
        }
        return a;
      };
      const term = (ctx: EvalContext): ScalarTerm[] | undefined => {
        const a = values(ctx);
        return a instanceof Float64Array || a instanceof Float32Array || a instanceof Int32Array ? [{ op: cmpOp, a, b: scalar }] : undefined;
      };
      return { ...result((ctx) => ({ k: "bool", v: compareNumbers(cmpOp, values(ctx), scalar, ctx.n) })), terms: { isAnd: undefined, get: term }, ...comparison };
    }
    return result((ctx) => ({ k: "bool", v: compareNumbers(op, numbers(a, ctx), numbers(b, ctx), ctx.n) }));
  }

  /**
   * Strings and bytes. numexpr compares `S` columns with bytes literals and with ASCII string
   * literals, padding the shorter side with NULs. `U` columns (code points) and variable-length
   * columns are extensions.
   */
  compareText(node: ExpressionNode & { kind: "compare" }, left: Compiled, right: Compiled, mismatch: () => never): Compiled {
    const types = [left.type.t, right.type.t];
    if (types.includes("vstr") || types.includes("vbytes")) return this.compareList(node, left, right, mismatch);
    // The family of the column-based side: "bytes" (S) or "str" (U). One side at least is one.
    const family = left.value === undefined ? left.type.t : right.type.t;
    const side = (c: Compiled, at: ExpressionNode): Evaluator => {
      const value = c.value;
      if (value === undefined) {
        if (c.type.t !== family) mismatch();
        return c.ev;
      }
      if (value.k === "bytes") {
        if (family !== "bytes") mismatch();
        this.textLiteral("bytes", at);
        const v = value.v.slice();
        return () => ({ k: "sbytes", v, w: -1 });
      }
      if (value.k !== "str") return mismatch();
      if (family === "str") {
        const points = codePoints(value.v);
        return () => ({ k: "sstr", v: points, w: -1 });
      }
      for (const ch of value.v) {
        if (ch.codePointAt(0)! > 0x7f) this.fail(at, "non-ASCII string literal compared with an S column", 'ASCII text, or a bytes literal such as b"\\xc3\\xa9" (numexpr encodes string literals as ASCII and raises UnicodeEncodeError)');
      }
      this.textLiteral("str", at);
      const v = encoder.encode(value.v);
      return () => ({ k: "sbytes", v, w: -1 });
    };
    let le = side(left, node.left);
    let re = side(right, node.right);
    if (family === "str") return { type: { t: "num", kind: "bool" }, ev: (ctx) => ({ k: "bool", v: compareFixed(node.op, le(ctx) as FixedVec, re(ctx) as FixedVec, ctx.n) }) };
    // Python hands "literal op column" to the column's reflected operator, and numexpr writes
    // a < b as b > a: the order of stringcmp's operands matters for its empty-string shortcut.
    let op = node.op;
    if (left.value !== undefined) {
      [le, re] = [re, le];
      op = MIRROR[op];
    }
    const swap = op === "<" || op === "<=";
    const first = swap ? re : le;
    const second = swap ? le : re;
    const test = signTest(swap ? MIRROR[op] : op);
    return { type: { t: "num", kind: "bool" }, ev: (ctx) => ({ k: "bool", v: compareStrings(test, first(ctx) as FixedVec, second(ctx) as FixedVec, ctx.n) }) };
  }

  /**
   * A variable-length column (spec/v2.md §12) against a literal or a column of the same kind:
   * utf8 by code point order (exactly, trailing NULs included), bytes by unsigned byte order
   * against a bytes literal or a string literal's UTF-8.
   */
  compareList(node: ExpressionNode & { kind: "compare" }, left: Compiled, right: Compiled, mismatch: () => never): Compiled {
    const text = left.type.t === "vstr" || right.type.t === "vstr";
    type Side = { list?: readonly (string | Uint8Array)[]; scalar?: string | Uint8Array };
    const side = (c: Compiled): ((ctx: EvalContext) => Side) => {
      if (c.type.t === (text ? "vstr" : "vbytes")) return (ctx) => ({ list: (c.ev(ctx) as Vec & { k: "list" }).v });
      const value = c.value;
      if (value?.k === "str") {
        const scalar = text ? value.v : encoder.encode(value.v);
        return () => ({ scalar });
      }
      if (!text && value?.k === "bytes") {
        const scalar = value.v;
        return () => ({ scalar });
      }
      return mismatch();
    };
    const a = side(left);
    const b = side(right);
    const test = signTest(node.op);
    const cmp = (text ? compareCodePoints : compareBytes) as (x: string | Uint8Array, y: string | Uint8Array) => number;
    return {
      type: { t: "num", kind: "bool" },
      ev: (ctx) => {
        const x = a(ctx);
        const y = b(ctx);
        const out = new Uint8Array(ctx.n);
        for (let i = 0; i < ctx.n; i++) out[i] = test(cmp(x.list?.[i] ?? x.scalar!, y.list?.[i] ?? y.scalar!)) ? 1 : 0;
        return { k: "bool", v: out };
      },
    };
  }

  arithmetic(node: ExpressionNode & { kind: "arithmetic" }, depth: number): Compiled {
    const left = this.compile(node.left, depth + 1);
    const right = this.compile(node.right, depth + 1);
    const op = node.op;
    if (!ARITHMETIC_OPERATORS.has(op)) badNode(node, "unknown arithmetic operator");
    const lv = left.value;
    const rv = right.value;
    if (lv !== undefined && rv !== undefined) return this.constant(this.python(node, true, () => pyBinary(op, lv, rv)));
    const lk = this.kindOf(left);
    const rk = this.kindOf(right);
    if (lk === undefined || rk === undefined) this.fail(node, `arithmetic needs numbers, not ${this.typeName(lk === undefined ? left : right)}`, "numeric operands", true);
    if (op === "//") this.fail(node, "numexpr has no floor division of arrays", "// between literals only; / is true division", true);
    const common = commonKind(lk, rk);
    const discoveryOf = (c: Compiled, k: Kind): Kind => (c.value !== undefined ? k : (c.discovery ?? k));
    const discovery: Kind = op === "/" ? "double" : commonKind(discoveryOf(left, lk), discoveryOf(right, rk));
    const built = (kind: Kind, a: Operand, b: Operand, ev: Evaluator): Compiled => ({
      type: { t: "num", kind },
      ev,
      leaves: pythonOrder(op, lv !== undefined) ? [...b.leaves, ...a.leaves] : [...a.leaves, ...b.leaves],
      discovery,
    });
    if (op === "/") {
      // numexpr (optimization "aggressive", its default) turns x / c into x * (1 / c) when x
      // and the literal c are both float64, computing 1 / c in Python; its first pass, which
      // types every column as float64, does so for any x of float64 kind there — so x / 0.0
      // raises ZeroDivisionError whatever the column's dtype.
      const reciprocalOf = (): PyValue => this.python(node, true, () => pyBinary("/", { k: "float", v: 1 }, rv!));
      if (rv !== undefined && rv.k === "float" && discoveryOf(left, lk) === "double") reciprocalOf();
      if (rv !== undefined && lk === "double" && rk === "double") {
        const a = operand(left, "double");
        const b = operand(this.constant(reciprocalOf()), "double");
        return built("double", a, b, (ctx) => ({ k: "double", v: floatArith("*", numberArray(a.get(ctx)), numberArray(b.get(ctx)), ctx.n, false) as Float64Array }));
      }
      const kind: Kind = common === "float" ? "float" : "double";
      const a = this.python(node.left, false, () => operand(left, kind));
      const b = this.python(node.right, false, () => operand(right, kind));
      return built(kind, a, b, (ctx) => ({ k: kind, v: floatArith("/", numberArray(a.get(ctx)), numberArray(b.get(ctx)), ctx.n, kind === "float") }) as NumVec);
    }
    if (common === "bool") this.fail(node, "arithmetic on two booleans", "a number on one side (numexpr has no boolean arithmetic)", true);
    const a = this.python(node.left, false, () => operand(left, common));
    const b = this.python(node.right, false, () => operand(right, common));
    const kop = op as ArithOp;
    switch (common) {
      case "int":
        return built("int", a, b, (ctx) => ({ k: "int", v: intArith(kop, numberArray(a.get(ctx)), numberArray(b.get(ctx)), ctx.n) }));
      case "long": {
        const longOf = (x: Operand, ctx: EvalContext): LongValues => (x.get(ctx) as NumVec & { k: "long" }).v;
        // A constant stays a scalar on the right (commutative operators may swap it there).
        const rightLeaf = b.leaf;
        if (rightLeaf !== undefined) return built("long", a, b, (ctx) => ({ k: "long", v: longArith(kop, longOf(a, ctx), rightLeaf.scalar as bigint, ctx.n) }));
        const leftLeaf = a.leaf;
        if (leftLeaf !== undefined && (kop === "+" || kop === "*")) return built("long", a, b, (ctx) => ({ k: "long", v: longArith(kop, longOf(b, ctx), leftLeaf.scalar as bigint, ctx.n) }));
        return built("long", a, b, (ctx) => ({ k: "long", v: longArith(kop, longOf(a, ctx), longOf(b, ctx), ctx.n) }));
      }
      default: {
        const single = common === "float";
        return built(common, a, b, (ctx) => ({ k: common, v: floatArith(kop, numberArray(a.get(ctx)), numberArray(b.get(ctx)), ctx.n, single) }) as NumVec);
      }
    }
  }

  logical(node: ExpressionNode & { kind: "and" | "or" }, depth: number): Compiled {
    if (!Array.isArray(node.operands) || node.operands.length < 2) badNode(node, `${node.kind} node needs at least two operands`);
    const isAnd = node.kind === "and";
    const symbol = isAnd ? "&" : "|";
    // Python evaluates a & b & c as (a & b) & c. Leading constants fold as Python's & and |; a
    // constant before the first column-based operand makes Python call the constant's & with a
    // numexpr node, which raises TypeError (numexpr nodes have no reflected & and |).
    let folded: PyValue | undefined;
    let decided: boolean | undefined;
    const arrays: Compiled[] = [];
    node.operands.forEach((o, i) => {
      const c = this.compile(o, depth + 1);
      const value = c.value;
      if (i === 0 || folded !== undefined) {
        if (value !== undefined) {
          const before = folded;
          folded = before === undefined ? value : this.python(o, false, () => pyBinary(symbol, before, value));
          return;
        }
        if (folded !== undefined) this.fail(o, `a constant on the left of "${symbol}" with a column-based right side`, `the constant on the right (numexpr raises TypeError: unsupported operand type(s) for ${symbol})`);
      }
      if (value !== undefined) {
        if (value.k !== "bool") this.fail(o, `"${node.kind}" needs conditions, not ${this.typeName(c)}`, "a boolean operand such as a comparison");
        // x & False is all false, x | True all true; x & True and x | False are x.
        if (value.v !== isAnd) decided ??= value.v;
        return;
      }
      this.requireBool(c, o, node.kind);
      arrays.push(c);
    });
    if (folded !== undefined) return this.constant(folded);
    const leaves = arrays.flatMap((c) => c.leaves ?? []);
    if (decided !== undefined) return { ...this.decided(arrays, decided), leaves };
    // Comparisons with constants joined by one operator go to the kernels together.
    const parts = arrays.map((c) => c.terms);
    const terms = parts.every((t) => t !== undefined && (t.isAnd === undefined || t.isAnd === isAnd))
      ? {
          isAnd,
          get: (ctx: EvalContext): ScalarTerm[] | undefined => {
            const all: ScalarTerm[] = [];
            for (const part of parts) {
              const got = part!.get(ctx);
              if (got === undefined) return undefined;
              all.push(...got);
            }
            return all;
          },
        }
      : undefined;
    return {
      type: { t: "num", kind: "bool" },
      leaves,
      discovery: "bool",
      ...(terms === undefined ? {} : { terms }),
      ev: (ctx) => {
        const inKernels = terms === undefined ? undefined : termsResult(terms, ctx, "mask");
        if (inKernels !== undefined) return { k: "bool", v: inKernels.bytes.slice() };
        let out: Uint8Array | undefined;
        for (const c of arrays) {
          const v = (c.ev(ctx) as NumVec & { k: "bool" }).v;
          if (out === undefined) out = v.slice();
          else combineMasks(out, v, isAnd);
        }
        return { k: "bool", v: out! };
      },
    };
  }

  /** `(... & False)` or `(... | True)`: every row has the same answer once the columns are read. */
  decided(arrays: Compiled[], value: boolean): Compiled {
    return {
      type: { t: "num", kind: "bool" },
      ev: (ctx) => {
        // The column-based operands are still evaluated: their input is checked like numexpr's.
        for (const c of arrays) c.ev(ctx);
        return { k: "bool", v: new Uint8Array(ctx.n).fill(value ? 1 : 0) };
      },
    };
  }

  requireBool(c: Compiled, at: ExpressionNode, kind: "and" | "or"): void {
    if (c.type.t !== "num" || c.type.kind !== "bool") this.fail(at, `"${kind}" needs conditions, not ${this.typeName(c)}`, "a boolean operand such as a comparison");
  }
}

/** `out &= v` (or `|=`) over masks of 0/1 bytes, four bytes at a time where both are aligned. */
function combineMasks(out: Uint8Array, v: Uint8Array, isAnd: boolean): void {
  const n = out.length;
  let i = 0;
  if (out.byteOffset % 4 === 0 && v.byteOffset % 4 === 0) {
    const words = n >> 2;
    const ow = new Int32Array(out.buffer, out.byteOffset, words);
    const vw = new Int32Array(v.buffer, v.byteOffset, words);
    if (isAnd) for (let w = 0; w < words; w++) ow[w] = ow[w]! & vw[w]!;
    else for (let w = 0; w < words; w++) ow[w] = ow[w]! | vw[w]!;
    i = words << 2;
  }
  if (isAnd) for (; i < n; i++) out[i] = out[i]! & v[i]!;
  else for (; i < n; i++) out[i] = out[i]! | v[i]!;
}

function formatSafely(node: ExpressionNode): string | undefined {
  try {
    return formatExpression(node);
  } catch {
    return undefined;
  }
}

/**
 * A node's comparisons evaluated by the kernels (row numbers counted from `first`); `undefined`
 * when they cannot take this block.
 */
export function termsResult<W extends keyof TermsResult>(terms: NonNullable<Compiled["terms"]>, ctx: EvalContext, want: W, first = 0): TermsResult[W] | undefined {
  // Blocks the kernels decline anyway are not worth collecting the terms for.
  if (ctx.n < MIN_WASM_ROWS) return undefined;
  const list = terms.get(ctx);
  return list === undefined ? undefined : evaluateTermsWasm(list, ctx.n, terms.isAnd ?? true, want, first);
}
