// The lexical layer of the expression language: the limits that keep hostile expressions cheap,
// the positioned errors (the text with a caret under the offending token) that the tokenizer, the
// parser and the compiler all throw, and the tokenizer, which turns expression text into tokens.
// Separate from the parser so that the character-level rules (numbers, string escapes,
// identifiers) stand on their own; only single characters are classified with Unicode property
// tests, to recognise identifiers.
import { UsageError } from "@fmt/errors";

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

export function expressionError(text: string | undefined, start: number | undefined, end: number | undefined, reason: string, expected: string): UsageError {
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

export interface Token {
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

export function isIdStart(ch: string): boolean {
  const code = ch.codePointAt(0)!;
  return code < 0x80 ? isAsciiIdStart(code) : ID_START.test(ch);
}

export function isIdContinue(ch: string): boolean {
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

export class Tokenizer {
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
