// Constant folding with Python's semantics. numexpr builds its expression tree by evaluating the
// expression text as Python, so a sub-expression whose operands are all literals is computed by
// Python itself (arbitrary-precision integers, floor `%` and `//`, true division, exceptions on
// division by zero) before numexpr sees it; only the result becomes a typed constant. This module
// restates those rules for the literals of the expression language (spec/expressions.md §4).

/**
 * A Python value produced by literals and constant folding: `bool`, `int` (exact), `float`
 * (IEEE double), `str` or `bytes`.
 *
 * @example
 * ```ts
 * const seven: PyValue = { k: "int", v: 7n };
 * ```
 */
export type PyValue = { k: "bool"; v: boolean } | { k: "int"; v: bigint } | { k: "float"; v: number } | { k: "str"; v: string } | { k: "bytes"; v: Uint8Array };

/**
 * Thrown where Python (or numexpr) raises while building the expression; the compiler turns it
 * into a positioned `UsageError` `INVALID_ARGUMENT`. `python` names the exception Python raises.
 *
 * @example
 * ```ts
 * throw new PyRefusal("division by zero", "ZeroDivisionError");
 * ```
 */
export class PyRefusal extends Error {
  /** The Python exception numexpr raises for the same expression. */
  readonly python: string;
  constructor(message: string, python: string) {
    super(message);
    this.python = python;
  }
}

/** Python's int(x) view of a number-like constant (bools are ints in Python). */
function asInt(v: PyValue): bigint | undefined {
  if (v.k === "int") return v.v;
  if (v.k === "bool") return v.v ? 1n : 0n;
  return undefined;
}

/**
 * Python's `float(x)` of an integer: correctly rounded (which `Number(bigint)` also is), and an
 * `OverflowError` when the result would not be finite.
 *
 * @example
 * ```ts
 * intToFloat(2n ** 53n + 1n); // 9007199254740992
 * ```
 */
export function intToFloat(x: bigint): number {
  const f = Number(x);
  if (!Number.isFinite(f)) throw new PyRefusal("integer too large to convert to float", "OverflowError");
  return f;
}

function asFloat(v: PyValue): number | undefined {
  if (v.k === "float") return v.v;
  const i = asInt(v);
  return i === undefined ? undefined : intToFloat(i);
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : (x < 0n ? -x : x).toString(2).length;
}

/** x · 2^e without intermediate overflow or underflow of the power. */
function scale2(x: number, e: number): number {
  const half = Math.trunc(e / 2);
  return x * 2 ** half * 2 ** (e - half);
}

/** Python's int / int: the exact quotient rounded once to float64. */
function intTrueDivide(a: bigint, b: bigint): number {
  if (b === 0n) throw new PyRefusal("division by zero", "ZeroDivisionError");
  const negative = a < 0n !== b < 0n;
  const x = a < 0n ? -a : a;
  const y = b < 0n ? -b : b;
  if (x < 2n ** 53n && y < 2n ** 53n) return Number(a) / Number(b); // both exact: IEEE division rounds once
  // Scale so that the integer quotient has 55 or 56 bits, and keep a sticky bit for the remainder:
  // converting that to float64 then rounds exactly once, like the exact quotient would.
  const shift = 55 - (bitLength(x) - bitLength(y));
  const num = shift > 0 ? x << BigInt(shift) : x;
  const den = shift < 0 ? y << BigInt(-shift) : y;
  let q = num / den;
  if (q * den !== num) q |= 1n;
  const result = scale2(Number(q), -shift);
  if (!Number.isFinite(result)) throw new PyRefusal("integer division result too large for a float", "OverflowError");
  return negative ? -result : result;
}

/** Python's float % float (the result takes the divisor's sign; a zero result too). */
function floatMod(x: number, y: number): number {
  if (y === 0) throw new PyRefusal("float modulo", "ZeroDivisionError");
  let mod = x % y; // JavaScript's % is C's fmod, exactly
  if (mod !== 0) {
    if (y < 0 !== mod < 0) mod += y;
  } else {
    mod = y < 0 ? -0 : 0;
  }
  return mod;
}

/** Python's float // float, computed the way Python's divmod does. */
function floatFloorDiv(x: number, y: number): number {
  if (y === 0) throw new PyRefusal("float divmod()", "ZeroDivisionError");
  const mod = x % y;
  let div = (x - mod) / y;
  if (mod !== 0 && y < 0 !== mod < 0) div -= 1;
  if (div === 0) return Math.sign(x / y) < 0 || Object.is(x / y, -0) ? -0 : 0;
  let floorDiv = Math.floor(div);
  if (div - floorDiv > 0.5) floorDiv += 1;
  return floorDiv;
}

function intFloorDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new PyRefusal("integer division or modulo by zero", "ZeroDivisionError");
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function intMod(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new PyRefusal("integer modulo by zero", "ZeroDivisionError");
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
}

function typeError(what: string): PyRefusal {
  return new PyRefusal(what, "TypeError");
}

/**
 * Python's unary `-` and `~` on a constant: `-True` is `-1`, `~True` is `-2` (bools are ints),
 * `~` on a float and either operator on a string raise `TypeError`.
 *
 * @example
 * ```ts
 * pyUnary("~", { k: "bool", v: true }); // { k: "int", v: -2n }
 * ```
 */
