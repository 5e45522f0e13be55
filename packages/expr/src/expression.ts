// The query expression language of `where` queries (CTable.where in @fmt/store): tokenizer,
// recursive-descent parser, formatter, static type checker and a block-wise, vectorised
// evaluator. No eval/Function and no regular expressions take part in evaluation; only single
// characters are classified with Unicode property tests to recognise identifiers.
import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import { MIN_WASM_ROWS, evaluateTermsWasm } from "./compare-wasm.js";
import type { ScalarTerm, TermsResult } from "./compare-wasm.js";
import { castVec, commonKind, compareLong, compareNumbers, countOnes, fillVec, floatArith, intArith, loadLong, longArith, negateVec } from "./kernels.js";
import type { ArithOp, Kind, LongValues, NumArray, NumVec } from "./kernels.js";
import { PyRefusal, intToFloat, pyBinary, pyCompare, pyUnary } from "./python.js";
import type { PyValue } from "./python.js";
import { decodeValues } from "./values.js";

/** One-character escapes inside string literals and the code unit each stands for. */
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { "\\": 92, "'": 39, '"': 34, n: 10, r: 13, t: 9, "0": 0 };

/**
 * Limits that keep hostile expressions cheap: the parser refuses longer texts, deeper nesting
 * (parentheses, `~`/`not`/unary minus chains, and the height of the syntax tree) and longer
 * integer literals with `UsageError` `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * console.log(EXPRESSION_LIMITS.maxDepth); // 256
 * ```
 */
export const EXPRESSION_LIMITS = Object.freeze({
  /** Longest expression text, in UTF-16 code units. */
  maxLength: 100_000,
  /** Deepest nesting of parentheses and unary operators, and tallest syntax tree. */
  maxDepth: 256,
  /** Most digits in an integer literal (Python ≥ 3.11 refuses more by default too). */
  maxIntegerDigits: 4300,
});

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

// ---------------------------------------------------------------------------------------------
// errors

function describePosition(text: string, start: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < start && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const column = start - lineStart + 1;
  return text.includes("\n") ? `line ${line}, column ${column}` : `column ${column}`;
}

const CONTEXT = 40;

/** The line holding `start`, with a caret under [start, end). */
function caretDisplay(text: string, start: number, end: number): string {
  const at = Math.min(Math.max(start, 0), text.length);
  let lineStart = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
  let lineEnd = text.indexOf("\n", at);
  if (lineEnd < 0) lineEnd = text.length;
  let prefix = "";
  let suffix = "";
  if (at - lineStart > CONTEXT) {
    lineStart = at - CONTEXT;
    prefix = "…";
  }
  if (lineEnd - at > CONTEXT * 2) {
    lineEnd = at + CONTEXT * 2;
    suffix = "…";
  }
  const visible = (s: string): string => {
    let out = "";
    for (const ch of s) {
      const code = ch.codePointAt(0)!;
      out += code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0) ? " " : ch;
    }
    return out;
  };
  const before = visible(text.slice(lineStart, at));
  const width = Math.max(1, [...visible(text.slice(at, Math.min(Math.max(end, at), lineEnd)))].length);
  const indent = " ".repeat([...(prefix + before)].length);
  return `  ${prefix}${before}${visible(text.slice(at, lineEnd))}${suffix}\n  ${indent}${"^".repeat(width)}`;
}

/**
 * What an expression error carries in `actual`: the offending token (or source slice) and its
 * UTF-16 offset in the expression text.
 *
 * @example
 * ```ts
 * try { parseExpression("a = 1"); } catch (e) {
 *   if (isBcolzError(e)) console.log((e.actual as ExpressionErrorLocation).position); // 2
 * }
 * ```
 */
export interface ExpressionErrorLocation {
  /** The offending token, or `"end of expression"`. */
  token: string;
  /** UTF-16 offset of the token in the expression. */
  position: number;
}

function expressionError(text: string | undefined, start: number | undefined, end: number | undefined, reason: string, expected: string): UsageError {
  if (text === undefined || start === undefined) {
    return new UsageError("INVALID_ARGUMENT", reason, { field: "expression", expected });
  }
  const stop = end ?? start;
  const token = start >= text.length ? "end of expression" : text.slice(start, Math.max(stop, start + 1));
  const shown = token.length > 60 ? `${token.slice(0, 57)}...` : token;
  const where = start >= text.length ? "" : ` at ${describePosition(text, start)}`;
  const location: ExpressionErrorLocation = { token: shown, position: start };
  return new UsageError("INVALID_ARGUMENT", `${reason}${where}\n${caretDisplay(text, start, stop)}`, {
    field: "expression",
    expected,
    actual: location,
  });
}

// ---------------------------------------------------------------------------------------------
// tokenizer

type TokenKind = "integer" | "float" | "string" | "bytes" | "identifier" | "operator" | "end";

interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** Operator text, identifier name, or the source slice. */
  text: string;
  /** Identifier written in backticks (never a keyword). */
  quoted?: boolean;
  integer?: bigint;
  float?: number;
  string?: string;
  bytes?: Uint8Array;
}

const TWO_CHAR_OPERATORS = new Set(["==", "!=", "<=", ">=", "//"]);
const ONE_CHAR_OPERATORS = new Set(["<", ">", "&", "|", "~", "+", "-", "*", "/", "%", "(", ")"]);
const ID_START = /^[\p{ID_Start}]$/u;
const ID_CONTINUE = /^[\p{ID_Continue}]$/u;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isAsciiIdStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isIdStart(ch: string): boolean {
  const code = ch.codePointAt(0)!;
  return code < 0x80 ? isAsciiIdStart(code) : ID_START.test(ch);
}

function isIdContinue(ch: string): boolean {
  const code = ch.codePointAt(0)!;
  return code < 0x80 ? isAsciiIdStart(code) || isDigit(code) : ID_CONTINUE.test(ch);
}

