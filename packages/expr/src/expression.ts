// The query expression language of `where` queries (CTable.where in @fmt/store): tokenizer,
// recursive-descent parser, formatter, static type checker and a block-wise, vectorised
// evaluator. No eval/Function and no regular expressions take part in evaluation; only single
// characters are classified with Unicode property tests to recognise identifiers.
import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
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
 * Arithmetic operators of the expression language (`/` is true division, `%` is Python's floor
 * modulo).
 *
 * @example
 * ```ts
 * const op: ArithmeticOperator = "%";
 * ```
 */
export type ArithmeticOperator = "+" | "-" | "*" | "/" | "%";

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

const TWO_CHAR_OPERATORS = new Set(["==", "!=", "<=", ">="]);
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
const ARITHMETIC_OPERATORS = new Set<string>(["+", "-", "*", "/", "%"]);
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
    return this.binary(["*", "/", "%"], () => this.unary());
  }

  unary(): ExpressionNode {
    if (this.isOperator("-") || this.isOperator("+")) {
      const t = this.advance();
      this.enter(t);
      const operand = this.unary();
      this.depth--;
      if (t.text === "+") return operand;
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

/**
 * Parses an expression into its syntax tree (without checking column names or types; see
 * {@link compileExpression}).
 *
 * Grammar, loosest binding first: `|` / `or`; `&` / `and`; `~` / `not`; comparisons
 * (`== != < <= > >=`, not chainable); `+ -`; `* / %`; unary `-`; operands. Unlike Python and
 * numexpr, comparisons bind tighter than `&`/`|`, so `a > 1 & b < 2` means
 * `(a > 1) & (b < 2)`. Operands are column names (identifiers, or any name in backticks),
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

type StaticType =
  | { t: "bool" }
  /** float64 semantics; `int` says the values come straight from an integer column of up to 32 bits. */
  | { t: "num"; int?: "signed" | "unsigned" }
  | { t: "big"; unsigned: boolean }
  | { t: "int" } // integer literal, exact
  | { t: "bytes" }
  | { t: "str" }
  | { t: "text" } // string literal: bytes (UTF-8) next to S, code points otherwise
  | { t: "vstr" } // utf8 vlarray column: one string per row
  | { t: "vbytes" }; // bytes vlarray column: one Uint8Array per row

function typeName(type: StaticType): string {
  switch (type.t) {
    case "bool":
      return "a boolean";
    case "num":
      return "a number";
    case "big":
      return type.unsigned ? "a uint64 number" : "an int64 number";
    case "int":
      return "an integer";
    case "bytes":
    case "vbytes":
      return "bytes";
    case "str":
    case "text":
    case "vstr":
      return "a string";
  }
}

function isNumeric(type: StaticType): boolean {
  return type.t === "num" || type.t === "big" || type.t === "int";
}

// ---------------------------------------------------------------------------------------------
// vectors

type NumArray = ArrayLike<number> & { [i: number]: number };
type BigArray = BigInt64Array | BigUint64Array;

/** A value during evaluation: a vector of `n` rows or a scalar (from literals). */
type Vec =
  | { t: "bool"; v: Uint8Array | boolean }
  | { t: "num"; v: NumArray | number }
  | { t: "big"; v: BigArray | bigint }
  | { t: "bytes"; v: Uint8Array; w: number } // w < 0: scalar (v is the value, trailing NULs removed)
  | { t: "str"; v: Uint32Array; w: number } // code points; w < 0: scalar
  | { t: "list"; v: readonly (string | Uint8Array)[] }; // a variable-length column's elements

interface EvalContext {
  n: number;
  input: ExpressionInput;
  cache: Map<string, Vec>;
}

type Evaluator = (ctx: EvalContext) => Vec;

interface Compiled {
  type: StaticType;
  ev: Evaluator;
  /** The value of a string literal, for comparisons that need it as UTF-8 bytes. */
  literal?: string;
  /** The value of a bytes literal, as written (NULs kept), for variable-length columns. */
  literalBytes?: Uint8Array;
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

/** Sign of x − b (NaN when x is NaN), exactly, for a float64 x and an integer b. */
function compareNumberBig(x: number, b: bigint): number {
  if (x !== x) return NaN;
  const rounded = Number(b);
  if (x < rounded) return -1;
  if (x > rounded) return 1;
  // x equals b rounded to float64, so x is an integer-valued double or ±Infinity.
  if (x === Infinity) return 1;
  if (x === -Infinity) return -1;
  const bx = BigInt(x);
  return bx < b ? -1 : bx > b ? 1 : 0;
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

function directTest<T>(op: CompareOperator): (x: T, y: T) => boolean {
  switch (op) {
    case "==":
      return (x, y) => x === y;
    case "!=":
      return (x, y) => x !== y;
    case "<":
      return (x, y) => x < y;
    case "<=":
      return (x, y) => x <= y;
    case ">":
      return (x, y) => x > y;
    case ">=":
      return (x, y) => x >= y;
  }
}

const MIRROR: Record<CompareOperator, CompareOperator> = { "==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

/** Applies `test(a[i], b[i])` over vectors and scalars. */
function zip<A, B>(a: ArrayLike<A> | A, aScalar: boolean, b: ArrayLike<B> | B, bScalar: boolean, n: number, test: (x: A, y: B) => boolean): Uint8Array | boolean {
  if (aScalar && bScalar) return test(a as A, b as B);
  const out = new Uint8Array(n);
  if (aScalar) {
    const x = a as A;
    const bv = b as ArrayLike<B>;
    for (let i = 0; i < n; i++) out[i] = test(x, bv[i]!) ? 1 : 0;
  } else if (bScalar) {
    const y = b as B;
    const av = a as ArrayLike<A>;
    for (let i = 0; i < n; i++) out[i] = test(av[i]!, y) ? 1 : 0;
  } else {
    const av = a as ArrayLike<A>;
    const bv = b as ArrayLike<B>;
    for (let i = 0; i < n; i++) out[i] = test(av[i]!, bv[i]!) ? 1 : 0;
  }
  return out;
}

function isScalar(v: Vec): boolean {
  switch (v.t) {
    case "bool":
      return typeof v.v === "boolean";
    case "list":
      return false;
    case "num":
      return typeof v.v === "number";
    case "big":
      return typeof v.v === "bigint";
    default:
      return v.w < 0;
  }
}

function compareNumeric(op: CompareOperator, a: Vec, b: Vec, n: number): Uint8Array | boolean {
  const as = isScalar(a);
  const bs = isScalar(b);
  if (a.t === "num" && b.t === "num") return zip<number, number>(a.v as NumArray, as, b.v as NumArray, bs, n, directTest<number>(op));
  if (a.t === "big" && b.t === "big") return zip<bigint, bigint>(a.v as BigArray, as, b.v as BigArray, bs, n, directTest<bigint>(op));
  if (a.t === "num" && b.t === "big") {
    if (bs && typeof b.v === "bigint" && Number.isSafeInteger(Number(b.v)) && BigInt(Number(b.v)) === b.v) {
      return zip<number, number>(a.v as NumArray, as, Number(b.v), true, n, directTest<number>(op));
    }
    const test = signTest(op);
    return zip<number, bigint>(a.v as NumArray, as, b.v as BigArray, bs, n, (x, y) => test(compareNumberBig(x, y)));
  }
  return compareNumeric(MIRROR[op], b, a, n);
}

/** Lexicographic comparison of fixed-width NUL-padded items (bytes or code points). */
interface FixedVec {
  v: Uint8Array | Uint32Array;
  w: number;
}

function compareFixed(op: CompareOperator, a: FixedVec, b: FixedVec, n: number): Uint8Array | boolean {
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
  if (as && bs) return test(cmp(0, av.length, 0, bv.length));
  const out = new Uint8Array(n);
  const aw = as ? av.length : a.w;
  const bw = bs ? bv.length : b.w;
  for (let i = 0; i < n; i++) out[i] = test(cmp(as ? 0 : i * aw, aw, bs ? 0 : i * bw, bw)) ? 1 : 0;
  return out;
}

function toFloat(v: Vec): NumArray | number {
  if (v.t === "num") return v.v;
  if (v.t === "big") {
    if (typeof v.v === "bigint") return Number(v.v);
    const out = new Float64Array(v.v.length);
    for (let i = 0; i < out.length; i++) out[i] = Number(v.v[i]!);
    return out;
  }
  throw new Error("internal: not numeric");
}

function toBig(v: Vec, unsigned: boolean): BigArray | bigint {
  if (v.t === "big") {
    if (typeof v.v === "bigint") return unsigned ? BigInt.asUintN(64, v.v) : BigInt.asIntN(64, v.v);
    return v.v;
  }
  if (v.t === "num") {
    // Only integer columns of up to 32 bits (and integer literals) reach here, so BigInt() is exact.
    if (typeof v.v === "number") return BigInt(v.v);
    const out = unsigned ? new BigUint64Array(v.v.length) : new BigInt64Array(v.v.length);
    for (let i = 0; i < out.length; i++) out[i] = BigInt(v.v[i]!);
    return out;
  }
  throw new Error("internal: not numeric");
}

function pyModFloat(x: number, y: number): number {
  let r = x % y;
  if (r !== 0 && r < 0 !== y < 0) r += y;
  return r;
}

function pyModBig(x: bigint, y: bigint): bigint {
  if (y === 0n) return 0n; // numpy returns 0 for integer modulo by zero
  let r = x % y;
  if (r !== 0n && r < 0n !== y < 0n) r += y;
  return r;
}

function floatOp(op: ArithmeticOperator): (x: number, y: number) => number {
  switch (op) {
    case "+":
      return (x, y) => x + y;
    case "-":
      return (x, y) => x - y;
    case "*":
      return (x, y) => x * y;
    case "/":
      return (x, y) => x / y;
    case "%":
      return pyModFloat;
  }
}

function bigOp(op: ArithmeticOperator): (x: bigint, y: bigint) => bigint {
  switch (op) {
    case "+":
      return (x, y) => x + y;
    case "-":
      return (x, y) => x - y;
    case "*":
      return (x, y) => x * y;
    case "%":
      return pyModBig;
    case "/":
      throw new Error("internal: true division is done in float64");
  }
}

function mapFloat(a: NumArray | number, b: NumArray | number, n: number, f: (x: number, y: number) => number): NumArray | number {
  const as = typeof a === "number";
  const bs = typeof b === "number";
  if (as && bs) return f(a, b);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = f(as ? a : a[i]!, bs ? b : b[i]!);
  return out;
}

function mapBig(a: BigArray | bigint, b: BigArray | bigint, n: number, unsigned: boolean, f: (x: bigint, y: bigint) => bigint): BigArray | bigint {
  const as = typeof a === "bigint";
  const bs = typeof b === "bigint";
  if (as && bs) return unsigned ? BigInt.asUintN(64, f(a, b)) : BigInt.asIntN(64, f(a, b));
  // Storing into a 64-bit typed array wraps modulo 2^64, like numpy's int64/uint64 arithmetic.
  const out = unsigned ? new BigUint64Array(n) : new BigInt64Array(n);
  for (let i = 0; i < n; i++) out[i] = f(as ? a : a[i]!, bs ? b : b[i]!);
  return out;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** The elements of a variable-length column for one block. */
function loadList(name: string, ctx: EvalContext): Vec {
  const list = ctx.input[name];
  if (!Array.isArray(list) || list.length !== ctx.n) {
    throw new UsageError("INVALID_ARGUMENT", `column "${name}" needs one element per row of the block`, { field: `columns.${name}`, expected: `${ctx.n} elements`, actual: Array.isArray(list) ? list.length : typeof list });
  }
  return { t: "list", v: list as readonly (string | Uint8Array)[] };
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
      if (clean) vec = { t: "bool", v: bytes };
      else {
        const out = new Uint8Array(bytes.length);
        for (let i = 0; i < bytes.length; i++) out[i] = bytes[i] === 0 ? 0 : 1;
        vec = { t: "bool", v: out };
      }
      break;
    }
    case "S":
      vec = { t: "bytes", v: bytes, w: dtype.itemsize };
      break;
    case "U": {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const out = new Uint32Array(bytes.length / 4);
      const little = dtype.byteOrder !== ">";
      for (let i = 0; i < out.length; i++) out[i] = view.getUint32(i * 4, little);
      vec = { t: "str", v: out, w: dtype.itemsize / 4 };
      break;
    }
    default: {
      const values = decodeValues(bytes, dtype);
      vec = values instanceof BigInt64Array || values instanceof BigUint64Array ? { t: "big", v: values } : { t: "num", v: values as NumArray };
      break;
    }
  }
  ctx.cache.set(name, vec);
  return vec;
}

function columnType(dtype: DType): StaticType | undefined {
  switch (dtype.kind) {
    case "b":
      return { t: "bool" };
    case "i":
    case "u":
      if (dtype.itemsize === 8) return { t: "big", unsigned: dtype.kind === "u" };
      return { t: "num", int: dtype.kind === "u" ? "unsigned" : "signed" };
    case "f":
      return dtype.itemsize <= 8 ? { t: "num" } : undefined;
    case "M":
    case "m":
      return { t: "big", unsigned: false };
    case "S":
      return { t: "bytes" };
    case "U":
      return { t: "str" };
    default:
      return undefined;
  }
}

class Compiler {
  readonly text: string | undefined;
  readonly schema: ExpressionSchema;
  readonly columns: string[] = [];

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

  compile(node: ExpressionNode, depth: number): Compiled {
    if (depth > EXPRESSION_LIMITS.maxDepth) {
      throw new UsageError("INVALID_ARGUMENT", "expression tree is too deep", { field: "expression", expected: `at most ${EXPRESSION_LIMITS.maxDepth} levels` });
    }
    if (typeof node !== "object" || node === null) badNode(node, "not an expression node");
    switch (node.kind) {
      case "column":
        return this.column(node);
      case "integer": {
        if (typeof node.value !== "bigint") badNode(node, "integer node value must be a bigint");
        const value = node.value;
        return { type: { t: "int" }, ev: () => ({ t: "big", v: value }) };
      }
      case "float": {
        if (typeof node.value !== "number" || !Number.isFinite(node.value)) badNode(node, "float node value must be a finite number");
        const value = node.value;
        return { type: { t: "num" }, ev: () => ({ t: "num", v: value }) };
      }
      case "string": {
        if (typeof node.value !== "string") badNode(node, "string node value must be a string");
        const points = codePoints(node.value);
        return { type: { t: "text" }, ev: () => ({ t: "str", v: points, w: -1 }), literal: node.value };
      }
      case "bytes": {
        if (!(node.value instanceof Uint8Array)) badNode(node, "bytes node value must be a Uint8Array");
        const value = stripNul(node.value.slice());
        return { type: { t: "bytes" }, ev: () => ({ t: "bytes", v: value, w: -1 }), literalBytes: node.value.slice() };
      }
      case "boolean": {
        const value = node.value === true;
        return { type: { t: "bool" }, ev: () => ({ t: "bool", v: value }) };
      }
      case "compare":
        return this.compare(node, depth);
      case "arithmetic":
        return this.arithmetic(node, depth);
      case "negate":
        return this.negate(node, depth);
      case "not": {
        const operand = this.compile(node.operand, depth + 1);
        if (operand.type.t !== "bool") this.fail(node, `"not" needs a condition, not ${typeName(operand.type)}`, "a boolean operand", true);
        return {
          type: { t: "bool" },
          ev: (ctx) => {
            const v = operand.ev(ctx).v as Uint8Array | boolean;
            if (typeof v === "boolean") return { t: "bool", v: !v };
            const out = new Uint8Array(v.length);
            for (let i = 0; i < v.length; i++) out[i] = v[i]! ^ 1;
            return { t: "bool", v: out };
          },
        };
      }
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
      return { type: { t: info.vtype === "utf8" ? "vstr" : "vbytes" }, ev: (ctx) => ctx.cache.get(name) ?? loadList(name, ctx) };
    }
    const type = columnType(info.dtype);
    if (type === undefined) this.fail(node, `column "${name}" has dtype ${info.dtype.str}, which expressions do not support`, "a bool, integer, float, datetime, S or U column");
    if (!this.columns.includes(name)) this.columns.push(name);
    const dtype = info.dtype;
    return { type, ev: (ctx) => loadColumn(name, dtype, ctx) };
  }

  compare(node: ExpressionNode & { kind: "compare" }, depth: number): Compiled {
    const left = this.compile(node.left, depth + 1);
    const right = this.compile(node.right, depth + 1);
    const op = node.op;
    if (!COMPARE_OPERATORS.has(op)) badNode(node, "unknown comparison operator");
    const lt = left.type;
    const rt = right.type;
    const mismatch = (): never => this.fail(node, `cannot compare ${typeName(lt)} with ${typeName(rt)}`, "operands of the same family: numbers, strings, bytes or booleans", true);
    if (lt.t === "bool" || rt.t === "bool") {
      if (lt.t !== rt.t) mismatch();
      if (op !== "==" && op !== "!=") this.fail(node, "booleans can only be compared with == and !=", "== or !=", true);
      const test = directTest<number | boolean>(op);
      return {
        type: { t: "bool" },
        ev: (ctx) => {
          const a = left.ev(ctx).v as Uint8Array | boolean;
          const b = right.ev(ctx).v as Uint8Array | boolean;
          const norm = (v: Uint8Array | boolean): Uint8Array | number => (typeof v === "boolean" ? (v ? 1 : 0) : v);
          const av = norm(a);
          const bv = norm(b);
          return { t: "bool", v: zip<number | boolean, number | boolean>(av as ArrayLike<number>, typeof a === "boolean", bv as ArrayLike<number>, typeof b === "boolean", ctx.n, test) };
        },
      };
    }
    if (isNumeric(lt) || isNumeric(rt)) {
      if (!isNumeric(lt) || !isNumeric(rt)) mismatch();
      return { type: { t: "bool" }, ev: (ctx) => ({ t: "bool", v: compareNumeric(op, left.ev(ctx), right.ev(ctx), ctx.n) }) };
    }
    if (lt.t === "vstr" || rt.t === "vstr" || lt.t === "vbytes" || rt.t === "vbytes") return this.compareList(node, left, right, mismatch);
    // Strings and bytes. A text literal next to bytes is compared as its UTF-8 encoding.
    const bytesSide = lt.t === "bytes" || rt.t === "bytes";
    if (bytesSide && (lt.t === "str" || rt.t === "str")) mismatch();
    const asBytes = (c: Compiled): Evaluator => {
      if (c.type.t !== "text" || c.literal === undefined) return c.ev;
      const bytes = stripNul(encoder.encode(c.literal));
      return () => ({ t: "bytes", v: bytes, w: -1 });
    };
    const le = bytesSide ? asBytes(left) : left.ev;
    const re = bytesSide ? asBytes(right) : right.ev;
    return {
      type: { t: "bool" },
      ev: (ctx) => ({ t: "bool", v: compareFixed(op, le(ctx) as FixedVec, re(ctx) as FixedVec, ctx.n) }),
    };
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
      if (c.type.t === (text ? "vstr" : "vbytes")) return (ctx) => ({ list: (c.ev(ctx) as Vec & { t: "list" }).v });
      if (c.type.t === "text" && c.literal !== undefined) {
        const scalar = text ? c.literal : encoder.encode(c.literal);
        return () => ({ scalar });
      }
      if (!text && c.type.t === "bytes" && c.literalBytes !== undefined) {
        const scalar = c.literalBytes;
        return () => ({ scalar });
      }
      return mismatch();
    };
    const a = side(left);
    const b = side(right);
    const test = signTest(node.op);
    const cmp = (text ? compareCodePoints : compareBytes) as (x: string | Uint8Array, y: string | Uint8Array) => number;
    return {
      type: { t: "bool" },
      ev: (ctx) => {
        const x = a(ctx);
        const y = b(ctx);
        const out = new Uint8Array(ctx.n);
        for (let i = 0; i < ctx.n; i++) out[i] = test(cmp(x.list?.[i] ?? x.scalar!, y.list?.[i] ?? y.scalar!)) ? 1 : 0;
        return { t: "bool", v: out };
      },
    };
  }

  arithmetic(node: ExpressionNode & { kind: "arithmetic" }, depth: number): Compiled {
    const left = this.compile(node.left, depth + 1);
    const right = this.compile(node.right, depth + 1);
    const op = node.op;
    if (!ARITHMETIC_OPERATORS.has(op)) badNode(node, "unknown arithmetic operator");
    const lt = left.type;
    const rt = right.type;
    if (!isNumeric(lt) || !isNumeric(rt)) this.fail(node, `arithmetic needs numbers, not ${typeName(isNumeric(lt) ? rt : lt)}`, "numeric operands", true);
    const result = this.arithmeticType(node, lt, rt);
    if (result.t === "num") {
      const f = floatOp(op);
      return { type: { t: "num" }, ev: (ctx) => ({ t: "num", v: mapFloat(toFloat(left.ev(ctx)), toFloat(right.ev(ctx)), ctx.n, f) }) };
    }
    const unsigned = result.t === "big" && result.unsigned;
    const f = bigOp(op);
    return {
      type: result,
      ev: (ctx) => ({ t: "big", v: mapBig(toBig(left.ev(ctx), unsigned), toBig(right.ev(ctx), unsigned), ctx.n, unsigned, f) }),
    };
  }

  /** numpy-like promotion: 64-bit integer arithmetic wraps; mixing signed with uint64, or any float, gives float64. */
  arithmeticType(node: ExpressionNode & { kind: "arithmetic" }, lt: StaticType, rt: StaticType): StaticType {
    if (node.op === "/") return { t: "num" };
    const literal = (n: ExpressionNode): bigint | undefined => (n.kind === "integer" ? n.value : undefined);
    const checkFits = (value: bigint | undefined, unsigned: boolean, at: ExpressionNode): void => {
      if (value === undefined) return;
      if (unsigned ? value < 0n || value > UINT64_MAX : value < INT64_MIN || value > INT64_MAX) {
        this.fail(at, `integer literal out of the ${unsigned ? "uint64" : "int64"} range in arithmetic`, unsigned ? "0 <= value < 2**64" : "-2**63 <= value < 2**63");
      }
    };
    if (lt.t === "int" && rt.t === "int") {
      checkFits(literal(node.left), false, node.left);
      checkFits(literal(node.right), false, node.right);
      return { t: "big", unsigned: false };
    }
    if (lt.t !== "big" && rt.t !== "big") return { t: "num" };
    const big = (lt.t === "big" ? lt : rt) as StaticType & { t: "big" };
    const other = lt.t === "big" ? rt : lt;
    const otherNode = lt.t === "big" ? node.right : node.left;
    if (other.t === "big") return other.unsigned === big.unsigned ? { t: "big", unsigned: big.unsigned } : { t: "num" };
    if (other.t === "int") {
      const value = literal(otherNode);
      if (big.unsigned && value !== undefined && value < 0n) return { t: "num" };
      checkFits(value, big.unsigned, otherNode);
      return { t: "big", unsigned: big.unsigned };
    }
    if (other.t === "num" && other.int !== undefined) {
      if (big.unsigned && other.int === "signed") return { t: "num" };
      return { t: "big", unsigned: big.unsigned };
    }
    return { t: "num" };
  }

  negate(node: ExpressionNode & { kind: "negate" }, depth: number): Compiled {
    const operand = this.compile(node.operand, depth + 1);
    const t = operand.type;
    if (!isNumeric(t)) this.fail(node, `cannot negate ${typeName(t)}`, "a numeric operand", true);
    if (t.t === "num") {
      return {
        type: { t: "num" },
        ev: (ctx) => {
          const v = operand.ev(ctx).v as NumArray | number;
          if (typeof v === "number") return { t: "num", v: -v };
          const out = new Float64Array(v.length);
          for (let i = 0; i < out.length; i++) out[i] = -v[i]!;
          return { t: "num", v: out };
        },
      };
    }
    const unsigned = t.t === "big" && t.unsigned;
    if (t.t === "int" && node.operand.kind === "integer") {
      const value = node.operand.value;
      if (value < INT64_MIN || value > INT64_MAX) this.fail(node.operand, "integer literal out of the int64 range in arithmetic", "-2**63 <= value < 2**63");
    }
    return {
      type: { t: "big", unsigned },
      ev: (ctx) => {
        const v = toBig(operand.ev(ctx), unsigned);
        if (typeof v === "bigint") return { t: "big", v: unsigned ? BigInt.asUintN(64, -v) : BigInt.asIntN(64, -v) };
        const out = unsigned ? new BigUint64Array(v.length) : new BigInt64Array(v.length);
        for (let i = 0; i < out.length; i++) out[i] = -v[i]!;
        return { t: "big", v: out };
      },
    };
  }

  logical(node: ExpressionNode & { kind: "and" | "or" }, depth: number): Compiled {
    if (!Array.isArray(node.operands) || node.operands.length < 2) badNode(node, `${node.kind} node needs at least two operands`);
    const operands = node.operands.map((o) => {
      const c = this.compile(o, depth + 1);
      if (c.type.t !== "bool") this.fail(o, `"${node.kind}" needs conditions, not ${typeName(c.type)}`, "a boolean operand such as a comparison");
      return c;
    });
    const isAnd = node.kind === "and";
    return {
      type: { t: "bool" },
      ev: (ctx) => {
        let acc: Uint8Array | undefined;
        for (const operand of operands) {
          const v = operand.ev(ctx).v as Uint8Array | boolean;
          if (typeof v === "boolean") {
            if (v !== isAnd) return { t: "bool", v }; // false in an AND, true in an OR decides
            continue;
          }
          if (acc === undefined) acc = v.slice();
          else if (isAnd) for (let i = 0; i < acc.length; i++) acc[i] = acc[i]! & v[i]!;
          else for (let i = 0; i < acc.length; i++) acc[i] = acc[i]! | v[i]!;
        }
        return { t: "bool", v: acc ?? isAnd };
      },
    };
  }
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
 * Types: `b1` columns and `true`/`false` are booleans (compared only with `==`/`!=`);
 * integer columns of up to 32 bits and float columns are numbers (float64 arithmetic);
 * `int64`, `uint64` and `datetime64` columns are 64-bit integers compared exactly with any
 * number or integer literal of any size; arithmetic on them wraps modulo 2^64 like numpy, and
 * mixing uint64 with a signed operand, or any 64-bit integer with a float, computes in float64;
 * `/` is always float64 true division and `%` is Python's floor modulo (`x % 0` is NaN for
 * floats and 0 for 64-bit integers). `S` columns compare bytewise with bytes literals and with
 * string literals encoded as UTF-8; `U` columns compare by code points with string literals;
 * trailing NULs never matter (as in numpy). Variable-length columns (schema `vtype`, spec/v2.md
 * §12) compare with literals exactly: `utf8` by code point order (= UTF-8 byte order) with string
 * literals, `bytes` by unsigned byte order with bytes literals and the UTF-8 of string literals;
 * `ragged` columns are refused. NaN compares unequal to everything. The result must
 * be a boolean. Complex, void and multidimensional columns are refused.
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
  if (compiled.type.t !== "bool") {
    compiler.fail(node, `the expression is ${typeName(compiled.type)}, not a condition`, "a condition, e.g. a comparison such as price > 10");
  }
  const columns = Object.freeze([...compiler.columns]);
  const canonical = formatExpression(node);
  return Object.freeze({
    node,
    text: canonical,
    columns,
    evaluate(input: ExpressionInput, rows: number): Uint8Array {
      if (!Number.isSafeInteger(rows) || rows < 0) {
        throw new UsageError("INVALID_ARGUMENT", "rows must be a non-negative integer", { field: "rows", actual: rows });
      }
      if (typeof input !== "object" || input === null) {
        throw new UsageError("INVALID_ARGUMENT", "columns must be an object of stored bytes", { field: "columns", actual: input });
      }
      const result = compiled.ev({ n: rows, input, cache: new Map() }).v as Uint8Array | boolean;
      if (typeof result === "boolean") return new Uint8Array(rows).fill(result ? 1 : 0);
      return result;
    },
  });
}