export function pyUnary(op: "-" | "~", v: PyValue): PyValue {
  if (v.k === "float") {
    if (op === "~") throw typeError("bad operand type for unary ~: 'float'");
    return { k: "float", v: -v.v };
  }
  const i = asInt(v);
  if (i === undefined) throw typeError(`bad operand type for unary ${op}: '${v.k}'`);
  return { k: "int", v: op === "-" ? -i : -i - 1n };
}

/**
 * Python's binary operators on two constants: `+ - * / // %` on numbers (ints exact, floats
 * IEEE, `/` true division, `//` and `%` floored, division by zero a `ZeroDivisionError`), and
 * `& |` on bools and ints.
 *
 * @example
 * ```ts
 * pyBinary("%", { k: "int", v: -7n }, { k: "int", v: 2n }); // { k: "int", v: 1n }
 * ```
 */
export function pyBinary(op: "+" | "-" | "*" | "/" | "//" | "%" | "&" | "|", a: PyValue, b: PyValue): PyValue {
  if (op === "&" || op === "|") {
    if (a.k === "bool" && b.k === "bool") return { k: "bool", v: op === "&" ? a.v && b.v : a.v || b.v };
    const x = asInt(a);
    const y = asInt(b);
    if (x === undefined || y === undefined) throw typeError(`unsupported operand type(s) for ${op}: '${a.k}' and '${b.k}'`);
    return { k: "int", v: op === "&" ? x & y : x | y };
  }
  const x = asInt(a);
  const y = asInt(b);
  if (x !== undefined && y !== undefined) {
    switch (op) {
      case "+":
        return { k: "int", v: x + y };
      case "-":
        return { k: "int", v: x - y };
      case "*":
        return { k: "int", v: x * y };
      case "/":
        return { k: "float", v: intTrueDivide(x, y) };
      case "//":
        return { k: "int", v: intFloorDiv(x, y) };
      case "%":
        return { k: "int", v: intMod(x, y) };
    }
  }
  if ((a.k !== "float" && x === undefined) || (b.k !== "float" && y === undefined)) {
    // Python would concatenate or repeat strings here; the expression language has no string arithmetic.
    throw typeError(`unsupported operand type(s) for ${op}: '${a.k}' and '${b.k}'`);
  }
  const f = asFloat(a)!;
  const g = asFloat(b)!;
  switch (op) {
    case "+":
      return { k: "float", v: f + g };
    case "-":
      return { k: "float", v: f - g };
    case "*":
      return { k: "float", v: f * g };
    case "/":
      if (g === 0) throw new PyRefusal("float division by zero", "ZeroDivisionError");
      return { k: "float", v: f / g };
    case "//":
      return { k: "float", v: floatFloorDiv(f, g) };
    case "%":
      return { k: "float", v: floatMod(f, g) };
  }
}

/** Sign of x − y (NaN when unordered), exactly, for Python numbers. */
function numberSign(a: PyValue, b: PyValue): number {
  const x = asInt(a);
  const y = asInt(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (x !== undefined) return -compareFloatInt((b as { v: number }).v, x);
  if (y !== undefined) return compareFloatInt((a as { v: number }).v, y);
  const f = (a as { v: number }).v;
  const g = (b as { v: number }).v;
  return f < g ? -1 : f > g ? 1 : f === g ? 0 : NaN;
}

/** Sign of f − i for a float and an int, exactly (Python compares them without rounding). */
function compareFloatInt(f: number, i: bigint): number {
  if (f !== f) return NaN;
  if (f === Infinity) return 1;
  if (f === -Infinity) return -1;
  const rounded = Number(i);
  if (f < rounded) return -1;
  if (f > rounded) return 1;
  const exact = BigInt(f); // f is integral here: it equals a rounded integer
  return exact < i ? -1 : exact > i ? 1 : 0;
}

function sequenceSign(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function codePointArray(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

/**
 * Python's comparison of two constants: numbers exactly (an int and a float without rounding,
 * NaN unordered), strings by code points, bytes by unsigned bytes. A string with bytes or a
 * number is never equal to it, and has no order with it (`TypeError`).
 *
 * @example
 * ```ts
 * pyCompare("==", { k: "int", v: 2n ** 53n + 1n }, { k: "float", v: 2 ** 53 }); // false
 * ```
 */
export function pyCompare(op: "==" | "!=" | "<" | "<=" | ">" | ">=", a: PyValue, b: PyValue): boolean {
  let s: number;
  const textA = a.k === "str" || a.k === "bytes";
  const textB = b.k === "str" || b.k === "bytes";
  if (textA || textB) {
    if (a.k !== b.k) {
      // Python: values of different types are never equal, and have no order.
      if (op === "==" || op === "!=") return op === "!=";
      throw typeError(`'${op}' not supported between instances of '${a.k}' and '${b.k}'`);
    }
    s = a.k === "str" ? sequenceSign(codePointArray(a.v), codePointArray((b as { v: string }).v)) : sequenceSign(a.v as Uint8Array, (b as { v: Uint8Array }).v);
  } else {
    s = numberSign(a, b);
  }
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