function isHex(code: number): boolean {
  return isDigit(code) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

function codePointAt(text: string, i: number): string {
  const code = text.codePointAt(i)!;
  return String.fromCodePoint(code);
}

class Tokenizer {
  readonly text: string;
  pos = 0;

  constructor(text: string) {
    this.text = text;
  }

  error(start: number, end: number, reason: string, expected: string): UsageError {
    return expressionError(this.text, start, end, reason, expected);
  }

  next(): Token {
    const text = this.text;
    while (this.pos < text.length) {
      const c = text.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else break;
    }
    const start = this.pos;
    if (start >= text.length) return { kind: "end", start, end: start, text: "" };
    const c = text.charCodeAt(start);
    const two = text.slice(start, start + 2);
    if (TWO_CHAR_OPERATORS.has(two)) {
      this.pos += 2;
      return { kind: "operator", start, end: this.pos, text: two };
    }
    const one = text[start]!;
    if (ONE_CHAR_OPERATORS.has(one)) {
      this.pos++;
      return { kind: "operator", start, end: this.pos, text: one };
    }
    if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(start + 1)))) return this.number();
    if (c === 34 || c === 39) return this.quoted(start, start, false);
    if (c === 96) return this.backtick();
    const ch = codePointAt(text, start);
    if (isIdStart(ch)) {
      let i = start + ch.length;
      while (i < text.length) {
        const next = codePointAt(text, i);
        if (!isIdContinue(next)) break;
        i += next.length;
      }
      const name = text.slice(start, i);
      const q = text.charCodeAt(i);
      if ((name === "b" || name === "B") && (q === 34 || q === 39)) return this.quoted(start, i, true);
      this.pos = i;
      return { kind: "identifier", start, end: i, text: name };
    }
    if (one === "=") throw this.error(start, start + 1, 'unexpected "="', '"==" to test equality');
    if (one === "!") throw this.error(start, start + 1, 'unexpected "!"', '"!=", or "~" / "not" for negation');
    throw this.error(start, start + ch.length, `unexpected character ${JSON.stringify(ch)}`, "a column name, a literal, an operator or a parenthesis");
  }

  number(): Token {
    const text = this.text;
    const start = this.pos;
    let i = start;
    let isFloat = false;
    while (isDigit(text.charCodeAt(i))) i++;
    const intDigits = i - start;
    if (text.charCodeAt(i) === 46) {
      isFloat = true;
      i++;
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 101 || e === 69) {
      isFloat = true;
      let j = i + 1;
      const sign = text.charCodeAt(j);
      if (sign === 43 || sign === 45) j++;
      if (!isDigit(text.charCodeAt(j))) throw this.error(start, j + 1, "malformed exponent in number", "digits after the exponent mark, e.g. 1e-3");
      while (isDigit(text.charCodeAt(j))) j++;
      i = j;
    }
    if (i < text.length && isIdContinue(codePointAt(text, i))) {
      let j = i;
      while (j < text.length && isIdContinue(codePointAt(text, j))) j += codePointAt(text, j).length;
      throw this.error(start, j, "malformed number", "a decimal number such as 42, 2.5 or 1e-3");
    }
    const source = text.slice(start, i);
    this.pos = i;
    if (!isFloat) {
      if (intDigits > EXPRESSION_LIMITS.maxIntegerDigits) {
        throw this.error(start, i, "integer literal has too many digits", `at most ${EXPRESSION_LIMITS.maxIntegerDigits} digits`);
      }
      return { kind: "integer", start, end: i, text: source, integer: BigInt(source) };
    }
    const value = Number(source);
    if (!Number.isFinite(value)) throw this.error(start, i, "number literal out of range", "a finite float64 value");
    return { kind: "float", start, end: i, text: source, float: value };
  }

  /** A string (or, when `isBytes`, a bytes) literal whose quote is at `quoteAt`. */
  quoted(start: number, quoteAt: number, isBytes: boolean): Token {
    const text = this.text;
    const quote = text.charCodeAt(quoteAt);
    const parts: number[] = []; // code points, or bytes for a bytes literal
    let i = quoteAt + 1;
    for (;;) {
      if (i >= text.length) throw this.error(start, i, "unterminated string literal", `a closing ${String.fromCharCode(quote)}`);
      const c = text.charCodeAt(i);
      if (c === quote) {
        i++;
        break;
      }
      if (c !== 92) {
        const ch = codePointAt(text, i);
        const code = ch.codePointAt(0)!;
        if (isBytes && code > 0x7f) throw this.error(i, i + ch.length, "non-ASCII character in a bytes literal", "ASCII characters or \\xNN escapes");
        parts.push(code);
        i += ch.length;
        continue;
      }
      const escStart = i;
      const e = text[i + 1];
      i += 2;
      const simple = e === undefined ? undefined : SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        parts.push(simple);
        continue;
      }
      switch (e) {
        case "x": {
          if (!isHex(text.charCodeAt(i)) || !isHex(text.charCodeAt(i + 1))) throw this.error(escStart, i + 2, "malformed \\x escape", "\\x followed by two hex digits");
          parts.push(Number.parseInt(text.slice(i, i + 2), 16));
          i += 2;
          break;
        }
        case "u": {
          if (isBytes) throw this.error(escStart, i, "\\u escape in a bytes literal", "\\xNN escapes in bytes literals");
          if (text[i] === "{") {
            let j = i + 1;
            while (j < text.length && j - i <= 7 && isHex(text.charCodeAt(j))) j++;
            if (j === i + 1 || text[j] !== "}") throw this.error(escStart, j + 1, "malformed \\u{...} escape", "\\u{ followed by 1 to 6 hex digits and }");
            const code = Number.parseInt(text.slice(i + 1, j), 16);
            if (code > 0x10ffff) throw this.error(escStart, j + 1, "code point above U+10FFFF", "a code point up to 10FFFF");
            parts.push(code);
            i = j + 1;
          } else {
            for (let k = 0; k < 4; k++) {
              if (!isHex(text.charCodeAt(i + k))) throw this.error(escStart, i + 4, "malformed \\u escape", "\\u followed by four hex digits");
            }
            parts.push(Number.parseInt(text.slice(i, i + 4), 16));
            i += 4;
          }
          break;
        }
        default:
          throw this.error(escStart, Math.min(i, text.length), "unknown escape sequence", "one of \\\\ \\' \\\" \\n \\r \\t \\0 \\xNN \\uNNNN \\u{N}");
      }
    }
    this.pos = i;
    const source = text.slice(start, i);
    if (isBytes) return { kind: "bytes", start, end: i, text: source, bytes: Uint8Array.from(parts) };
    let value = "";
    for (let p = 0; p < parts.length; p += 4096) value += String.fromCodePoint(...parts.slice(p, p + 4096));
    return { kind: "string", start, end: i, text: source, string: value };
  }

  backtick(): Token {
    const text = this.text;
    const start = this.pos;
    const close = text.indexOf("`", start + 1);
    if (close < 0) throw this.error(start, text.length, "unterminated `quoted` column name", "a closing backtick");
    if (close === start + 1) throw this.error(start, close + 1, "empty `quoted` column name", "a column name between the backticks");
    this.pos = close + 1;
    return { kind: "identifier", start, end: close + 1, text: text.slice(start + 1, close), quoted: true };
  }
}

