import { FormatError, UsageError } from "@fmt/errors";

/**
 * A Python `float` that came from (or is meant for) a JSON document.
 *
 * Python writes `0.0` and `0` differently and bcolz relies on it (`"dflt": 0.0` for float arrays,
 * `"dflt": 0` for integer arrays), but a JavaScript `number` cannot tell them apart. So the parser
 * returns every number literal that has a fraction or an exponent (`1.0`, `0.5`, `1e-05`, `NaN`,
 * `Infinity`) as a `PyFloat`, and every plain integer literal as a `number` (or a `bigint` beyond
 * ±(2^53−1)). `stringifyPythonJson` writes a `PyFloat` with Python's float `repr`, which makes
 * parse → stringify reproduce Python's output byte for byte. `valueOf()` makes `Number(x)`, `+x`
 * and arithmetic work.
 *
 * @example
 * ```ts
 * const v = parsePythonJson('{"dflt": 0.0}') as { dflt: PyFloat };
 * v.dflt instanceof PyFloat;            // true
 * Number(v.dflt);                       // 0
 * stringifyPythonJson(new PyFloat(1));  // "1.0"
 * ```
 */
export class PyFloat {
  /** The IEEE-754 double value (may be NaN, ±Infinity or −0). */
  readonly value: number;

  constructor(value: number) {
    this.value = value;
    Object.freeze(this);
  }

  /** The number itself, so `Number(x)` and `x + 1` work. */
  valueOf(): number {
    return this.value;
  }

  /** Python's `repr(float)`: `"1.0"`, `"1e-05"`, `"NaN"`. */
  toString(): string {
    return pythonFloatRepr(this.value);
  }

  /** For `JSON.stringify` (non-finite values become `null` there, as usual). */
  toJSON(): number {
    return this.value;
  }
}

/**
 * Shorthand for `new PyFloat(value)`: marks a number to be written as a Python float.
 *
 * @example
 * ```ts
 * stringifyPythonJson({ dflt: pyFloat(0) }); // '{"dflt": 0.0}'
 * ```
 */
export function pyFloat(value: number): PyFloat {
  return new PyFloat(value);
}

/**
 * A JSON object as parsed by {@link parsePythonJson}: a null-prototype object (so a `"__proto__"`
 * key is an ordinary own property) that remembers the order of its keys.
 *
 * @example
 * ```ts
 * const o: JsonObject = parsePythonJson('{"b": 1, "a": 2}') as JsonObject;
 * Object.keys(o); // ["b", "a"]
 * ```
 */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * A value of Python's JSON dialect: `null`, booleans, strings, arrays, objects, Python ints
 * (`number` when within ±(2^53−1), else `bigint`) and Python floats ({@link PyFloat}). A plain
 * `number` that is not a safe integer (`0.5`, `1e300`, `NaN`) is also written as a float.
 *
 * @example
 * ```ts
 * const v: JsonValue = { shape: [10, 3], nbytes: 240n, scale: pyFloat(0.5), ok: true, none: null };
 * ```
 */
export type JsonValue = null | boolean | number | bigint | string | PyFloat | JsonValue[] | JsonObject;

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

/**
 * Hidden per-object key order. JavaScript enumerates integer-like keys ("10") before the others
 * whatever the insertion order, while Python keeps insertion order; recording the parsed order lets
 * {@link stringifyPythonJson} write keys back exactly as they came.
 */
const KEY_ORDER: unique symbol = Symbol("fmt.meta.keyOrder");

type OrderedObject = JsonObject & { [KEY_ORDER]?: string[] };

function defineKey(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Builds a {@link JsonObject} with the given key order (a null-prototype object whose order
 * {@link stringifyPythonJson} honours even for integer-like keys). A repeated key keeps its first
 * position and its last value, like a Python dict.
 *
 * @example
 * ```ts
 * const o = createJsonObject([["b", 1], ["10", 2]]);
 * stringifyPythonJson(o); // '{"b": 1, "10": 2}'
 * ```
 */
export function createJsonObject(entries: Iterable<readonly [string, JsonValue]>): JsonObject {
  const out = Object.create(null) as OrderedObject;
  const order: string[] = [];
  for (const [key, value] of entries) {
    if (!Object.prototype.hasOwnProperty.call(out, key)) order.push(key);
    defineKey(out, key, value);
  }
  Object.defineProperty(out, KEY_ORDER, { value: order, enumerable: false, writable: true, configurable: true });
  return out;
}

/**
 * The keys of a JSON object in the order {@link stringifyPythonJson} writes them: the recorded
 * (parsed or {@link createJsonObject}) order for keys still present, then any keys added later.
 *
 * @example
 * ```ts
 * jsonObjectKeys(parsePythonJson('{"z": 1, "1": 2}') as JsonObject); // ["z", "1"]
 * ```
 */
export function jsonObjectKeys(obj: JsonObject): string[] {
  const own = Object.keys(obj);
  const order = (obj as OrderedObject)[KEY_ORDER];
  if (order === undefined) return own;
  const present = new Set(own);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const key of order) {
    if (present.has(key) && !seen.has(key)) {
      out.push(key);
      seen.add(key);
    }
  }
  for (const key of own) if (!seen.has(key)) out.push(key);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser

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

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
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

// ---------------------------------------------------------------------------------------------
// Serializer

/**
 * Python's `repr()` of a float: the shortest digits that round-trip, in positional notation when
 * the decimal exponent is in [−4, 16), else in scientific notation with a signed, at least
 * two-digit exponent (`1e-05`, `1e+16`, `1.2345678901234568e+17`); positional values always carry a
 * fraction (`1.0`). Non-finite values are spelled the way `json.dumps` does: `NaN`, `Infinity`,
 * `-Infinity`.
 *
 * @example
 * ```ts
 * pythonFloatRepr(1e16);   // "1e+16"
 * pythonFloatRepr(1e15);   // "1000000000000000.0"
 * pythonFloatRepr(0.0001); // "0.0001"
 * pythonFloatRepr(-0);     // "-0.0"
 * ```
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "Infinity";
  if (x === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() without an argument gives the shortest round-tripping digits, like repr.
  const sci = Math.abs(x).toExponential();
  const eAt = sci.indexOf("e");
  const digits = sci.slice(0, eAt).replace(".", "");
  const exp = Number(sci.slice(eAt + 1));
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp >= 0) {
    if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
    return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
}

const SHORT_ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
  0x08: "\\b",
  0x0c: "\\f",
};

/**
 * A JSON string literal the way Python's `json.dumps` (ensure_ascii) writes it: printable ASCII as
 * is, `"`, `\`, `\n`, `\r`, `\t`, `\b`, `\f` as short escapes, every other code unit (controls,
 * DEL, non-ASCII, each half of a surrogate pair) as a lowercase `\uXXXX`.
 *
 * @example
 * ```ts
 * pythonJsonString("naïve ☃"); // '"na\\u00efve \\u2603"'
 * ```
 */
export function pythonJsonString(s: string): string {
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(runStart, i);
    out += SHORT_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, "0")}`;
    runStart = i + 1;
  }
  return `${out}${s.slice(runStart)}"`;
}

