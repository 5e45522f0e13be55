/**
 * The strict, safe parser of Python's JSON dialect (standard JSON plus `NaN`, `Infinity`,
 * `-Infinity`), with its limits.
 *
 * @example
 * ```ts
 * import { parsePythonJson } from "@fmt/meta";
 * parsePythonJson('{"dflt": 0.0, "n": 3}', "meta/storage"); // { dflt: PyFloat(0), n: 3 }
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { KEY_ORDER, PyFloat, defineKey, type JsonObject, type JsonValue, type OrderedObject } from "./json-value.js";
import { escapePointer } from "./json-pointer.js";

/**
 * Limits for {@link parsePythonJson}; the defaults suit metadata files.
 *
 * @example
 * ```ts
 * parsePythonJson(text, "meta/storage", { maxDepth: 64, maxLength: 1 << 20 });
 * ```
 */
export interface ParseJsonOptions {
  /** Deepest allowed nesting of arrays/objects (default 512). Deeper input → `BAD_JSON`. */
  maxDepth?: number;
  /** Longest accepted text, in UTF-16 code units (default 64 Mi). Longer → `SIZE_LIMIT`. */
  maxLength?: number;
}

/**
 * Default nesting limit of {@link parsePythonJson}.
 *
 * @example
 * ```ts
 * parsePythonJson("[".repeat(DEFAULT_MAX_JSON_DEPTH + 1)); // throws BAD_JSON
 * ```
 */
export const DEFAULT_MAX_JSON_DEPTH = 512;
/**
 * Default text length limit of {@link parsePythonJson}, in UTF-16 code units.
 *
 * @example
 * ```ts
 * parsePythonJson(text, path, { maxLength: DEFAULT_MAX_JSON_LENGTH / 64 });
 * ```
 */
export const DEFAULT_MAX_JSON_LENGTH = 64 * 1024 * 1024;

// Python >= 3.11 refuses to convert integers with more digits than this (sys.int_info); matching
// it keeps a hostile file from making BigInt parsing quadratic and rejects what Python rejects.
const MAX_INT_DIGITS = 4300;