// ---------------------------------------------------------------------------------------------
// parser

const COMPARE_OPERATORS = new Set<string>(["==", "!=", "<", "<=", ">", ">="]);
const ARITHMETIC_OPERATORS = new Set<string>(["+", "-", "*", "/", "//", "%"]);
const KEYWORDS = new Set(["and", "or", "not", "true", "false", "True", "False"]);

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

class Parser {
  readonly tokens: Tokenizer;
  readonly text: string;
  token: Token;
  depth = 0;
  readonly heights = new WeakMap<ExpressionNode, number>();

  constructor(text: string) {
    this.text = text;
    this.tokens = new Tokenizer(text);
    this.token = this.tokens.next();
  }

  advance(): Token {
    const t = this.token;
    this.token = this.tokens.next();
    return t;
  }

  isOperator(text: string): boolean {
    return this.token.kind === "operator" && this.token.text === text;
  }

  isWord(word: string): boolean {
    return this.token.kind === "identifier" && this.token.quoted !== true && this.token.text === word;
  }

  fail(token: Token, reason: string, expected: string): never {
    throw expressionError(this.text, token.start, token.end, reason, expected);
  }

  unexpected(expected: string): never {
    const t = this.token;
    if (t.kind === "end") this.fail(t, "unexpected end of expression", expected);
    this.fail(t, `unexpected ${JSON.stringify(t.kind === "identifier" && t.quoted === true ? `\`${t.text}\`` : this.text.slice(t.start, t.end))}`, expected);
  }

  enter(token: Token): void {
    if (++this.depth > EXPRESSION_LIMITS.maxDepth) this.fail(token, "expression nested too deeply", `at most ${EXPRESSION_LIMITS.maxDepth} levels of nesting`);
  }

  /** Records the height of a new node and refuses trees taller than the limit. */
  node<N extends ExpressionNode>(node: N, children: ExpressionNode[], at: Token): N {
    let height = 1;
    for (const child of children) height = Math.max(height, (this.heights.get(child) ?? 1) + 1);
    if (height > EXPRESSION_LIMITS.maxDepth) this.fail(at, "expression nested too deeply", `a syntax tree at most ${EXPRESSION_LIMITS.maxDepth} levels tall`);
    this.heights.set(node, height);
    return node;
  }

  parse(): ExpressionNode {
    if (this.token.kind === "end") this.fail(this.token, "empty expression", "a condition such as price > 10");
    const node = this.or();
    const after: Token = this.token;
    if (after.kind !== "end") {
      this.unexpected(after.kind === "operator" && after.text === ")" ? 'no unmatched ")"' : "an operator (& | == < + ...) or the end of the expression");
    }
    return node;
  }

  logical(kind: "and" | "or", symbol: string, next: () => ExpressionNode): ExpressionNode {
    const first = next();
    const operands = [first];
    let opToken: Token | undefined;
    while (this.isOperator(symbol) || this.isWord(kind)) {
      const t = this.advance();
      opToken ??= t;
      operands.push(next());
    }
    if (opToken === undefined) return first;
    return this.node({ kind, operands, start: first.start, end: operands[operands.length - 1]!.end, opStart: opToken.start, opEnd: opToken.end }, operands, opToken);
  }

  or(): ExpressionNode {
    return this.logical("or", "|", () => this.and());
  }

  and(): ExpressionNode {
    return this.logical("and", "&", () => this.not());
  }

  not(): ExpressionNode {
    if (this.isOperator("~") || this.isWord("not")) {
      const t = this.advance();
      this.enter(t);
      const operand = this.not();
      this.depth--;
      return this.node({ kind: "not", operand, start: t.start, end: operand.end, opStart: t.start, opEnd: t.end }, [operand], t);
    }
    return this.comparison();
  }

  comparison(): ExpressionNode {
    const left = this.additive();
    if (this.token.kind !== "operator" || !COMPARE_OPERATORS.has(this.token.text)) return left;
    const t = this.advance();
    const right = this.additive();
    if (this.token.kind === "operator" && COMPARE_OPERATORS.has(this.token.text)) {
      this.fail(this.token, "comparisons cannot be chained", "parentheses and & between comparisons, e.g. (a < b) & (b < c)");
    }
    return this.node({ kind: "compare", op: t.text as CompareOperator, left, right, start: left.start, end: right.end, opStart: t.start, opEnd: t.end }, [left, right], t);
  }

  binary(ops: readonly string[], next: () => ExpressionNode): ExpressionNode {
    let left = next();
    while (this.token.kind === "operator" && ops.includes(this.token.text)) {
      const t = this.advance();
      const right = next();
      left = this.node({ kind: "arithmetic", op: t.text as ArithmeticOperator, left, right, start: left.start, end: right.end, opStart: t.start, opEnd: t.end }, [left, right], t);
    }
    return left;
  }

  additive(): ExpressionNode {
    return this.binary(["+", "-"], () => this.multiplicative());
  }

  multiplicative(): ExpressionNode {
    return this.binary(["*", "/", "//", "%"], () => this.unary());
  }

  unary(): ExpressionNode {
    if (this.isOperator("-") || this.isOperator("+")) {
      const t = this.advance();
      this.enter(t);
      const operand = this.unary();
      this.depth--;
      if (t.text === "+") {
        // Python's unary + turns a constant boolean into an int (+True is 1) and changes nothing
        // else; written as "* 1" for constants, which does the same, and dropped otherwise.
        if (operand.kind === "integer" || operand.kind === "float" || hasColumn(operand)) return operand;
        const one: ExpressionNode = { kind: "integer", value: 1n };
        return this.node({ kind: "arithmetic", op: "*", left: operand, right: one, start: t.start, end: operand.end, opStart: t.start, opEnd: t.end }, [operand, one], t);
      }
      // A minus directly applied to a literal is part of the literal, so that "-5" is the integer -5.
      if (operand.kind === "integer") return this.node({ kind: "integer", value: -operand.value, start: t.start, end: operand.end }, [], t);
      if (operand.kind === "float") return this.node({ kind: "float", value: -operand.value, start: t.start, end: operand.end }, [], t);
      return this.node({ kind: "negate", operand, start: t.start, end: operand.end, opStart: t.start, opEnd: t.end }, [operand], t);
    }
    return this.primary();
  }

  primary(): ExpressionNode {
    const t = this.token;
    switch (t.kind) {
      case "integer":
        this.advance();
        return this.node({ kind: "integer", value: t.integer!, start: t.start, end: t.end }, [], t);
      case "float":
        this.advance();
        return this.node({ kind: "float", value: t.float!, start: t.start, end: t.end }, [], t);
      case "string":
        this.advance();
        return this.node({ kind: "string", value: t.string!, start: t.start, end: t.end }, [], t);
      case "bytes":
        this.advance();
        return this.node({ kind: "bytes", value: t.bytes!, start: t.start, end: t.end }, [], t);
      case "identifier": {
        if (t.quoted !== true) {
          if (t.text === "true" || t.text === "True" || t.text === "false" || t.text === "False") {
            this.advance();
            return this.node({ kind: "boolean", value: t.text === "true" || t.text === "True", start: t.start, end: t.end }, [], t);
          }
          if (KEYWORDS.has(t.text)) this.unexpected("an operand (a column, a literal or a parenthesis)");
        }
        this.advance();
        return this.node({ kind: "column", name: t.text, start: t.start, end: t.end }, [], t);
      }
      case "operator":
        if (t.text === "(") {
          this.advance();
          this.enter(t);
          const inner = this.or();
          this.depth--;
          if (!this.isOperator(")")) this.unexpected('a closing ")"');
          this.advance();
          return inner;
        }
        return this.unexpected("an operand (a column, a literal or a parenthesis)");
      default:
        return this.unexpected("an operand (a column, a literal or a parenthesis)");
    }
  }
}

/** Does a tree refer to a column? (A tree without columns is a constant, folded as Python does.) */
function hasColumn(node: ExpressionNode): boolean {
  switch (node.kind) {
    case "column":
      return true;
    case "compare":
    case "arithmetic":
      return hasColumn(node.left) || hasColumn(node.right);
    case "negate":
    case "not":
      return hasColumn(node.operand);
    case "and":
    case "or":
      return node.operands.some(hasColumn);
    default:
      return false;
  }
}

/**
 * Parses an expression into its syntax tree (without checking column names or types; see
 * {@link compileExpression}).
 *
 * Grammar, loosest binding first: `|` / `or`; `&` / `and`; `~` / `not`; comparisons
 * (`== != < <= > >=`, not chainable); `+ -`; `* / // %`; unary `-` and `+`; operands. Unlike
 * Python and numexpr, comparisons bind tighter than `&`/`|`, so `a > 1 & b < 2` means
 * `(a > 1) & (b < 2)`. Unary `+` before a column-free operand other than a number literal is
 * kept as `* 1` (Python's `+true` is the integer 1); elsewhere it is dropped. Operands are column names (identifiers, or any name in backticks),
 * integer literals (any size, exact), float literals (`2.5`, `1e-3`, `.5`), string literals in
 * single or double quotes with escapes `\\ \' \" \n \r \t \0 \xNN \uNNNN \u{N}`, bytes literals
 * `b"..."` (ASCII and `\xNN`), `true`/`false`, and parenthesised expressions.
 *
 * Errors are `UsageError` `INVALID_ARGUMENT` with `field: "expression"`, `expected`, `actual`
 * = {@link ExpressionErrorLocation}, and a message that shows the text with a caret under the
 * bad token.
 *
 * @example
 * ```ts
 * const tree = parseExpression('f64 > 2906.5 & (i32 < 10 | name == "x")');
 * tree.kind; // "and"
 * ```
 */
export function parseExpression(text: string): ExpressionNode {
  if (typeof text !== "string") {
    throw new UsageError("INVALID_ARGUMENT", "expression must be a string", { field: "expression", expected: "string", actual: typeof text });
  }
  if (text.length > EXPRESSION_LIMITS.maxLength) {
    throw new UsageError("INVALID_ARGUMENT", "expression is too long", { field: "expression", expected: `at most ${EXPRESSION_LIMITS.maxLength} characters`, actual: text.length });
  }
  return new Parser(text).parse();
}

// ---------------------------------------------------------------------------------------------
// formatter

const PREC_OR = 1;
const PREC_AND = 2;
const PREC_NOT = 3;
const PREC_COMPARE = 4;
const PREC_ADD = 5;
const PREC_MUL = 6;
const PREC_UNARY = 7;
const PREC_ATOM = 8;

/**
 * Options of {@link formatExpression}.
 *
 * @example
 * ```ts
 * formatExpression(tree, { words: true }); // "a > 1 and not b"
 * ```
 */
export interface FormatExpressionOptions {
  /** Write `and`/`or`/`not` instead of `&`/`|`/`~`. Default false. */
  words?: boolean;
}

function formatFloat(value: number): string {
  if (Object.is(value, -0)) return "-0.0";
  const s = String(value);
  return s.includes(".") || s.includes("e") ? s : `${s}.0`;
}

function formatString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else out += `\\u{${code.toString(16)}}`;
  }
  return `${out}"`;
}