// Python's default recursion limit stops json.dumps near this depth too.
const MAX_STRINGIFY_DEPTH = 1000;

/**
 * Serializes like Python's `json.dumps(value)` with default arguments, byte for byte: separators
 * `", "` and `": "`, ASCII only (see {@link pythonJsonString}), `NaN`/`Infinity`/`-Infinity` tokens,
 * floats as Python's `repr` (see {@link pythonFloatRepr}), ints as plain digits. Which numbers are
 * ints: a safe-integer `number` (other than −0) and any `bigint`; floats: {@link PyFloat} and every
 * other `number`. Object keys come out in their recorded order (see {@link jsonObjectKeys}).
 * Throws `UsageError` `INVALID_ARGUMENT` for values JSON cannot hold (undefined, functions,
 * class instances, cycles, nesting deeper than 1000).
 *
 * @example
 * ```ts
 * stringifyPythonJson({ shape: [100000], scale: pyFloat(1), big: 2n ** 64n, bad: NaN });
 * // '{"shape": [100000], "scale": 1.0, "big": 18446744073709551616, "bad": NaN}'
 * ```
 */
export function stringifyPythonJson(value: JsonValue): string {
  const parts: string[] = [];
  const active = new Set<object>();
  write(value, 0, "");
  return parts.join("");

  function bad(pointer: string, reason: string, actual: unknown): never {
    throw new UsageError("INVALID_ARGUMENT", reason, { field: pointer, expected: "a JSON value", actual });
  }

  function write(v: unknown, depth: number, pointer: string): void {
    switch (typeof v) {
      case "string":
        parts.push(pythonJsonString(v));
        return;
      case "boolean":
        parts.push(v ? "true" : "false");
        return;
      case "bigint":
        parts.push(v.toString());
        return;
      case "number":
        parts.push(Number.isSafeInteger(v) && !Object.is(v, -0) ? String(v) : pythonFloatRepr(v));
        return;
      case "object":
        break;
      default:
        bad(pointer, `cannot serialize a ${typeof v}`, typeof v);
    }
    if (v === null) {
      parts.push("null");
      return;
    }
    if (v instanceof PyFloat) {
      parts.push(pythonFloatRepr(v.value));
      return;
    }
    if (depth >= MAX_STRINGIFY_DEPTH) bad(pointer, `nesting deeper than ${MAX_STRINGIFY_DEPTH} levels`, depth);
    if (active.has(v)) bad(pointer, "circular reference", "cycle");
    if (Array.isArray(v)) {
      active.add(v);
      parts.push("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) parts.push(", ");
        if (!(i in v)) bad(`${pointer}/${i}`, "sparse array hole", "hole");
        write(v[i], depth + 1, `${pointer}/${i}`);
      }
      parts.push("]");
      active.delete(v);
      return;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== null && proto !== Object.prototype) {
      bad(pointer, "cannot serialize a class instance", v.constructor?.name ?? "object");
    }
    active.add(v);
    const obj = v as JsonObject;
    parts.push("{");
    let first = true;
    for (const key of jsonObjectKeys(obj)) {
      if (!first) parts.push(", ");
      first = false;
      parts.push(pythonJsonString(key), ": ");
      write(obj[key], depth + 1, `${pointer}/${escapePointer(key)}`);
    }
    parts.push("}");
    active.delete(v);
  }
}

/**
 * A JSON pointer (RFC 6901) built from path segments.
 *
 * @example
 * ```ts
 * jsonPointer(["cparams", "clevel"]); // "/cparams/clevel"
 * jsonPointer([]);                    // ""
 * ```
 */
export function jsonPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${escapePointer(String(s))}`).join("");
}