class JsonParser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly path: string | undefined,
    private readonly maxDepth: number,
  ) {}

  parseDocument(): JsonValue {
    if (this.text.charCodeAt(0) === 0xfeff) this.fail("text starts with a byte order mark", "JSON value");
    this.skipWhitespace();
    const value = this.parseValue("");
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail("extra data after the JSON value", "end of input");
    return value;
  }

  private fail(reason: string, expected?: string, at: number = this.pos, pointer?: string): never {
    const { line, column } = lineColumn(this.text, at);
    const where = pointer === undefined ? "" : ` at JSON pointer "${pointer}"`;
    throw new FormatError("BAD_JSON", `${reason}${where} (char ${at})`, {
      path: this.path,
      field: `line ${line} column ${column}`,
      expected,
      actual: at < this.text.length ? describeChar(this.text, at) : "end of input",
    });
  }

  private skipWhitespace(): void {
    const t = this.text;
    let p = this.pos;
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    this.pos = p;
  }

  private parseValue(pointer: string): JsonValue {
    const t = this.text;
    if (this.pos >= t.length) this.fail("expecting a value", "JSON value");
    const c = t.charCodeAt(this.pos);
    switch (c) {
      case 0x7b /* { */:
        return this.parseObject(pointer);
      case 0x5b /* [ */:
        return this.parseArray(pointer);
      case 0x22 /* " */:
        return this.parseString();
      case 0x6e /* n */:
        return this.literal("null", null);
      case 0x74 /* t */:
        return this.literal("true", true);
      case 0x66 /* f */:
        return this.literal("false", false);
      case 0x4e /* N */:
        return this.literal("NaN", new PyFloat(Number.NaN));
      case 0x49 /* I */:
        return this.literal("Infinity", new PyFloat(Number.POSITIVE_INFINITY));
      default:
        if (c === 0x2d /* - */ && t.startsWith("-Infinity", this.pos)) {
          return this.literal("-Infinity", new PyFloat(Number.NEGATIVE_INFINITY));
        }
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
        return this.fail("expecting a value", "JSON value");
    }
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("expecting a value", "JSON value");
    this.pos += word.length;
    return value;
  }

  private enter(pointer: string): void {
    this.depth++;
    if (this.depth > this.maxDepth) {
      this.fail(`nesting deeper than ${this.maxDepth} levels`, `nesting depth <= ${this.maxDepth}`, this.pos, pointer);
    }
  }

  private parseObject(pointer: string): JsonObject {
    this.enter(pointer);
    this.pos++; // {
    const out = Object.create(null) as OrderedObject;
    const order: string[] = [];
    Object.defineProperty(out, KEY_ORDER, { value: order, enumerable: false, writable: true, configurable: true });
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d /* } */) {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail("expecting a property name in double quotes", '"');
      const keyStart = this.pos;
      const key = this.parseString();
      const childPointer = `${pointer}/${escapePointer(key)}`;
      if (Object.prototype.hasOwnProperty.call(out, key)) {
        this.fail(`duplicate key ${JSON.stringify(key)}`, "unique keys", keyStart, childPointer);
      }
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) this.fail("expecting ':' delimiter", ":");
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(childPointer);
      defineKey(out, key, value);
      order.push(key);
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c /* , */) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === 0x7d /* } */) {
        this.pos++;
        this.depth--;
        return out;
      }
      this.fail("expecting ',' or '}'", ", or }");
    }
  }

  private parseArray(pointer: string): JsonValue[] {
    this.enter(pointer);
    this.pos++; // [
    const out: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d /* ] */) {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      out.push(this.parseValue(`${pointer}/${out.length}`));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === 0x5d) {
        this.pos++;
        this.depth--;
        return out;
      }
      this.fail("expecting ',' or ']'", ", or ]");
    }
  }

  private parseString(): string {
    const t = this.text;
    const start = this.pos;
    let p = start + 1;
    let out = "";
    let chunkStart = p;
    for (;;) {
      if (p >= t.length) this.fail("unterminated string", '"', start);
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        out += t.slice(chunkStart, p);
        this.pos = p + 1;
        return out;
      }
      if (c < 0x20) this.fail("control character inside a string", "escaped control character", p);
      if (c === 0x5c /* \ */) {
        out += t.slice(chunkStart, p);
        const e = t.charCodeAt(p + 1);
        switch (e) {
          case 0x22: out += '"'; p += 2; break;
          case 0x5c: out += "\\"; p += 2; break;
          case 0x2f: out += "/"; p += 2; break;
          case 0x62: out += "\b"; p += 2; break;
          case 0x66: out += "\f"; p += 2; break;
          case 0x6e: out += "\n"; p += 2; break;
          case 0x72: out += "\r"; p += 2; break;
          case 0x74: out += "\t"; p += 2; break;
          case 0x75: {
            let code = 0;
            for (let i = 2; i < 6; i++) {
              const h = hexValue(t.charCodeAt(p + i));
              if (h < 0) this.fail("invalid \\uXXXX escape", "4 hex digits", p);
              code = code * 16 + h;
            }
            out += String.fromCharCode(code);
            p += 6;
            break;
          }
          default:
            this.fail("invalid escape in string", 'one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u', p);
        }
        chunkStart = p;
        continue;
      }
      p++;
    }
  }

  private parseNumber(): JsonValue {
    const t = this.text;
    const start = this.pos;
    let p = start;
    if (t.charCodeAt(p) === 0x2d) p++;
    const intStart = p;
    const first = t.charCodeAt(p);
    if (first === 0x30) p++;
    else if (first >= 0x31 && first <= 0x39) {
      while (isDigit(t.charCodeAt(p))) p++;
    } else this.fail("expecting a value", "JSON value", start);
    const intEnd = p;
    let isFloat = false;
    if (t.charCodeAt(p) === 0x2e /* . */ && isDigit(t.charCodeAt(p + 1))) {
      isFloat = true;
      p += 2;
      while (isDigit(t.charCodeAt(p))) p++;
    }
    const e = t.charCodeAt(p);
    if (e === 0x65 || e === 0x45) {
      let q = p + 1;
      const s = t.charCodeAt(q);
      if (s === 0x2b || s === 0x2d) q++;
      if (isDigit(t.charCodeAt(q))) {
        isFloat = true;
        while (isDigit(t.charCodeAt(q))) q++;
        p = q;
      }
    }
    // Like Python's scanner, a dangling "." or "e" simply ends the number; the caller then
    // reports the leftover character.
    this.pos = p;
    const literal = t.slice(start, p);
    if (isFloat) return new PyFloat(Number(literal));
    const digits = intEnd - intStart;
    if (digits > MAX_INT_DIGITS) {
      this.fail(`integer literal with ${digits} digits`, `at most ${MAX_INT_DIGITS} digits`, start);
    }
    if (digits <= 15) {
      const n = Number(literal);
      return n === 0 ? 0 : n; // "-0" is the Python int 0
    }
    const big = BigInt(literal);
    if (big >= -MAX_SAFE_BIG && big <= MAX_SAFE_BIG) return Number(big);
    return big;
  }
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(at, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1 };
}

function describeChar(text: string, at: number): string {
  const c = text.charCodeAt(at);
  if (c >= 0x20 && c < 0x7f) return JSON.stringify(text.slice(at, at + 12));
  return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Parses Python's JSON dialect strictly and safely (no `eval`): standard JSON plus the bare tokens
 * `NaN`, `Infinity`, `-Infinity`. Integer literals become `number` within ±(2^53−1) and `bigint`
 * beyond (exactly); literals with a fraction or exponent become {@link PyFloat}. Objects are
 * null-prototype (a `"__proto__"` key is stored as data) and remember their key order. Duplicate
 * keys, a byte order mark, control characters in strings, trailing data, nesting deeper than
 * `maxDepth` and integers longer than 4300 digits (Python's own limit) are rejected with
 * `FormatError` `BAD_JSON`, whose `field` is the position (`"line 3 column 7"`); text longer than
 * `maxLength` is rejected with `SIZE_LIMIT`.
 *
 * @example
 * ```ts
 * const v = parsePythonJson('{"dflt": NaN, "n": 18446744073709551615, "x": 1.0}', "meta/storage");
 * // v.dflt: PyFloat(NaN), v.n: 18446744073709551615n, v.x: PyFloat(1)
 * ```
 */
export function parsePythonJson(text: string, path?: string, options: ParseJsonOptions = {}): JsonValue {
  if (typeof text !== "string") {
    throw new UsageError("INVALID_ARGUMENT", "parsePythonJson needs a string", { path, field: "text", expected: "string", actual: typeof text });
  }
  const maxLength = options.maxLength ?? DEFAULT_MAX_JSON_LENGTH;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (text.length > maxLength) {
    throw new FormatError("SIZE_LIMIT", "JSON text is longer than allowed", {
      path,
      field: "length",
      expected: `<= ${maxLength} characters`,
      actual: text.length,
    });
  }
  return new JsonParser(text, path, maxDepth).parseDocument();
}