function formatBytes(value: Uint8Array): string {
  let out = 'b"';
  for (const code of value) {
    if (code === 34 || code === 92) out += `\\${String.fromCharCode(code)}`;
    else if (code >= 0x20 && code < 0x7f) out += String.fromCharCode(code);
    else out += `\\x${code.toString(16).padStart(2, "0")}`;
  }
  return `${out}"`;
}

function isPlainIdentifier(name: string): boolean {
  if (name === "" || KEYWORDS.has(name)) return false;
  let first = true;
  for (const ch of name) {
    if (first ? !isIdStart(ch) : !isIdContinue(ch)) return false;
    first = false;
  }
  return true;
}

function formatColumn(name: string): string {
  if (typeof name !== "string") badNode(name, "column name must be a string");
  if (isPlainIdentifier(name)) return name;
  if (name.includes("`") || name === "") {
    throw new UsageError("INVALID_ARGUMENT", "column name cannot be written in an expression", { field: "expression", expected: "a name without backticks", actual: name });
  }
  return `\`${name}\``;
}

function precedence(node: ExpressionNode): number {
  switch (node.kind) {
    case "or":
      return PREC_OR;
    case "and":
      return PREC_AND;
    case "not":
      return PREC_NOT;
    case "compare":
      return PREC_COMPARE;
    case "arithmetic":
      return node.op === "+" || node.op === "-" ? PREC_ADD : PREC_MUL;
    case "negate":
      return PREC_UNARY;
    case "integer":
      return node.value < 0n ? PREC_UNARY : PREC_ATOM;
    case "float":
      return node.value < 0 || Object.is(node.value, -0) ? PREC_UNARY : PREC_ATOM;
    default:
      return PREC_ATOM;
  }
}

function badNode(node: unknown, reason: string): never {
  throw new UsageError("INVALID_ARGUMENT", reason, { field: "expression", expected: "an ExpressionNode", actual: typeof node === "object" && node !== null ? (node as { kind?: unknown }).kind : node });
}

/**
 * Writes a syntax tree back as text that {@link parseExpression} reads to the same tree
 * (spans aside): minimal parentheses, canonical literals, column names in backticks when they
 * are not plain identifiers or clash with a keyword.
 *
 * @example
 * ```ts
 * formatExpression(parseExpression("(a>1)&(b<2|c==-3)")); // "a > 1 & (b < 2 | c == -3)"
 * ```
 */
export function formatExpression(node: ExpressionNode, options: FormatExpressionOptions = {}): string {
  const words = options.words === true;
  const format = (n: ExpressionNode, minPrec: number, depth: number): string => {
    if (depth > EXPRESSION_LIMITS.maxDepth) badNode(n, "expression tree is too deep");
    if (typeof n !== "object" || n === null) badNode(n, "not an expression node");
    const text = formatNode(n, depth);
    return precedence(n) < minPrec ? `(${text})` : text;
  };
  const formatNode = (n: ExpressionNode, depth: number): string => {
    switch (n.kind) {
      case "column":
        return formatColumn(n.name);
      case "integer":
        if (typeof n.value !== "bigint") badNode(n, "integer node value must be a bigint");
        return n.value.toString();
      case "float":
        if (typeof n.value !== "number" || !Number.isFinite(n.value)) badNode(n, "float node value must be a finite number");
        return formatFloat(n.value);
      case "string":
        return formatString(String(n.value));
      case "bytes":
        if (!(n.value instanceof Uint8Array)) badNode(n, "bytes node value must be a Uint8Array");
        return formatBytes(n.value);
      case "boolean":
        return n.value ? "true" : "false";
      case "compare":
        if (!COMPARE_OPERATORS.has(n.op)) badNode(n, "unknown comparison operator");
        return `${format(n.left, PREC_ADD, depth + 1)} ${n.op} ${format(n.right, PREC_ADD, depth + 1)}`;
      case "arithmetic": {
        if (!ARITHMETIC_OPERATORS.has(n.op)) badNode(n, "unknown arithmetic operator");
        const prec = n.op === "+" || n.op === "-" ? PREC_ADD : PREC_MUL;
        return `${format(n.left, prec, depth + 1)} ${n.op} ${format(n.right, prec + 1, depth + 1)}`;
      }
      case "negate": {
        const inner = format(n.operand, PREC_UNARY, depth + 1);
        // A literal operand would fold into a negative literal when read back, so it is parenthesised.
        return n.operand.kind === "integer" || n.operand.kind === "float" || inner.startsWith("-") ? `-(${inner})` : `-${inner}`;
      }
      case "not":
        return words ? `not ${format(n.operand, PREC_NOT, depth + 1)}` : `~${format(n.operand, PREC_NOT, depth + 1)}`;
      case "and":
      case "or": {
        if (!Array.isArray(n.operands) || n.operands.length < 2) badNode(n, `${n.kind} node needs at least two operands`);
        const prec = n.kind === "or" ? PREC_OR : PREC_AND;
        const sep = words ? ` ${n.kind} ` : n.kind === "or" ? " | " : " & ";
        return n.operands.map((o) => format(o, prec + 1, depth + 1)).join(sep);
      }
      default:
        return badNode(n, "unknown expression node kind");
    }
  };
  return format(node, PREC_OR, 0);
}

// ---------------------------------------------------------------------------------------------
// types

/**
 * What {@link compileExpression} needs to know about a column: its dtype and, for
 * multidimensional columns, its shape (such columns cannot be used in expressions).
 *
 * @example
 * ```ts
 * const schema: ExpressionSchema = { price: { dtype: parseDtype("float64") }, sym: { dtype: parseDtype("|S6") } };
 * ```
 */
export type ExpressionSchema = { readonly [name: string]: { readonly dtype: DType; readonly shape?: readonly number[]; readonly vtype?: "utf8" | "bytes" | "ragged" } };

/**
 * What {@link CompiledExpression.evaluate} reads: each referenced column's stored bytes for the
 * block, or, for a variable-length column (schema `vtype`, spec/v2.md §12), its elements: `string[]`
 * for `utf8`, `Uint8Array[]` for `bytes`.
 *
 * @example
 * ```ts
 * const input: ExpressionInput = { price: new Uint8Array(new Float64Array([1.5]).buffer), sym: ["AB"] };
 * ```
 */
export type ExpressionInput = { readonly [name: string]: Uint8Array | readonly (string | Uint8Array)[] };

/**
 * The static type of a compiled node. Numbers and booleans carry numexpr's kind; `const` nodes
 * (no column below them) carry their folded Python value in {@link Compiled.value}.
 */
type StaticType =
  | { t: "num"; kind: Kind }
  | { t: "const" }
  | { t: "bytes" } // S column
  | { t: "str" } // U column
  | { t: "vstr" } // utf8 vlarray column: one string per row
  | { t: "vbytes" }; // bytes vlarray column: one Uint8Array per row

const KIND_NAMES: Readonly<Record<Kind, string>> = { bool: "a boolean", int: "an int32 number", long: "an int64 number", float: "a float32 number", double: "a float64 number" };
const VALUE_NAMES: Readonly<Record<PyValue["k"], string>> = { bool: "a boolean", int: "an integer", float: "a float", str: "a string", bytes: "bytes" };

// ---------------------------------------------------------------------------------------------
// vectors

/** A value during evaluation: a numeric vector, or string data of `n` rows. */
type Vec =
  | NumVec
  | { k: "sbytes"; v: Uint8Array; w: number } // w < 0: scalar (v is the value, trailing NULs removed)
  | { k: "sstr"; v: Uint32Array; w: number } // code points; w < 0: scalar
  | { k: "list"; v: readonly (string | Uint8Array)[] }; // a variable-length column's elements

interface EvalContext {
  n: number;
  input: ExpressionInput;
  cache: Map<string, Vec>;
}

type Evaluator = (ctx: EvalContext) => Vec;

interface Compiled {
  type: StaticType;
  ev: Evaluator;
  /** The folded value of a constant node. */
  value?: PyValue;
  /** The constants that operations below this node convert, in numexpr's order (see mergeZeros). */
  leaves?: Leaf[];
  /**
   * The node's kind in numexpr's first pass over the text, which only looks for names and types
   * every column as float64 (it matters for x / 0.0, see arithmetic).
   */
  discovery?: Kind;
  /**
   * A boolean node that is one comparison of a column with a constant, or an `&` (or `|`) of
   * such: its comparisons for the SIMD kernels (evaluateTermsWasm), which build the mask, count
   * or positions in module memory. `get` gives `undefined` for a block the kernels cannot take
   * (then the node's `ev` answers).
   */
  terms?: { isAnd: boolean | undefined; get: (ctx: EvalContext) => ScalarTerm[] | undefined };
}

/** A constant as an operation uses it: converted to the operation's kind. */
interface Leaf {
  value: PyValue;
  kind: Kind;
  scalar: number | bigint;
}

/**
 * numexpr keeps one register per distinct constant of a kind, "distinct" in Python's sense, so
 * 0, False, 0.0 and -0.0 share one: the first in its (post-order) walk of the tree. The only
 * observable effect is the sign of a float zero; this gives every zero leaf the first one's.
 */
function mergeZeros(leaves: readonly Leaf[]): void {
  const first = new Map<Kind, number | bigint>();
  for (const leaf of leaves) {
    if (leaf.kind !== "double" && leaf.kind !== "float") continue;
    const v = leaf.value;
    const zero = v.k === "bool" ? !v.v : v.k === "int" ? v.v === 0n : v.k === "float" && v.v === 0;
    if (!zero) continue;
    const seen = first.get(leaf.kind);
    if (seen === undefined) first.set(leaf.kind, leaf.scalar);
    else leaf.scalar = seen;
  }
}

/**
 * The order in which numexpr's tree holds the operands of `left op right`. Python calls the
 * left operand's method, or the right one's reflected method when the left is a literal; numexpr
 * writes a < b as b > a, and its reflected + and * keep the column first.
 */
function pythonOrder(op: CompareOperator | ArithmeticOperator, leftIsConstant: boolean): boolean {
  if (!leftIsConstant) return op === "<" || op === "<=";
  return op === "<" || op === "<=" || op === "==" || op === "!=" || op === "+" || op === "*";
}

const encoder = new TextEncoder();

function stripNul<T extends Uint8Array | Uint32Array>(v: T): T {
  let end = v.length;
  while (end > 0 && v[end - 1] === 0) end--;
  return v.subarray(0, end) as T;
}

function codePoints(s: string): Uint32Array {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return stripNul(Uint32Array.from(out));
}

function signTest(op: CompareOperator): (s: number) => boolean {
  switch (op) {
    case "==":
      return (s) => s === 0;
    case "!=":
      return (s) => s !== 0;
    case "<":
      return (s) => s < 0;
    case "<=":
      return (s) => s <= 0;
    case ">":
      return (s) => s > 0;
    case ">=":
      return (s) => s >= 0;
  }
}

const MIRROR: Record<CompareOperator, CompareOperator> = { "==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

/** Lexicographic comparison of fixed-width NUL-padded items (bytes or code points). */
interface FixedVec {
  v: Uint8Array | Uint32Array;
  w: number;
}

function compareFixed(op: CompareOperator, a: FixedVec, b: FixedVec, n: number): Uint8Array {
  const test = signTest(op);
  const av = a.v;
  const bv = b.v;
  const cmp = (ao: number, aw: number, bo: number, bw: number): number => {
    const len = Math.max(aw, bw);
    for (let j = 0; j < len; j++) {
      const x = j < aw ? av[ao + j]! : 0;
      const y = j < bw ? bv[bo + j]! : 0;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  const as = a.w < 0;
  const bs = b.w < 0;
  const out = new Uint8Array(n);
  const aw = as ? av.length : a.w;
  const bw = bs ? bv.length : b.w;
  for (let i = 0; i < n; i++) out[i] = test(cmp(as ? 0 : i * aw, aw, bs ? 0 : i * bw, bw)) ? 1 : 0;
  return out;
}

/**
 * numexpr's comparison of S items: bytes compare as C's (signed) `char`, the shorter item is
 * padded with NULs, and an empty item on either side only asks whether the other item's first
 * byte is not NUL (1) or is (0) — never −1.
 */
function stringSign(av: Uint8Array, ao: number, aw: number, bv: Uint8Array, bo: number, bw: number): number {
  if (bw === 0) return aw > 0 && av[ao] !== 0 ? 1 : 0;
  if (aw === 0) return bv[bo] !== 0 ? 1 : 0;
  const len = Math.max(aw, bw);
  for (let j = 0; j < len; j++) {
    const x = j < aw ? (av[ao + j]! << 24) >> 24 : 0;
    const y = j < bw ? (bv[bo + j]! << 24) >> 24 : 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function compareStrings(test: (s: number) => boolean, a: FixedVec, b: FixedVec, n: number): Uint8Array {
  const av = a.v as Uint8Array;
  const bv = b.v as Uint8Array;
  const aw = a.w < 0 ? av.length : a.w;
  const bw = b.w < 0 ? bv.length : b.w;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = test(stringSign(av, a.w < 0 ? 0 : i * aw, aw, bv, b.w < 0 ? 0 : i * bw, bw)) ? 1 : 0;
  return out;
}

/** The elements of a variable-length column for one block. */
function loadList(name: string, ctx: EvalContext): Vec {
  const list = ctx.input[name];
  if (!Array.isArray(list) || list.length !== ctx.n) {
    throw new UsageError("INVALID_ARGUMENT", `column "${name}" needs one element per row of the block`, { field: `columns.${name}`, expected: `${ctx.n} elements`, actual: Array.isArray(list) ? list.length : typeof list });
  }
  return { k: "list", v: list as readonly (string | Uint8Array)[] };
}

/** Sign of a − b in Unicode code point order (which is UTF-8 byte order), for JS strings. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // A surrogate stands for a code point above every BMP unit from U+E000 on.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Sign of a − b in unsigned byte order (a proper prefix sorts first). */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Column data of one block, decoded as the evaluator wants it. */
function loadColumn(name: string, dtype: DType, ctx: EvalContext): Vec {
  const cached = ctx.cache.get(name);
  if (cached !== undefined) return cached;
  const bytes = ctx.input[name];
  if (!(bytes instanceof Uint8Array)) {
    throw new UsageError("INVALID_ARGUMENT", `no data for column "${name}"`, { field: `columns.${name}`, expected: "stored bytes (Uint8Array)", actual: typeof bytes });
  }
  if (bytes.length !== ctx.n * dtype.itemsize) {
    throw new UsageError("INVALID_ARGUMENT", `column "${name}" has the wrong number of bytes for the block`, { field: `columns.${name}`, expected: ctx.n * dtype.itemsize, actual: bytes.length });
  }
  let vec: Vec;
  switch (dtype.kind) {
    case "b": {
      let clean = true;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i]! > 1) {
          clean = false;
          break;
        }
      }
      if (clean) vec = { k: "bool", v: bytes };
      else {
        const out = new Uint8Array(bytes.length);
        for (let i = 0; i < bytes.length; i++) out[i] = bytes[i] === 0 ? 0 : 1;
        vec = { k: "bool", v: out };
      }
      break;
    }
    case "S":
      vec = { k: "sbytes", v: bytes, w: dtype.itemsize };
      break;
    case "U": {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const out = new Uint32Array(bytes.length / 4);
      const little = dtype.byteOrder !== ">";
      for (let i = 0; i < out.length; i++) out[i] = view.getUint32(i * 4, little);
      vec = { k: "sstr", v: out, w: dtype.itemsize / 4 };
      break;
    }
    default: {
      const values = decodeValues(bytes, dtype);
      if (values instanceof BigInt64Array) vec = { k: "long", v: loadLong(values) };
      else if (values instanceof Uint32Array) vec = { k: "long", v: { f: new Float64Array(values), b: undefined } };
      else if (values instanceof Float32Array) vec = { k: "float", v: values };
      else if (values instanceof Float64Array) vec = { k: "double", v: values };
      else vec = { k: "int", v: values as NumArray };
      break;
    }
  }
  ctx.cache.set(name, vec);
  return vec;
}

/** numexpr's kind of a column dtype (spec/expressions.md §3), or why the column is refused. */
function columnType(dtype: DType): StaticType | string {
  switch (dtype.kind) {
    case "b":
      return { t: "num", kind: "bool" };
    case "i":
      return { t: "num", kind: dtype.itemsize === 8 ? "long" : "int" };
    case "u":
      if (dtype.itemsize === 8) return "numexpr cannot cast uint64 to int64 safely";
      return { t: "num", kind: dtype.itemsize === 4 ? "long" : "int" };
    case "f":
      if (dtype.itemsize > 8) return "numexpr cannot cast it to float64 safely";
      return { t: "num", kind: dtype.itemsize === 8 ? "double" : "float" };
    case "M":
    case "m":
      return { t: "num", kind: "long" }; // an extension: numexpr has no datetimes
    case "S":
      return { t: "bytes" };
    case "U":
      return { t: "str" }; // an extension: numexpr has no unicode
    default:
      return "expressions do not support it";
  }
}

/** numexpr's kind of a folded Python constant: ints outside int32 are int64, floats are double. */
function constKind(v: PyValue): Kind | undefined {
  switch (v.k) {
    case "bool":
      return "bool";
    case "int":
      return v.v >= -2147483648n && v.v <= 2147483647n ? "int" : "long";
    case "float":
      return "double";
    default:
      return undefined;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** numexpr's conversion of a constant to the kind of the operation it takes part in. */
function constToKind(v: PyValue, kind: Kind): number | bigint {
  if (v.k === "bool") return kind === "long" ? (v.v ? 1n : 0n) : v.v ? 1 : 0;
  if (v.k === "int") {
    switch (kind) {
      case "long":
        if (v.v < INT64_MIN || v.v > INT64_MAX) throw new PyRefusal("Python int too large to convert to C long", "OverflowError");
        return v.v;
      case "float":
        return Math.fround(intToFloat(v.v));
      case "double":
        return intToFloat(v.v);
      default:
        return Number(v.v); // int32 range, or the constant would be of kind long
    }
  }
  if (v.k === "float") return kind === "float" ? Math.fround(v.v) : v.v;
  throw new Error("internal: not a numeric constant");
}

/** A numeric operand cast to an operation's kind: its vector, and the constants it converts. */
interface Operand {
  get: (ctx: EvalContext) => NumVec;
  leaves: Leaf[];
  /** The converted constant, when the operand is one. */
  leaf?: Leaf;
}

/** The vector of a numeric operand, cast to `kind` (constants are filled to `n` rows). */
function operand(c: Compiled, kind: Kind): Operand {
  if (c.value !== undefined) {
    const leaf: Leaf = { value: c.value, kind, scalar: constToKind(c.value, kind) };
    return { get: (ctx) => fillVec(kind, leaf.scalar, ctx.n), leaves: [leaf], leaf };
  }
  return { get: (ctx) => castVec(c.ev(ctx) as NumVec, kind), leaves: c.leaves ?? [] };
}

function numberArray(v: NumVec): NumArray {
  return v.v as NumArray;
}

class Compiler {
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
    if (kind === "long") {
      const longOf = (x: Operand, ctx: EvalContext): LongValues => (x.get(ctx) as NumVec & { k: "long" }).v;
      if (scalarSide !== undefined) return result((ctx) => ({ k: "bool", v: compareLong(cmpOp, longOf(vec, ctx), scalarSide.scalar as bigint, ctx.n) }));
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
      return { ...result((ctx) => ({ k: "bool", v: compareNumbers(cmpOp, values(ctx), scalar, ctx.n) })), terms: { isAnd: undefined, get: term } };
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
  internals.set(compiledExpression, {
    count: (input, rows) => {
      const ctx = context(input, rows);
      if (constant !== undefined) return constant.v === true ? rows : 0;
      const inKernels = compiled.terms === undefined ? undefined : termsResult(compiled.terms, ctx, "count");
      return inKernels ?? countOnes((compiled.ev(ctx) as NumVec & { k: "bool" }).v);
    },
    positionsOrMask: (input, rows) => {
      const ctx = context(input, rows);
      const positions = constant !== undefined || compiled.terms === undefined ? undefined : termsResult(compiled.terms, ctx, "positions");
      return positions !== undefined ? { positions } : { mask: maskOf(ctx) };
    },
  });
  return compiledExpression;
}

/** A node's comparisons evaluated by the kernels; `undefined` when they cannot take this block. */
function termsResult<W extends keyof TermsResult>(terms: NonNullable<Compiled["terms"]>, ctx: EvalContext, want: W): TermsResult[W] | undefined {
  // Blocks the kernels decline anyway are not worth collecting the terms for.
  if (ctx.n < MIN_WASM_ROWS) return undefined;
  const list = terms.get(ctx);
  return list === undefined ? undefined : evaluateTermsWasm(list, ctx.n, terms.isAnd ?? true, want);
}

interface Internals {
  count(input: ExpressionInput, rows: number): number;
  positionsOrMask(input: ExpressionInput, rows: number): { positions: Uint32Array } | { mask: Uint8Array };
}

const internals = new WeakMap<CompiledExpression, Internals>();

function internalsOf(expression: CompiledExpression): Internals {
  const found = internals.get(expression);
  if (found === undefined) throw new UsageError("INVALID_ARGUMENT", "not an expression made by compileExpression", { field: "expression" });
  return found;
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
 * The rows of `[0, rows)` where `expression` holds, in increasing order, when the SIMD kernels
 * can find them without a mask leaving WebAssembly memory (comparisons of columns with
 * constants joined by one of `&`, `|`); otherwise the mask {@link CompiledExpression.evaluate}
 * gives, from the same evaluation (nothing is computed twice). For `runWhere`'s row numbers;
 * not part of the package's exports.
 *
 * @example
 * ```ts
 * const q = compileExpression("x > 1", { x: { dtype: parseDtype("<f8") } });
 * matchPositionsOrMask(q, { x: new Uint8Array(new Float64Array(100).fill(2).buffer) }, 100); // { positions: Uint32Array [0, 1, …, 99] }
 * ```
 */
export function matchPositionsOrMask(expression: CompiledExpression, input: ExpressionInput, rows: number): { positions: Uint32Array } | { mask: Uint8Array } {
  return internalsOf(expression).positionsOrMask(input, rows);
}
